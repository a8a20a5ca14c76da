"""Problems of variant data as the engines report them: English text with its parts.

``validate_variant`` returns a list of :class:`Problem`.  A problem *is* its English line
(a ``str`` subclass: ``"village.col_values[0]: -1 is less than the minimum of 0"``), so
everything that reads problems as text (the API, logs, ``InvalidVariant``) is unchanged;
it also carries what a translation needs, so the engines stay pure and speak English
while the web layer shows the problem in the reader's language:

* ``path``: the field at fault, as keys and list indices (``("village", "col_values", 0)``);
* ``template``: the message as a catalogue text with named placeholders
  (``"must be at least %(limit)s"``), one of the engine's ``PROBLEM_TEMPLATES`` or of
  :data:`SCHEMA_TEMPLATES`; ``games/data_texts.py`` collects them for the catalogues;
* ``params``: the values of the placeholders.  Most are numbers or data (shown as they
  are); a :class:`FieldRef` names another field (the editor shows it by its schema titles),
  a :class:`Term` is a word of :data:`TERMS` (translated), :class:`Several` lists either.

``message`` is the English text after the path (``str(problem)`` is ``label: message``);
it is ``template % params`` for the engines' own checks and jsonschema's English message
for the schema's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "SCHEMA_TEMPLATES",
    "TERMS",
    "FieldRef",
    "Problem",
    "Several",
    "Term",
    "schema_problem",
]

Path = tuple[str | int, ...]


class FieldRef(str):
    """Another field named inside a message: its English label (``turns_per_player``)
    and its ``path``; ``short`` names it by its own title only (a property of the field
    at fault)."""

    path: Path
    short: bool

    def __new__(cls, label: str, path: Iterable[str | int], *, short: bool = False
                ) -> FieldRef:
        self = super().__new__(cls, label)
        self.path = tuple(path)
        self.short = short
        return self

    def __reduce__(self) -> Any:
        return (_field_ref, (str(self), self.path, self.short))


def _field_ref(label: str, path: Path, short: bool) -> FieldRef:
    return FieldRef(label, path, short=short)


class Term(str):
    """A word from :data:`TERMS` inside a message (a JSON type): translated where shown."""

    def __reduce__(self) -> Any:
        return (Term, (str(self),))


class Several(tuple):
    """Several terms or fields in one placeholder, listed with ", "."""

    def __str__(self) -> str:
        return ", ".join(map(str, self))


class Problem(str):
    """One problem of variant data (see the module's docstring)."""

    label: str
    path: Path
    template: str
    params: dict[str, Any]
    message: str

    def __new__(cls, label: str, path: Iterable[str | int], template: str,
                params: Mapping[str, Any] | None = None, *, message: str | None = None,
                ) -> Problem:
        params = dict(params or {})
        if message is None:
            message = template % params if params else template
        self = super().__new__(cls, f"{label}: {message}" if label else message)
        self.label = label
        self.path = tuple(path)
        self.template = template
        self.params = params
        self.message = message
        return self

    def __reduce__(self) -> Any:
        return (_problem, (self.label, self.path, self.template, self.params, self.message))


def _problem(label: str, path: Path, template: str, params: dict, message: str) -> Problem:
    return Problem(label, path, template, params, message=message)


class Templates:
    """Collects an engine's message templates as they are defined (``T = Templates();
    UNKNOWN = T("unknown resource %(name)s")``); ``T.all`` lists them."""

    def __init__(self) -> None:
        self.all: list[str] = []

    def __call__(self, template: str) -> str:
        self.all.append(template)
        return template


# --- the JSON Schema's messages -------------------------------------------------------------

_T = Templates()
#: JSON types as a message names them ("must be %(type)s").
TYPE_TERMS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "a text",
    "boolean": "true or false",
    "array": "a list",
    "object": "a group of fields",
    "null": "empty (null)",
}
TERMS = tuple(TYPE_TERMS.values())

