"""Variant data of New Haven: loading, validation, compilation and the file layout.

Every reconstructed number of the game (deck, costs, values, board layout...) lives in
the JSON files of ``variants/``; this module only interprets them.  ``compile_variant``
turns a (valid) variant into a :class:`Compiled` object of flat lookup tables that the
rules use, cached by the variant's canonical JSON so each variant is compiled once.

Turn arithmetic
---------------
A game ends when exactly one cell of the play area is empty, and every player must
have had the same number of turns.  With ``free`` the cells of the play area that are
empty after the set-up, a variant is playable with ``n`` players only if
``(free - 1) % n == 0``; ``turns_per_player`` must equal ``(free - 1) // n`` for every
player count.  On side B the set-up shuffles the ponds and ``settlement_tiles`` tiles
onto *all* the settlement cells and then takes off the ponds labelled above ``n``, so
``free`` must not depend on the shuffle: the validator refuses a layout where it
would (only possible when a settlement cell lies outside a play area).
"""

from __future__ import annotations

import copy
import json
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from games.engines.problems import FieldRef, Problem, Several, Templates, schema_problem

__all__ = [
    "DEFAULT_VARIANT_NAMES",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PROBLEM_TEMPLATES",
    "Compiled",
    "canonical",
    "compile_variant",
    "covered_settlements",
    "default_variants",
    "format_variant",
    "play_area_cells",
    "validate_variant",
    "variant_problems",
    "variant_schema",
]

MIN_PLAYERS = 2
MAX_PLAYERS = 4
DEFAULT_VARIANT_NAMES = ("standard", "side-b", "rebuild", "careful-harvest")
VARIANTS_DIR = Path(__file__).resolve().parent / "variants"


@cache
def _schema() -> dict:
    return json.loads((VARIANTS_DIR / "schema.json").read_text(encoding="utf-8"))


@cache
def _defaults_json() -> str:
    data = {
        name: json.loads((VARIANTS_DIR / f"{name}.json").read_text(encoding="utf-8"))
        for name in DEFAULT_VARIANT_NAMES
    }
    return json.dumps(data)


def variant_schema() -> dict:
    """The JSON Schema of the variant data (a fresh copy)."""
    return copy.deepcopy(_schema())


def default_variants() -> dict[str, dict]:
    """Variant name -> variant data, fresh deep copies on every call."""
    return json.loads(_defaults_json())


def canonical(variant: Any) -> str:
    """The canonical JSON of a variant: the cache key of everything derived from it.

    ``TypeError`` / ``ValueError`` for data that is not JSON.
    """
    return json.dumps(variant, sort_keys=True, separators=(",", ":"), allow_nan=False)


