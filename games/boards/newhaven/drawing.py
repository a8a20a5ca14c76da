"""New Haven drawn as SVG element trees: the main board, villages, harvest tiles, the defs.

Everything drawn comes from ``observe`` (the view) and ``rule_data`` (the variant's
numbers); nothing else about the game is read, so nothing hidden can leak.  Each resource
has a colour *and* a pattern and an icon, so the board reads without colour vision.  The
patterns and icons are defined once per page (:func:`defs_svg`, in the board's layout) and
referenced by id from every drawing, so pushed fragments stay small.

The drawings have fixed view boxes and the page gives them fixed aspect ratios, so a swap
never moves the layout.  Clickable things are HTML buttons laid over the drawings (positions
in percent, :func:`cell_box`, :func:`space_box`).
"""

from __future__ import annotations

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from games.boards.svg import Element, drawing_cache, el, markup, num, palette, svg
from games.boards.svg import Look as svg_look

# Board geometry (SVG units): one cell is 100 x 100, its squares 50 x 50.
CELL = 100
HALF = CELL // 2
MARGIN = 34
# Village geometry: one space is 100 x 100; labels around it.
SPACE = 100
V_LEFT = 40  # row numbers
V_TOP = 34  # column letters
V_RIGHT = 56  # row values
V_BOTTOM = 50  # column values

# [NW, NE, SE, SW] -> (dx, dy) in half cells.
QUADRANTS = ((0, 0), (1, 0), (1, 1), (0, 1))


# --- resources: colour, ink, pattern, icon ---------------------------------------------------


class Look(svg_look):
    """How one resource is drawn: fill and text colours, pattern and icon ids."""

    @property
    def css(self) -> str:
        """The CSS class of this resource's colours (``r0``...)."""
        return f"r{self.index}"

    @property
    def pattern(self) -> str:
        return f"nh-p{self.index}"

    @property
    def icon(self) -> str:
        return f"nh-i{self.index}"


# The game's own four resources; a variant's extra resources get a fallback look.  Each ink
# reads on its fill at 4.5:1 at least (WCAG AA, checked by axe-core in the browser tests).
_KNOWN = {
    "wheat": ("#e8b923", "#3b2f00"),
    "sheep": ("#5a9e3a", "#0d1f06"),
    "timber": ("#8b4a2b", "#ffffff"),
    "stone": ("#8a8f98", "#111418"),
}
_FALLBACK = (
    ("#c2185b", "#ffffff"),
    ("#00838f", "#ffffff"),
    ("#6a1b9a", "#ffffff"),
    ("#ef6c00", "#ffffff"),
)


def resource_label(name: str) -> str:
    """The translated name of a resource (a variant's own resources keep their name)."""
    return {
        "wheat": _("wheat"),
        "sheep": _("sheep"),
        "timber": _("timber"),
        "stone": _("stone"),
    }.get(name, name.replace("_", " "))


def looks(resources: list[str]) -> dict[str, Look]:
    """Resource name -> its look, in the variant's order."""
    return {name: Look(i, name, resource_label(name), *style)
            for i, name, style, _ in palette(resources, _KNOWN, _FALLBACK)}


def _pattern(defs: Element, look: Look, extra: int | None) -> None:
    """A 20 x 20 pattern tile: the colour with marks that tell the resource apart
    (``extra``: a variant's own resource, its place among them, see ``palette``)."""
    p = el(defs, "pattern", id=look.pattern, width=20, height=20, patternUnits="userSpaceOnUse")
    el(p, "rect", width=20, height=20, fill=look.fill)
    mark = {"stroke": "#000", "stroke_opacity": ".28", "fill": "none", "stroke_width": 2}
    kind = look.name if extra is None else ("stripes", "cross", "rings", "waves")[extra % 4]
    if kind == "wheat":  # ears of grain
        el(p, "path", d="M4 16 l3 -6 l3 6 M12 8 l3 -6 l3 6", **mark)
    elif kind == "sheep":  # tufts of wool
        el(p, "circle", cx=5, cy=5, r=3, fill="#fff", fill_opacity=".55")
        el(p, "circle", cx=15, cy=15, r=3, fill="#fff", fill_opacity=".55")
    elif kind == "timber":  # wood grain
        el(p, "path", d="M5 0 v20 M14 0 q3 10 0 20", **mark)
    elif kind == "stone":  # masonry
        el(p, "path", d="M0 10 h20 M10 0 v10 M0 10 v10 M20 10 v10", **mark)
    elif kind == "stripes":
        el(p, "path", d="M0 20 L20 0", **mark)
    elif kind == "cross":
        el(p, "path", d="M0 10 h20 M10 0 v20", **mark)
    elif kind == "rings":
        el(p, "circle", cx=10, cy=10, r=5, **mark)
    else:
        el(p, "path", d="M0 10 q5 -5 10 0 t10 0", **mark)


