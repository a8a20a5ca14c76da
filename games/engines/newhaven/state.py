"""The compact game state of New Haven and its JSON form.

A state is a :class:`State` object whose containers are treated as immutable once the
state has been handed out: ``apply`` makes a shallow ``copy`` and replaces
(copy-on-write) only the containers that the action changes, so a step costs
microseconds, not a deepcopy.

Encodings
---------
* building *code*: ``resource_index * len(numbers) + number_index`` (see ``Compiled``).
* cells: ``row * size + col``; ``cells`` is a list of ``size*size`` entries, ``None``
  (empty) or a tuple ``(kind, what, extra)``:

  ========= ===================== ==============================================
  kind      what                  extra
  ========= ===================== ==============================================
  TILE      harvest tile id       rotation (quarter turns clockwise)
  PRINTED   printed area index    0
  POND_CELL the pond's label      0
  SHIP_DOWN the shipment's tile   resource index it counts as (face down)
  SHIP_UP   the shipment's tile   rotation it was turned face up in
  ========= ===================== ==============================================

* squares: a flat ``bytearray`` of the ``2*size x 2*size`` square grid, derived from
  ``cells``: ``0`` = empty, ``1 + r`` = resource ``r``, ``POND`` = a pond (blocks chains).
* village spaces: ``-1`` = empty, else ``code << 2 | face_up << 1 | number_public``;
  ``number_public`` says whether other players know the number of a face-down building
  (it came from the public part of the hand).  ``built_turns`` holds, per space, the
  turn (``State.turn`` then) its building was built in, ``-1`` when empty: everybody
  at the table sees where and when a building goes down.  ``build_counts`` holds, per
  space, how many buildings went down there (``0`` when empty, ``2`` or more once built
  over): also public, it tells look-alike face-down buildings of one turn apart when
  one of them is built over (format 3).
* removed buildings: ``(code, hidden_owner)``, ``hidden_owner = -1`` when everyone knows
  the number, else the seat that alone knows it.

JSON (``state_to_json``, format ``STATE_FORMAT``) holds every field with the same
names; ``squares``, ``empty_cells`` and the players' bit masks are derived again on
reading, so a stored state cannot contradict itself there.
"""

from __future__ import annotations

import json
from typing import Any

from ..protocol import EngineError
from .variant import Compiled, canonical, compiled_of, variant_problems

__all__ = [
    "BUILD",
    "DRAW",
    "HARVEST",
    "OVER",
    "PHASES",
    "SHARE",
    "STATE_FORMAT",
    "Player",
    "State",
    "state_from_json",
    "state_to_json",
]

#: The steps of a turn, in order, and the end of the game: ``State.phase`` is one of them.
PHASES = ("harvest", "build", "share", "draw", "over")
HARVEST, BUILD, SHARE, DRAW, OVER = PHASES

TILE, PRINTED, POND_CELL, SHIP_DOWN, SHIP_UP = range(5)
CELL_KINDS = ("tile", "printed", "pond", "shipment", "shipment")
POND = 255

#: The version of ``state_to_json``'s layout; ``state_from_json`` reads this one and
#: upgrades formats 1 and 2 (see ``_from_format_1`` and ``_from_format_2``).
STATE_FORMAT = 3