def format_variant(variant: dict, width: int = 92) -> str:
    """Variant data as the files in ``variants/`` are laid out (keys in their order).

    Indented by two spaces; any list or object that fits on one line within ``width``
    stays on one line (a cell ``[1, 5]``, a tile's four squares, a play area), the
    rest is opened one item per line.  Ends with a newline.
    """

    def fmt(value: Any, indent: int, used: int) -> str:
        # ``indent``: this value's block indentation; ``used``: columns taken before it.
        flat = json.dumps(value, ensure_ascii=False)
        if not isinstance(value, (dict, list)) or used + len(flat) <= width or not value:
            return flat
        pad = " " * (indent + 2)
        if isinstance(value, list):
            items = [pad + fmt(item, indent + 2, indent + 2) for item in value]
            return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
        items = []
        for key, item in value.items():
            head = f"{pad}{json.dumps(key, ensure_ascii=False)}: "
            items.append(head + fmt(item, indent + 2, len(head)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"

    return fmt(variant, 0, 0) + "\n"


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


def play_area_cells(size: int, exclude_corners: bool, rect: dict) -> list[tuple[int, int]]:
    """The cells ``(row, col)`` of a play-area rectangle, row-major, corners removed."""
    (r0, r1), (c0, c1) = rect["rows"], rect["cols"]
    out = []
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            if exclude_corners and r in (0, size - 1) and c in (0, size - 1):
                continue
            out.append((r, c))
    return out


def covered_settlements(
    settlements_in_play: int, settlements: int, staying: int
) -> tuple[int, int]:
    """Least and most settlement cells of the play area that stay covered after set-up.

    ``settlements`` pieces (ponds and tiles), ``staying`` of which stay on the board
    (the tiles and the ponds labelled up to the player count), are shuffled onto the
    ``settlements`` cells, ``settlements_in_play`` of which lie in the play area: the
    covered cells of the play area follow a hypergeometric law over this range.
    """
    low = max(0, settlements_in_play - (settlements - staying))
    return low, min(settlements_in_play, staying)


# The messages of the checks below (``Problem`` templates, translated by the web layer).
_T = Templates()
NOT_JSON = _T("must be JSON data")
NOT_OBJECT = _T("must be a JSON object")
UNKNOWN_RESOURCE = _T("unknown resource %(name)s")
ENTRIES = _T("needs %(want)s entries, has %(has)s")
OFF_BOARD = _T("cell %(cell)s is outside the %(size)sx%(size)s board")
REMOVED_CORNER = _T("cell %(cell)s is a removed corner")
OVERLAPS = _T("%(cell)s overlaps %(other)s")
PIECES = _T(
    "%(ponds)s ponds + %(tiles)s settlement_tiles are %(pieces)s pieces for %(cells)s "
    "settlement cells (the set-up puts one on each)"
)
COUNT_FORM = _T("write the player count as %(count)s")
COUNT_RANGE = _T("player count %(n)s is outside %(low)s..%(high)s")
RANGE = _T("range %(range)s is not inside 0..%(last)s")
SHUFFLE = _T(
    "%(fields)s: outside the %(n)s-player play area, so the set-up's shuffle leaves %(low)s "
    "to %(high)s settlement cells of the play area covered and the turns per player depend "
    "on the shuffle; put every settlement cell inside the play area"
)
FEW_FREE = _T("only %(free)s free cells, the game needs at least 2")
UNEQUAL = _T(
    "%(free)s free cells give unequal turns for %(n)s players (free cells - 1 = %(less)s is "
    "not divisible by %(n)s)"
)
TURNS = _T("gives %(turns)s turns per player, %(field)s says %(want)s")
FEW_TILES = _T(
    "%(tiles)s tiles are too few for %(n)s players (hands, shipments, settlements and draws "
    "need %(need)s)"
)
REMOVALS = _T("removes %(removal)s copies, there are only %(copies)s")
FEW_BUILDINGS = _T(
    "%(total)s buildings are too few for %(n)s players (hands, market and clearings need "
    "%(need)s)"
)
COST = _T(
    "cost %(cost)s must be between 1 and %(bound)s (the most squares a marker can reach)"
)
NO_AREA = _T("no play area for %(n)s players")
NO_COUNT = _T("no playable player count")
#: Every message template of ``validate_variant`` beside the schema's (for the catalogues).
PROBLEM_TEMPLATES = tuple(_T.all)


def _problem(path, template: str, **params) -> Problem:
    """A problem of the field at ``path`` (keys and indices)."""
    return Problem(_path(path), path, template, params)


def validate_variant(variant: object) -> list[str]:
    """Problems of ``variant``, each naming its field; ``[]`` when playable.

    Each is a :class:`~games.engines.problems.Problem`: its English line as text, with its
    path, template and parameters for a translation."""
    try:
        key = canonical(variant)
    except (TypeError, ValueError):
        return [_problem((), NOT_JSON)]
    return list(variant_problems(key))


@lru_cache(maxsize=128)
def variant_problems(key: str) -> tuple[str, ...]:
    """The problems of the variant whose canonical JSON is ``key`` (cached)."""
    variant = json.loads(key)
    if not isinstance(variant, dict):
        return (_problem((), NOT_OBJECT),)
    validator = jsonschema.Draft202012Validator(_schema())
    problems = [
        schema_problem(err, _path(err.absolute_path))
        for err in sorted(validator.iter_errors(variant), key=lambda e: list(map(str, e.path)))
    ]
    if problems:
        # The semantic checks below assume the shapes the schema guarantees.
        return tuple(problems)
    return tuple(_semantic_problems(variant))


def _semantic_problems(v: dict) -> list[str]:
    problems: list[str] = []
    add = problems.append
    res = set(v["resources"])

    def known(path: tuple, names) -> None:
        for name in names:
            if name not in res:
                add(_problem(path, UNKNOWN_RESOURCE, name=repr(name)))

    for i, tile in enumerate(v["harvest_tiles"]):
        known(("harvest_tiles", i), tile)

    vil = v["village"]
    rows, cols = vil["rows"], vil["cols"]
    for key, want in (("row_costs", rows), ("row_values", rows), ("col_values", cols)):
        if len(vil[key]) != want:
            add(_problem(("village", key), ENTRIES, want=want, has=len(vil[key])))

    board = v["board"]
    size, corners = board["size"], board["exclude_corners"]

    def check_cell(path: tuple, cell) -> bool:
        r, c = cell
        if r >= size or c >= size:
            add(_problem(path, OFF_BOARD, cell=list(cell), size=size))
            return False
        if corners and r in (0, size - 1) and c in (0, size - 1):
            add(_problem(path, REMOVED_CORNER, cell=list(cell)))
            return False
        return True

    def ref(path: tuple) -> FieldRef:
        return FieldRef(_path(path), path)

    fixed: dict[tuple[int, int], tuple] = {}
    for i, area in enumerate(board["printed_areas"]):
        field = ("board", "printed_areas", i)
        known((*field, "squares"), area["squares"])
        cell = tuple(area["cell"])
        if check_cell((*field, "cell"), cell):
            if cell in fixed:
                add(_problem((*field, "cell"), OVERLAPS, cell=list(cell),
                             other=ref(fixed[cell])))
            fixed.setdefault(cell, field)
    for key in ("settlements", "clearings"):
        for i, cell in enumerate(board[key]):
            field = ("board", key, i)
            cell = tuple(cell)
            if check_cell(field, cell):
                if cell in fixed:
                    add(_problem(field, OVERLAPS, cell=list(cell), other=ref(fixed[cell])))
                fixed.setdefault(cell, field)

    # The rulebook's set-up puts one piece (a pond or a tile) on every settlement cell.
    settlements = len(board["settlements"])
    pieces = len(board["ponds"]) + board["settlement_tiles"]
    if pieces != settlements:
        add(_problem(("board", "settlement_tiles"), PIECES, ponds=len(board["ponds"]),
                     tiles=board["settlement_tiles"], pieces=pieces, cells=settlements))

    counts: list[int] = []
    smallest = size * size
    for key, rect in sorted(board["play_area"].items()):
        field = ("board", "play_area", key)
        n = int(key)
        if key != str(n):
            add(_problem(field, COUNT_FORM, count=repr(str(n))))
            continue
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            add(_problem(field, COUNT_RANGE, n=n, low=MIN_PLAYERS, high=MAX_PLAYERS))
            continue
        bad = False
        for axis in ("rows", "cols"):
            lo, hi = rect[axis]
            if lo > hi or hi >= size:
                add(_problem((*field, axis), RANGE, range=[lo, hi], last=size - 1))
                bad = True
        if bad:
            continue
        counts.append(n)
        cells = set(play_area_cells(size, corners, rect))
        smallest = min(smallest, len(cells))
        printed = sum(1 for a in board["printed_areas"] if tuple(a["cell"]) in cells)
        outside = [i for i, c in enumerate(board["settlements"]) if tuple(c) not in cells]
        staying = board["settlement_tiles"] + sum(1 for label in board["ponds"] if label <= n)
        low, high = covered_settlements(settlements - len(outside), settlements, staying)
        if pieces != settlements:
            continue  # reported above; the turn arithmetic needs one piece per cell
        if low != high:
            # Names several fields: a problem of the whole variant, the fields in the text.
            names = Several(ref(("board", "settlements", i)) for i in outside)
            add(Problem("", (), SHUFFLE, {"fields": names, "n": n, "low": low, "high": high}))
            continue
        free = len(cells) - printed - low
        if free < 2:
            add(_problem(field, FEW_FREE, free=free))
            continue
        if (free - 1) % n:
            add(_problem(field, UNEQUAL, free=free, n=n, less=free - 1))
            continue
        turns = (free - 1) // n
        if turns != v["turns_per_player"]:
            add(_problem(field, TURNS, turns=turns, field=ref(("turns_per_player",)),
                         want=v["turns_per_player"]))
        clearings = sum(1 for c in board["clearings"] if tuple(c) in cells)
        hand = v["hand"]
        need_tiles = n * (hand["tiles"] + hand["shipments"]) + board["settlement_tiles"] + n * turns
        if need_tiles > len(v["harvest_tiles"]):
            add(_problem(("harvest_tiles",), FEW_TILES, tiles=len(v["harvest_tiles"]), n=n,
                         need=need_tiles))
        removal = v["building_removals"].get(str(n), 0)
        copies = v["buildings"]["copies"]
        if removal > copies:
            add(_problem(("building_removals", key), REMOVALS, removal=removal, copies=copies))
            continue
        total = len(v["resources"]) * len(v["buildings"]["numbers"]) * (copies - removal)
        need = n * hand["buildings"] + v["market_size"] + clearings
        if need > total:
            add(_problem(("buildings",), FEW_BUILDINGS, total=total, n=n, need=need))
    # A marker counts the squares of one chain inside the play area, so a cost above
    # 4 x (cells of the smallest play area) could never be paid in some games.
    bound = 4 * smallest
    for i, cost in enumerate(vil["row_costs"]):
        if not 1 <= cost <= bound:
            add(_problem(("village", "row_costs", i), COST, cost=cost, bound=bound))
    for key in v["building_removals"]:
        if key not in board["play_area"]:
            add(_problem(("building_removals", key), NO_AREA, n=key))
    if not counts and not problems:
        add(_problem(("board", "play_area"), NO_COUNT))
    # Duplicates: report each problem once (costs are checked per player count).
    return list(dict.fromkeys(problems))


class Compiled:
    """Flat lookup tables of one variant, shared by every state of that variant.

    Buildings are *codes* ``resource_index * len(numbers) + number_index``; board cells
    are ``row * size + col``; village spaces ``row * village_cols + col``; squares of
    the ``2*size`` wide square grid ``row * square_width + col``.
    """

    def __init__(self, v: dict) -> None:
        self.name: str = v["name"]
        self.description: str = v.get("description", "")
        self.side: str = v["board"]["side"]
        self.resources: tuple[str, ...] = tuple(v["resources"])
        self.num_resources = len(self.resources)
        self.resource_index = {name: i for i, name in enumerate(self.resources)}
        self.numbers: tuple[int, ...] = tuple(v["buildings"]["numbers"])
        self.number_index = {n: i for i, n in enumerate(self.numbers)}
        nn = len(self.numbers)
        self.num_codes = self.num_resources * nn
        self.code_resource = tuple(c // nn for c in range(self.num_codes))
        self.code_number = tuple(self.numbers[c % nn] for c in range(self.num_codes))
        self.copies: int = v["buildings"]["copies"]
        self.removals = {int(k): n for k, n in v["building_removals"].items()}
        self.tiles = tuple(tuple(self.resource_index[s] for s in t) for t in v["harvest_tiles"])
        # distinct rotations per tile: rotation k moves square i to position (i + k) % 4
        self.tile_rotations: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...] = tuple(
            self._distinct_rotations(t) for t in self.tiles
        )
        # rotated[tile][rot]: the squares of every tile in every rotation, and their names
        self.rotated = tuple(
            tuple(tuple(t[(i - rot) % 4] for i in range(4)) for rot in range(4)) for t in self.tiles
        )
        self.rotated_names = tuple(
            tuple(tuple(self.resources[r] for r in squares) for squares in rots)
            for rots in self.rotated
        )
        vil = v["village"]
        self.village_rows, self.village_cols = vil["rows"], vil["cols"]
        self.num_spaces = self.village_rows * self.village_cols
        self.space_cost = tuple(
            vil["row_costs"][s // self.village_cols] for s in range(self.num_spaces)
        )
        self.row_costs = tuple(vil["row_costs"])
        self.row_values = tuple(vil["row_values"])
        self.col_values = tuple(vil["col_values"])
        self.all_spaces = (1 << self.num_spaces) - 1
        cols = self.village_cols
        self.row_masks = tuple(
            sum(1 << (r * cols + c) for c in range(cols)) for r in range(self.village_rows)
        )
        self.col_masks = tuple(
            sum(1 << (r * cols + c) for r in range(self.village_rows)) for c in range(cols)
        )
        neighbours = []
        for s in range(self.num_spaces):
            r, c = divmod(s, cols)
            m = 0
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if 0 <= r + dr < self.village_rows and 0 <= c + dc < cols:
                    m |= 1 << ((r + dr) * cols + c + dc)
            neighbours.append(m)
        self.space_neighbours = tuple(neighbours)
        self.max_cost = max(self.space_cost)
        # affordable[v]: spaces whose cost is <= v (v capped at max_cost)
        self.affordable = tuple(
            sum(1 << s for s in range(self.num_spaces) if self.space_cost[s] <= value)
            for value in range(self.max_cost + 1)
        )
        board = v["board"]
        self.size = size = board["size"]
        self.exclude_corners: bool = board["exclude_corners"]
        self.num_cells = size * size
        self.square_width = w = 2 * size
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
        square_neighbours = []
        for q in range(w * w):
            r, c = divmod(q, w)
            square_neighbours.append(
                tuple(
                    (r + dr) * w + c + dc
                    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    if 0 <= r + dr < w and 0 <= c + dc < w
                )
            )
        self.square_neighbours = tuple(square_neighbours)
        self.play_area = {
            int(k): tuple(
                sorted(r * size + c for r, c in play_area_cells(size, self.exclude_corners, a))
            )
            for k, a in board["play_area"].items()
        }
        self.player_counts: tuple[int, ...] = tuple(sorted(self.play_area))
        self.printed = tuple(
            (
                a["cell"][0] * size + a["cell"][1],
                tuple(self.resource_index[s] for s in a["squares"]),
            )
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
        row_col = [divmod(cell, size) for cell in range(self.num_cells)]
        self.cell_row_col = tuple(row_col)
        # "C4": column letter, row number from 1 (the name players read on the board)
        self.cell_names = tuple(f"{chr(65 + c)}{r + 1}" for r, c in row_col)
        self.harvest_actions = tuple(
            tuple(tuple(("harvest", i, r, c, rot) for r, c in row_col) for rot in range(4))
            for i in range(self.hand_tiles + 1)
        )
        self.ship_actions = tuple(
            tuple(("ship", r, c, name) for name in self.resources) for r, c in row_col
        )
        self.build_actions = tuple(
            tuple(
                tuple(
                    (
                        "build",
                        self.resources[self.code_resource[code]],
                        self.code_number[code],
                        s // cols,
                        s % cols,
                        face_up,
                    )
                    for face_up in (False, True)
                )
                for s in range(self.num_spaces)
            )
            for code in range(self.num_codes)
        )
        self.market_actions = tuple(
            ("draw_market", self.resources[self.code_resource[c]], self.code_number[c])
            for c in range(self.num_codes)
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
        return self.rotated[tile][rot]

    def code(self, resource: str, number: int) -> int:
        """The building code of (resource, number); ``KeyError`` for unknown ones."""
        return self.resource_index[resource] * len(self.numbers) + self.number_index[number]

    def building(self, code: int) -> dict:
        """``{"resource": "wheat", "number": 3}``."""
        return {
            "resource": self.resources[self.code_resource[code]],
            "number": self.code_number[code],
        }


@lru_cache(maxsize=64)
def compiled_of(key: str) -> tuple[Compiled, dict]:
    """(compiled tables, a private copy of the variant) of a valid variant's canonical JSON.

    States share the copy and never mutate it.
    """
    data = json.loads(key)
    compiled = Compiled(data)
    compiled.key = key  # the variant's canonical JSON (``engine.variant_key``)
    return compiled, data


def compile_variant(variant: dict) -> Compiled:
    """The (cached) compiled tables of an already validated variant."""
    return compiled_of(canonical(variant))[0]
