"""Variant data of New Haven: loading, validation and compilation.

Every reconstructed number of the game (deck, costs, values, board layout...) lives in
the JSON files of ``variants/``; this module only interprets them.  ``compile_variant``
turns a (valid) variant into a :class:`Compiled` object of flat lookup tables that the
rules use, cached by the variant's canonical JSON so each variant is compiled once.
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path

import jsonschema

__all__ = [
    "DEFAULT_VARIANT_NAMES",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Compiled",
    "compile_variant",
    "default_variants",
    "validate_variant",
    "variant_schema",
]

MIN_PLAYERS = 2
MAX_PLAYERS = 4
DEFAULT_VARIANT_NAMES = ("standard", "side-b", "rebuild", "careful-harvest")
_DIR = Path(__file__).resolve().parent / "variants"


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads((_DIR / "schema.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _defaults_json() -> str:
    data = {
        name: json.loads((_DIR / f"{name}.json").read_text(encoding="utf-8"))
        for name in DEFAULT_VARIANT_NAMES
    }
    return json.dumps(data)


def variant_schema() -> dict:
    """The JSON Schema of the variant data (a fresh copy)."""
    return copy.deepcopy(_schema())


def default_variants() -> dict[str, dict]:
    """Variant name -> variant data, fresh deep copies on every call."""
    return json.loads(_defaults_json())


def _path(parts) -> str:
    """``['board', 'play_area', '3']`` -> ``board.play_area['3']``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif (text and not part.replace("_", "").isalnum()) or (text and part.isdigit()):
            text += f"[{part!r}]"
        else:
            text += ("." if text else "") + part
    return text or "(variant)"


def _cells_of_area(size: int, corners: bool, rect: dict) -> list[tuple[int, int]]:
    (r0, r1), (c0, c1) = rect["rows"], rect["cols"]
    out = []
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            if corners and r in (0, size - 1) and c in (0, size - 1):
                continue
            out.append((r, c))
    return out


def validate_variant(variant: object) -> list[str]:
    """Human-readable problems of ``variant``, each naming its field; ``[]`` when playable."""
    if not isinstance(variant, dict):
        return ["(variant): must be a JSON object"]
    validator = jsonschema.Draft202012Validator(_schema())
    problems = [
        f"{_path(err.absolute_path)}: {err.message}"
        for err in sorted(validator.iter_errors(variant), key=lambda e: list(map(str, e.path)))
    ]
    if problems:
        # The semantic checks below assume the shapes the schema guarantees.
        return problems
    return _semantic_problems(variant)