class Player:
    """One seat's hand and village."""

    __slots__ = (
        "build_counts",
        "built_turns",
        "colour_masks",
        "face_up_mask",
        "occupied",
        "private_buildings",
        "public_buildings",
        "shipment",
        "shipment_played",
        "shipment_rotation",
        "tiles",
        "turns",
        "village",
    )

    def __init__(self) -> None:
        self.tiles: list[int] = []  # harvest tile ids in hand (private)
        self.shipment: int = -1  # the unplayed shipment's tile id, -1 once played / none
        # The rotation the shipment shows once turned face up (drawn at set-up, hidden
        # from everybody until then); -1 once it is face up or without a shipment.
        self.shipment_rotation: int = -1
        self.shipment_played: bool = False
        self.public_buildings: list[int] = []  # buildings in hand everyone saw taken
        self.private_buildings: list[int] = []  # buildings in hand drawn blind
        self.village: list[int] = []
        self.built_turns: list[int] = []  # per space: the turn it was built in, or -1
        self.build_counts: list[int] = []  # per space: buildings built there, 0 when empty
        self.colour_masks: list[int] = []  # per resource: bitmask of spaces of that colour
        self.occupied: int = 0  # bitmask of occupied spaces
        self.face_up_mask: int = 0  # bitmask of face-up buildings
        self.turns: int = 0

    def copy(self) -> Player:
        """A copy whose lists may be mutated freely."""
        p = Player.__new__(Player)
        p.tiles = list(self.tiles)
        p.shipment = self.shipment
        p.shipment_rotation = self.shipment_rotation
        p.shipment_played = self.shipment_played
        p.public_buildings = list(self.public_buildings)
        p.private_buildings = list(self.private_buildings)
        p.village = list(self.village)
        p.built_turns = list(self.built_turns)
        p.build_counts = list(self.build_counts)
        p.colour_masks = list(self.colour_masks)
        p.occupied = self.occupied
        p.face_up_mask = self.face_up_mask
        p.turns = self.turns
        return p

    def shallow(self) -> Player:
        """A copy that shares its lists: whoever changes one replaces it first
        (copy-on-write; most actions change one list of one player, or none)."""
        p = Player.__new__(Player)
        p.tiles = self.tiles
        p.shipment = self.shipment
        p.shipment_rotation = self.shipment_rotation
        p.shipment_played = self.shipment_played
        p.public_buildings = self.public_buildings
        p.private_buildings = self.private_buildings
        p.village = self.village
        p.built_turns = self.built_turns
        p.build_counts = self.build_counts
        p.colour_masks = self.colour_masks
        p.occupied = self.occupied
        p.face_up_mask = self.face_up_mask
        p.turns = self.turns
        return p

    def key(self) -> tuple:
        """Everything that identifies this player's data."""
        return (
            tuple(self.tiles),
            self.shipment,
            self.shipment_rotation,
            self.shipment_played,
            tuple(self.public_buildings),
            tuple(self.private_buildings),
            tuple(self.village),
            tuple(self.built_turns),
            tuple(self.build_counts),
            self.turns,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Player) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]


class State:
    """A New Haven game state (see the module docstring for the encodings)."""

    __slots__ = (
        "active",
        "bag",
        "built",
        "cells",
        "clearings",
        "compiled",
        "draws_done",
        "draws_owed",
        "empty_cells",
        "last_cell",
        "markers",
        "market",
        "num_players",
        "phase",
        "players",
        "pool",
        "removed",
        "sharer",
        "shipment_cell",
        "squares",
        "turn",
        "variant",
    )

    compiled: Compiled
    variant: dict  # shared by every state of the variant: never mutated
    num_players: int
    phase: str  # one of PHASES
    active: int  # the seat whose turn it is
    sharer: int  # the seat offered the leftover markers in the share step, else -1
    turn: int  # turns completed, all seats together
    draws_owed: int
    draws_done: int
    shipment_cell: int  # the cell of a shipment still face down this turn, else -1
    last_cell: int  # the cell of the last harvest, -1 before the first
    built: bool  # whether the seat acting now built in this build / share step
    squares: bytearray
    cells: list
    empty_cells: tuple[int, ...]  # empty cells of the play area, in cell order
    clearings: dict[int, int]  # clearing cell -> building still lying there
    pool: list[int]  # harvest tiles, the next one drawn last
    bag: list[int]  # buildings, the next one drawn last
    market: list[int]
    removed: list[tuple[int, int]]
    markers: list[int]  # per resource
    players: tuple[Player, ...]

    def copy(self) -> State:
        """A shallow copy: containers are shared until the caller replaces them."""
        s = State.__new__(State)
        s.active = self.active
        s.bag = self.bag
        s.built = self.built
        s.cells = self.cells
        s.clearings = self.clearings
        s.compiled = self.compiled
        s.draws_done = self.draws_done
        s.draws_owed = self.draws_owed
        s.empty_cells = self.empty_cells
        s.last_cell = self.last_cell
        s.market = self.market
        s.markers = self.markers
        s.num_players = self.num_players
        s.phase = self.phase
        s.players = self.players
        s.pool = self.pool
        s.removed = self.removed
        s.sharer = self.sharer
        s.shipment_cell = self.shipment_cell
        s.squares = self.squares
        s.turn = self.turn
        s.variant = self.variant
        return s

    def mutable_player(self, seat: int) -> Player:
        """Replace player ``seat`` by a private shallow copy and return it: its lists are
        still shared, so the caller replaces a list before changing it."""
        players = list(self.players)
        p = players[seat] = players[seat].shallow()
        self.players = tuple(players)
        return p

    def key(self) -> tuple:
        """Everything that identifies the state (the variant and its tables excepted)."""
        return (
            self.num_players,
            self.phase,
            self.active,
            self.sharer,
            self.turn,
            self.draws_owed,
            self.draws_done,
            self.shipment_cell,
            self.last_cell,
            bytes(self.squares),
            tuple(self.cells),
            self.empty_cells,
            tuple(sorted(self.clearings.items())),
            tuple(self.pool),
            tuple(self.bag),
            tuple(self.market),
            tuple(self.removed),
            tuple(self.markers),
            tuple(p.key() for p in self.players),
            self.built,
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State) and self.variant == other.variant and self.key() == other.key()
        )

    __hash__ = None  # type: ignore[assignment]


