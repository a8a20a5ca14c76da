"""The game state: a compact, copy-on-write record plus its validated JSON form.

Everything is a tuple except the per-site cube dictionaries, which are treated as
immutable once built (a placement copies only the dictionary of its own site).
"""

from __future__ import annotations

from typing import Any

from ..protocol import EngineError
from .variant import ALLIES, MAX_PLAYERS, MIN_PLAYERS, Compiled, compile_variant, validate_variant

__all__ = [
    "BONUS_EXPIRED",
    "BONUS_READY",
    "BONUS_STATES",
    "BONUS_USED",
    "BREAKDOWN",
    "PHASES",
    "SNOWFLAKE",
    "STATE_FORMAT",
    "State",
    "state_from_json",
    "state_to_json",
]

#: The version of ``state_to_json``'s layout; ``state_from_json`` refuses others.
STATE_FORMAT = 1

SNOWFLAKE = -1  # card id of a snowflake; building cards are shape indices

#: The phases of a turn (see ``rules``), then ``over``.
PHASES = ("huron", "huron_order", "draw", "card", "copy", "place", "fille", "coureur", "over")

#: Score breakdown categories, in the order of ``State.breakdown`` entries.
BREAKDOWN = ("placement", "fille_du_roy", "coureur_des_bois", "snowstorms", "characters")
BONUS_READY, BONUS_USED, BONUS_EXPIRED = "ready", "used", "expired"
BONUS_STATES = (BONUS_READY, BONUS_USED, BONUS_EXPIRED)


class State:
    """One game position.  Treat as immutable: ``copy()`` then edit the copy."""

    __slots__ = (
        "active",
        "allies_used",
        "bonus",
        "breakdown",
        "compiled",
        "coureur_queue",
        "cubes",
        "deck",
        "deck_piles",
        "discard",
        "display",
        "heights",
        "holders",
        "huron_queue",
        "known",
        "num_players",
        "over",
        "pending_card",
        "pending_copy",
        "phase",
        "placed",
        "points",
        "ready",
        "removed_pieces",
        "reordered",
        "scores",
        "sticks",
        "storms",
        "supply",
        "turn",
    )

    #: The compiled variant (shared, never copied).
    compiled: Compiled
    num_players: int
    #: Per site, the height of every footprint cell (in ``Site.cells`` order).
    heights: tuple[tuple[int, ...], ...]
    #: Per site, ``(x, y, level) -> colour index``.
    cubes: tuple[dict[tuple[int, int, int], int], ...]
    #: Face-down cards, top first: shape indices or ``SNOWFLAKE``.
    deck: tuple[int, ...]
    #: The pile (1-based) each deck card was dealt into, top first.
    deck_piles: tuple[int, ...]
    #: Face-up cards, oldest first (shape indices).
    display: tuple[int, ...]
    discard: tuple[int, ...]
    #: Per shape, per copy: still in the supply.
    supply: tuple[tuple[bool, ...], ...]
    #: ``(shape, copy)`` pieces that left the game unplayed.
    removed_pieces: tuple[tuple[int, int], ...]
    #: ``(shape, copy, site)`` building pieces placed, in order.
    placed: tuple[tuple[int, int, int], ...]
    scores: tuple[int, ...]
    #: Per seat, points by ``BREAKDOWN`` category.
    breakdown: tuple[tuple[int, ...], ...]
    #: Per seat, per ally (``ALLIES`` order): ready to use.
    ready: tuple[tuple[bool, ...], ...]
    allies_used: tuple[int, ...]
    #: Per seat, per bonus piece: one of ``BONUS_STATES``.
    bonus: tuple[tuple[str, ...], ...]
    #: Per site, the seat holding its character, or -1.
    holders: tuple[int, ...]
    #: Per site, the index of its scoring stick.
    sticks: tuple[int, ...]
    storms: int
    active: int
    phase: str
    #: The display index of the chosen card, or -1.
    pending_card: int
    #: The chosen copy of its shape, or -1.
    pending_copy: int
    #: The points of this turn's placement (for the Fille du Roy and the Coureur).
    points: int
    #: Seats still to be offered the Coureur des bois, the one asked now first.
    coureur_queue: tuple[int, ...]
    #: Seats still to be offered the Huron before this turn's draw, the one asked now first.
    huron_queue: tuple[int, ...]
    #: Per seat, how many top deck cards it knows in order (Huron).
    known: tuple[int, ...]
    #: How many top deck cards a Huron reorder may have moved (public: everyone sees the
    #: reorder happen, nobody but the reorderer sees the new order).
    reordered: int
    over: bool
    turn: int

    def copy(self) -> State:
        """A shallow copy: fine because every field is immutable or copy-on-write."""
        # Spelled out: a getattr/setattr loop over __slots__ is 3x slower on the hot path.
        new = State.__new__(State)
        new.active = self.active
        new.allies_used = self.allies_used
        new.bonus = self.bonus
        new.breakdown = self.breakdown
        new.compiled = self.compiled
        new.coureur_queue = self.coureur_queue
        new.cubes = self.cubes
        new.deck = self.deck
        new.deck_piles = self.deck_piles
        new.discard = self.discard
        new.display = self.display
        new.heights = self.heights
        new.holders = self.holders
        new.huron_queue = self.huron_queue
        new.known = self.known
        new.num_players = self.num_players
        new.over = self.over
        new.pending_card = self.pending_card
        new.pending_copy = self.pending_copy
        new.phase = self.phase
        new.placed = self.placed
        new.points = self.points
        new.ready = self.ready
        new.removed_pieces = self.removed_pieces
        new.reordered = self.reordered
        new.scores = self.scores
        new.sticks = self.sticks
        new.storms = self.storms
        new.supply = self.supply
        new.turn = self.turn
        return new

    def key(self) -> tuple:
        """Everything that identifies the state (the compiled tables excepted)."""
        return (
            self.num_players,
            self.phase,
            self.active,
            self.turn,
            self.storms,
            self.over,
            self.heights,
            tuple(tuple(sorted(d.items())) for d in self.cubes),
            self.deck,
            self.deck_piles,
            self.display,
            self.discard,
            self.supply,
            self.removed_pieces,
            self.placed,
            self.scores,
            self.breakdown,
            self.ready,
            self.allies_used,
            self.bonus,
            self.holders,
            self.sticks,
            self.pending_card,
            self.pending_copy,
            self.points,
            self.coureur_queue,
            self.huron_queue,
            self.known,
            self.reordered,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self.compiled.key == other.compiled.key and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<State {self.compiled.name} turn={self.turn} active={self.active} "
            f"phase={self.phase} storms={self.storms} over={self.over}>"
        )


