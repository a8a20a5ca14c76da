"""The compact game state of New Haven.

A state is a :class:`State` object whose containers are treated as immutable once the
state has been handed out: ``apply`` makes a shallow copy and replaces (copy-on-write)
only the containers that the action changes, so a step costs microseconds, not a deepcopy.

Encodings
---------
* building *code*: ``resource_index * len(numbers) + number_index`` (see ``Compiled``).
* squares: a flat ``bytearray`` of the ``2*size x 2*size`` square grid; ``0`` = empty,
  ``1 + r`` = resource ``r``, ``POND`` = a pond (blocks chains).
* cells: a list of ``size*size`` entries, ``None`` (empty) or a tuple
  ``(kind, tile, extra)``: ``(TILE, tile_id, rotation)``, ``(PRINTED, index, 0)``,
  ``(POND_CELL, label, 0)``, ``(SHIP_DOWN, tile_id, resource)`` for a shipment still face
  down, ``(SHIP_UP, tile_id, 0)`` once it has been turned face up.
* village spaces: ``-1`` = empty, else ``code << 2 | face_up << 1 | number_public``.
  ``number_public`` says whether other players know the number of a face-down building
  (it came from the public part of the hand).
* removed buildings: ``(code, hidden_owner)``, ``hidden_owner = -1`` when everyone knows
  the number, else the seat that alone knows it.
"""

from __future__ import annotations

from .variants import Compiled

__all__ = ["BUILD", "DRAW", "HARVEST", "OVER", "SHARE", "Player", "State"]

HARVEST, BUILD, SHARE, DRAW, OVER = range(5)
PHASE_NAMES = ("harvest", "build", "share", "draw", "over")

TILE, PRINTED, POND_CELL, SHIP_DOWN, SHIP_UP = range(5)
CELL_KINDS = ("tile", "printed", "pond", "shipment", "shipment")
POND = 255


class Player:
    """One seat's hand and village."""

    __slots__ = (
        "cm",
        "occ",
        "priv",
        "pub",
        "ship",
        "ship_played",
        "tiles",
        "turns",
        "up",
        "village",
    )

    def __init__(self) -> None:
        self.tiles: list[int] = []  # harvest tile ids in hand (private)
        self.ship: int = -1  # the unplayed shipment's tile id, -1 once played / none
        self.ship_played: bool = False
        self.pub: list[int] = []  # buildings in hand everyone saw taken
        self.priv: list[int] = []  # buildings in hand drawn blind
        self.village: list[int] = []
        self.cm: list[int] = []  # per resource: bitmask of village spaces of that colour
        self.occ: int = 0  # bitmask of occupied spaces
        self.up: int = 0  # bitmask of face-up buildings
        self.turns: int = 0

    def copy(self) -> Player:
        """A copy whose lists may be mutated freely."""
        p = Player.__new__(Player)
        p.tiles = list(self.tiles)
        p.ship = self.ship
        p.ship_played = self.ship_played
        p.pub = list(self.pub)
        p.priv = list(self.priv)
        p.village = list(self.village)
        p.cm = list(self.cm)
        p.occ = self.occ
        p.up = self.up
        p.turns = self.turns
        return p

    def key(self) -> tuple:
        """Everything that identifies this player's data."""
        return (
            tuple(self.tiles),
            self.ship,
            self.ship_played,
            tuple(self.pub),
            tuple(self.priv),
            tuple(self.village),
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
        "clearing",
        "cv",
        "draws_done",
        "draws_owed",
        "empty",
        "last_cell",
        "markers",
        "market",
        "n",
        "phase",
        "players",
        "pool",
        "removed",
        "sharer",
        "ship_cell",
        "squares",
        "turn",
        "variant",
    )

    cv: Compiled

    def copy(self) -> State:
        """A shallow copy: containers are shared until the caller replaces them."""
        s = State.__new__(State)
        s.active = self.active
        s.bag = self.bag
        s.built = self.built
        s.cells = self.cells
        s.clearing = self.clearing
        s.cv = self.cv
        s.draws_done = self.draws_done
        s.draws_owed = self.draws_owed
        s.empty = self.empty
        s.last_cell = self.last_cell
        s.market = self.market
        s.markers = self.markers
        s.n = self.n
        s.phase = self.phase
        s.players = self.players
        s.pool = self.pool
        s.removed = self.removed
        s.sharer = self.sharer
        s.ship_cell = self.ship_cell
        s.squares = self.squares
        s.turn = self.turn
        s.variant = self.variant
        return s

    def mut_player(self, seat: int) -> Player:
        """Replace player ``seat`` by a private copy (copy-on-write) and return it."""
        players = list(self.players)
        p = players[seat] = players[seat].copy()
        self.players = tuple(players)
        return p

    def key(self) -> tuple:
        """Everything that identifies the state (the compiled tables excepted)."""
        return (
            self.n,
            self.phase,
            self.active,
            self.sharer,
            self.turn,
            self.draws_owed,
            self.draws_done,
            self.ship_cell,
            self.last_cell,
            bytes(self.squares),
            tuple(self.cells),
            self.empty,
            tuple(sorted(self.clearing.items())),
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