# -- derived parts ----------------------------------------------------------------------


def cell_squares(compiled: Compiled, entry: tuple) -> tuple[int, ...]:
    """The four square codes (``1 + resource`` or ``POND``) a cell entry puts on the grid."""
    kind, what, extra = entry
    if kind == POND_CELL:
        return (POND, POND, POND, POND)
    if kind == SHIP_DOWN:
        return (extra + 1,) * 4
    if kind == PRINTED:
        return tuple(r + 1 for r in compiled.printed[what][1])
    return tuple(r + 1 for r in compiled.rotate(what, extra))


def squares_of(compiled: Compiled, cells: list) -> bytearray:
    """The square grid of a board."""
    squares = bytearray(compiled.square_width * compiled.square_width)
    for cell, entry in enumerate(cells):
        if entry is not None:
            for q, code in zip(
                compiled.cell_squares[cell], cell_squares(compiled, entry), strict=True
            ):
                squares[q] = code
    return squares


def village_masks(compiled: Compiled, p: Player) -> None:
    """Set ``p``'s bit masks from its village."""
    p.colour_masks = [0] * compiled.num_resources
    p.occupied = p.face_up_mask = 0
    for s, v in enumerate(p.village):
        if v >= 0:
            bit = 1 << s
            p.occupied |= bit
            p.colour_masks[compiled.code_resource[v >> 2]] |= bit
            if v & 2:
                p.face_up_mask |= bit


# -- JSON ---------------------------------------------------------------------------------


def state_to_json(state: State) -> dict:
    """The full state, hidden parts included (never send this to a player)."""
    st = state
    return {
        "format": STATE_FORMAT,
        "variant": json.loads(json.dumps(st.variant)),  # the states' copy stays private
        "num_players": st.num_players,
        "phase": st.phase,
        "active": st.active,
        "sharer": st.sharer,
        "turn": st.turn,
        "draws_owed": st.draws_owed,
        "draws_done": st.draws_done,
        "shipment_cell": st.shipment_cell,
        "last_cell": st.last_cell,
        "built": st.built,
        "cells": [list(e) if e is not None else None for e in st.cells],
        "clearings": [[c, code] for c, code in sorted(st.clearings.items())],
        "pool": list(st.pool),
        "bag": list(st.bag),
        "market": list(st.market),
        "removed": [list(x) for x in st.removed],
        "markers": list(st.markers),
        "players": [
            {
                "tiles": list(p.tiles),
                "shipment": p.shipment,
                "shipment_rotation": p.shipment_rotation,
                "shipment_played": p.shipment_played,
                "public_buildings": list(p.public_buildings),
                "private_buildings": list(p.private_buildings),
                "village": list(p.village),
                "built_turns": list(p.built_turns),
                "build_counts": list(p.build_counts),
                "turns": p.turns,
            }
            for p in st.players
        ],
    }


_PLAYER_KEYS = frozenset(
    (
        "tiles",
        "shipment",
        "shipment_rotation",
        "shipment_played",
        "public_buildings",
        "private_buildings",
        "village",
        "built_turns",
        "build_counts",
        "turns",
    )
)
_STATE_KEYS = frozenset(
    (
        "format",
        "variant",
        "num_players",
        "phase",
        "active",
        "sharer",
        "turn",
        "draws_owed",
        "draws_done",
        "shipment_cell",
        "last_cell",
        "built",
        "cells",
        "clearings",
        "pool",
        "bag",
        "market",
        "removed",
        "markers",
        "players",
    )
)


def _bad(message: str) -> EngineError:
    return EngineError(f"malformed New Haven state: {message}")


