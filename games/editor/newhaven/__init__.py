"""New Haven's visual editors: the village board, the main board, the harvest-tile deck.

Each draws a part of the variant the way the physical components look and reads it
back; everything else of the variant stays the generic schema form.  Rule numbers are
never written here: the widgets show what the data says.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from django.utils.translation import gettext as _

from games.editor.schemaform import MISSING, Node, SchemaForm, Widget, get_at

#: The four squares of a tile or printed area, clockwise.
CORNERS = ("NW", "NE", "SE", "SW")
MAX_BOARD = 16


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _resources(form: SchemaForm) -> list[str]:
    values = get_at(form.context.get("data"), ("resources",))
    return [r for r in values if isinstance(r, str)] if isinstance(values, list) else []


class VillageWidget(Widget):
    """The village board as a grid: the cost of each row on the left, row values on the
    right, column values below; the grid follows the row and column counts."""

    template = "editor/newhaven/village.html"

    def parse(self, form: SchemaForm, schema: dict, path: tuple, name: str) -> Any:
        data = form.parse_generic(schema, path, name)
        if isinstance(data, dict):
            rows, cols = _int(data.get("rows")), _int(data.get("cols"))
            for key, n in (("row_costs", rows), ("row_values", rows), ("col_values", cols)):
                values = data.get(key)
                if n is None or not 1 <= n <= 12 or not isinstance(values, list):
                    continue
                del values[n:]
                while len(values) < n:  # a new row or column starts like the last one
                    values.append(copy.deepcopy(values[-1]) if values else 0)
        return data

    def decorate(self, form: SchemaForm, node: Node) -> None:
        costs, values, cols = (node.child("row_costs"), node.child("row_values"),
                               node.child("col_values"))
        if not (costs and values and cols) or costs.kind != "list" or cols.kind != "list":
            node.template = "editor/form/object.html"  # not grid-shaped: the plain form
            return
        for child in (node.child("rows"), node.child("cols")):
            if child is not None:
                child.extra["refresh"] = True
        width = len(cols.children)
        grid = []
        for r, cost in enumerate(costs.children):
            value = values.children[r] if r < len(values.children) else None
            grid.append({"index": r + 1, "cost": cost, "value": value,
                         "spaces": [cost.raw] * width})
        node.extra.update(grid=grid, col_values=cols.children, costs=costs, values=values,
                          cols=cols, rows_node=node.child("rows"), cols_node=node.child("cols"))


class BoardWidget(Widget):
    """The main board as a grid of cells: each cell is empty, a printed area (with its four
    squares), a settlement or a clearing; play areas per player count are highlighted."""

    template = "editor/newhaven/board.html"
    LISTS = ("printed_areas", "settlements", "clearings")

    def decorate(self, form: SchemaForm, node: Node) -> None:
        value = node.value if isinstance(node.value, dict) else {}
        size = _int(value.get("size"))
        if size is None or not 1 <= size <= MAX_BOARD or any(
            node.child(key) is None or node.child(key).kind != "list" for key in self.LISTS
        ):
            node.template = "editor/form/object.html"
            return
        corners = value.get("exclude_corners") is True
        for key in ("size", "exclude_corners"):
            child = node.child(key)
            if child is not None:
                child.extra["refresh"] = True
        resources = _resources(form)
        kinds: dict[tuple[int, int], dict] = {}
        outside: list[Node] = []
        order: dict[str, list] = {}
        for key in self.LISTS:
            list_node = node.child(key)
            order[key] = []
            for item in list_node.children:
                cell = item.value.get("cell") if key == "printed_areas" and isinstance(
                    item.value, dict) else item.value
                if not (isinstance(cell, list) and len(cell) == 2
                        and all(_int(v) is not None for v in cell)):
                    outside.append(item)
                    continue
                r, c = cell
                order[key].append([r, c])
                if not (0 <= r < size and 0 <= c < size) or (r, c) in kinds:
                    outside.append(item)
                    continue
                squares = None
                if key == "printed_areas":
                    raw = item.value.get("squares") if isinstance(item.value, dict) else None
                    squares = [s if isinstance(s, str) else "" for s in (raw or [])][:4]
                    squares += [resources[0] if resources else ""] * (4 - len(squares))
                nodes = list(item.walk())
                for sub in nodes:  # the cell shows the errors of its entry
                    sub.alias = f"{node.slot}-at-{r}-{c}"
                kinds[(r, c)] = {"kind": key, "squares": squares, "nodes": nodes}
        areas = node.child("play_area")
        rects: dict[str, tuple] = {}
        if isinstance(value.get("play_area"), dict):
            for count, rect in value["play_area"].items():
                try:
                    (r0, r1), (c0, c1) = rect["rows"], rect["cols"]
                    rects[str(count)] = (int(r0), int(r1), int(c0), int(c1))
                except (KeyError, TypeError, ValueError):
                    continue
        rows = []
        for r in range(size):
            cells = []
            for c in range(size):
                removed = corners and r in (0, size - 1) and c in (0, size - 1)
                info = kinds.get((r, c), {})
                cells.append({
                    "r": r, "c": c, "removed": removed,
                    "kind": {"printed_areas": "printed", "settlements": "settlement",
                             "clearings": "clearing"}.get(info.get("kind", ""), ""),
                    "squares": [
                        {"corner": corner, "value": s, "index": k}
                        for k, (corner, s) in enumerate(
                            zip(CORNERS, info.get("squares") or [], strict=False))
                    ],
                    "nodes": info.get("nodes", []),
                    "slot": f"{node.slot}-at-{r}-{c}",
                    "areas": [k for k, (r0, r1, c0, c1) in rects.items()
                              if r0 <= r <= r1 and c0 <= c <= c1],
                })
            rows.append(cells)
        skip = {*self.LISTS}
        rule_data = form.context.get("rule_data") or {}
        turns = rule_data.get("turns_per_player")
        node.extra["turns"] = sorted(turns.items(), key=lambda kv: int(kv[0])) if isinstance(
            turns, dict) and all(str(k).isdigit() for k in turns) else []
        node.extra.update(
            rows=rows, size=size, resources=resources, outside=outside,
            order=json.dumps(order), areas=sorted(rects, key=lambda k: (len(k), k)),
            plain=[ch for ch in node.children if ch.path[-1] not in skip],
            lists=[node.child(k) for k in self.LISTS], play_area=areas,
            kinds=[("", "—"), ("printed", _("printed")),
                   ("settlement", _("settlement")), ("clearing", _("clearing"))],
        )

    def parse(self, form: SchemaForm, schema: dict, path: tuple, name: str) -> Any:
        post = form.post
        data = form.parse_generic(schema, path, name)
        if not isinstance(data, dict) or f"{name}#grid" not in post:
            return data
        try:
            grid = max(0, min(MAX_BOARD, int(post.get(f"{name}#grid"))))
            order = json.loads(post.get(f"{name}#order") or "{}")
        except (TypeError, ValueError):
            grid, order = 0, {}
        size = _int(data.get("size"))
        size = grid if size is None or not 1 <= size <= MAX_BOARD else min(size, grid)
        resources = _resources(form)
        found: dict[str, list[tuple[int, int]]] = {key: [] for key in self.LISTS}
        squares: dict[tuple[int, int], list[str]] = {}
        lists = {"printed": "printed_areas", "settlement": "settlements",
                 "clearing": "clearings"}
        for r in range(size):
            for c in range(size):
                kind = post.get(f"{name}#cell-{r}-{c}", "")
                if kind not in lists:
                    continue
                found[lists[kind]].append((r, c))
                if kind == "printed":
                    picked = [post.get(f"{name}#sq-{r}-{c}-{k}") for k in range(4)]
                    default = resources[0] if resources else ""
                    squares[(r, c)] = [p if p is not None else default for p in picked]
        for key in self.LISTS:
            # Cells keep their order in the list; new ones follow in reading order.
            before = [tuple(cell) for cell in order.get(key, []) if isinstance(cell, list)]
            kept = [cell for cell in before if cell in found[key]]
            cells = kept + [cell for cell in found[key] if cell not in kept]
            if key == "printed_areas":
                data[key] = [{"cell": list(cell), "squares": squares[cell]} for cell in cells]
            else:
                data[key] = [list(cell) for cell in cells]
        return data


class HarvestDeckWidget(Widget):
    """The harvest-tile deck as a composition table: each kind of tile (its four squares)
    with how many copies the deck holds."""

    template = "editor/newhaven/harvest.html"

    def decorate(self, form: SchemaForm, node: Node) -> None:
        if node.kind != "list":
            return
        resources = _resources(form)
        types: list[dict] = []
        by_key: dict[str, dict] = {}
        order: list[int] = []
        for item in node.children:
            squares = item.value if isinstance(item.value, list) else []
            key = json.dumps(squares)
            kind = by_key.get(key)
            if kind is None:
                kind = {"squares": [
                    {"corner": corner, "value": s if isinstance(s, str) else "",
                     "index": k}
                    for k, (corner, s) in enumerate(zip(CORNERS, squares, strict=False))
                ], "count": 0, "nodes": [], "slot": f"{node.slot}-t{len(types)}"}
                by_key[key] = kind
                types.append(kind)
            kind["count"] += 1
            order.append(types.index(kind))
            for sub in item.walk():  # errors of any of its tiles show on the kind's row
                sub.alias = kind["slot"]
                kind["nodes"].append(sub)
        totals = dict.fromkeys(resources, 0)
        for item in node.children:
            for s in item.value if isinstance(item.value, list) else []:
                if s in totals:
                    totals[s] += 1
        node.extra.update(types=types, resources=resources, total=len(node.children),
                          totals=list(totals.items()), order=",".join(map(str, order)))

    def parse(self, form: SchemaForm, schema: dict, path: tuple, name: str) -> Any:
        post = form.post
        if f"{name}#types" not in post:
            return form.parse_generic(schema, path, name)
        try:
            n = max(0, min(200, int(post.get(f"{name}#types"))))
            order = [int(t) for t in (post.get(f"{name}#order") or "").split(",") if t]
        except (TypeError, ValueError):
            n, order = 0, []
        kinds = []
        for t in range(n):
            squares = [post.get(f"{name}#t{t}-{k}", "") for k in range(4)]
            raw = post.get(f"{name}#t{t}-count", "0")
            try:
                count = max(0, min(500, int(raw.strip() or "0")))
            except ValueError:
                form.error(path, _("Tile kind %(n)d: enter a whole number of copies.")
                           % {"n": t + 1})
                count = 0
            kinds.append({"squares": squares, "count": count, "used": 0})
        tiles: list[Any] = []
        # Keep the deck's order: each old tile becomes its kind's new squares while the
        # kind still has copies to give; extra copies (and new kinds) follow at the end.
        for t in order:
            if 0 <= t < n and kinds[t]["used"] < kinds[t]["count"]:
                kinds[t]["used"] += 1
                tiles.append(list(kinds[t]["squares"]))
        for kind in kinds:
            while kind["used"] < kind["count"]:
                kind["used"] += 1
                tiles.append(list(kind["squares"]))
        return tiles

    def apply_op(self, form: SchemaForm, data: Any, op: str, arg: str) -> bool:
        if op != "nh-harvest-add" or not isinstance(data, dict):
            return False
        tiles = data.get("harvest_tiles")
        resources = _resources(form)
        if isinstance(tiles, list) and resources:
            tiles.append([resources[0]] * 4)
        return True


def figure_label(name: str) -> str | None:
    """The translated label of one of the engine's simulation figures
    (``NewHavenEngine.figures``), by its id; ``None`` for an id it does not know."""
    return {
        "turns": _("turns"),
        "empty_village_spaces": _("empty village spaces at the end, per player"),
        "completed_rows": _("completed rows per player"),
        "completed_cols": _("completed columns per player"),
        "doubled_lines": _("lines scored double per player"),
        "buildings_built": _("buildings built per player"),
        "face_down_share": _("share of buildings built face down"),
        "shared_build_share": _("share of builds in another player's turn"),
        "harvest_value": _("markers per harvest"),
        "blind_draw_share": _("share of building draws taken blind from the bag"),
        "buildings_left_in_hand": _("buildings left in hand at the end, per player"),
        "unplayed_shipments": _("share of players who never played their shipment"),
        "clearing_buildings": _("buildings taken from clearings"),
        "winning_margin": _("winning margin (points)"),
    }.get(name)


WIDGETS = {
    ("village",): VillageWidget(),
    ("board",): BoardWidget(),
    ("harvest_tiles",): HarvestDeckWidget(),
}

__all__ = ["MISSING", "WIDGETS", "figure_label"]
