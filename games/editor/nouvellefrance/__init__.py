"""Nouvelle-France's visual editors: footprints and piece shapes as grids of cells to
click, the colour copies of the pieces, the sticks of symbols and the card piles.

The widgets draw what the data says (no rule number lives here); cube order matters
for a shape (copy patterns colour cube *i*), so it is kept and shown.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from games.boards.nouvellefrance.events import shape_label, site_label
from games.data_texts import data_gettext, humanize
from games.editor.schemaform import MISSING, Node, SchemaForm, Widget, get_at

MAX_GRID = 24
_COLOUR = re.compile(r"^[a-z]{3,20}$")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cells(value: Any) -> list[tuple[int, int]]:
    """The well-formed ``[x, y]`` cells of a value (others are left to the validator)."""
    out = []
    for cell in value if isinstance(value, list) else []:
        if (isinstance(cell, list) and len(cell) == 2
                and all(_int(v) is not None for v in cell)):
            out.append((cell[0], cell[1]))
    return out


def fill_of(name: Any) -> str:
    """An SVG fill for a colour name of the data (CSS names), grey when unknown."""
    return name if isinstance(name, str) and _COLOUR.match(name) else "#999"


def piece_svg(cells: list[tuple[int, int]], fills: list[str], *, label: str) -> SafeString:
    """An upright piece (x right, z up), cube ``i`` filled with ``fills[i]``."""
    if not cells:
        return mark_safe("")
    w = max(x for x, _z in cells) + 1
    h = max(z for _x, z in cells) + 1
    side = max(w, h)
    svg = ET.Element("svg", {"xmlns": "http://www.w3.org/2000/svg",
                             "viewBox": f"-0.1 -0.1 {side + 0.2} {side + 0.2}",
                             "role": "img", "aria-label": label})
    ET.SubElement(svg, "title").text = label
    for i, (x, z) in enumerate(cells):
        ET.SubElement(svg, "rect", {
            "x": str(x), "y": str(h - 1 - z), "width": "1", "height": "1", "class": "cube",
            "fill": fills[i] if i < len(fills) else "#ccc",
        })
    return mark_safe(ET.tostring(svg, encoding="unicode"))


class CellsWidget(Widget):
    """A set of cells as a grid of check boxes.

    ``upright``: piece cells ``(x, z)`` drawn with z upwards and numbered in cube order;
    otherwise ground cells ``(x, y)`` of a site seen from above.  The grid reaches two
    cells past the last one so it can grow; checking a cell redraws it.
    """

    template = "editor/nouvellefrance/cells.html"

    def __init__(self, *, upright: bool, minimum: int) -> None:
        self.upright = upright
        self.minimum = minimum

    def build(self, form: SchemaForm, schema: dict, value: Any, path: tuple, name: str,
              **options: Any) -> Node:
        if not isinstance(value, list):
            return form.build_generic(schema, value, path, name, **options)
        cells = _cells(value)
        order = {cell: i for i, cell in enumerate(cells)}
        width = min(MAX_GRID, max(self.minimum, max((x for x, _ in cells), default=0) + 3))
        height = min(MAX_GRID, max(self.minimum, max((y for _, y in cells), default=0) + 3))
        adjacent: set[tuple[int, int]] = set()
        if not self.upright:
            pairs = get_at(form.context.get("data"), (*path[:-1], "extra_adjacency"))
            for pair in pairs if isinstance(pairs, list) else []:
                adjacent.update(_cells(pair))
        ys = range(height - 1, -1, -1) if self.upright else range(height)
        rows = [[{"x": x, "y": y, "checked": (x, y) in order,
                  "number": order[(x, y)] + 1 if (x, y) in order and self.upright else "",
                  "adjacent": (x, y) in adjacent}
                 for x in range(width)] for y in ys]
        node = Node(path=path, form=name, kind="cells", schema=schema,
                    label=options.get("label") or data_gettext(schema.get("title", ""))
                    or data_gettext(humanize(path[-1])),
                    value=value, help=data_gettext(schema.get("description", "")),
                    removable=options.get("removable", False), template=self.template)
        height_limit = _int(get_at(form.context.get("data"), (*path[:-1], "height_limit")))
        node.extra.update(
            rows=rows, width=width, upright=self.upright, count=len(cells),
            orig=json.dumps([list(c) for c in cells], separators=(",", ":")),
            capacity=len(cells) * height_limit if height_limit and not self.upright else None,
            stray=[c for c in value if not (isinstance(c, list) and len(c) == 2
                                            and all(_int(v) is not None for v in c))
                   or c[0] >= MAX_GRID or c[1] >= MAX_GRID],
        )
        return node

    def parse(self, form: SchemaForm, schema: dict, path: tuple, name: str) -> Any:
        post = form.post
        if f"{name}#grid" not in post:
            return form.parse_generic(schema, path, name)
        picked = []
        for raw in post.getlist(f"{name}#cell"):
            try:
                x, y = (int(v) for v in raw.split(","))
            except ValueError:
                continue
            if 0 <= x < MAX_GRID and 0 <= y < MAX_GRID and (x, y) not in picked:
                picked.append((x, y))
        try:
            before = _cells(json.loads(post.get(f"{name}#orig") or "[]"))
        except ValueError:
            before = []
        # Cube order is data (copy patterns colour cube i): keep it, append new cells.
        kept = [c for c in before if c in picked]
        new = sorted((c for c in picked if c not in kept), key=lambda c: (c[1], c[0]))
        return [list(c) for c in kept + new]


class CopiesWidget(Widget):
    """The colour copies of the pieces: one row per copy, a colour per cube, and every
    shape drawn in every copy's colours."""

    template = "editor/nouvellefrance/copies.html"

    def decorate(self, form: SchemaForm, node: Node) -> None:
        if node.kind != "list" or any(c.kind != "list" for c in node.children):
            node.template = "editor/form/list.html"
            return
        data = form.context.get("data") or {}
        colours = [c for c in data.get("colours", []) if isinstance(c, str)]
        shapes = [s for s in data.get("shapes", []) if isinstance(s, dict)]
        rule_shapes = {s.get("name"): s for s in (form.context.get("rule_data") or {}).get(
            "shapes", []) if isinstance(s, dict)}
        rows = []
        for k, copy in enumerate(node.children):
            pattern = [_int(c.value) for c in copy.children]
            fills = [fill_of(colours[i]) if i is not None and 0 <= i < len(colours) else "#ccc"
                     for i in pattern]
            previews = []
            for s in shapes:
                label = _("%(shape)s in copy %(n)d") % {"shape": shape_label(s.get("name", "?")),
                                                         "n": k + 1}
                copies = rule_shapes.get(s.get("name"), {}).get("copies")
                if isinstance(copies, list) and k < len(copies) and isinstance(
                        copies[k], dict) and isinstance(copies[k].get("orientations"), list):
                    # The engine's count of distinct placements of this coloured piece.
                    label += " · " + _("%(n)d orientations") % {
                        "n": len(copies[k]["orientations"])}
                previews.append(piece_svg(_cells(s.get("cells")), fills, label=label))
            rows.append({"node": copy, "cubes": copy.children, "previews": previews})
        node.extra.update(rows=rows, colours=[(i, c, fill_of(c)) for i, c in enumerate(colours)])