def _keys(data: Any, want: frozenset, where: str) -> dict:
    if not isinstance(data, dict):
        raise _bad(f"{where} must be an object")
    if set(data) != want:
        missing = sorted(want - set(data))
        extra = sorted(set(data) - want)
        raise _bad(f"{where} has missing fields {missing} / unknown fields {extra}")
    return data


def _int(value: Any, field: str, low: int, high: int) -> int:
    """``value`` if it is an int in ``low..high`` (bools are not numbers here)."""
    if type(value) is not int:
        raise _bad(f"{field} must be an integer, not {type(value).__name__}")
    if not low <= value <= high:
        raise _bad(f"{field} is {value}, outside {low}..{high}")
    return value


def _bool(value: Any, field: str) -> bool:
    if type(value) is not bool:
        raise _bad(f"{field} must be true or false")
    return value


def _ints(value: Any, field: str, low: int, high: int, size: int | None = None) -> list[int]:
    if not isinstance(value, list):
        raise _bad(f"{field} must be a list")
    if size is not None and len(value) != size:
        raise _bad(f"{field} has {len(value)} entries, not {size}")
    return [_int(x, f"{field}[{i}]", low, high) for i, x in enumerate(value)]


def _cell_entry(compiled: Compiled, entry: Any, field: str) -> tuple | None:
    if entry is None:
        return None
    if not isinstance(entry, list) or len(entry) != 3:
        raise _bad(f"{field} must be null or [kind, what, extra]")
    kind = _int(entry[0], f"{field}[0]", 0, SHIP_UP)
    last_tile = len(compiled.tiles) - 1
    if kind in (TILE, SHIP_UP):
        what = _int(entry[1], f"{field}[1]", 0, last_tile)
        extra = _int(entry[2], f"{field}[2]", 0, 3)
    elif kind == SHIP_DOWN:
        what = _int(entry[1], f"{field}[1]", 0, last_tile)
        extra = _int(entry[2], f"{field}[2]", 0, compiled.num_resources - 1)
    elif kind == PRINTED:
        what = _int(entry[1], f"{field}[1]", 0, len(compiled.printed) - 1)
        extra = _int(entry[2], f"{field}[2]", 0, 0)
    else:
        what = entry[1]
        if type(what) is not int or what not in compiled.ponds:
            raise _bad(f"{field}[1]: {what!r} is not the label of a pond of this variant")
        extra = _int(entry[2], f"{field}[2]", 0, 0)
    return (kind, what, extra)


def _from_format_1(data: dict) -> dict:
    """A state stored in format 1 (before issue 8) in format 2's layout.

    Format 1 had short field names and integer phases, turned shipments face up in
    rotation 0 (so an unflipped one keeps rotation 0: the game goes on as it would
    have) and did not record when buildings went down (shown as turn 1).  Its side-B
    variants put settlements outside the play area: the validator refuses those.
    """
    try:
        players = []
        for seat, p in enumerate(data["players"]):
            shipment_hidden = p["ship"] >= 0 or (data["ship_cell"] >= 0 and seat == data["active"])
            players.append(
                {
                    "tiles": p["tiles"],
                    "shipment": p["ship"],
                    "shipment_rotation": 0 if shipment_hidden else -1,
                    "shipment_played": p["ship_played"],
                    "public_buildings": p["public"],
                    "private_buildings": p["private"],
                    "village": p["village"],
                    "built_turns": [-1 if v < 0 else 0 for v in p["village"]],
                    "turns": p["turns"],
                }
            )
        phase = data["phase"]
        return {
            "format": 2,
            "variant": data["variant"],
            "num_players": data["num_players"],
            "phase": PHASES[phase] if type(phase) is int and 0 <= phase < len(PHASES) else phase,
            "active": data["active"],
            "sharer": data["sharer"],
            "turn": data["turn"],
            "draws_owed": data["draws_owed"],
            "draws_done": data["draws_done"],
            "shipment_cell": data["ship_cell"],
            "last_cell": data["last_cell"],
            "built": data["built"],
            "cells": data["cells"],
            "clearings": data["clearing"],
            "pool": data["pool"],
            "bag": data["bag"],
            "market": data["market"],
            "removed": data["removed"],
            "markers": data["markers"],
            "players": players,
        }
    except (KeyError, TypeError, IndexError) as exc:
        raise _bad(f"a format 1 state without the field {exc}") from None


