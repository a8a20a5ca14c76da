"""The game state: a compact, copy-on-write record plus its JSON form.

Everything is a tuple except the per-site cube dictionaries, which are treated as
immutable once built (a placement copies only the dictionary of its own site).
"""

from __future__ import annotations

import copy
from typing import Any

from .variant import Compiled, compiled

SNOWFLAKE = -1  # card id of a snowflake; building cards are shape indices

#: Score breakdown categories, in the order of ``NFState.breakdown`` entries.
BREAKDOWN = ("placement", "fille_du_roy", "coureur_des_bois", "snowstorms", "characters")
BONUS_READY, BONUS_USED, BONUS_EXPIRED = "ready", "used", "expired"


class NFState:
    """One game position.  Treat as immutable: ``clone()`` then edit the clone."""

    __slots__ = (
        "active",
        "allies_used",
        "bonus",
        "breakdown",
        "cubes",
        "cv",
        "deck",
        "deck_piles",
        "discard",
        "display",
        "heights",
        "holders",
        "known",
        "n",
        "offers",
        "over",
        "pending_card",
        "pending_copy",
        "placed",
        "points",
        "ready",
        "removed_pieces",
        "scores",
        "step",
        "sticks",
        "storms",
        "supply",
        "turn",
    )

    cv: Compiled
    n: int
    heights: tuple[tuple[int, ...], ...]
    cubes: tuple[dict[tuple[int, int, int], int], ...]
    deck: tuple[int, ...]
    deck_piles: tuple[int, ...]
    display: tuple[int, ...]
    discard: tuple[int, ...]
    supply: tuple[tuple[bool, ...], ...]
    removed_pieces: tuple[tuple[int, int], ...]
    placed: tuple[tuple[int, int, int], ...]
    scores: tuple[int, ...]
    breakdown: tuple[tuple[int, ...], ...]
    ready: tuple[tuple[bool, ...], ...]
    allies_used: tuple[int, ...]
    bonus: tuple[tuple[str, ...], ...]
    holders: tuple[int, ...]
    sticks: tuple[int, ...]
    storms: int
    active: int
    step: str
    pending_card: int
    pending_copy: int
    points: int
    offers: tuple[int, ...]
    known: tuple[int, ...]
    over: bool
    turn: int

    def clone(self) -> NFState:
        """A shallow copy: fine because every field is immutable or copy-on-write."""
        # Spelled out: a getattr/setattr loop over __slots__ is 3x slower on the hot path.
        new = NFState.__new__(NFState)
        new.active = self.active
        new.allies_used = self.allies_used
        new.bonus = self.bonus
        new.breakdown = self.breakdown
        new.cubes = self.cubes
        new.cv = self.cv
        new.deck = self.deck
        new.deck_piles = self.deck_piles
        new.discard = self.discard
        new.display = self.display
        new.heights = self.heights
        new.holders = self.holders
        new.known = self.known
        new.n = self.n
        new.offers = self.offers
        new.over = self.over
        new.pending_card = self.pending_card
        new.pending_copy = self.pending_copy
        new.placed = self.placed
        new.points = self.points
        new.ready = self.ready
        new.removed_pieces = self.removed_pieces
        new.scores = self.scores
        new.step = self.step
        new.sticks = self.sticks
        new.storms = self.storms
        new.supply = self.supply
        new.turn = self.turn
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NFState):
            return NotImplemented
        return to_json(self) == to_json(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<NFState {self.cv.name} turn={self.turn} active={self.active} "
            f"step={self.step} storms={self.storms} over={self.over}>"
        )


def to_json(s: NFState) -> dict[str, Any]:
    """The full state, hidden deck order included, as JSON-able data."""
    return {
        "variant": copy.deepcopy(s.cv.variant),  # callers may edit it; the cache must not change
        "num_players": s.n,
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
        "step": s.step,
        "pending_card": s.pending_card,
        "pending_copy": s.pending_copy,
        "points": s.points,
        "offers": list(s.offers),
        "known": list(s.known),
        "over": s.over,
        "turn": s.turn,
    }


def from_json(data: dict[str, Any]) -> NFState:
    """Inverse of ``to_json`` (assumes data produced by ``to_json``)."""
    s = NFState.__new__(NFState)
    s.cv = compiled(data["variant"])
    s.n = data["num_players"]
    s.heights = tuple(tuple(h) for h in data["heights"])
    s.cubes = tuple({(x, y, lv): c for x, y, lv, c in site} for site in data["cubes"])
    s.deck = tuple(data["deck"])
    s.deck_piles = tuple(data["deck_piles"])
    s.display = tuple(data["display"])
    s.discard = tuple(data["discard"])
    s.supply = tuple(tuple(c) for c in data["supply"])
    s.removed_pieces = tuple(tuple(p) for p in data["removed_pieces"])
    s.placed = tuple(tuple(p) for p in data["placed"])
    s.scores = tuple(data["scores"])
    s.breakdown = tuple(tuple(b) for b in data["breakdown"])
    s.ready = tuple(tuple(r) for r in data["ready"])
    s.allies_used = tuple(data["allies_used"])
    s.bonus = tuple(tuple(b) for b in data["bonus"])
    s.holders = tuple(data["holders"])
    s.sticks = tuple(data["sticks"])
    s.storms = data["storms"]
    s.active = data["active"]
    s.step = data["step"]
    s.pending_card = data["pending_card"]
    s.pending_copy = data["pending_copy"]
    s.points = data["points"]
    s.offers = tuple(data["offers"])
    s.known = tuple(data["known"])
    s.over = data["over"]
    s.turn = data["turn"]
    return s