class SticksWidget(Widget):
    """The sticks: for each, the symbol of every level (one level per snowstorm)."""

    template = "editor/nouvellefrance/sticks.html"

    def decorate(self, form: SchemaForm, node: Node) -> None:
        data = form.context.get("data") or {}
        symbols = list(data.get("symbols", {})) if isinstance(data.get("symbols"), dict) else []
        ok = node.kind == "list" and all(
            s.kind == "object" and s.child("levels") is not None
            and s.child("levels").kind == "list" for s in node.children)
        if not ok:
            node.template = "editor/form/list.html"
            return
        node.extra.update(symbols=symbols, sticks=[
            {"node": s, "name": s.child("name"), "levels": s.child("levels")}
            for s in node.children])


class DeckWidget(Widget):
    """The card piles: how many cards of each shape, the size of each pile and which piles
    hold a snowflake."""

    template = "editor/nouvellefrance/deck.html"

    def decorate(self, form: SchemaForm, node: Node) -> None:
        per_shape, piles, flakes = (node.child("cards_per_shape"), node.child("piles"),
                                    node.child("snowflake_piles"))
        if not (per_shape and piles and flakes) or piles.kind != "list" \
                or flakes.kind != "list" or per_shape.kind != "map":
            node.template = "editor/form/object.html"
            return
        data = form.context.get("data") or {}
        shapes = {s.get("name"): _cells(s.get("cells")) for s in data.get("shapes", [])
                  if isinstance(s, dict)}
        with_flake = {_int(f.value) for f in flakes.children}
        sizes = [_int(p.value) or 0 for p in piles.children]
        tallest = max(sizes, default=0) or 1
        pile_rows = [{"node": p, "number": i + 1, "flake": (i + 1) in with_flake,
                      "bar": min(100, round(100 * size / tallest))}
                     for i, (p, size) in enumerate(zip(piles.children, sizes, strict=True))]
        for f in flakes.children:
            f.alias = flakes.slot
        shape_rows = [{"node": entry, "name": shape_label(entry.key_value), "picture": piece_svg(
            shapes.get(entry.key_value, []), ["#8b6b4a"] * 8, label=shape_label(entry.key_value))}
            for entry in per_shape.children]
        cards = sum(_int(e.value) or 0 for e in per_shape.children)
        node.extra.update(piles=pile_rows, shapes=shape_rows, per_shape=per_shape,
                          piles_node=piles, flakes=flakes, cards=cards, in_piles=sum(sizes),
                          plain=[c for c in node.children if c.path[-1] not in
                                 ("cards_per_shape", "piles", "snowflake_piles")])
        for p in pile_rows:
            p["height"] = f"h{p['bar'] // 10}"

    def parse(self, form: SchemaForm, schema: dict, path: tuple, name: str) -> Any:
        data = form.parse_generic(schema, path, name)
        post = form.post
        if isinstance(data, dict) and f"{name}#flakes" in post:
            flakes = []
            for raw in post.getlist(f"{name}#flake"):
                try:
                    flakes.append(int(raw))
                except ValueError:
                    continue
            data["snowflake_piles"] = sorted(set(flakes))
        return data


