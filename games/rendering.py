"""New Haven board -> SVG, and the interactive choices of the play page.

Everything drawn here comes from ``engine.observe(state, seat)`` (the *view*) and the
public variant data (village costs and values); the choices come from the legal actions
as JSON.  Nothing else about the game is read, so nothing hidden can leak.

The SVGs have fixed view boxes and the pages give them fixed aspect ratios, so swapping a
fragment never moves the layout.  Clickable things are HTML forms placed over the SVG
(positions in percent, see :func:`cell_box` and :func:`space_box`): real buttons, keyboard
operable, and plain form POSTs without JavaScript.
"""

from __future__ import annotations

import json
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

RESOURCES = ("wheat", "sheep", "timber", "stone")

# Board geometry (SVG units): one cell is 100 x 100, its squares 50 x 50.
CELL = 100
HALF = CELL // 2
MARGIN = 30
# Village geometry.
SPACE = 100
V_LEFT = 60
V_BOTTOM = 50

# [NW, NE, SE, SW] -> (dx, dy) in half cells.
QUADRANTS = ((0, 0), (1, 0), (1, 1), (0, 1))


def _res_class(resource: str | None) -> str:
    return f"sq-{resource}" if resource in RESOURCES else "sq-pond"


def res_label(resource: str) -> str:
    """The translated name of a resource."""
    return {
        "wheat": _("wheat"),
        "sheep": _("sheep"),
        "timber": _("timber"),
        "stone": _("stone"),
    }.get(resource, resource)


def cell_name(row: int, col: int) -> str:
    """``(3, 2)`` -> ``C4``, as the engine names cells in its move descriptions."""
    return f"{chr(65 + col)}{row + 1}"


def board_extent(size: int) -> int:
    return size * CELL + 2 * MARGIN


def cell_box(row: int, col: int, size: int) -> dict[str, str]:
    """CSS position (percent of the board box) of a board cell."""
    total = board_extent(size)
    return {
        "left": f"{(MARGIN + col * CELL) / total * 100:.3f}%",
        "top": f"{(MARGIN + row * CELL) / total * 100:.3f}%",
        "width": f"{CELL / total * 100:.3f}%",
        "height": f"{CELL / total * 100:.3f}%",
    }


def village_extent(rows: int, cols: int) -> tuple[int, int]:
    return V_LEFT + cols * SPACE, rows * SPACE + V_BOTTOM


def space_box(row: int, col: int, rows: int, cols: int, part: str = "full") -> dict[str, str]:
    """CSS position of a village space (``part``: full, top or bottom half)."""
    width, height = village_extent(rows, cols)
    top = row * SPACE + (HALF if part == "bottom" else 0)
    h = SPACE if part == "full" else HALF
    return {
        "left": f"{(V_LEFT + col * SPACE) / width * 100:.3f}%",
        "top": f"{top / height * 100:.3f}%",
        "width": f"{SPACE / width * 100:.3f}%",
        "height": f"{h / height * 100:.3f}%",
    }


def style_of(box: dict[str, str]) -> str:
    return ";".join(f"{k}:{v}" for k, v in box.items())


# -- SVG pieces ------------------------------------------------------------------------------


def _squares_svg(x: int, y: int, squares: list[str] | None, half: int = HALF) -> str:
    if not squares:
        return ""
    parts = []
    for (dx, dy), res in zip(QUADRANTS, squares, strict=False):
        parts.append(
            f'<rect class="{_res_class(res)}" x="{x + dx * half}" y="{y + dy * half}" '
            f'width="{half}" height="{half}"/>'
        )
    return "".join(parts)


def _building_svg(cx: float, cy: float, building: dict, size: int = 44) -> str:
    res = building.get("resource")
    number = building.get("number")
    x, y = cx - size / 2, cy - size / 2
    text = "" if number is None else escape(number)
    return (
        f'<g class="bld-token"><rect class="{_res_class(res)}" x="{x}" y="{y}" width="{size}" '
        f'height="{size}" rx="8" stroke="#1f2328" stroke-width="3"/>'
        f'<text x="{cx}" y="{cy + size * 0.18}" text-anchor="middle" font-size="{size * 0.55}" '
        f'font-weight="800" fill="#fff" stroke="#1f2328" stroke-width="1.2">{text}</text></g>'
    )