def state_to_json(s: State) -> dict[str, Any]:
    """The full state, hidden deck order included, as JSON-able data."""
    return {
        "format": STATE_FORMAT,
        "variant": s.compiled.variant_copy(),  # a fresh copy: callers may edit it
        "num_players": s.num_players,
        "heights": [list(h) for h in s.heights],
        "cubes": [sorted([x, y, lv, c] for (x, y, lv), c in d.items()) for d in s.cubes],
        "deck": list(s.deck),
        "deck_piles": list(s.deck_piles),
        "display": list(s.display),
        "discard": list(s.discard),
        "supply": [list(c) for c in s.supply],
        "removed_pieces": [list(p) for p in s.removed_pieces],
        "placed": [list(p) for p in s.placed],
        "scores": list(s.scores),
        "breakdown": [list(b) for b in s.breakdown],
        "ready": [list(r) for r in s.ready],
        "allies_used": list(s.allies_used),
        "bonus": [list(b) for b in s.bonus],
        "holders": list(s.holders),
        "sticks": list(s.sticks),
        "storms": s.storms,
        "active": s.active,
        "phase": s.phase,
        "pending_card": s.pending_card,
        "pending_copy": s.pending_copy,
        "points": s.points,
        "coureur_queue": list(s.coureur_queue),
        "huron_queue": list(s.huron_queue),
        "known": list(s.known),
        "reordered": s.reordered,
        "over": s.over,
        "turn": s.turn,
    }


# -- reading stored states ------------------------------------------------------------

_BIG = 10**6


def _fail(field: str, why: str) -> EngineError:
    return EngineError(f"Nouvelle-France state: {field}: {why}")