def _icon(defs: Element, look: Look) -> None:
    """A 16 x 16 symbol for the resource, shown beside numbers in HTML."""
    s = el(defs, "symbol", id=look.icon, viewBox="0 0 16 16")
    ink = {"fill": "none", "stroke": "currentColor", "stroke_width": 1.6,
           "stroke_linecap": "round", "stroke_linejoin": "round"}
    if look.name == "wheat":
        el(s, "path", d="M8 15 V3 M8 5 l-3 -2 M8 5 l3 -2 M8 8 l-3 -2 M8 8 l3 -2 M8 11 l-3 -2 "
                        "M8 11 l3 -2", **ink)
    elif look.name == "sheep":
        el(s, "path", d="M4 10 a2.5 2.5 0 0 1 1 -5 a3 3 0 0 1 6 0 a2.5 2.5 0 0 1 1 5 z "
                        "M6 10 v3 M10 10 v3", **ink)
    elif look.name == "timber":
        el(s, "path", d="M3 5 h9 a1.5 3 0 0 1 0 6 h-9 a1.5 3 0 0 1 0 -6 z", **ink)
        el(s, "ellipse", cx=12, cy=8, rx=1.5, ry=3, **ink)
    elif look.name == "stone":
        el(s, "path", d="M2 13 h12 l-1 -4 h-10 z M4 9 l1 -4 h6 l1 4", **ink)
    else:
        el(s, "text", look.name[:1].upper(), x=8, y=12.5, text_anchor="middle",
           font_size=12, font_weight=700, fill="currentColor")


@drawing_cache()
def defs_svg(resource_looks: dict[str, Look]) -> SafeString:
    """The page's shared patterns and icons (hidden, referenced by id from every drawing)."""
    root = svg(0, 0, 0, 0, class_="nh-defs", width=0, height=0, focusable="false")
    defs = el(root, "defs")
    extras = {name: extra for _, name, _, extra in palette(resource_looks, _KNOWN, _FALLBACK)}
    for look in resource_looks.values():
        _pattern(defs, look, extras[look.name])
        _icon(defs, look)
    pond = el(defs, "pattern", id="nh-pond", width=30, height=20, patternUnits="userSpaceOnUse")
    el(pond, "rect", width=30, height=20, fill="#6fb7d9")
    el(pond, "path", d="M0 10 q7.5 -6 15 0 t15 0", stroke="#fff", stroke_width=2,
       fill="none", stroke_opacity=".7")
    hatch = el(defs, "pattern", id="nh-hatch", width=12, height=12, patternUnits="userSpaceOnUse",
               patternTransform="rotate(45)")
    el(hatch, "rect", width=6, height=12, fill="#000", opacity=".18")
    return markup(root)


def _fill(resource_looks: dict[str, Look], resource: str | None) -> str:
    look = resource_looks.get(resource) if resource else None
    return f"url(#{look.pattern})" if look else "url(#nh-pond)"


def _fill_class(resource_looks: dict[str, Look], resource: str | None) -> str:
    """The class that fills a shape with a resource's pattern (``f0``...; the layout's
    stylesheet maps it): shorter than the ``url(#...)`` on every square of every push."""
    look = resource_looks.get(resource) if resource else None
    return f"f{look.index}" if look else "f-pond"


