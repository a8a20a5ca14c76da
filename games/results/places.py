"""The places of a finished game's seats: one pure function (no Django), unit-tested.

The rule (issue 20):

* the seats still played at the end by whoever sat there from the start ("stayers":
  people, and AIs seated from the start) come first, ranked by the engine's result: its
  winners share place 1, the others follow by score, equal scores sharing a place;
* every leaver (resigned, left, timed out) comes after every stayer, whatever the AI
  that took the seat over then scored: between leavers the one who left later ranks
  higher, and leavers who left at the same moment (one clock sweep) share a place;
* a game that ended early because every other seat left ranks the remaining seat(s)
  first -- the same rule, with the engine's (or the table's) winners among them.

Places are "competition" ranks: 1 + the number of seats strictly ahead (1, 1, 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class SeatEnd:
    """What the places need of one seat: its index and, for a leaver, when they left."""

    seat: int
    left_at: datetime | None = None  # None: the seat stayed to the end

    @property
    def stayed(self) -> bool:
        """Whether the seat was still played at the end by whoever sat there first."""
        return self.left_at is None


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def places(seats: Sequence[SeatEnd], *, scores: Sequence[Any] = (),
           winners: Sequence[int] = ()) -> dict[int, int]:
    """``{seat: place}`` of a finished game (see the module's rule); ``ValueError`` for a
    seat listed twice."""
    indexes = [s.seat for s in seats]
    if len(set(indexes)) != len(indexes):
        raise ValueError("a seat is listed twice")
    winning = set(winners)
    keys: dict[int, tuple] = {}
    for s in seats:
        if s.stayed:
            score = scores[s.seat] if 0 <= s.seat < len(scores) else 0
            # Winners share place 1 whatever their scores (the engine broke the ties).
            keys[s.seat] = (0, 0.0, 0.0) if s.seat in winning else (0, 1.0, -_number(score))
        else:
            assert s.left_at is not None
            keys[s.seat] = (1, -s.left_at.timestamp(), 0.0)
    ordered = sorted(keys.values())
    return {seat: 1 + sum(1 for k in ordered if k < key) for seat, key in keys.items()}
