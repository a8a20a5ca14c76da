"""A form generated from a JSON Schema: build a tree of fields, render it, read it back.

The same walk over (schema, data) serves three purposes:

* ``build`` makes a tree of :class:`Node` objects the templates render (one input per
  scalar, fieldsets for objects, lists and maps with add / remove buttons), with the
  schema's ``title`` / ``description`` as label and help;
* ``parse`` reads a submitted form back into JSON, keeping what could not be read as
  :class:`Invalid` leaves (the raw text and a message), so a bad value is shown as typed,
  with its error, and never loses the rest of the form;
* ``apply_op`` edits the structure (add or remove a list item or map entry) before the
  form is drawn again.

Form names are the data paths, with ``{i}`` for the i-th entry of a map (whose key is an
input of its own): ``village.row_costs[3]``, ``board.play_area{0}.rows[1]``.  Hidden
markers say how many items a list has (``name#n``) and that an object was drawn
(``name#o``).  Errors are attached by *data* path (``board.play_area['3'].rows``), so the
engines' messages find their field whatever the form name.

A game may draw some parts differently (a grid for a village, check boxes for a
footprint): :class:`Widget` subclasses registered for a path pattern take over that
subtree's build (and parse, when their inputs are not the generic ones).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from common.jsonpaths import Path, PathKey, format_path, key_of
from games.data_texts import data_gettext, humanize

#: Upper bound on the items of one submitted list (a form never has more).
MAX_ITEMS = 500


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: Marks a value that is not in the form (an optional field left out).
MISSING: Any = _Missing()


@dataclass
class Invalid:
    """A submitted value that could not be read: shown again as typed, with the message."""

    raw: str
    message: str


# --- schema helpers ------------------------------------------------------------------------------


def kind_of(schema: Mapping) -> str:
    """How a schema is edited: object, map, list, tuple, integer, number, string,
    boolean, enum, nullable (string or null) or json (anything else, as JSON text)."""
    if "enum" in schema:
        return "enum"
    kind = schema.get("type")
    if isinstance(kind, list):
        rest = [k for k in kind if k != "null"]
        if len(rest) == 1 and rest[0] == "string" and "null" in kind:
            return "nullable"
        return "json"
    if kind == "object":
        if schema.get("properties"):
            return "object"
        if isinstance(schema.get("additionalProperties"), dict) or "propertyNames" in schema:
            return "map"
        return "json"
    if kind == "array":
        items = schema.get("items")
        if not isinstance(items, dict):
            return "json"
        return "list"
    if kind in ("integer", "number", "string", "boolean"):
        return kind
    return "json"


SCALARS = frozenset({"integer", "number", "string", "boolean", "enum", "nullable"})


def range_text(schema: Mapping) -> str:
    """``"0–99"``-like help for numbers with bounds."""
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return _("from %(low)s to %(high)s") % {"low": low, "high": high}
    if low is not None:
        return _("at least %(low)s") % {"low": low}
    if high is not None:
        return _("at most %(high)s") % {"high": high}
    return ""


# --- the field tree ------------------------------------------------------------------------------


def slot_of(form: str) -> str:
    """A stable HTML id for a form name (``village.row_costs[3]`` -> ``f-village-row_costs--3``)."""
    text = form.replace("{", "---").replace("[", "--").replace("}", "").replace("]", "")
    text = re.sub(r"[^A-Za-z0-9_-]", "-", text.replace(".", "-"))
    return "f-" + (text or "root")


@dataclass
class Node:
    """One field of the form (a scalar input, or a group of fields)."""

    path: Path
    form: str
    kind: str
    schema: dict
    label: str
    value: Any = None
    help: str = ""
    #: The label is the variant's data (an item's number and name, a map key), not text to
    #: translate: templates mark it ``translate="no"``.
    data_label: bool = False
    children: list[Node] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    required: bool = True
    #: A list item or map entry: it has a remove button.
    removable: bool = False
    #: A list or map that may grow: it has an add button.
    addable: bool = False
    #: Map entries: the key's input name and its value.
    key_form: str = ""
    key_value: str = ""
    template: str = ""
    #: Anything a widget's template needs (pictures, previews).
    extra: dict = field(default_factory=dict)
    #: A widget that shows this field's errors elsewhere (one list for a whole tile
    #: or cell) points the field at that element's slot.
    alias: str = ""

    @property
    def slot(self) -> str:
        return self.alias or slot_of(self.form or "root")

    @property
    def key(self) -> PathKey:
        return key_of(self.path)

    @property
    def path_label(self) -> str:
        return format_path(self.path)

    @property
    def raw(self) -> str:
        """The text an input shows."""
        value = self.value
        if isinstance(value, Invalid):
            return value.raw
        if value is MISSING or value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    @property
    def checked(self) -> bool:
        return self.value is True

    @property
    def options(self) -> list[tuple[str, str]]:
        """``(value, label)`` pairs of an enum."""
        return [(str(v), str(v)) for v in self.schema.get("enum", [])]

    @property
    def invalid(self) -> bool:
        return bool(self.errors)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            yield from child.walk()

    def child(self, step: str | int) -> Node | None:
        """The child at ``path + (step,)``."""
        want = str(step)
        for child in self.children:
            if child.path and str(child.path[-1]) == want:
                return child
        return None


def _form_name(form: str, step: str | int) -> str:
    if isinstance(step, int):
        return f"{form}[{step}]"
    return f"{form}.{step}" if form else step


# --- widgets -------------------------------------------------------------------------------------


class Widget:
    """Draws a part of the form differently; registered for a path pattern.

    The default build is the generic one with another template, so the widget's
    template can place the generic inputs (``node.child(...)``) where it likes and
    parsing stays generic.  Override ``parse`` when the inputs are different (check
    boxes for cells...), and ``decorate`` to add pictures to ``node.extra``.
    """

    template = ""

    def build(self, form: SchemaForm, schema: dict, value: Any, path: Path, name: str,
              **options: Any) -> Node:
        node = form.build_generic(schema, value, path, name, **options)
        node.template = self.template or node.template
        self.decorate(form, node)
        return node

    def decorate(self, form: SchemaForm, node: Node) -> None:
        """Add what the template needs to ``node.extra`` (the default adds nothing)."""

    def parse(self, form: SchemaForm, schema: dict, path: Path, name: str) -> Any:
        return form.parse_generic(schema, path, name)

    def apply_op(self, form: SchemaForm, data: Any, op: str, arg: str) -> bool:
        """Handle a widget's own operation; True when handled."""
        return False


