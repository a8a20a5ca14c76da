"""Writes of the result record: one ``SeatResult`` per seat when a game finishes.

:func:`record_game_results` runs in the transaction that finishes the game (a receiver of
``game_changed``, ``games.results.receivers``; the ratings call it too before they read the
rows, so the order of the receivers does not matter).  It is idempotent: a game's rows
are written once (unique per game and seat), and a second call returns them.

:func:`result_rows` builds the rows from a game and its seats (duck-typed, so the backfill
can hand it historical models); the places come from :func:`games.results.places.places`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import IntegrityError, transaction

from games.models import Game, SeatResult
from games.results.places import SeatEnd, places

__all__ = ["ENDED_BY_REASON", "record_game_results", "result_rows", "set_ratings"]

#: ``Seat.left_reason`` -> how the person's seat ended (``SeatResult.Ended``); any other
#: reason (a seat the AI took for a reason added later) is ``replaced_by_ai``.
ENDED_BY_REASON = {
    "resigned": SeatResult.Ended.RESIGNED,
    "timeout": SeatResult.Ended.TIMED_OUT,
    "handover": SeatResult.Ended.LEFT,
}


def _ended(seat: Any) -> str:
    if getattr(seat, "left_user_id", None) is None and getattr(seat, "left_at", None) is None:
        return SeatResult.Ended.FINISHED
    return ENDED_BY_REASON.get(getattr(seat, "left_reason", "") or "",
                               SeatResult.Ended.REPLACED_BY_AI)


def _points(scores: Sequence[Any], index: int) -> int | None:
    value = scores[index] if 0 <= index < len(scores) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def result_rows(game: Any, seats: Sequence[Any]) -> list[dict[str, Any]]:
    """The fields of each seat's ``SeatResult`` (without ratings), in seat order.

    A seat someone left (``Seat.left_user`` or ``left_at``) counts for that person and is
    ranked as a leaver; every other seat counts for its player (or its AI).
    """
    result = game.result or {}
    scores = result.get("scores") or []
    ends = []
    for seat in seats:
        gone = _ended(seat) != SeatResult.Ended.FINISHED
        # A leaver with no recorded time (older data) left before anyone with one.
        left_at = (getattr(seat, "left_at", None) or game.started_at or game.created_at
                   ) if gone else None
        ends.append(SeatEnd(seat=seat.index, left_at=left_at))
    ranked = places(ends, scores=scores, winners=result.get("winners") or [])
    rows = []
    for seat, end in zip(seats, ends, strict=True):
        ended = _ended(seat)
        person = getattr(seat, "left_user_id", None) if end.left_at is not None else None
        person = person or seat.user_id
        rows.append({
            "seat": seat.index,
            "user_id": person,
            "ai_level": "" if person or end.left_at is not None else (seat.ai_level or ""),
            "place": ranked[seat.index],
            "points": _points(scores, seat.index),
            "ended": ended,
            "left_at": getattr(seat, "left_at", None) if end.left_at is not None else None,
            "won": end.stayed and ranked[seat.index] == 1,
        })
    return sorted(rows, key=lambda r: r["seat"])


@transaction.atomic
def record_game_results(*, game: Game) -> list[SeatResult]:
    """The finished ``game``'s rows, written now if they are not yet; ``[]`` for a game
    that is not finished.  Runs in the caller's transaction (the one finishing the game)."""
    if game.status != Game.Status.FINISHED:
        return []
    existing = list(SeatResult.objects.filter(game=game).order_by("seat"))
    if existing:
        return existing
    seats = list(game.seats.order_by("index"))
    finished_at = game.finished_at or game.updated_at
    rows = [SeatResult(game=game, game_name=game.game_name, finished_at=finished_at, **row)
            for row in result_rows(game, seats)]
    try:
        with transaction.atomic():
            SeatResult.objects.bulk_create(rows)
    except IntegrityError:  # a concurrent writer recorded them first
        return list(SeatResult.objects.filter(game=game).order_by("seat"))
    return rows


@transaction.atomic
def set_ratings(*, game: Game, ratings: Mapping[int, tuple[int, int]]) -> int:
    """Store ``{seat: (rating_before, rating_after)}`` on ``game``'s rows (the ratings'
    one write here); how many rows changed."""
    changed = 0
    for seat, (before, after) in ratings.items():
        changed += SeatResult.objects.filter(game=game, seat=seat).update(
            rating_before=before, rating_after=after)
    return changed