def tile_svg(squares: list[str], *, label: str = "") -> SafeString:
    """A lone harvest tile (hand, shipment preview)."""
    title = f"<title>{escape(label)}</title>" if label else ""
    body = _squares_svg(0, 0, squares)
    return mark_safe(
        f'<svg viewBox="0 0 100 100" role="img" aria-label="{escape(label)}">{title}{body}'
        '<rect x="1" y="1" width="98" height="98" fill="none" stroke="#1f2328" stroke-width="2"/>'
        '<line x1="50" y1="0" x2="50" y2="100" stroke="#1f2328" stroke-width="1" opacity=".35"/>'
        '<line x1="0" y1="50" x2="100" y2="50" stroke="#1f2328" stroke-width="1" opacity=".35"/>'
        "</svg>"
    )


def board_svg(view: dict) -> SafeString:
    """The main board of ``view`` (an observe() dict) as an SVG element."""
    board = view["board"]
    size = board["size"]
    total = board_extent(size)
    play = {tuple(rc) for rc in view["play_area"]}
    settlements = {tuple(rc) for rc in board.get("settlements", [])}
    tiles = {(t["row"], t["col"]): t for t in board["tiles"]}
    clearings = {(c["row"], c["col"]): c["building"] for c in board.get("clearings", [])}
    last = tuple(view["last_cell"]) if view.get("last_cell") else None
    corners = {(0, 0), (0, size - 1), (size - 1, 0), (size - 1, size - 1)}
    out = [
        f'<svg viewBox="0 0 {total} {total}" role="img" class="board-svg" '
        f'aria-label="{escape(_("Main board"))}">',
        '<defs><pattern id="ship-hatch" width="12" height="12" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="12" fill="#000" '
        'opacity=".18"/></pattern></defs>',
        f'<rect x="0" y="0" width="{total}" height="{total}" rx="14" fill="#e9e2cf"/>',
    ]
    # Coordinates: letters on top, numbers on the left (as in the move log).
    for i in range(size):
        c = MARGIN + i * CELL + HALF
        out.append(
            f'<text x="{c}" y="{MARGIN - 8}" text-anchor="middle" font-size="20" '
            f'fill="#5c6570">{chr(65 + i)}</text>'
            f'<text x="{MARGIN - 15}" y="{c + 7}" text-anchor="middle" font-size="20" '
            f'fill="#5c6570">{i + 1}</text>'
        )
    for r in range(size):
        for c in range(size):
            if (r, c) in corners:
                continue
            x, y = MARGIN + c * CELL, MARGIN + r * CELL
            in_play = (r, c) in play
            tile = tiles.get((r, c))
            out.append(f'<g data-cell="{cell_name(r, c)}">')
            cls = "cell-empty" if in_play else "cell-outside"
            out.append(f'<rect class="{cls}" x="{x}" y="{y}" width="{CELL}" height="{CELL}"/>')
            if tile is not None:
                if tile["kind"] == "pond":
                    out.append(
                        f'<rect class="sq-pond" x="{x}" y="{y}" width="{CELL}" height="{CELL}"/>'
                        f'<path d="M{x + 15} {y + 45} q 17 -12 35 0 t 35 0 M{x + 15} {y + 65} '
                        f'q 17 -12 35 0 t 35 0" stroke="#fff" stroke-width="4" fill="none"/>'
                        f'<text x="{x + 50}" y="{y + 28}" text-anchor="middle" font-size="18" '
                        f'fill="#fff">{escape(tile.get("label", ""))}</text>'
                    )
                else:
                    out.append(_squares_svg(x, y, tile["squares"]))
                    if tile.get("face_down"):
                        out.append(
                            f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
                            'fill="url(#ship-hatch)"/>'
                            f'<circle cx="{x + 50}" cy="{y + 50}" r="18" fill="#fff" '
                            'stroke="#1f2328" stroke-width="2"/>'
                            f'<text x="{x + 50}" y="{y + 57}" text-anchor="middle" '
                            f'font-size="20" font-weight="700">{escape(_("S"))}</text>'
                        )
                    # Thin lines between the squares.
                    out.append(
                        f'<path d="M{x + HALF} {y} v{CELL} M{x} {y + HALF} h{CELL}" '
                        'stroke="#1f2328" stroke-width="1" opacity=".25"/>'
                    )
            if (r, c) in settlements:
                out.append(
                    f'<path d="M{x + 6} {y + 22} l10 -12 l10 12 z" fill="#fff" '
                    'stroke="#1f2328" stroke-width="2"/>'
                )
            if (r, c) in clearings:
                out.append(_building_svg(x + HALF, y + HALF, clearings[(r, c)]))
            out.append(
                f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="none" '
                'stroke="#1f2328" stroke-width="1.5" opacity=".5"/>'
            )
            out.append("</g>")
    # Play-area outline: every cell edge whose neighbour is outside the area.
    segs = []
    for r, c in sorted(play):
        x, y = MARGIN + c * CELL, MARGIN + r * CELL
        if (r - 1, c) not in play:
            segs.append(f"M{x} {y}h{CELL}")
        if (r + 1, c) not in play:
            segs.append(f"M{x} {y + CELL}h{CELL}")
        if (r, c - 1) not in play:
            segs.append(f"M{x} {y}v{CELL}")
        if (r, c + 1) not in play:
            segs.append(f"M{x + CELL} {y}v{CELL}")
    out.append(f'<path class="play-outline" d="{"".join(segs)}"/>')
    if last:
        x, y = MARGIN + last[1] * CELL, MARGIN + last[0] * CELL
        out.append(
            f'<rect class="last-cell" x="{x + 4}" y="{y + 4}" width="{CELL - 8}" '
            f'height="{CELL - 8}"/>'
        )
    out.append("</svg>")
    return mark_safe("".join(out))