def match_pattern(pattern: tuple[str, ...], key: PathKey) -> bool:
    """``("sites", "*", "footprint")`` matches ``("sites", "2", "footprint")``."""
    if len(pattern) != len(key):
        return False
    return all(p in ("*", k) for p, k in zip(pattern, key, strict=True))


# --- the form ------------------------------------------------------------------------------------


class SchemaForm:
    """The form of one variant: build it from data, or read it from a submission.

    ``widgets`` maps path patterns to widgets; ``context`` is shared with them (the
    engine, the variant data, its rule data for previews).
    """

    def __init__(self, schema: dict, *, widgets: Mapping[tuple[str, ...], Widget] | None = None,
                 context: dict | None = None, hidden: frozenset[str] = frozenset()) -> None:
        self.root_schema = schema
        self.widgets = dict(widgets or {})
        self.context = context if context is not None else {}
        #: Top-level properties not drawn (the variant's name follows the variant).
        self.hidden = hidden
        self.post: Any = None
        self.parse_errors: dict[PathKey, list[str]] = {}
        self.data: Any = None

    # -- schema -----------------------------------------------------------------------------

    def resolve(self, schema: Any) -> dict:
        """Follow local ``$ref``s (``#/$defs/...``), keeping the referrer's description."""
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema and seen < 20:
            ref = schema["$ref"]
            target: Any = None
            if isinstance(ref, str) and ref.startswith("#/"):
                target = self.root_schema
                for part in ref[2:].split("/"):
                    target = target.get(part) if isinstance(target, dict) else None
            if not isinstance(target, dict):
                return {k: v for k, v in schema.items() if k != "$ref"}
            merged = dict(target)
            for key in ("description", "title", "default"):
                if key in schema:
                    merged[key] = schema[key]
            schema = merged
            seen += 1
        return schema if isinstance(schema, dict) else {}

    def widget_for(self, path: Path) -> Widget | None:
        key = key_of(path)
        for pattern, widget in self.widgets.items():
            if match_pattern(pattern, key):
                return widget
        return None

    def default(self, schema: Any) -> Any:
        """A value for a new field: the schema's default, else the smallest valid-looking one."""
        schema = self.resolve(schema)
        if "default" in schema:
            return copy.deepcopy(schema["default"])
        kind = kind_of(schema)
        if kind == "enum":
            return schema["enum"][0] if schema["enum"] else None
        if kind == "object":
            props = schema.get("properties", {})
            return {k: self.default(props[k]) for k in schema.get("required", []) if k in props}
        if kind == "list":
            return [self.default(schema["items"]) for _ in range(schema.get("minItems", 0))]
        if kind == "map":
            return {}
        if kind in ("integer", "number"):
            low = schema.get("minimum")
            return low if low is not None and low > 0 else 0
        if kind == "boolean":
            return False
        if kind == "nullable":
            return None
        if kind == "string":
            return ""
        return None

    # -- build ------------------------------------------------------------------------------

    def build(self, data: Any) -> Node:
        """The field tree of ``data`` (which may hold ``Invalid`` leaves)."""
        return self.build_node(self.root_schema, data, (), "", label=_("Variant"))

    def build_node(self, schema: Any, value: Any, path: Path, name: str, **options: Any) -> Node:
        schema = self.resolve(schema)
        widget = self.widget_for(path) if path else None
        if widget is not None:
            return widget.build(self, schema, value, path, name, **options)
        return self.build_generic(schema, value, path, name, **options)

    def build_generic(self, schema: dict, value: Any, path: Path, name: str, *,
                      label: str = "", required: bool = True, removable: bool = False,
                      key_form: str = "", key_value: str = "") -> Node:
        kind = kind_of(schema)
        if value is MISSING and kind not in SCALARS:
            kind = "absent"
        elif (kind in ("object", "map") and not isinstance(value, dict)) or (
            kind == "list" and not isinstance(value, list)
        ):
            kind = "json"  # data of another shape: edit it as text, the schema complains
        help_text = data_gettext(schema.get("description", ""))
        if kind in ("integer", "number"):
            bounds = range_text(schema)
            help_text = f"{help_text} ({bounds})" if help_text and bounds else help_text or bounds
        node = Node(
            path=path, form=name, kind=kind, schema=schema,
            label=label or data_gettext(schema.get("title", ""))
            or data_gettext(humanize(path[-1] if path else "")),
            value=value, help=help_text, required=required, removable=removable,
            key_form=key_form, key_value=key_value, template=f"editor/form/{kind}.html",
        )
        if kind == "object":
            props = schema.get("properties", {})
            needed = set(schema.get("required", []))
            for prop, sub in props.items():
                if not path and prop in self.hidden:
                    continue
                node.children.append(self.build_node(
                    sub, value.get(prop, MISSING), (*path, prop), _form_name(name, prop),
                    required=prop in needed,
                ))
        elif kind == "list":
            items = self.resolve(schema["items"])
            low, high = schema.get("minItems", 0), schema.get("maxItems")
            fixed = low == high and kind_of(items) in SCALARS
            node.kind = "tuple" if fixed and high is not None and high <= 4 else "list"
            node.template = f"editor/form/{node.kind}.html"
            node.addable = node.kind == "list" and (high is None or len(value) < high)
            for i, item in enumerate(value):
                child = self.build_node(
                    items, item, (*path, i), _form_name(name, i),
                    label=self.item_label(items, item, i),
                    removable=node.kind == "list" and len(value) > low,
                )
                child.data_label = True
                node.children.append(child)
        elif kind == "map":
            sub = self.resolve(schema.get("additionalProperties", {}))
            node.addable = True
            for i, (key, item) in enumerate(value.items()):
                entry = f"{name}{{{i}}}"
                child = self.build_node(
                    sub, item, (*path, key), entry, label=str(key), removable=True,
                    key_form=f"{entry}#key", key_value=str(key),
                )
                child.data_label = True
                node.children.append(child)
        elif kind == "json":
            node.value = value if isinstance(value, Invalid) else _json_text(value)
        return node

    def item_label(self, schema: dict, item: Any, index: int) -> str:
        """``3`` or ``3 · church`` (items with a name)."""
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"]:
            return f"{index + 1} · {item['name']}"
        return str(index + 1)

    # -- parse ------------------------------------------------------------------------------

    def parse(self, post: Any) -> Any:
        """The data of a submitted form (a ``QueryDict``), ``Invalid`` where unreadable."""
        self.post = post
        self.parse_errors = {}
        self.data = self.parse_node(self.root_schema, (), "")
        if self.data is MISSING:
            self.data = {}
        return self.data

    def error(self, path: Path, message: str) -> None:
        """Record a problem found while reading the form."""
        self.parse_errors.setdefault(key_of(path), []).append(message)

    def invalid(self, path: Path, raw: str, message: str) -> Invalid:
        self.error(path, message)
        return Invalid(raw, message)

    def count(self, name: str) -> int | None:
        raw = self.post.get(f"{name}#n")
        if raw is None:
            return None
        try:
            return max(0, min(MAX_ITEMS, int(raw)))
        except ValueError:
            return 0

    def parse_node(self, schema: Any, path: Path, name: str) -> Any:
        schema = self.resolve(schema)
        widget = self.widget_for(path) if path else None
        if widget is not None:
            return widget.parse(self, schema, path, name)
        return self.parse_generic(schema, path, name)

    def parse_generic(self, schema: dict, path: Path, name: str) -> Any:
        kind = kind_of(schema)
        post = self.post
        if kind == "object":
            if path and f"{name}#o" not in post:
                return self._parse_json(path, name)
            out: dict[str, Any] = {}
            for prop, sub in schema.get("properties", {}).items():
                if not path and prop in self.hidden:
                    continue
                value = self.parse_node(sub, (*path, prop), _form_name(name, prop))
                if value is not MISSING:
                    out[prop] = value
            return out
        if kind == "list":
            n = self.count(name)
            if n is None:
                return self._parse_json(path, name)
            items = self.resolve(schema["items"])
            values = []
            for i in range(n):
                value = self.parse_node(items, (*path, i), _form_name(name, i))
                if value is MISSING:
                    value = self.invalid((*path, i), "", _("This field is required."))
                values.append(value)
            return values
        if kind == "map":
            n = self.count(name)
            if n is None:
                return self._parse_json(path, name)
            sub = self.resolve(schema.get("additionalProperties", {}))
            out = {}
            for i in range(n):
                entry = f"{name}{{{i}}}"
                key = (post.get(f"{entry}#key") or "").strip()
                if not key:
                    self.error(path, _("Entry %(n)d has no key.") % {"n": i + 1})
                    continue
                if key in out:
                    self.error(path, _("The key %(key)s appears twice.") % {"key": key})
                    continue
                value = self.parse_node(sub, (*path, key), entry)
                if value is MISSING:
                    value = self.invalid((*path, key), "", _("This field is required."))
                out[key] = value
            return out
        if kind == "boolean":
            values = post.getlist(name)
            if not values:
                return MISSING
            return values[-1] == "true"
        if kind == "json":
            return self._parse_json(path, name)
        raw = post.get(name)
        if raw is None:
            return MISSING
        return self.parse_scalar(kind, schema, path, raw)

    def parse_scalar(self, kind: str, schema: dict, path: Path, raw: str) -> Any:
        text = raw.strip()
        if kind == "integer":
            if not text:
                return self._empty(path, raw)
            try:
                return int(text)
            except ValueError:
                return self.invalid(path, raw, _("Enter a whole number."))
        if kind == "number":
            if not text:
                return self._empty(path, raw)
            try:
                number = float(text)
            except ValueError:
                return self.invalid(path, raw, _("Enter a number."))
            if number != number or number in (float("inf"), float("-inf")):
                return self.invalid(path, raw, _("Enter a number."))
            return int(number) if number.is_integer() and "." not in text else number
        if kind == "enum":
            for option in schema.get("enum", []):
                if str(option) == raw:
                    return option
            return self.invalid(path, raw, _("Choose one of the offered values."))
        if kind == "nullable":
            return raw if raw != "" else None
        if kind == "string":
            if raw == "" and not self._required(path):
                return MISSING
            return raw
        return raw

    def _empty(self, path: Path, raw: str) -> Any:
        if not self._required(path):
            return MISSING
        return self.invalid(path, raw, _("This field is required."))

    def _required(self, path: Path) -> bool:
        """Whether the field at ``path`` must be there (list items and map values must)."""
        if not path or isinstance(path[-1], int):
            return True
        parent = self.schema_at(path[:-1])
        if kind_of(parent) == "object":
            return path[-1] in parent.get("required", [])
        return True

    def schema_at(self, path: Path) -> dict:
        """The (resolved) schema of the field at ``path``."""
        schema = self.resolve(self.root_schema)
        for step in path:
            kind = kind_of(schema)
            if kind == "object":
                schema = self.resolve(schema.get("properties", {}).get(step, {}))
            elif kind == "list":
                schema = self.resolve(schema["items"])
            elif kind == "map":
                schema = self.resolve(schema.get("additionalProperties", {}))
            else:
                return {}
        return schema

    def path_title(self, path: Iterable[str | int]) -> str:
        """A field path as the form labels it: ``village.row_values[0]`` ->
        "Village › Row values › 1" (the schema's translated titles; list items by their
        number from 1; map keys as they are)."""
        schema = self.resolve(self.root_schema)
        steps: list[str] = []
        for step in path:
            kind = kind_of(schema)
            if kind == "list":
                try:
                    steps.append(str(int(step) + 1))
                except (TypeError, ValueError):
                    steps.append(str(step))
                schema = self.resolve(schema["items"])
            elif kind == "object":
                schema = self.resolve(schema.get("properties", {}).get(step, {}))
                steps.append(data_gettext(schema.get("title", ""))
                             or data_gettext(humanize(step)))
            elif kind == "map":
                steps.append(str(step))
                schema = self.resolve(schema.get("additionalProperties", {}))
            else:
                steps.append(str(step))
                schema = {}
        return " › ".join(steps) if steps else _("Variant")

    def _parse_json(self, path: Path, name: str) -> Any:
        raw = self.post.get(f"{name}#json")
        if raw is None:
            return MISSING
        if not raw.strip() and not self._required(path):
            return MISSING
        try:
            return json.loads(raw)
        except ValueError:
            return self.invalid(path, raw, _("Enter valid JSON."))

    # -- structure edits ----------------------------------------------------------------------

    def apply_op(self, data: Any, op: str) -> Any:
        """Apply ``add:<form name>`` / ``remove:<form name>`` / ``set:<form name>`` (or a
        widget's own operation) to parsed data; unknown operations change nothing."""
        verb, _sep, arg = op.partition(":")
        for widget in self.widgets.values():
            if widget.apply_op(self, data, verb, arg):
                return data
        path = self.path_of_form(arg)
        if path is None:
            return data
        if verb == "add":
            target = get_at(data, path)
            schema = self.schema_at(path)
            if isinstance(target, list):
                items = schema.get("items", {})
                target.append(copy.deepcopy(target[-1]) if target else self.default(items))
            elif isinstance(target, dict):
                sub = schema.get("additionalProperties", {})
                target[self.new_key(schema, target)] = (
                    copy.deepcopy(next(reversed(target.values()))) if target
                    else self.default(sub)
                )
        elif verb == "set":
            parent = get_at(data, path[:-1])
            if isinstance(parent, dict) and path[-1] not in parent:
                parent[path[-1]] = self.default(self.schema_at(path))
        elif verb == "remove" and path:
            parent = get_at(data, path[:-1])
            if isinstance(parent, list) and isinstance(path[-1], int) and path[-1] < len(parent):
                del parent[path[-1]]
            elif isinstance(parent, dict):
                parent.pop(path[-1], None)
        return data

    def new_key(self, schema: dict, existing: Mapping) -> str:
        """A fresh key for a map: the next number when keys are numbers, else ``key N``."""
        pattern = (schema.get("propertyNames") or {}).get("pattern", "")
        numeric = pattern in ("^[0-9]+$", r"^\d+$") or (
            existing and all(str(k).isdigit() for k in existing)
        )
        if numeric:
            return str(max((int(k) for k in existing if str(k).isdigit()), default=0) + 1)
        n = len(existing) + 1
        while f"key{n}" in existing:
            n += 1
        return f"key{n}"

    def path_of_form(self, name: str) -> Path | None:
        """The data path of a form name, read against the submitted map keys."""
        path: list[str | int] = []
        pos = 0
        prefix = ""
        token = re.compile(r"\[(\d+)\]|\{(\d+)\}|\.?([A-Za-z_][\w-]*)")
        while pos < len(name):
            match = token.match(name, pos)
            if match is None:
                return None
            index, entry, prop = match.groups()
            if index is not None:
                path.append(int(index))
            elif entry is not None:
                key = (self.post.get(f"{prefix}{{{entry}}}#key") or "").strip() if self.post else ""
                if not key:
                    return None
                path.append(key)
            else:
                path.append(prop)
            prefix += match.group(0)
            pos = match.end()
        return tuple(path)


