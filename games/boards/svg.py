"""Small helpers to build SVG as a real element tree (``xml.etree.ElementTree``).

Boards build their drawings with :func:`el` and turn the finished tree into markup with
:func:`markup`.  ElementTree escapes every attribute value and text node, so data from the
database (variant names, numbers an admin typed) can never break out of the drawing; that
is why the result may be marked safe, and why no board formats SVG with f-strings.

>>> root = svg(0, 0, 10, 10, label="A <b>")
>>> _ = el(root, "rect", x=1, y=2.5, width=3, height=3, class_="cell")
>>> str(markup(root))
'<svg viewBox="0 0 10 10" role="img" aria-label="A &lt;b&gt;"><rect x="1" y="2.5" \
width="3" height="3" class="cell" /></svg>'
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from django.utils.safestring import SafeString, mark_safe

__all__ = ["el", "markup", "num", "svg"]


def num(value: float) -> str:
    """A coordinate as short text: ``3.0`` -> ``3``, ``2.3333`` -> ``2.33``."""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attrs(attrs: dict[str, Any]) -> dict[str, str]:
    out = {}
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        # Python names: class_ -> class, stroke_width -> stroke-width, data_cell -> data-cell.
        name = key.rstrip("_").replace("_", "-")
        if isinstance(value, float | int) and not isinstance(value, bool):
            out[name] = num(value)
        else:
            out[name] = str(value)
    return out


def el(parent: ET.Element | None, tag: str, text: Any = None, **attrs: Any) -> ET.Element:
    """A new element (a child of ``parent`` when given); ``None``/False attributes are left out."""
    node = ET.Element(tag, _attrs(attrs)) if parent is None else ET.SubElement(
        parent, tag, _attrs(attrs)
    )
    if text is not None:
        node.text = str(text)
    return node


def svg(x: float, y: float, w: float, h: float, *, label: str = "", **attrs: Any
        ) -> ET.Element:
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


def markup(root: ET.Element) -> SafeString:
    """The tree as HTML-embeddable markup (every value escaped by ElementTree)."""
    return mark_safe(ET.tostring(root, encoding="unicode", method="xml"))