MUST_BE_TYPE = _T("must be %(type)s")
MUST_BE_TYPES = _T("must be one of: %(types)s")
REQUIRED = _T("%(field)s is missing")
MINIMUM = _T("must be at least %(limit)s")
MAXIMUM = _T("must be at most %(limit)s")
EXCLUSIVE_MINIMUM = _T("must be more than %(limit)s")
EXCLUSIVE_MAXIMUM = _T("must be less than %(limit)s")
MULTIPLE_OF = _T("must be a multiple of %(limit)s")
MIN_ITEMS_ONE = _T("must not be empty")
MIN_ITEMS = _T("too few items: at least %(limit)s needed")
MAX_ITEMS = _T("too many items: at most %(limit)s allowed")
UNIQUE_ITEMS = _T("has repeated items")
MIN_LENGTH = _T("too short: at least %(limit)s characters")
MAX_LENGTH = _T("too long: at most %(limit)s characters")
MIN_PROPERTIES = _T("too few entries: at least %(limit)s needed")
MAX_PROPERTIES = _T("too many entries: at most %(limit)s allowed")
PATTERN = _T("%(value)s does not match the pattern %(pattern)s")
KEY_PATTERN = _T("the key %(value)s does not match the pattern %(pattern)s")
ENUM = _T("must be one of %(options)s")
CONST = _T("must be %(value)s")
ADDITIONAL = _T("fields that do not belong here: %(names)s")
OTHER = _T("does not fit the schema (%(rule)s)")
SCHEMA_TEMPLATES = tuple(_T.all)


def schema_problem(error: Any, label: str) -> Problem:
    """A jsonschema ``ValidationError`` as a problem: its English line as before
    (``label: error.message``), with a template by the rule it breaks."""
    kind, limit, instance = error.validator, error.validator_value, error.instance
    path = tuple(error.absolute_path)
    template, params = OTHER, {"rule": str(kind)}
    if kind == "type":
        types = [limit] if isinstance(limit, str) else list(limit)
        terms = [Term(TYPE_TERMS.get(t, t)) for t in types]
        if len(terms) == 1:
            template, params = MUST_BE_TYPE, {"type": terms[0]}
        else:
            template, params = MUST_BE_TYPES, {"types": Several(terms)}
    elif kind == "required":
        missing = [name for name in limit if isinstance(instance, dict) and name not in instance]
        name = missing[0] if len(missing) == 1 else _quoted_name(error.message)
        template, params = REQUIRED, {"field": FieldRef(name, (*path, name), short=True)}
    elif kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                  "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"):
        template = {
            "minimum": MINIMUM, "maximum": MAXIMUM, "exclusiveMinimum": EXCLUSIVE_MINIMUM,
            "exclusiveMaximum": EXCLUSIVE_MAXIMUM, "multipleOf": MULTIPLE_OF,
            "maxItems": MAX_ITEMS, "minLength": MIN_LENGTH, "maxLength": MAX_LENGTH,
            "minProperties": MIN_PROPERTIES, "maxProperties": MAX_PROPERTIES,
        }[kind]
        if kind in ("minLength", "minProperties") and limit == 1:
            template = MIN_ITEMS_ONE
        params = {"limit": limit}
    elif kind == "minItems":
        template, params = (MIN_ITEMS_ONE, {}) if limit == 1 else (MIN_ITEMS, {"limit": limit})
    elif kind == "uniqueItems":
        template, params = UNIQUE_ITEMS, {}
    elif kind == "pattern":
        key = "propertyNames" in list(error.relative_schema_path)
        template = KEY_PATTERN if key else PATTERN
        params = {"value": repr(instance), "pattern": repr(limit)}
    elif kind == "enum":
        template, params = ENUM, {"options": repr(limit)}
    elif kind == "const":
        template, params = CONST, {"value": repr(limit)}
    elif kind == "additionalProperties" and isinstance(instance, dict):
        known = (error.schema or {}).get("properties", {}) if isinstance(error.schema, dict) \
            else {}
        extra = [name for name in instance if name not in known]
        template, params = ADDITIONAL, {"names": ", ".join(map(repr, extra))}
    return Problem(label, path, template, params, message=error.message)


def _quoted_name(message: str) -> str:
    """``'market_size' is a required property`` -> ``market_size``."""
    head = message.split(" is a required property", 1)[0]
    return head[1:-1] if len(head) >= 2 and head[0] == head[-1] and head[0] in "'\"" else head