# --- positions of buttons laid over drawings ----------------------------------------------------


def cell_name(row: int, col: int) -> str:
    """``(3, 2)`` -> ``C4``: column letter, row number from 1 (board and village alike)."""
    return f"{chr(65 + col)}{row + 1}"


def board_extent(size: int) -> int:
    return size * CELL + 2 * MARGIN


def _percent(value: float, total: float) -> str:
    return f"{value / total * 100:.3f}%"


def style_of(left: float, top: float, width: float, height: float, tw: float, th: float) -> str:
    """Inline CSS placing a button over a drawing of ``tw`` x ``th`` units."""
    return (
        f"left:{_percent(left, tw)};top:{_percent(top, th)};"
        f"width:{_percent(width, tw)};height:{_percent(height, th)}"
    )


def cell_box(row: int, col: int, size: int) -> str:
    """The CSS position of a board cell (percent of the board's box)."""
    total = board_extent(size)
    return style_of(MARGIN + col * CELL, MARGIN + row * CELL, CELL, CELL, total, total)


def village_extent(rows: int, cols: int) -> tuple[int, int]:
    return V_LEFT + cols * SPACE + V_RIGHT, V_TOP + rows * SPACE + V_BOTTOM


def space_box(row: int, col: int, rows: int, cols: int, part: str = "full") -> str:
    """The CSS position of a village space (``part``: full, top or bottom half)."""
    width, height = village_extent(rows, cols)
    top = V_TOP + row * SPACE + (HALF if part == "bottom" else 0)
    h = SPACE if part == "full" else HALF
    return style_of(V_LEFT + col * SPACE, top, SPACE, h, width, height)


# --- drawings ---------------------------------------------------------------------------------


def _squares(parent: Element, x: float, y: float, squares: list[str] | None,
             resource_looks: dict[str, Look], half: float = HALF) -> None:
    for (dx, dy), res in zip(QUADRANTS, squares or (), strict=False):
        el(parent, "rect", x=x + dx * half, y=y + dy * half, width=half, height=half,
           class_=_fill_class(resource_looks, res))


def _token(parent: Element, cx: float, cy: float, building: dict,
           resource_looks: dict[str, Look], size: float = 44) -> None:
    """A building token (clearings of side B)."""
    g = el(parent, "g", class_="bld-token")
    res = building.get("resource")
    el(g, "rect", x=cx - size / 2, y=cy - size / 2, width=size, height=size, rx=8,
       fill=_fill(resource_looks, res), stroke="#1f2328", stroke_width=3)
    number = building.get("number")
    if number is not None:
        el(g, "text", number, x=cx, y=cy + size * 0.2, text_anchor="middle",
           font_size=size * 0.55, font_weight=800, fill="#fff", stroke="#1f2328",
           stroke_width=1.2)


@drawing_cache()
def tile_svg(squares: list[str], resource_looks: dict[str, Look], *, label: str = ""
             ) -> SafeString:
    """A lone harvest tile (hand, placement preview, revealed hands)."""
    root = svg(0, 0, 100, 100, label=label, class_="tile-svg")
    if label:
        el(root, "title", label)
    _squares(root, 0, 0, squares, resource_looks)
    el(root, "rect", x=1, y=1, width=98, height=98, fill="none", stroke="#1f2328", stroke_width=2)
    el(root, "path", d="M50 0 V100 M0 50 H100", stroke="#1f2328", stroke_width=1, opacity=".35")
    return markup(root)