def _json_text(value: Any) -> str:
    if value is MISSING:
        return ""
    return json.dumps(value, indent=1, ensure_ascii=False)


# --- data with Invalid leaves --------------------------------------------------------------------


def get_at(data: Any, path: Path) -> Any:
    """The value at ``path`` (``None`` when there is none)."""
    for step in path:
        if isinstance(data, dict):
            data = data.get(step)
        elif isinstance(data, list) and isinstance(step, int) and 0 <= step < len(data):
            data = data[step]
        else:
            return None
    return data


def to_json(data: Any) -> Any:
    """``data`` with every ``Invalid`` leaf replaced by ``None`` (for validation)."""
    if isinstance(data, Invalid):
        return None
    if isinstance(data, dict):
        return {k: to_json(v) for k, v in data.items() if v is not MISSING}
    if isinstance(data, list):
        return [to_json(v) for v in data if v is not MISSING]
    return data


def has_invalid(data: Any) -> bool:
    if isinstance(data, Invalid):
        return True
    if isinstance(data, dict):
        return any(has_invalid(v) for v in data.values())
    if isinstance(data, list):
        return any(has_invalid(v) for v in data)
    return False


# --- errors onto fields --------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldError:
    """One message, the path it names (``village.rows``; ``title``: the same by the
    schema's translated titles, "Village › Rows") and the slot of the field that shows it."""

    slot: str
    path: str
    message: str
    title: str = ""