def _from_format_2(data: dict) -> dict:
    """A state stored in format 2 (before the build counts) in today's layout.

    Format 2 did not count the buildings built on a space: each occupied space counts
    as built once (what went down before the upgrade cannot be told apart any more; what
    is built over after it can).
    """
    players = data.get("players")
    if not isinstance(players, list) or not all(
        isinstance(p, dict) and isinstance(p.get("village"), list) for p in players
    ):
        raise _bad("a format 2 state needs its players with their villages")
    return {
        **data,
        "format": STATE_FORMAT,
        "players": [
            {
                **p,
                "build_counts": [0 if type(v) is int and v < 0 else 1 for v in p["village"]],
            }
            for p in players
        ],
    }


def state_from_json(data: Any) -> State:
    """Inverse of ``state_to_json``; ``EngineError`` naming the fault for malformed data.

    Types, sizes and ranges are checked, tiles must not be in two places, the board
    must stay inside the play area and ``squares`` and the masks are derived again.
    States stored in formats 1 and 2 are read too (see ``_from_format_1`` and
    ``_from_format_2``).
    """
    if isinstance(data, dict) and type(data.get("format")) is int and data["format"] == 1:
        data = _from_format_1(data)
    if isinstance(data, dict) and type(data.get("format")) is int and data["format"] == 2:
        data = _from_format_2(data)
    data = _keys(data, _STATE_KEYS, "the state")
    if type(data["format"]) is not int or data["format"] != STATE_FORMAT:
        raise EngineError(
            f"New Haven state format {data['format']!r} is not the one this engine reads "
            f"({STATE_FORMAT})"
        )
    try:
        key = canonical(data["variant"])
    except (TypeError, ValueError) as exc:
        raise _bad("variant must be JSON data") from exc
    problems = variant_problems(key)
    if problems:
        raise _bad("its variant is not playable: " + "; ".join(problems))
    compiled, variant = compiled_of(key)
    num_players = data["num_players"]
    if type(num_players) is not int or num_players not in compiled.play_area:
        raise _bad(f"num_players {num_players!r} is not one of {list(compiled.player_counts)}")
    n = num_players
    last_code = compiled.num_codes - 1
    last_tile = len(compiled.tiles) - 1
    last_cell = compiled.num_cells - 1
    st = State.__new__(State)
    st.compiled = compiled
    st.variant = variant
    st.num_players = n
    phase = data["phase"]
    if phase not in PHASES:
        raise _bad(f"phase {phase!r} is not one of {list(PHASES)}")
    st.phase = PHASES[PHASES.index(phase)]
    st.active = _int(data["active"], "active", 0, n - 1)
    st.sharer = _int(data["sharer"], "sharer", -1, n - 1)
    st.turn = _int(data["turn"], "turn", 0, 10**6)
    st.draws_owed = _int(data["draws_owed"], "draws_owed", 0, compiled.num_resources)
    st.draws_done = _int(data["draws_done"], "draws_done", 0, st.draws_owed)
    st.shipment_cell = _int(data["shipment_cell"], "shipment_cell", -1, last_cell)
    st.last_cell = _int(data["last_cell"], "last_cell", -1, last_cell)
    st.built = _bool(data["built"], "built")

    cells = data["cells"]
    if not isinstance(cells, list) or len(cells) != compiled.num_cells:
        raise _bad(f"cells must be a list of {compiled.num_cells} entries")
    st.cells = [_cell_entry(compiled, e, f"cells[{i}]") for i, e in enumerate(cells)]
    play = compiled.play_area[n]
    in_play = set(play)
    for cell, entry in enumerate(st.cells):
        if entry is not None and cell not in in_play:
            raise _bad(f"cells[{cell}] is outside the {n}-player play area")
    if st.shipment_cell >= 0 and (
        st.cells[st.shipment_cell] is None or st.cells[st.shipment_cell][0] != SHIP_DOWN
    ):
        raise _bad("shipment_cell does not hold a face-down shipment")
    st.squares = squares_of(compiled, st.cells)
    st.empty_cells = tuple(c for c in play if st.cells[c] is None)

    clearings = data["clearings"]
    if not isinstance(clearings, list):
        raise _bad("clearings must be a list")
    st.clearings = {}
    for i, pair in enumerate(clearings):
        if not isinstance(pair, list) or len(pair) != 2:
            raise _bad(f"clearings[{i}] must be [cell, building]")
        cell = _int(pair[0], f"clearings[{i}][0]", 0, last_cell)
        if cell not in compiled.clearings or cell in st.clearings or st.cells[cell] is not None:
            raise _bad(f"clearings[{i}]: cell {cell} is not a free clearing")
        st.clearings[cell] = _int(pair[1], f"clearings[{i}][1]", 0, last_code)
    st.pool = _ints(data["pool"], "pool", 0, last_tile)
    st.bag = _ints(data["bag"], "bag", 0, last_code)
    st.market = _ints(data["market"], "market", 0, last_code)
    if len(st.market) > compiled.market_size:
        raise _bad(f"market holds more than {compiled.market_size} buildings")
    removed = data["removed"]
    if not isinstance(removed, list):
        raise _bad("removed must be a list")
    st.removed = []
    for i, pair in enumerate(removed):
        if not isinstance(pair, list) or len(pair) != 2:
            raise _bad(f"removed[{i}] must be [building, hidden_owner]")
        st.removed.append(
            (
                _int(pair[0], f"removed[{i}][0]", 0, last_code),
                _int(pair[1], f"removed[{i}][1]", -1, n - 1),
            )
        )
    st.markers = _ints(data["markers"], "markers", 0, 10**6, compiled.num_resources)

    players_data = data["players"]
    if not isinstance(players_data, list) or len(players_data) != n:
        raise _bad(f"players must be a list of {n} players")
    players = []
    last_village = (last_code << 2) | 3
    for seat, pd in enumerate(players_data):
        where = f"players[{seat}]"
        pd = _keys(pd, _PLAYER_KEYS, where)
        p = Player()
        p.tiles = _ints(pd["tiles"], f"{where}.tiles", 0, last_tile)
        if len(p.tiles) > compiled.hand_tiles:
            raise _bad(f"{where}.tiles holds more than {compiled.hand_tiles} tiles")
        p.shipment = _int(pd["shipment"], f"{where}.shipment", -1, last_tile)
        p.shipment_rotation = _int(pd["shipment_rotation"], f"{where}.shipment_rotation", -1, 3)
        p.shipment_played = _bool(pd["shipment_played"], f"{where}.shipment_played")
        p.public_buildings = _ints(
            pd["public_buildings"], f"{where}.public_buildings", 0, last_code
        )
        p.private_buildings = _ints(
            pd["private_buildings"], f"{where}.private_buildings", 0, last_code
        )
        p.village = _ints(pd["village"], f"{where}.village", -1, last_village, compiled.num_spaces)
        p.built_turns = _ints(
            pd["built_turns"], f"{where}.built_turns", -1, st.turn, compiled.num_spaces
        )
        if any((v < 0) != (t < 0) for v, t in zip(p.village, p.built_turns, strict=True)):
            raise _bad(f"{where}.built_turns must be -1 exactly on the empty spaces")
        p.build_counts = _ints(
            pd["build_counts"], f"{where}.build_counts", 0, 10**6, compiled.num_spaces
        )
        if any((v < 0) != (k == 0) for v, k in zip(p.village, p.build_counts, strict=True)):
            raise _bad(f"{where}.build_counts must be 0 exactly on the empty spaces")
        p.turns = _int(pd["turns"], f"{where}.turns", 0, 10**6)
        village_masks(compiled, p)
        players.append(p)
    st.players = tuple(players)

    # A shipment still to be turned up has its rotation; only the active seat's can lie
    # face down on the board, and only during its turn.
    face_down = [c for c, e in enumerate(st.cells) if e is not None and e[0] == SHIP_DOWN]
    if face_down != ([st.shipment_cell] if st.shipment_cell >= 0 else []):
        raise _bad("a face-down shipment lies elsewhere than shipment_cell")
    for seat, p in enumerate(players):
        hidden = p.shipment >= 0 or (st.shipment_cell >= 0 and seat == st.active)
        if hidden != (p.shipment_rotation >= 0):
            raise _bad(
                f"players[{seat}].shipment_rotation must be 0..3 exactly while the "
                "shipment is not face up"
            )

    # A harvest tile is in exactly one place.
    seen: set[int] = set()
    places = [*st.pool]
    for p in players:
        places.extend(p.tiles)
        if p.shipment >= 0:
            places.append(p.shipment)
    places.extend(e[1] for e in st.cells if e is not None and e[0] in (TILE, SHIP_DOWN, SHIP_UP))
    for tile in places:
        if tile in seen:
            raise _bad(f"harvest tile {tile} is in two places")
        seen.add(tile)
    return st