def _semantic_problems(v: dict) -> list[str]:
    problems: list[str] = []
    res = set(v["resources"])

    def known(field: str, names) -> None:
        for name in names:
            if name not in res:
                problems.append(f"{field}: unknown resource {name!r}")

    for i, tile in enumerate(v["harvest_tiles"]):
        known(f"harvest_tiles[{i}]", tile)

    vil = v["village"]
    rows, cols = vil["rows"], vil["cols"]
    for key, want in (("row_costs", rows), ("row_values", rows), ("col_values", cols)):
        if len(vil[key]) != want:
            problems.append(f"village.{key}: needs {want} entries, has {len(vil[key])}")

    board = v["board"]
    size, corners = board["size"], board["exclude_corners"]

    def check_cell(field: str, cell) -> bool:
        r, c = cell
        if r >= size or c >= size:
            problems.append(f"{field}: cell {list(cell)} is outside the {size}x{size} board")
            return False
        if corners and r in (0, size - 1) and c in (0, size - 1):
            problems.append(f"{field}: cell {list(cell)} is a removed corner")
            return False
        return True

    fixed: dict[tuple[int, int], str] = {}
    for i, area in enumerate(board["printed_areas"]):
        field = f"board.printed_areas[{i}]"
        known(f"{field}.squares", area["squares"])
        cell = tuple(area["cell"])
        if check_cell(f"{field}.cell", cell):
            if cell in fixed:
                problems.append(f"{field}.cell: {list(cell)} overlaps {fixed[cell]}")
            fixed.setdefault(cell, field)
    for key in ("settlements", "clearings"):
        for i, cell in enumerate(board[key]):
            field = f"board.{key}[{i}]"
            cell = tuple(cell)
            if check_cell(field, cell):
                if cell in fixed:
                    problems.append(f"{field}: {list(cell)} overlaps {fixed[cell]}")
                fixed.setdefault(cell, field)

    counts: list[int] = []
    smallest = size * size
    for key, rect in sorted(board["play_area"].items()):
        field = f"board.play_area[{key!r}]"
        n = int(key)
        if key != str(n):
            problems.append(f"{field}: write the player count as {str(n)!r}")
            continue
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            problems.append(f"{field}: player count {n} is outside {MIN_PLAYERS}..{MAX_PLAYERS}")
            continue
        bad = False
        for axis in ("rows", "cols"):
            lo, hi = rect[axis]
            if lo > hi or hi >= size:
                problems.append(f"{field}.{axis}: range {[lo, hi]} is not inside 0..{size - 1}")
                bad = True
        if bad:
            continue
        counts.append(n)
        cells = set(_cells_of_area(size, corners, rect))
        smallest = min(smallest, len(cells))
        printed = sum(1 for a in board["printed_areas"] if tuple(a["cell"]) in cells)
        settlements = sum(1 for c in board["settlements"] if tuple(c) in cells)
        clearings = sum(1 for c in board["clearings"] if tuple(c) in cells)
        free = len(cells) - printed - settlements
        if free < 2:
            problems.append(f"{field}: only {free} free cells, the game needs at least 2")
            continue
        if (free - 1) % n:
            problems.append(
                f"{field}: {free} free cells give unequal turns for {n} players "
                f"(free cells - 1 = {free - 1} is not divisible by {n})"
            )
            continue
        turns = (free - 1) // n
        if turns != v["turns_per_player"]:
            problems.append(
                f"{field}: gives {turns} turns per player, turns_per_player says "
                f"{v['turns_per_player']}"
            )
        ponds = sum(1 for label in board["ponds"] if label <= n)
        if ponds + board["settlement_tiles"] != settlements:
            problems.append(
                f"{field}: {settlements} settlement cells in play but {ponds} ponds + "
                f"{board['settlement_tiles']} settlement_tiles to put on them"
            )
        hand = v["hand"]
        need_tiles = n * (hand["tiles"] + hand["shipments"]) + board["settlement_tiles"] + n * turns
        if need_tiles > len(v["harvest_tiles"]):
            problems.append(
                f"harvest_tiles: {len(v['harvest_tiles'])} tiles are too few for {n} players "
                f"(hands, shipments, settlements and draws need {need_tiles})"
            )
        removal = v["building_removals"].get(str(n), 0)
        copies = v["buildings"]["copies"]
        if removal > copies:
            problems.append(
                f"building_removals[{key!r}]: removes {removal} copies, there are only {copies}"
            )
            continue
        total = len(v["resources"]) * len(v["buildings"]["numbers"]) * (copies - removal)
        need = n * hand["buildings"] + v["market_size"] + clearings
        if need > total:
            problems.append(
                f"buildings: {total} buildings are too few for {n} players "
                f"(hands, market and clearings need {need})"
            )
    # A marker counts the squares of one chain inside the play area, so a cost above
    # 4 x (cells of the smallest play area) could never be paid in some games.
    bound = 4 * smallest
    for i, cost in enumerate(vil["row_costs"]):
        if not 1 <= cost <= bound:
            problems.append(
                f"village.row_costs[{i}]: cost {cost} must be between 1 and {bound} "
                "(the most squares a marker can reach)"
            )
    for key in v["building_removals"]:
        if key not in board["play_area"]:
            problems.append(f"building_removals[{key!r}]: no play area for {key} players")
    if not counts and not problems:
        problems.append("board.play_area: no playable player count")
    # Duplicates: report each problem once (costs are checked per player count).
    return list(dict.fromkeys(problems))


