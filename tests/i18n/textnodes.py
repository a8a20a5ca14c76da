"""What a reader sees of an HTML page, and which of it is still English.

Shared by the test-client walk (``tests/i18n/test_pages.py``) and the browser walk
(``tests/e2e/test_i18n_e2e.py``). A page's *texts* are its visible text nodes plus the
attributes that are read to the user (``title``, ``aria-label``, ``placeholder``, ``alt``,
the ``data-*`` messages that JavaScript shows). Elements marked ``translate="no"`` (HTML's
own "do not translate" flag: the brand, user names, language names in the switcher),
elements of unknown language (``lang=""``: what an admin typed, shown as typed in every
language) and ``<script>``/``<style>`` are not text.

A text of the translated page that is also a text of the English page is *untranslated*,
unless nothing is left of it once names (users, variants, games), numbers and punctuation
are taken out, or it is on the reviewed allow-list of its language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser

#: Attributes a reader hears or sees.
READ_ATTRIBUTES = {
    "title", "aria-label", "placeholder", "alt", "data-offline", "data-copied", "data-empty",
    "data-server", "data-network", "data-busy", "data-refused", "data-text",
}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
#: Not text: code, and what a form field holds (the variant's data in the rules editor).
SKIP = {"script", "style", "template", "noscript", "textarea"}

#: Words that are the same in English and the language, reviewed one by one: proper names,
#: codes and words each language borrowed. Keep it short: anything else is a missing
#: translation.
ALLOWED: dict[str, set[str]] = {
    # Nouvelle-France's allies keep their French names in every rulebook; "Standard", the
    # shipped standard variant's name, is the same word in German, French and Italian.
    "common": {"Colonia", "JSON", "API", "MB", "CSV", "Fille du Roy", "Coureur des bois",
               "Huron", "Standard"},
    "de": {"Lobby", "Name", "Hand", "Version", "Bots", "Seed", "Worker", "Export"},
    # French "Main" is the hand (English "Main" is the navigation's name); "pt(s)": points.
    "fr": {"Table", "Version", "Points", "Villages", "Simulation", "Bots", "Worker", "Main",
           "pt", "pts", "Message", "Total", "Description", "Village", "col"},
    "it": {"Lobby", "Bot", "Worker", "Password", "Email", "Replay", "no", "col"},
}


class _Texts(HTMLParser):
    def __init__(self, skip_ids: Iterable[str] = ()) -> None:
        super().__init__(convert_charrefs=True)
        self.skip_ids = set(skip_ids)
        self.stack: list[tuple[str, bool]] = []  # (tag, hidden)
        self.texts: list[str] = []

    @property
    def hidden(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        hidden = (self.hidden or tag in SKIP or values.get("translate") == "no"
                  or values.get("lang") == "" or values.get("id") in self.skip_ids)
        if not hidden:
            for name, value in attrs:
                if name in READ_ATTRIBUTES and value:
                    self.texts.append(value)
            if tag == "input" and values.get("type") in ("submit", "button") and values.get(
                    "value"):
                self.texts.append(values["value"] or "")
        if tag not in VOID:
            self.stack.append((tag, hidden))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        hidden = self.hidden or dict(attrs).get("translate") == "no"
        if not hidden:
            self.texts.extend(v for n, v in attrs if n in READ_ATTRIBUTES and v)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.texts.append(data)


def texts(html: str, skip_ids: Iterable[str] = ()) -> set[str]:
    """The visible texts of a page, whitespace collapsed (without the elements whose ids
    are in ``skip_ids``)."""
    parser = _Texts(skip_ids)
    parser.feed(html)
    parser.close()
    return {t for t in (" ".join(raw.split()) for raw in parser.texts) if t}


def _residue(text: str, names: Iterable[str]) -> str:
    for name in sorted(names, key=len, reverse=True):
        if name:
            text = text.replace(name, " ")
    return " ".join(re.findall(r"[^\W\d_]{2,}", text))


def untranslated(translated_html: str, english_html: str, lang: str,
                 names: Iterable[str] = (), skip_ids: Iterable[str] = ()) -> list[str]:
    """Texts of the translated page that are the English page's, names and allow-list aside."""
    names = set(names)
    allowed = ALLOWED["common"] | ALLOWED.get(lang, set())
    english = texts(english_html, skip_ids)
    found = []
    for text in sorted(texts(translated_html, skip_ids) & english):
        residue = _residue(text, names | allowed)
        if residue:
            found.append(text)
    return found