def board_svg(view: dict, resource_looks: dict[str, Look], *, cells: set | None = None,
              targets: set = frozenset()) -> SafeString:
    """The main board of ``view`` (an ``observe`` dict).

    ``cells`` are the board's cells (from the rule data; every cell but the corners when
    not given), ``targets`` the cells to highlight.
    """
    board = view["board"]
    size = board["size"]
    total = board_extent(size)
    play = {tuple(rc) for rc in view.get("play_area", [])}
    settlements = {tuple(rc) for rc in board.get("settlements", [])}
    tiles = {(t["row"], t["col"]): t for t in board.get("tiles", [])}
    clearings = {(c["row"], c["col"]): c["building"] for c in board.get("clearings", [])}
    last = tuple(view["last_cell"]) if view.get("last_cell") else None
    if cells is None:
        cells = {(r, c) for r in range(size) for c in range(size) if not _is_corner(r, c, size)}
    cells = set(cells) | play | set(tiles)
    root = svg(0, 0, total, total, label=_("Main board"), class_="board-svg")
    el(root, "rect", x=0, y=0, width=total, height=total, rx=14, fill="#e9e2cf")
    # Coordinates: letters above the columns, numbers left of the rows (as in the log).
    for i in range(size):
        c = MARGIN + i * CELL + HALF
        el(root, "text", chr(65 + i), x=c, y=MARGIN - 9, class_="lbl")
        el(root, "text", i + 1, x=MARGIN / 2, y=c + 8, class_="lbl")
    for r in range(size):
        for c in range(size):
            if (r, c) not in cells:
                continue
            x, y = MARGIN + c * CELL, MARGIN + r * CELL
            g = el(root, "g", data_cell=cell_name(r, c))
            el(g, "rect", class_="cell-empty" if (r, c) in play else "cell-outside",
               x=x, y=y, width=CELL, height=CELL)
            tile = tiles.get((r, c))
            if tile is not None:
                _tile_on_board(g, x, y, tile, resource_looks)
            if (r, c) in settlements:
                el(g, "path", d=f"M{num(x + 6)} {num(y + 24)} l10 -13 l10 13 z", fill="#fff",
                   stroke="#1f2328", stroke_width=2)
            if (r, c) in clearings:
                _token(g, x + HALF, y + HALF, clearings[(r, c)], resource_looks)
            if (r, c) in targets:
                el(g, "rect", class_="cell-target-mark", x=x + 5, y=y + 5, width=CELL - 10,
                   height=CELL - 10)
            el(g, "rect", x=x, y=y, width=CELL, height=CELL, class_="cell-line")
    # The play area's outline: every cell edge whose neighbour is outside the area.
    segments = []
    for r, c in sorted(play):
        x, y = MARGIN + c * CELL, MARGIN + r * CELL
        if (r - 1, c) not in play:
            segments.append(f"M{x} {y}h{CELL}")
        if (r + 1, c) not in play:
            segments.append(f"M{x} {y + CELL}h{CELL}")
        if (r, c - 1) not in play:
            segments.append(f"M{x} {y}v{CELL}")
        if (r, c + 1) not in play:
            segments.append(f"M{x + CELL} {y}v{CELL}")
    if segments:
        el(root, "path", class_="play-outline", d="".join(segments))
    if last:
        x, y = MARGIN + last[1] * CELL, MARGIN + last[0] * CELL
        el(root, "rect", class_="last-cell", x=x + 4, y=y + 4, width=CELL - 8, height=CELL - 8)
    return markup(root)


def _is_corner(r: int, c: int, size: int) -> bool:
    return r in (0, size - 1) and c in (0, size - 1)


def _tile_on_board(g: Element, x: float, y: float, tile: dict,
                   resource_looks: dict[str, Look]) -> None:
    if tile.get("kind") == "pond":
        el(g, "rect", x=x, y=y, width=CELL, height=CELL, fill="url(#nh-pond)")
        label = tile.get("label")
        if label not in (None, ""):
            el(g, "text", label, x=x + 50, y=y + 30, text_anchor="middle", font_size=18,
               fill="#fff", font_weight=700)
        return
    _squares(g, x, y, tile.get("squares"), resource_looks)
    if tile.get("face_down"):
        el(g, "rect", x=x, y=y, width=CELL, height=CELL, fill="url(#nh-hatch)")
        el(g, "circle", cx=x + 50, cy=y + 50, r=18, fill="#fff", stroke="#1f2328",
           stroke_width=2)
        # "S" for the shipment, face down where it was played.
        el(g, "text", _("S"), x=x + 50, y=y + 57, text_anchor="middle", font_size=20,
           font_weight=700)
    el(g, "path", d=f"M{num(x + HALF)} {num(y)} v{CELL} M{num(x)} {num(y + HALF)} h{CELL}",
       class_="sq-line")


