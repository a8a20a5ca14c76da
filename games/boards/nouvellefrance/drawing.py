"""Nouvelle-France drawn as SVG element trees: the sites in isometric 3-D, pieces, the defs.

Everything drawn comes from ``observe`` (the view) and ``rule_data`` (footprints, shapes,
orientations, colours); nothing else about the game is read, so nothing hidden can leak.

A cube of the lattice at ``(x, y, level)`` fills ``x..x+1``, ``y..y+1`` and
``level-1..level`` and is drawn at :func:`proj` of its corner ``(x, y, level - 1)`` with a
``<use>`` of its colour's cube (defined once per page in :func:`defs_svg`, so a pushed
site costs one short element per cube).  The view looks from the side of growing x and y:
the top, the +x face and the +y face of a cube are visible, and cubes drawn in order of
``x + y + z`` hide one another correctly (:func:`depth`, carried as ``data-k`` so the
board's script can slip the ghost's cubes in among them).  Each colour has a mark on its
top face as well as its colour, so the cubes read without colour vision.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from games.boards.svg import Element, drawing_cache, el, markup, num, palette, svg
from games.boards.svg import Look as svg_look

#: One cube edge in SVG units; the isometric unit vectors.
UNIT = 20.0
COS = 0.8660254 * UNIT
SIN = 0.5 * UNIT
MARGIN = 14.0


def proj(x: float, y: float, z: float) -> tuple[float, float]:
    """The screen point of the lattice point ``(x, y, z)`` (z up, one cube = 1)."""
    return (x - y) * COS, (x + y) * SIN - z * UNIT


def _points(corners: Iterable[tuple[float, float, float]]) -> str:
    return " ".join(f"{num(px)},{num(py)}" for px, py in (proj(*c) for c in corners))


TOP = ((0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1))
RIGHT = ((1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1))
LEFT = ((0, 1, 0), (1, 1, 0), (1, 1, 1), (0, 1, 1))
GROUND = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0))


# --- colours ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Look(svg_look):
    """How one colour is drawn: fill, ink (text on it), its mark, its cube ids."""

    mark: str

    @property
    def cube(self) -> str:
        return f"nf-c{self.index}"

    @property
    def snow(self) -> str:
        """The same cube under snow."""
        return f"nf-s{self.index}"


_KNOWN = {
    "white": ("#f3efe6", "#1f2328", "ring"),
    "brown": ("#8b5a2b", "#ffffff", "slash"),
    "yellow": ("#e8bf2e", "#2b2200", "dot"),
    "blue": ("#3c6fb4", "#ffffff", "cross"),
}
_FALLBACK = (
    ("#c2185b", "#ffffff", "bar"),
    ("#2e7d32", "#ffffff", "ring"),
    ("#6a1b9a", "#ffffff", "slash"),
    ("#ef6c00", "#ffffff", "dot"),
)


def colour_label(name: str) -> str:
    """The translated name of a colour (a variant's own colours keep their name)."""
    return {
        "white": _("white"),
        "brown": _("brown"),
        "yellow": _("yellow"),
        "blue": _("blue"),
    }.get(name, name.replace("_", " "))


def looks(colours: list[str]) -> dict[str, Look]:
    """Colour name -> its look, in the variant's order."""
    return {name: Look(i, name, colour_label(name), *style)
            for i, name, style, _ in palette(colours, _KNOWN, _FALLBACK)}


def _shade(colour: str, factor: float, towards: int = 0) -> str:
    """``colour`` mixed with black (``towards=0``) or white (255) by ``factor``."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    mix = [round(c + (towards - c) * factor) for c in (r, g, b)]
    return "#" + "".join(f"{c:02x}" for c in mix)


def _mark(parent: Element, kind: str, colour: str) -> None:
    """The colour's mark on the top face of a cube (centre at (0, -10))."""
    line = {"stroke": colour, "stroke_width": 1.6, "fill": "none", "stroke_linecap": "round"}
    if kind == "ring":
        el(parent, "ellipse", cx=0, cy=-SIN, rx=5, ry=2.8, **line)
    elif kind == "slash":
        el(parent, "path", d="M-5 -7.5 L5 -12.5", **line)
    elif kind == "dot":
        el(parent, "ellipse", cx=0, cy=-SIN, rx=2.8, ry=1.6, fill=colour)
    elif kind == "cross":
        el(parent, "path", d="M-5 -10 H5 M0 -13 V-7", **line)
    else:
        el(parent, "path", d="M-6 -10 H6", **line)


def _cube(defs: Element, ident: str, fill: str, mark: str, mark_colour: str, *,
          snow: bool = False) -> None:
    """A cube of one colour; under snow its top is white and its sides pale and bluish
    (the colour still shows on the sides and in the mark)."""
    g = el(defs, "g", id=ident)
    if snow:
        side = _shade(_shade(fill, 0.55, 255), 0.35, 0xDF)
        faces = ("#ffffff", _shade(side, 0.12), _shade(side, 0.24))
    else:
        faces = (fill, _shade(fill, 0.22), _shade(fill, 0.38))
    el(g, "polygon", points=_points(TOP), fill=faces[0])
    el(g, "polygon", points=_points(RIGHT), fill=faces[1])
    el(g, "polygon", points=_points(LEFT), fill=faces[2])
    el(g, "path", d="M0 0 V20 M0 0 L17.32 -10 M0 0 L-17.32 -10", fill="none",
       stroke="#1f2328", stroke_opacity=0.35, stroke_width=0.7)
    el(g, "polygon", points=_points(((0, 0, 1), (1, 0, 1), (1, 0, 0), (1, 1, 0), (0, 1, 0),
                                     (0, 1, 1))), fill="none", stroke="#1f2328",
       stroke_opacity=0.7, stroke_width=0.9, stroke_linejoin="round")
    _mark(g, mark, mark_colour)


@drawing_cache()
def defs_svg(colour_looks: Mapping[str, Look]) -> SafeString:
    """The shared cubes (one per colour, and under snow), the ground cell and the ghost cube;
    once per page, referenced by id from every drawing."""
    root = svg(0, 0, 0, 0, class_="nf-defs", focusable="false")
    defs = el(root, "defs")
    for look in colour_looks.values():
        _cube(defs, look.cube, look.fill, look.mark, _shade(look.fill, 0.55))
        _cube(defs, look.snow, look.fill, look.mark, _shade(look.fill, 0.35), snow=True)
    el(defs, "polygon", id="nf-cell", points=_points(GROUND))
    ghost = el(defs, "g", id="nf-ghost-cube")
    for face, fill in ((TOP, "#ffe678"), (RIGHT, "#e6be3c"), (LEFT, "#c8a028")):
        el(ghost, "polygon", points=_points(face), fill=fill, fill_opacity=0.85,
           stroke="#1f2328", stroke_width=1.2, stroke_linejoin="round")
    return markup(root)


# --- coordinates -----------------------------------------------------------------------------


def column_name(x: int) -> str:
    """Column letters as on the drawings: 0 -> A, 25 -> Z, 26 -> AA."""
    name = ""
    x += 1
    while x > 0:
        x, rem = divmod(x - 1, 26)
        name = chr(65 + rem) + name
    return name


def cell_name(x: int, y: int) -> str:
    """``(2, 3)`` -> ``"C4"`` (column letter for x, row number for y, as the labels)."""
    return f"{column_name(x)}{y + 1}"


def cells_text(cells: Iterable[tuple[int, int]]) -> str:
    """The ground cells a piece covers, first and last: ``"C1–E1"`` (one cell: ``"C1"``)."""
    ordered = sorted(set(cells), key=lambda c: (c[1], c[0]))
    if not ordered:
        return ""
    first, last = cell_name(*ordered[0]), cell_name(*ordered[-1])
    return first if first == last else f"{first}–{last}"


def depth(x: int, y: int, level: int) -> int:
    """The drawing order of the cube at ``(x, y, level)`` (level 1 = on the ground), one
    number: by ``x + y + level``, then level, then x.  Linear, so the depth of a ghost cube
    is its spot's depth plus its offset's."""
    return ((x + y + level) * 1000 + level) * 1000 + x


# --- a site ----------------------------------------------------------------------------------


def _extent(footprint: list[list[int]], height: int) -> tuple[float, float, float, float]:
    xs = [c[0] for c in footprint] or [0]
    ys = [c[1] for c in footprint] or [0]
    corners = [
        proj(x, y, z)
        for x in (min(xs), max(xs) + 1)
        for y in (min(ys), max(ys) + 1)
        for z in (0, height)
    ]
    left = min(p[0] for p in corners) - MARGIN - 10
    right = max(p[0] for p in corners) + MARGIN + 10
    top = min(p[1] for p in corners) - MARGIN
    bottom = max(p[1] for p in corners) + MARGIN + 10
    return left, top, right - left, bottom - top


#: Pixels per SVG unit of a site shown up close while placing on a phone: landing spots one
#: cube (UNIT) apart are then 48 px apart, and each spot's target (SPOT_HIT) 48 px wide.
ZOOM_PX = 2.4
#: The radius of a landing spot's target (the dot drawn inside it is smaller).
SPOT_HIT = UNIT / 2


def site_extent(site: Mapping) -> tuple[float, float]:
    """The width and height of a site's drawing, in SVG units."""
    _x, _y, w, h = _extent(site.get("footprint") or [], int(site.get("height_limit") or 3))
    return w, h


@dataclass
class Spot:
    """One legal landing of the piece being placed: where its marker and its ghost go."""

    key: str  # "site o x y", the data-spot of the list's button
    x: int
    y: int
    level: int
    cubes: list[tuple[int, int, int]]  # (dx, dy, dz) of the orientation


@drawing_cache()
def site_svg(site: Mapping, view_site: Mapping, colour_looks: Mapping[str, Look], *,
             label: str, spots: list[Spot] | None = None,
             ghost: list[tuple[int, int, int]] | None = None, snowy: bool = False
             ) -> SafeString:
    """One site in 3-D: its footprint, its cubes (pale with a white top under snow), the
    row and column labels, and while placing the legal landing spots and a hidden ghost
    of the piece for the board's script (``ghost``: the orientation's ``(dx, dy, dz)``).
    ``snowy``: a level is buried (the ground is white)."""
    footprint = site.get("footprint") or []
    height = int(site.get("height_limit") or 3)
    x0, y0, w, h = _extent(footprint, height)
    root = svg(x0, y0, w, h, label=label, class_="nf-site", data_site=site.get("name"))
    snowy = snowy or any(c.get("covered") for c in view_site.get("cubes", []))
    ground = el(root, "g", class_="ground snowy" if snowy else "ground")
    for cx, cy in sorted((c[0], c[1]) for c in footprint):
        px, py = proj(cx, cy, 0)
        el(ground, "use", href="#nf-cell", x=px, y=py)
    # Extra adjacencies (the redoubt's bend): cells that only meet at a corner but count as
    # adjacent, on every level.  A band joins their centres on the ground, and a dashed
    # line over the cubes rises through the corner they share, so the link still shows
    # once cubes cover the ground.
    bends = [(tuple(a[:2]), tuple(b[:2])) for a, b in site.get("extra_adjacency") or []]
    for (ax, ay), (bx, by) in bends:
        x1, y1 = proj(ax + 0.5, ay + 0.5, 0)
        x2, y2 = proj(bx + 0.5, by + 0.5, 0)
        el(root, "line", x1=x1, y1=y1, x2=x2, y2=y2, class_="bend")
    # Labels: each column's letter before its first cell, each row's number before its
    # first cell (so an L-shaped site is labelled along both arms).
    if footprint:
        labels = el(root, "g", class_="lbl", aria_hidden="true")
        first_y: dict[int, int] = {}
        first_x: dict[int, int] = {}
        for cx, cy in (tuple(c[:2]) for c in footprint):
            first_y[cx] = min(first_y.get(cx, cy), cy)
            first_x[cy] = min(first_x.get(cy, cx), cx)
        for x, y in sorted(first_y.items()):
            px, py = proj(x + 0.5, y - 0.6, 0)
            el(labels, "text", column_name(x), x=px, y=py + 3)
        for y, x in sorted(first_x.items()):
            px, py = proj(x - 0.6, y + 0.5, 0)
            el(labels, "text", str(y + 1), x=px, y=py + 3)
    cubes = el(root, "g", class_="cubes")
    ordered = sorted(view_site.get("cubes", []), key=lambda c: depth(c["x"], c["y"], c["level"]))
    for c in ordered:
        look = colour_looks.get(c["colour"])
        if look is None:
            continue
        px, py = proj(c["x"], c["y"], c["level"] - 1)
        el(cubes, "use", href="#" + (look.snow if c.get("covered") else look.cube), x=px, y=py,
           data_k=depth(c["x"], c["y"], c["level"]))
    for (ax, ay), (bx, by) in bends:
        # The point both cells touch: the corner of the lower cell towards the other one.
        cx, cy = max(ax, bx), max(ay, by)
        x1, y1 = proj(cx, cy, 0)
        x2, y2 = proj(cx, cy, height)
        up = el(root, "g", class_="bend-up")
        el(up, "title", _("The bend: %(a)s and %(b)s count as adjacent on every level")
           % {"a": cell_name(ax, ay), "b": cell_name(bx, by)})
        el(up, "line", x1=x1, y1=y1, x2=x2, y2=y2)
        el(up, "circle", cx=x2, cy=y2, r=4)
    if spots:
        marks = el(root, "g", class_="spots")
        for spot in spots:
            n = len(spot.cubes) or 1
            cx = sum(d[0] for d in spot.cubes) / n + 0.5
            cy = sum(d[1] for d in spot.cubes) / n + 0.5
            px, py = proj(spot.x + cx, spot.y + cy, spot.level - 1)
            tx, ty = proj(spot.x, spot.y, spot.level - 1)
            # The target is a transparent disc as wide as a cube edge (the spots nearest
            # to each other are that far apart); the dot in it is what shows.
            el(marks, "circle", cx=px, cy=py, r=SPOT_HIT, class_="spot", data_spot=spot.key,
               data_tx=tx, data_ty=ty, data_k=depth(spot.x, spot.y, spot.level))
            el(marks, "circle", cx=px, cy=py, r=4.5, class_="spot-dot")
    if ghost is not None:
        # Parked hidden here; the script moves each cube in among the site's cubes at
        # its depth (spot's data-k + its own), so cubes in front still hide it.
        g = el(root, "g", class_="ghost", visibility="hidden")
        for dx, dy, dz in sorted(ghost, key=lambda d: depth(*d)):
            px, py = proj(dx, dy, dz)
            el(g, "use", href="#nf-ghost-cube", x=px, y=py, class_="ghost-cube",
               data_k=depth(dx, dy, dz))
    return markup(root)


# --- pieces ----------------------------------------------------------------------------------


@drawing_cache()
def piece_svg(cubes: list, colour_looks: Mapping[str, Look], *, label: str = "") -> SafeString:
    """A small 3-D picture of a piece: ``cubes`` are ``[dx, dy, dz, colour]`` (an
    orientation of rule data) or ``[dx, dy, dz]`` with ``colour`` taken as the first look."""
    if not cubes:
        return markup(svg(0, 0, 1, 1, label=label))
    pts = [(c[0], c[1], c[2]) for c in cubes]
    corners = [proj(x + a, y + b, z + d) for x, y, z in pts
               for a in (0, 1) for b in (0, 1) for d in (0, 1)]
    left = min(p[0] for p in corners) - 2
    top = min(p[1] for p in corners) - 2
    width = max(p[0] for p in corners) + 2 - left
    height = max(p[1] for p in corners) + 2 - top
    root = svg(left, top, width, height, label=label, class_="nf-piece")
    first = next(iter(colour_looks.values()), None)
    for c in sorted(cubes, key=lambda c: (c[0] + c[1] + c[2], c[2])):
        look = colour_looks.get(c[3]) if len(c) > 3 else first
        if look is None:
            continue
        px, py = proj(c[0], c[1], c[2])
        el(root, "use", href="#" + look.cube, x=px, y=py)
    return markup(root)


@drawing_cache()
def flat_svg(cells: list, colours: list[str], colour_looks: Mapping[str, Look], *,
             label: str = "", gone: bool = False) -> SafeString:
    """A piece drawn flat, upright as the rule data draws it (``cells`` ``[x, z]``, z up),
    one square per cube in its colour, with the colour's mark (supply, copies)."""
    if not cells:
        return markup(svg(0, 0, 1, 1, label=label))
    top = max(c[1] for c in cells)
    width = max(c[0] for c in cells) + 1
    root = svg(0, 0, width * 10, (top + 1) * 10, label=label,
               class_="nf-flat gone" if gone else "nf-flat")
    for n, (cx, cz) in enumerate(cells):
        look = colour_looks.get(colours[n]) if n < len(colours) else None
        x, y = cx * 10, (top - cz) * 10
        el(root, "rect", x=x + 0.5, y=y + 0.5, width=9, height=9, rx=1,
           fill=look.fill if look else "#d9d3c4", class_="sq")
        if look is not None and look.mark in ("dot", "cross", "slash"):
            ink = _shade(look.fill, 0.55)
            if look.mark == "dot":
                el(root, "circle", cx=x + 5, cy=y + 5, r=1.6, fill=ink)
            elif look.mark == "cross":
                el(root, "path", d=f"M{x + 2.5} {y + 5}h5M{x + 5} {y + 2.5}v5", stroke=ink,
                   stroke_width=1.2)
            else:
                el(root, "path", d=f"M{x + 2.5} {y + 7.5}l5 -5", stroke=ink, stroke_width=1.2)
    return markup(root)
