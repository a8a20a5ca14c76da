"""The translation catalogues are complete: every marked string of the sources is in every
catalogue, translated, not fuzzy, with the same placeholders; the pure-Python compiler gives
what Django reads.

When one of these fails after you added or changed user-facing text: run ``make messages``,
then translate the new entries of ``locale/{de,fr,it}/LC_MESSAGES/django.po`` (README,
"Translations").
"""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from config.catalogues import (
    Entry,
    compile_catalogues,
    mo_bytes,
    python_messages,
    read_po,
    source_messages,
    template_messages,
)
from games import data_texts

LOCALE = Path(settings.LOCALE_PATHS[0])
TRANSLATED = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
DOMAINS = ["django"]
# Python's %-directives: named ("%(n)s", "%(share).1f") or positional ("%s", "%d").
PLACEHOLDER = re.compile(r"%(?:\([^)]+\))?[-#0 +]*\d*(?:\.\d+)?[sdifr%]")


@pytest.fixture(scope="module")
def marked() -> dict:
    return source_messages()


def catalogue(lang: str, domain: str = "django") -> list[Entry]:
    return read_po(LOCALE / lang / "LC_MESSAGES" / f"{domain}.po")


def placeholders(text: str) -> list[str]:
    return sorted(p for p in PLACEHOLDER.findall(text) if p != "%%")


def test_every_language_has_a_catalogue() -> None:
    assert TRANSLATED == ["de", "fr", "it"]
    for lang in TRANSLATED:
        for domain in DOMAINS:
            assert (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").is_file(), (lang, domain)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_source_string_is_in_the_catalogue(lang: str, marked: dict) -> None:
    """New text in a template or module is missing until ``make messages`` adds it."""
    have = {(e.msgctxt, e.msgid, e.msgid_plural) for e in catalogue(lang) if e.msgid}
    missing = {key: where for key, where in marked.items() if key not in have}
    assert not missing, (
        f"{len(missing)} marked strings are not in locale/{lang}: run `make messages` and "
        "translate them:\n" + "\n".join(f"  {k[1]!r} ({', '.join(w)})" for k, w in missing.items())
    )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_entry_is_translated_and_not_fuzzy(lang: str) -> None:
    for domain in DOMAINS:
        entries = catalogue(lang, domain)
        header = entries[0]
        assert header.msgid == "" and not header.fuzzy, "the header must not be fuzzy"
        assert f"Language: {lang}\n" in header.msgstr[0]
        bad = [e for e in entries[1:] if not e.translated]
        assert not bad, f"{len(bad)} untranslated or fuzzy entries in {lang}/{domain}.po:\n" + (
            "\n".join(f"  line {e.line}: {e.msgid!r}" for e in bad)
        )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_the_placeholders(lang: str) -> None:
    """``%(name)s`` in a translation must be the same set as in the English text."""
    wrong = []
    for e in catalogue(lang)[1:]:
        if "no-python-format" in e.flags:
            continue
        sources = [e.msgid] if e.msgid_plural is None else [e.msgid_plural]
        expected = placeholders(sources[0])
        for form in e.msgstr:
            got = placeholders(form)
            # A singular form may leave the count out ("one building" for "%(n)s building").
            if got != expected and not (e.msgid_plural and set(got) <= set(expected)):
                wrong.append(f"  line {e.line}: {e.msgid!r} -> {form!r}")
    assert not wrong, "placeholders differ:\n" + "\n".join(wrong)


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """The reader sees an empty, a fuzzy and a plural entry for what they are."""
    po = tmp_path / "x.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n\n'
        'msgid "a"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "b"\nmsgstr "B"\n\n'
        'msgid "%(n)s c"\nmsgid_plural "%(n)s cs"\nmsgstr[0] "%(n)s C"\nmsgstr[1] ""\n\n'
        '#~ msgid "old"\n#~ msgstr "alt"\n\n'
        'msgctxt "k"\nmsgid "d"\nmsgstr "D"\n',
        encoding="utf-8",
    )
    entries = read_po(po)
    assert [e.msgid for e in entries] == ["", "a", "b", "%(n)s c", "d"]
    assert [e.translated for e in entries[1:]] == [False, False, False, True]
    assert entries[4].msgctxt == "k"
    assert placeholders("%(n)s of %(total)d, 95%% %s") == ["%(n)s", "%(total)d", "%s"]


def test_extraction_finds_python_and_template_strings(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from django.utils.translation import gettext as _, ngettext, pgettext_lazy\n"
        "_('one')\nngettext('%(n)s a', '%(n)s as', 2)\npgettext_lazy('ctx', 'two')\n"
        "_(variable)\nprint('not marked')\n"
    )
    assert python_messages(module) == {
        (None, "one", None), (None, "%(n)s a", "%(n)s as"), ("ctx", "two", None)}
    template = tmp_path / "t.html"
    template.write_text(
        "{% load i18n %}<p>{% translate \"It's here\" %}</p>{% blocktranslate count n=k %}"
        "{{ n }} x{% plural %}{{ n }} xs{% endblocktranslate %}{% include 'a' with t=_('y') %}"
        "<p>Plain text</p>"
    )
    assert template_messages(template) == {
        (None, "It's here", None), (None, "%(n)s x", "%(n)s xs"), (None, "y", None)}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalogue_is_what_django_reads(lang: str, tmp_path: Path) -> None:
    """The pure-Python .mo holds every translation (plurals included) and Django uses it."""
    entries = catalogue(lang)
    mo = tmp_path / "x.mo"
    mo.write_bytes(mo_bytes(entries))
    with mo.open("rb") as fh:
        compiled = gettext.GNUTranslations(fh)
    for e in entries[1:]:
        if e.msgid_plural is None and e.msgctxt is None:
            assert compiled.gettext(e.msgid) == e.msgstr[0]
        elif e.msgid_plural is not None and e.msgctxt is None:
            assert compiled.ngettext(e.msgid, e.msgid_plural, 1) == e.msgstr[0]
            assert compiled.ngettext(e.msgid, e.msgid_plural, 5) == e.msgstr[1]
    compile_catalogues()  # what `make install` does; a no-op when up to date
    with translation.override(lang):
        assert translation.gettext("Lobby") == next(e.msgstr[0] for e in entries
                                                     if e.msgid == "Lobby")
        assert translation.gettext("Log in") != "Log in"


def test_the_engines_texts_are_listed() -> None:
    """games/data_texts.py lists the engines' current texts (`make messages` makes it)."""
    source = Path(data_texts.__file__).read_text(encoding="utf-8")
    assert data_texts.generated_block(data_texts.collect()) in source, (
        "games/data_texts.py is stale: run `make messages`"
    )
    assert data_texts.data_gettext("") == "" and data_texts.data_gettext(None) == ""
    with translation.override("de"):
        assert data_texts.data_gettext(data_texts.TEXTS[0]) != data_texts.TEXTS[0]
        assert data_texts.data_gettext("Typed by an admin") == "Typed by an admin"