@drawing_cache()
def village_svg(
    village: list[list[dict | None]],
    resource_looks: dict[str, Look],
    *,
    row_costs: list[int],
    row_values: list[int],
    col_values: list[int],
    completed_rows: set[int] = frozenset(),
    completed_cols: set[int] = frozenset(),
    label: str = "",
) -> SafeString:
    """A village: column letters above, row numbers left, costs inside empty spaces, the
    points of a completed row on the right and of a completed column below; a space built
    over shows how many buildings went down on it (``×2``) in its top left corner."""
    rows = len(village)
    cols = len(village[0]) if village else len(col_values)
    width, height = village_extent(rows, cols)
    root = svg(0, 0, width, height, label=label, class_="village-svg")
    for c in range(cols):
        el(root, "text", chr(65 + c), x=V_LEFT + c * SPACE + HALF, y=V_TOP - 9, class_="lbl")
    for r in range(rows):
        y = V_TOP + r * SPACE
        el(root, "text", r + 1, x=V_LEFT / 2, y=y + 58, class_="lbl")
        cost = row_costs[r] if r < len(row_costs) else ""
        for c in range(cols):
            x = V_LEFT + c * SPACE
            space = village[r][c]
            g = el(root, "g", data_space=cell_name(r, c))
            if space is None:
                el(g, "rect", x=x + 3, y=y + 3, width=SPACE - 6, height=SPACE - 6, rx=8,
                   class_="space")
                el(g, "text", cost, x=x + 50, y=y + 62, class_="cost")
                continue
            res = space.get("resource")
            el(g, "rect", x=x + 3, y=y + 3, width=SPACE - 6, height=SPACE - 6, rx=8,
               class_=f"{_fill_class(resource_looks, res)} built")
            number = space.get("number")
            if space.get("face_up"):
                el(g, "text", "" if number is None else number, x=x + 50, y=y + 68,
                   class_="num")
            else:
                # Face down: a field of its resource (hatched), its number hidden or small.
                el(g, "rect", x=x + 3, y=y + 3, width=SPACE - 6, height=SPACE - 6, rx=8,
                   class_="down")
                if number is not None:
                    el(g, "text", number, x=x + 84, y=y + 90, class_="num-small")
            builds = space.get("builds") or 1
            if builds > 1:
                # Built over (variant rebuild): public, as everyone at the table saw it.
                mark = el(g, "text", f"×{builds}", x=x + 22, y=y + 30, class_="builds")
                el(mark, "title", _("Built over: %(count)s buildings went down on this space")
                   % {"count": builds})
        value = row_values[r] if r < len(row_values) else ""
        el(root, "text", value, x=V_LEFT + cols * SPACE + V_RIGHT / 2, y=y + 60,
           class_="val done" if r in completed_rows else "val")
    for c in range(cols):
        value = col_values[c] if c < len(col_values) else ""
        el(root, "text", value, x=V_LEFT + c * SPACE + HALF, y=V_TOP + rows * SPACE + 38,
           class_="val done" if c in completed_cols else "val")
    for r in sorted(completed_rows):
        el(root, "rect", x=V_LEFT, y=V_TOP + r * SPACE, width=cols * SPACE, height=SPACE,
           fill="none", stroke="#2f7d32", stroke_width=6)
    for c in sorted(completed_cols):
        el(root, "rect", x=V_LEFT + c * SPACE, y=V_TOP, width=SPACE, height=rows * SPACE,
           fill="none", stroke="#1d5fa8", stroke_width=6, stroke_dasharray="14 8")
    return markup(root)


def rotate_squares(squares: list[str], rot: int) -> list[str]:
    """Squares ``[NW, NE, SE, SW]`` after ``rot`` quarter turns clockwise (the engine's
    notation: rotation k moves square i to position i + k)."""
    rot %= 4
    return list(squares[-rot:] + squares[:-rot]) if rot else list(squares)