class Compiled:
    """Flat lookup tables of one variant, shared by every state of that variant."""

    def __init__(self, v: dict) -> None:
        self.name: str = v["name"]
        self.side: str = v["board"]["side"]
        self.resources: tuple[str, ...] = tuple(v["resources"])
        self.R = len(self.resources)
        self.res_index = {name: i for i, name in enumerate(self.resources)}
        self.numbers: tuple[int, ...] = tuple(v["buildings"]["numbers"])
        self.num_index = {n: i for i, n in enumerate(self.numbers)}
        nn = len(self.numbers)
        self.ncodes = self.R * nn
        # building code = resource index * len(numbers) + number index
        self.code_res = tuple(c // nn for c in range(self.ncodes))
        self.code_num = tuple(self.numbers[c % nn] for c in range(self.ncodes))
        self.copies: int = v["buildings"]["copies"]
        self.removals = {int(k): n for k, n in v["building_removals"].items()}
        self.tiles = tuple(tuple(self.res_index[s] for s in t) for t in v["harvest_tiles"])
        # distinct rotations per tile: rotation k moves square i to position (i + k) % 4
        self.tile_rots: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...] = tuple(
            self._distinct_rotations(t) for t in self.tiles
        )
        vil = v["village"]
        self.vrows, self.vcols = vil["rows"], vil["cols"]
        self.nspaces = self.vrows * self.vcols
        self.space_cost = tuple(vil["row_costs"][s // self.vcols] for s in range(self.nspaces))
        self.row_values = tuple(vil["row_values"])
        self.col_values = tuple(vil["col_values"])
        self.all_spaces = (1 << self.nspaces) - 1
        self.row_masks = tuple(
            sum(1 << (r * self.vcols + c) for c in range(self.vcols)) for r in range(self.vrows)
        )
        self.col_masks = tuple(
            sum(1 << (r * self.vcols + c) for r in range(self.vrows)) for c in range(self.vcols)
        )
        nb = []
        for s in range(self.nspaces):
            r, c = divmod(s, self.vcols)
            m = 0
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if 0 <= r + dr < self.vrows and 0 <= c + dc < self.vcols:
                    m |= 1 << ((r + dr) * self.vcols + c + dc)
            nb.append(m)
        self.space_nb = tuple(nb)
        self.max_cost = max(self.space_cost)
        # affordable[v]: spaces whose cost is <= v (v capped at max_cost)
        self.affordable = tuple(
            sum(1 << s for s in range(self.nspaces) if self.space_cost[s] <= val)
            for val in range(self.max_cost + 1)
        )
        board = v["board"]
        self.size = size = board["size"]
        self.corners = board["exclude_corners"]
        self.ncells = size * size
        self.sq_width = w = 2 * size
        self.cell_squares = tuple(
            (
                (2 * r) * w + 2 * c,
                (2 * r) * w + 2 * c + 1,
                (2 * r + 1) * w + 2 * c + 1,
                (2 * r + 1) * w + 2 * c,
            )
            for r in range(size)
            for c in range(size)
        )
        sq_nb = []
        for q in range(w * w):
            r, c = divmod(q, w)
            sq_nb.append(
                tuple(
                    (r + dr) * w + c + dc
                    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    if 0 <= r + dr < w and 0 <= c + dc < w
                )
            )
        self.sq_nb = tuple(sq_nb)
        self.play_area = {
            int(k): tuple(sorted(r * size + c for r, c in _cells_of_area(size, self.corners, a)))
            for k, a in board["play_area"].items()
        }
        self.printed = tuple(
            (a["cell"][0] * size + a["cell"][1], tuple(self.res_index[s] for s in a["squares"]))
            for a in board["printed_areas"]
        )
        self.settlements = tuple(r * size + c for r, c in board["settlements"])
        self.clearings = tuple(r * size + c for r, c in board["clearings"])
        self.ponds = tuple(board["ponds"])
        self.settlement_tiles: int = board["settlement_tiles"]
        self.market_size: int = v["market_size"]
        self.hand_buildings: int = v["hand"]["buildings"]
        self.hand_tiles: int = v["hand"]["tiles"]
        self.shipments: int = v["hand"]["shipments"]
        self.rebuild: bool = v["rebuild"]
        self.turns_per_player: int = v["turns_per_player"]
        # Interned action tuples: legal_actions hands out these shared objects instead of
        # building hundreds of fresh tuples per call.
        rc = [divmod(cell, size) for cell in range(self.ncells)]
        self.cell_rc = tuple(rc)
        hand_max = self.hand_tiles + 1
        self.harvest_acts = tuple(
            tuple(tuple(("harvest", i, r, c, rot) for r, c in rc) for rot in range(4))
            for i in range(hand_max)
        )
        self.ship_acts = tuple(
            tuple(("ship", r, c, name) for name in self.resources) for r, c in rc
        )
        self.build_acts = tuple(
            tuple(
                (
                    (
                        "build",
                        self.resources[self.code_res[code]],
                        self.code_num[code],
                        s // self.vcols,
                        s % self.vcols,
                        False,
                    ),
                    (
                        "build",
                        self.resources[self.code_res[code]],
                        self.code_num[code],
                        s // self.vcols,
                        s % self.vcols,
                        True,
                    ),
                )
                for s in range(self.nspaces)
            )
            for code in range(self.ncodes)
        )
        self.market_acts = tuple(
            ("draw_market", self.resources[self.code_res[c]], self.code_num[c])
            for c in range(self.ncodes)
        )

    @staticmethod
    def _distinct_rotations(tile: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
        seen: dict[tuple[int, ...], int] = {}
        for rot in range(4):
            squares = [0, 0, 0, 0]
            for i in range(4):
                squares[(i + rot) % 4] = tile[i]
            seen.setdefault(tuple(squares), rot)
        return tuple((rot, sq) for sq, rot in seen.items())

    def rotate(self, tile: int, rot: int) -> tuple[int, ...]:
        """The squares [NW, NE, SE, SW] of ``tile`` turned ``rot`` quarter turns clockwise."""
        t = self.tiles[tile]
        return tuple(t[(i - rot) % 4] for i in range(4))

    def building_name(self, code: int) -> str:
        """``'wheat 3'``."""
        return f"{self.resources[self.code_res[code]]} {self.code_num[code]}"


@lru_cache(maxsize=64)
def _compile_cached(key: str) -> Compiled:
    return Compiled(json.loads(key))


def canonical(variant: dict) -> str:
    """The canonical JSON of a variant: the cache key of its compilation."""
    return json.dumps(variant, sort_keys=True, separators=(",", ":"))


def compile_variant(variant: dict) -> Compiled:
    """The (cached) compiled tables of an already validated variant."""
    return _compile_cached(canonical(variant))
