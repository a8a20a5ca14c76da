"""Request parsers of the API.

In their own module: ``DEFAULT_PARSER_CLASSES`` names this class, and DRF imports
it while ``rest_framework.views`` is still loading, so it must not import the views.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class SafeJSONParser(JSONParser):
    """DRF's JSON parser, but deeply nested JSON is a 400, not a ``RecursionError`` (500)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_("JSON parse error - the document is nested too deeply.")) from None
        if _has_nul(data):
            # PostgreSQL refuses NUL in text and JSON: no real request needs one.
            raise ParseError(_("JSON parse error - NUL characters are not allowed."))
        return data


def _has_nul(value: object) -> bool:
    """True when a string anywhere in ``value`` (keys included) holds a NUL character."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
