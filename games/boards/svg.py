"""Small helpers to build SVG as a real element tree.

Boards build their drawings with :func:`el` and turn the finished tree into markup with
:func:`markup`.  Every attribute value and text node is escaped when it enters the tree
(exactly as ``xml.etree.ElementTree`` escapes them), so data from the database (variant
names, numbers an admin typed) can never break out of the drawing; that is why the result
may be marked safe, and why no board formats SVG with f-strings.

The tree is a minimal one of its own rather than ElementTree's: drawings are rendered on
every move for every kind of viewer, and building and serialising ElementTree nodes was a
third of a board's render.  The markup is the same, character for character.

>>> root = svg(0, 0, 10, 10, label="A <b>")
>>> _ = el(root, "rect", x=1, y=2.5, width=3, height=3, class_="cell")
>>> str(markup(root))
'<svg viewBox="0 0 10 10" role="img" aria-label="A &lt;b&gt;"><rect x="1" y="2.5" \
width="3" height="3" class="cell" /></svg>'
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

__all__ = ["Element", "Look", "drawing_cache", "el", "markup", "num", "palette", "svg"]

F = TypeVar("F", bound=Callable[..., SafeString])


class Element:
    """One SVG element: its start tag (attributes already escaped), text and children."""

    __slots__ = ("children", "start", "tag", "text")

    def __init__(self, tag: str, attrs: str, text: str) -> None:
        self.tag = tag
        self.start = f"<{tag}{attrs}"
        self.text = text  # escaped; "" for none
        self.children: list[Element] = []


def num(value: float) -> str:
    """A coordinate as short text: ``3.0`` -> ``3``, ``2.3333`` -> ``2.33``."""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _escape_text(text: str) -> str:
    """Character data escaped as ElementTree does."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _escape_attribute(text: str) -> str:
    """An attribute value escaped as ElementTree does (quotes and line breaks too)."""
    text = _escape_text(text)
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "\r" in text:
        text = text.replace("\r", "&#13;")
    if "\n" in text:
        text = text.replace("\n", "&#10;")
    if "\t" in text:
        text = text.replace("\t", "&#09;")
    return text


#: Python keyword -> attribute name: class_ -> class, stroke_width -> stroke-width.
_NAMES: dict[str, str] = {}


def _attrs(attrs: dict[str, Any]) -> str:
    """`` name="value"`` for each attribute that is not ``None``/False, escaped."""
    out = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = _NAMES.get(key)
        if name is None:
            name = _NAMES.setdefault(key, key.rstrip("_").replace("_", "-"))
        if isinstance(value, float | int) and not isinstance(value, bool):
            out.append(f' {name}="{num(value)}"')
        else:
            out.append(f' {name}="{_escape_attribute(str(value))}"')
    return "".join(out)


def el(parent: Element | None, tag: str, text: Any = None, **attrs: Any) -> Element:
    """A new element (a child of ``parent`` when given); ``None``/False attributes are left out."""
    node = Element(tag, _attrs(attrs), "" if text is None else _escape_text(str(text)))
    if parent is not None:
        parent.children.append(node)
    return node


def svg(x: float, y: float, w: float, h: float, *, label: str = "", **attrs: Any
        ) -> Element:
    """An ``<svg>`` root with the view box ``x y w h``; ``label`` names the picture for
    screen readers (an unlabelled drawing is hidden from them)."""
    return el(
        None,
        "svg",
        viewBox=f"{num(x)} {num(y)} {num(w)} {num(h)}",
        role="img" if label else None,
        aria_label=label or None,
        aria_hidden=None if label else "true",
        **attrs,
    )


def _write(node: Element, out: list[str]) -> None:
    out.append(node.start)
    if node.text or node.children:
        out.append(">")
        out.append(node.text)
        for child in node.children:
            _write(child, out)
        out.append(f"</{node.tag}>")
    else:
        out.append(" />")