_FIGURE_PATTERNS = [
    (re.compile(r"^unplaceable_share_(\d+)$"),
     lambda k: _("share of cards no one could place, before snowstorm %(k)s") % {"k": k}),
    (re.compile(r"^level1_fill_at_first_storm_stick_(.+)$"),
     lambda s: _("level 1 filled at the 1st snowstorm, site with stick %(stick)s")
     % {"stick": s}),
    (re.compile(r"^level1_fill_at_first_storm_(.+)$"),
     lambda s: _("level 1 filled at the 1st snowstorm: %(site)s") % {"site": site_label(s)}),
    (re.compile(r"^level(\d+)_fill_at_end$"),
     lambda k: _("level %(k)s filled at the end") % {"k": k}),
]


def figure_label(name: str) -> str | None:
    """The translated label of one of the engine's simulation figures
    (``NouvelleFranceEngine.figures``), by its id; ``None`` for an id it does not know.
    Ids that carry a site, a stick, a level or a snowstorm name it in the label."""
    fixed = {
        "turns": _("turns"),
        "cards_drawn": _("building cards drawn"),
        "pieces_placed": _("pieces placed"),
        "bonus_pieces_placed": _("bonus pieces placed"),
        "unplaceable_share": _("share of cards no one could place"),
        "pieces_removed": _("pieces put back in the box"),
        "level1_fill_at_first_storm": _("level 1 filled at the 1st snowstorm, least full site"),
        "pieces_placed_at_first_storm": _("pieces placed by the 1st snowstorm"),
        "bonus_pieces_placed_at_first_storm": _("bonus pieces placed by the 1st snowstorm"),
        "sites_completed": _("sites completed"),
        "fill_at_end": _("cube places filled at the end"),
        "huron_uses": _("Huron uses"),
    }
    if name in fixed:
        return fixed[name]
    for pattern, label in _FIGURE_PATTERNS:
        match = pattern.match(name)
        if match:
            return label(match.group(1))
    return None


WIDGETS = {
    ("sites", "*", "footprint"): CellsWidget(upright=False, minimum=8),
    ("shapes", "*", "cells"): CellsWidget(upright=True, minimum=5),
    ("bonus_pieces", "*", "cells"): CellsWidget(upright=True, minimum=4),
    ("copies",): CopiesWidget(),
    ("sticks",): SticksWidget(),
    ("deck",): DeckWidget(),
}

__all__ = ["MISSING", "WIDGETS", "figure_label"]