def village_svg(
    village: list[list[dict | None]],
    *,
    row_costs: list[int],
    col_values: list[int],
    completed_rows: set[int] = frozenset(),
    completed_cols: set[int] = frozenset(),
    label: str = "",
) -> SafeString:
    """A 6 x 5 village: row costs on the left, column values below."""
    rows, cols = len(village), len(village[0]) if village else 5
    width, height = village_extent(rows, cols)
    out = [
        f'<svg viewBox="0 0 {width} {height}" role="img" class="village-svg" '
        f'aria-label="{escape(label)}">',
        '<defs><pattern id="field" width="14" height="14" patternUnits="userSpaceOnUse">'
        '<path d="M0 7h14" stroke="#fff" stroke-width="3" opacity=".45"/></pattern></defs>',
    ]
    for r in range(rows):
        y = r * SPACE
        # Variant data (editable in the admin): escaped like anything else from the DB.
        cost = escape(row_costs[r]) if r < len(row_costs) else ""
        weight = "800" if r in completed_rows else "600"
        out.append(
            f'<text x="{V_LEFT / 2}" y="{y + 60}" text-anchor="middle" font-size="34" '
            f'font-weight="{weight}" fill="#2b3a4a">{cost}</text>'
        )
        for c in range(cols):
            x = V_LEFT + c * SPACE
            space = village[r][c]
            out.append(f'<g data-space="{r}-{c}">')
            if space is None:
                out.append(
                    f'<rect x="{x + 3}" y="{y + 3}" width="{SPACE - 6}" height="{SPACE - 6}" '
                    'rx="8" fill="#f3eedf" stroke="#cfc6ae" stroke-width="2"/>'
                    f'<text x="{x + 50}" y="{y + 62}" text-anchor="middle" font-size="30" '
                    f'fill="#cfc6ae">{cost}</text>'
                )
            else:
                res = space.get("resource")
                out.append(
                    f'<rect class="{_res_class(res)}" x="{x + 3}" y="{y + 3}" '
                    f'width="{SPACE - 6}" height="{SPACE - 6}" rx="8" stroke="#1f2328" '
                    'stroke-width="2"/>'
                )
                number = space.get("number")
                if space.get("face_up"):
                    out.append(
                        f'<text x="{x + 50}" y="{y + 68}" text-anchor="middle" font-size="52" '
                        'font-weight="800" fill="#fff" stroke="#1f2328" stroke-width="1.5">'
                        f"{escape(number if number is not None else '')}</text>"
                    )
                else:
                    out.append(
                        f'<rect x="{x + 3}" y="{y + 3}" width="{SPACE - 6}" '
                        f'height="{SPACE - 6}" rx="8" fill="url(#field)"/>'
                    )
                    if number is not None:
                        out.append(
                            f'<text x="{x + 84}" y="{y + 90}" text-anchor="middle" '
                            'font-size="22" fill="#fff" stroke="#1f2328" stroke-width=".8">'
                            f"{escape(number)}</text>"
                        )
            out.append("</g>")
    for c in range(cols):
        x = V_LEFT + c * SPACE
        value = escape(col_values[c]) if c < len(col_values) else ""
        weight = "800" if c in completed_cols else "600"
        out.append(
            f'<text x="{x + 50}" y="{rows * SPACE + 38}" text-anchor="middle" font-size="30" '
            f'font-weight="{weight}" fill="#5c6570">{value}</text>'
        )
    for r in completed_rows:
        out.append(
            f'<rect x="{V_LEFT}" y="{r * SPACE}" width="{cols * SPACE}" height="{SPACE}" '
            'fill="none" stroke="#2f7d32" stroke-width="6"/>'
        )
    for c in completed_cols:
        out.append(
            f'<rect x="{V_LEFT + c * SPACE}" y="0" width="{SPACE}" height="{rows * SPACE}" '
            'fill="none" stroke="#1d5fa8" stroke-width="6" stroke-dasharray="14 8"/>'
        )
    out.append("</svg>")
    return mark_safe("".join(out))