def markup(root: Element) -> SafeString:
    """The tree as HTML-embeddable markup (every value was escaped on the way in)."""
    out: list[str] = []
    _write(root, out)
    return mark_safe("".join(out))


# --- looks: how a game's named things (resources, colours) are drawn ----------------------------


@dataclasses.dataclass(frozen=True)
class Look:
    """How one of a game's named things is drawn: its place in the variant's list, its
    name and translated label, its fill colour and its ink (text on it).  Each board
    subclasses it with its own ids (patterns, icons, cubes) and marks."""

    index: int
    name: str
    label: str
    fill: str
    ink: str


def palette(names: Iterable[str], known: Mapping[str, tuple], fallback: Sequence[tuple]
            ) -> list[tuple[int, str, tuple, int | None]]:
    """``(index, name, style, extra)`` for each name, in order: the game's own names get
    their ``known`` style; a variant's own names get the ``fallback`` styles in turn, and
    ``extra`` counts them (``None`` for a known name), for marks that cycle the same way.

    >>> palette(["wheat", "gold", "silk"], {"wheat": ("#e8b923",)}, [("#c2185b",)])
    [(0, 'wheat', ('#e8b923',), None), (1, 'gold', ('#c2185b',), 0), (2, 'silk', ('#c2185b',), 1)]
    """
    out: list[tuple[int, str, tuple, int | None]] = []
    extra = 0
    for index, name in enumerate(names):
        if name in known:
            out.append((index, name, known[name], None))
        else:
            out.append((index, name, fallback[extra % len(fallback)], extra))
            extra += 1
    return out


# --- remembering drawings ----------------------------------------------------------------------


class _Uncachable(Exception):
    """An argument that is not plain data: the drawing is made afresh."""


def _plain(value: Any) -> Any:
    """A hashable stand-in for plain data, equal exactly when the data is equal (types too:
    ``1``, ``1.0`` and ``True`` differ); anything else raises ``_Uncachable``."""
    kind = type(value)
    if value is None or kind in (str, int, bool, SafeString):
        return (kind.__name__, value)
    if kind is float:  # by its text: 0.0 and -0.0 are equal but not drawn alike
        return ("float", repr(value))
    if kind in (list, tuple):
        return (kind.__name__, tuple(_plain(v) for v in value))
    if kind is dict:  # in order: a drawing may draw in its order
        return ("dict", tuple((_plain(k), _plain(v)) for k, v in value.items()))
    if kind in (set, frozenset):
        return ("set", frozenset(_plain(v) for v in value))
    if dataclasses.is_dataclass(value) and kind.__dataclass_params__.frozen:
        return (kind.__qualname__, tuple(_plain(getattr(value, f.name))
                                         for f in dataclasses.fields(value)))
    raise _Uncachable(kind.__name__)


def drawing_cache(size: int = 256) -> Callable[[F], F]:
    """Remember a drawing's markup per arguments and language (the last ``size`` ones).

    For functions of plain data only (what ``observe`` and ``rule_data`` give: dicts,
    lists, strings, numbers, frozen dataclasses): the key is the whole of every argument,
    so equal keys mean equal drawings and no viewer can get another's.  Most of a board
    stays the same from one move to the next (villages, the defs), so most drawings of a
    render are found here.  Any other argument draws afresh.
    """

    def decorate(func: F) -> F:
        entries: OrderedDict[Any, SafeString] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(func)
        def cached(*args: Any, **kwargs: Any) -> SafeString:
            try:
                key = (get_language(), _plain(args), _plain(kwargs))
            except _Uncachable:
                return func(*args, **kwargs)
            with lock:
                found = entries.get(key)
                if found is not None:
                    entries.move_to_end(key)
                    return found
            drawn = func(*args, **kwargs)
            with lock:
                entries[key] = drawn
                while len(entries) > size:
                    entries.popitem(last=False)
            return drawn

        cached.cache_clear = entries.clear  # type: ignore[attr-defined]
        return cached  # type: ignore[return-value]

    return decorate