def attach_errors(root: Node, errors: Mapping[PathKey, list[str]],
                  title: Callable[[PathKey], str] | None = None) -> list[FieldError]:
    """Put each message on the deepest drawn field whose path starts its path.

    A message for a field the form does not draw (a removed item, a hidden property)
    lands on the nearest ancestor, at worst on the form itself: nothing is dropped.
    ``title`` names each path for the summary (``SchemaForm.path_title``).
    """
    index: dict[PathKey, Node] = {node.key: node for node in root.walk()}
    placed: list[FieldError] = []
    for key, messages in errors.items():
        target = None
        for cut in range(len(key), -1, -1):
            target = index.get(key[:cut])
            if target is not None:
                break
        target = target or root
        for message in messages:
            if message not in target.errors:
                target.errors.append(message)
            placed.append(FieldError(target.slot, format_path(key) if key else "", message,
                                     _key_title(key, title)))
    return placed


def _key_title(key: PathKey, title: Callable[[PathKey], str] | None) -> str:
    """A path key by its titles (``path_title`` reads each step against its schema, so
    the ``"0"`` of a list is its item 1)."""
    if not key:
        return ""
    return format_path(key) if title is None else title(key)


def merge_errors(parse_errors: Mapping[PathKey, list[str]],
                 problems: Mapping[PathKey, list[str]]) -> dict[PathKey, list[str]]:
    """Parse errors win over the schema's complaint about the same (unreadable) field."""
    merged = {key: list(messages) for key, messages in parse_errors.items()}
    for key, messages in problems.items():
        if key in parse_errors:
            continue
        merged.setdefault(key, []).extend(m for m in messages if m not in merged.get(key, []))
    return merged


ErrorSource = Callable[[Any], Mapping[PathKey, list[str]]]