# -- choices from the legal actions ----------------------------------------------------------


@dataclass
class Choice:
    """One legal action offered as a button: the JSON it posts and its label."""

    action: Any
    label: str
    style: str = ""
    css: str = ""
    short: str = ""
    key: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def action_json(self) -> str:
        return json.dumps(self.action, separators=(",", ":"), sort_keys=True)


@dataclass
class Selection:
    """What the player has picked but not played yet (from the query string)."""

    tile: int | None = None
    rot: int = 0
    ship: str | None = None
    building: tuple[str, int] | None = None

    @classmethod
    def parse(cls, data) -> Selection:
        sel = cls()
        try:
            if data.get("tile") not in (None, ""):
                sel.tile = int(data.get("tile"))
                sel.rot = int(data.get("rot") or 0) % 4
        except (TypeError, ValueError):
            sel.tile = None
        ship = data.get("ship")
        if ship in RESOURCES:
            sel.ship = ship
        b = data.get("b") or ""
        if "-" in b:
            res, _sep, num = b.partition("-")
            if res in RESOURCES and num.isdigit():
                sel.building = (res, int(num))
        return sel


def plan_choices(view: dict, legal: list[dict], selection: Selection, village_shape) -> dict:
    """Sort the legal actions (JSON) into what the page offers, given the selection.

    Returns a dict with the hand tiles (each with its distinct rotations and whether it is
    selected), the board targets, the village targets, the shipment resources, the
    simple buttons (end build, pass) and the draws.
    """
    size = view["board"]["size"]
    rows, cols = village_shape
    by_type: dict[str, list[dict]] = {}
    for a in legal:
        by_type.setdefault(a.get("type"), []).append(a)

    # Harvest tiles: rotations offered per tile (the engine lists each distinct placement
    # once, so an identical second tile or a symmetric rotation simply has no actions).
    rotations: dict[int, list[int]] = OrderedDict()
    for a in by_type.get("harvest", []):
        rots = rotations.setdefault(a["tile"], [])
        if a["rotation"] not in rots:
            rots.append(a["rotation"])
    ship_resources = []
    for a in by_type.get("ship", []):
        if a["resource"] not in ship_resources:
            ship_resources.append(a["resource"])

    board_targets: list[Choice] = []
    if selection.tile is not None and selection.tile in rotations:
        rots = rotations[selection.tile]
        if selection.rot not in rots:
            selection.rot = rots[0]
        for a in by_type.get("harvest", []):
            if a["tile"] == selection.tile and a["rotation"] == selection.rot:
                board_targets.append(
                    Choice(
                        a,
                        _("Place the tile on %(cell)s") % {"cell": cell_name(a["row"], a["col"])},
                        style_of(cell_box(a["row"], a["col"], size)),
                    )
                )
    elif selection.tile is not None:
        selection.tile = None
    if selection.ship is not None:
        if selection.ship in ship_resources:
            for a in by_type.get("ship", []):
                if a["resource"] == selection.ship:
                    board_targets.append(
                        Choice(
                            a,
                            _("Play the shipment as 4 %(res)s on %(cell)s")
                            % {
                                "res": res_label(a["resource"]),
                                "cell": cell_name(a["row"], a["col"]),
                            },
                            style_of(cell_box(a["row"], a["col"], size)),
                        )
                    )
        else:
            selection.ship = None

    # Buildings: which (resource, number) can be built, and where.
    buildable: list[tuple[str, int]] = []
    for a in by_type.get("build", []):
        pair = (a["resource"], a["number"])
        if pair not in buildable:
            buildable.append(pair)
    village_targets: list[Choice] = []
    if selection.building is not None and selection.building in buildable:
        res, num = selection.building
        spaces: dict[tuple[int, int], list[dict]] = OrderedDict()
        for a in by_type.get("build", []):
            if a["resource"] == res and a["number"] == num:
                spaces.setdefault((a["row"], a["col"]), []).append(a)
        for (r, c), acts in spaces.items():
            both = len(acts) > 1
            for a in sorted(acts, key=lambda a: not a["face_up"]):
                if a["face_up"]:
                    label = _("Build %(res)s %(num)s face up on row %(row)s, column %(col)s")
                    part, css, short = ("top" if both else "full"), "up", f"▲ {num}"
                else:
                    label = _("Build %(res)s %(num)s face down on row %(row)s, column %(col)s")
                    part, css, short = ("bottom" if both else "full"), "down", "▼"
                village_targets.append(
                    Choice(
                        a,
                        label % {"res": res_label(res), "num": num, "row": r + 1, "col": c + 1},
                        style_of(space_box(r, c, rows, cols, part)),
                        css,
                        short,
                    )
                )
    elif selection.building is not None:
        selection.building = None

    buttons = []
    for a in by_type.get("end_build", []):
        buttons.append(Choice(a, _("End building"), css="primary"))
    for a in by_type.get("pass", []):
        buttons.append(Choice(a, _("Pass"), css="primary"))
    draws = []
    for a in by_type.get("draw_market", []):
        draws.append(
            Choice(
                a,
                _("Take %(res)s %(num)s from the market")
                % {"res": res_label(a["resource"]), "num": a["number"]},
                css=f"res-{a['resource']}",
            )
        )
    for a in by_type.get("draw_bag", []):
        draws.append(Choice(a, _("Draw blind from the bag")))
    known = {"harvest", "ship", "build", "end_build", "pass", "draw_market", "draw_bag"}
    other = [
        Choice(a, json.dumps(a)) for t, acts in by_type.items() if t not in known for a in acts
    ]
    return {
        "rotations": rotations,
        "ship_resources": ship_resources,
        "board_targets": board_targets,
        "buildable": buildable,
        "village_targets": village_targets,
        "buttons": buttons,
        "draws": draws,
        "other": other,
        "can_act": bool(legal),
    }


def rotate_squares(squares: list[str], rot: int) -> list[str]:
    """Squares [NW, NE, SE, SW] after ``rot`` quarter turns clockwise."""
    rot %= 4
    return squares[-rot:] + squares[:-rot] if rot else list(squares)