def _get(data: dict, field: str) -> Any:
    try:
        return data[field]
    except KeyError:
        raise _fail(field, "missing") from None


def _int(field: str, v: Any, low: int, high: int) -> int:
    if type(v) is not int or not low <= v <= high:
        raise _fail(field, f"must be a whole number within {low}..{high}")
    return v


def _bool(field: str, v: Any) -> bool:
    if type(v) is not bool:
        raise _fail(field, "must be true or false")
    return v


def _list(field: str, v: Any, size: int | None = None) -> list:
    if not isinstance(v, list) or (size is not None and len(v) != size):
        raise _fail(
            field, f"must be a list of {size} items" if size is not None else "must be a list"
        )
    return v


def _ints(field: str, v: Any, low: int, high: int, size: int | None = None) -> tuple[int, ...]:
    return tuple(_int(field, x, low, high) for x in _list(field, v, size))


def _bools(field: str, v: Any, size: int) -> tuple[bool, ...]:
    return tuple(_bool(field, x) for x in _list(field, v, size))


def state_from_json(data: Any) -> State:
    """Inverse of ``state_to_json``; validates types, sizes and ranges (``EngineError``)."""
    if not isinstance(data, dict):
        raise EngineError("Nouvelle-France state: must be a JSON object")
    fmt = data.get("format")
    if fmt != STATE_FORMAT:
        raise EngineError(
            f"Nouvelle-France state: format {fmt!r} is not {STATE_FORMAT} (a game stored in "
            "another format must be replayed from its actions)"
        )
    d = data
    variant = _get(d, "variant")
    problems = validate_variant(variant)
    if problems:
        raise _fail("variant", "; ".join(problems))
    cv = compile_variant(variant)
    n = _int("num_players", _get(d, "num_players"), MIN_PLAYERS, MAX_PLAYERS)
    n_sites, n_shapes, n_copies = len(cv.sites), len(cv.shapes), len(cv.copies)
    s = State.__new__(State)
    s.compiled = cv
    s.num_players = n
    s.heights = tuple(
        _ints(f"heights[{i}]", row, 0, site.height_limit, len(site.cells))
        for i, (site, row) in enumerate(
            zip(cv.sites, _list("heights", _get(d, "heights"), n_sites), strict=True)
        )
    )
    cubes = []
    for i, (site, row) in enumerate(
        zip(cv.sites, _list("cubes", _get(d, "cubes"), n_sites), strict=True)
    ):
        found: dict[tuple[int, int, int], int] = {}
        for cube in _list(f"cubes[{i}]", row):
            x, y, lv, c = _ints(f"cubes[{i}]", cube, -_BIG, _BIG, 4)
            if (x, y) not in site.index:
                raise _fail(f"cubes[{i}]", f"cube {cube} is not over the footprint")
            _int(f"cubes[{i}] level", lv, 1, s.heights[i][site.index[(x, y)]])
            found[(x, y, lv)] = _int(f"cubes[{i}] colour", c, 0, len(cv.colours) - 1)
        cubes.append(found)
    s.cubes = tuple(cubes)
    s.deck = _ints("deck", _get(d, "deck"), SNOWFLAKE, n_shapes - 1)
    s.deck_piles = _ints("deck_piles", _get(d, "deck_piles"), 1, len(cv.piles), len(s.deck))
    s.display = _ints("display", _get(d, "display"), 0, n_shapes - 1)
    if len(s.display) > cv.display_size:
        raise _fail("display", f"holds at most {cv.display_size} cards")
    s.discard = _ints("discard", _get(d, "discard"), 0, n_shapes - 1)
    s.supply = tuple(
        _bools(f"supply[{i}]", row, n_copies)
        for i, row in enumerate(_list("supply", _get(d, "supply"), n_shapes))
    )
    s.removed_pieces = tuple(
        (
            _int("removed_pieces", p[0], 0, n_shapes - 1),
            _int("removed_pieces", p[1], 0, n_copies - 1),
        )
        for p in (
            _ints("removed_pieces", x, -_BIG, _BIG, 2)
            for x in _list("removed_pieces", _get(d, "removed_pieces"))
        )
    )
    s.placed = tuple(
        (
            _int("placed", p[0], 0, n_shapes - 1),
            _int("placed", p[1], 0, n_copies - 1),
            _int("placed", p[2], 0, n_sites - 1),
        )
        for p in (_ints("placed", x, -_BIG, _BIG, 3) for x in _list("placed", _get(d, "placed")))
    )
    s.scores = _ints("scores", _get(d, "scores"), -_BIG, _BIG, n)
    s.breakdown = tuple(
        _ints(f"breakdown[{i}]", row, -_BIG, _BIG, len(BREAKDOWN))
        for i, row in enumerate(_list("breakdown", _get(d, "breakdown"), n))
    )
    s.ready = tuple(
        _bools(f"ready[{i}]", row, len(ALLIES))
        for i, row in enumerate(_list("ready", _get(d, "ready"), n))
    )
    s.allies_used = _ints("allies_used", _get(d, "allies_used"), 0, _BIG, n)
    bonus = []
    for i, row in enumerate(_list("bonus", _get(d, "bonus"), n)):
        row = _list(f"bonus[{i}]", row, len(cv.bonus))
        if any(v not in BONUS_STATES for v in row):
            raise _fail(f"bonus[{i}]", f"every entry is one of {', '.join(BONUS_STATES)}")
        bonus.append(tuple(row))
    s.bonus = tuple(bonus)
    s.holders = _ints("holders", _get(d, "holders"), -1, n - 1, n_sites)
    s.sticks = _ints("sticks", _get(d, "sticks"), 0, len(cv.sticks) - 1, n_sites)
    if sorted(s.sticks) != list(range(len(cv.sticks))):
        raise _fail("sticks", "every stick goes to exactly one site")
    s.storms = _int("storms", _get(d, "storms"), 0, cv.storms)
    s.active = _int("active", _get(d, "active"), 0, n - 1)
    s.phase = _get(d, "phase")
    if s.phase not in PHASES:
        raise _fail("phase", f"must be one of {', '.join(PHASES)}")
    s.pending_card = _int("pending_card", _get(d, "pending_card"), -1, len(s.display) - 1)
    s.pending_copy = _int("pending_copy", _get(d, "pending_copy"), -1, n_copies - 1)
    s.points = _int("points", _get(d, "points"), -_BIG, _BIG)
    s.coureur_queue = _ints("coureur_queue", _get(d, "coureur_queue"), 0, n - 1)
    s.huron_queue = _ints("huron_queue", _get(d, "huron_queue"), 0, n - 1)
    s.known = _ints("known", _get(d, "known"), 0, min(cv.huron_peek, len(s.deck)), n)
    s.reordered = _int("reordered", _get(d, "reordered"), 0, min(cv.huron_peek, len(s.deck)))
    s.over = _bool("over", _get(d, "over"))
    s.turn = _int("turn", _get(d, "turn"), 1, _BIG)
    _check_consistency(s)
    return s


def _check_consistency(s: State) -> None:
    """Cross-field checks that keep the rules' invariants (a bad row cannot crash play)."""
    cv = s.compiled
    if (s.phase == "over") != s.over:
        raise _fail("phase", "is 'over' exactly when the game is over")
    if s.phase in ("copy", "place") and s.pending_card < 0:
        raise _fail("pending_card", f"a card must be chosen in phase {s.phase!r}")
    if s.phase == "place" and s.pending_copy < 0:
        raise _fail("pending_copy", "a copy must be chosen in phase 'place'")
    if s.phase in ("huron", "huron_order") and not s.huron_queue:
        raise _fail("huron_queue", f"someone must be asked in phase {s.phase!r}")
    if s.phase == "coureur" and not s.coureur_queue:
        raise _fail("coureur_queue", "someone must be asked in phase 'coureur'")
    if len(s.deck) + len(s.display) + len(s.discard) + s.storms != cv.total_cards:
        raise _fail("deck", "deck, display, discard and storms do not add up to the cards")
    if s.deck.count(SNOWFLAKE) != cv.storms - s.storms:
        raise _fail("deck", "the deck must hold one snowflake per storm still to come")
