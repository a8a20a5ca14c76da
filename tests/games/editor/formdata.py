"""What a browser would submit for a form of an HTML page (for round-trip tests)."""

from __future__ import annotations

from html.parser import HTMLParser

from django.http import QueryDict


class _Fields(HTMLParser):
    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.depth = 0  # >0 while inside the form
        self.fields: list[tuple[str, str]] = []
        self._select: str | None = None
        self._selected: str | None = None
        self._first: str | None = None
        self._textarea: str | None = None
        self._text = ""
        self._option: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == self.form_id:
            self.depth = 1
            return
        if not self.depth:
            return
        if tag == "form":
            self.depth += 1
        name = a.get("name")
        disabled = "disabled" in a
        if tag == "input" and name and not disabled:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields.append((name, a.get("value", "on")))
            elif kind not in ("submit", "button", "file"):
                self.fields.append((name, a.get("value", "")))
        elif tag == "select" and name and not disabled:
            self._select, self._selected, self._first = name, None, None
        elif tag == "option" and self._select is not None:
            self._option = {"value": a.get("value"), "text": "", "selected": "selected" in a}
        elif tag == "textarea" and name and not disabled:
            self._textarea, self._text = name, ""

    def handle_data(self, data):
        if self._textarea is not None:
            self._text += data
        if self._option is not None:
            self._option["text"] += data

    def handle_endtag(self, tag):
        if not self.depth:
            return
        if tag == "form":
            self.depth -= 1
        elif tag == "option" and self._option is not None:
            value = self._option["value"]
            if value is None:
                value = self._option["text"].strip()
            if self._first is None:
                self._first = value
            if self._option["selected"]:
                self._selected = value
            self._option = None
        elif tag == "select" and self._select is not None:
            chosen = self._selected if self._selected is not None else self._first
            if chosen is not None:
                self.fields.append((self._select, chosen))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            self.fields.append((self._textarea, self._text.removeprefix("\n")))
            self._textarea = None


def form_fields(html: str, form_id: str = "variant-form") -> list[tuple[str, str]]:
    """``[(name, value)]`` a browser submits for the form ``form_id`` as drawn."""
    parser = _Fields(form_id)
    parser.feed(html)
    return parser.fields


def form_post(html: str, form_id: str = "variant-form", **changes: str) -> QueryDict:
    """The submitted form as a ``QueryDict``; ``changes`` replace values by name."""
    post = QueryDict(mutable=True)
    seen = set()
    for name, value in form_fields(html, form_id):
        if name in changes:
            if name in seen:
                continue
            seen.add(name)
            value = changes[name]
        post.appendlist(name, value)
    return post
