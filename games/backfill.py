"""Fill ``Move.event`` for moves stored before engines returned events, by replaying games.

Used by a data migration (with the historical models) and testable on its own.  A game is
replayed from ``new_game(variant_data, num_players, seed)`` with the current engine; each
move's event is ``describe_action`` of the state before it.  The events are written only
when the replay reproduces the stored game exactly (the cached state, and the result of a
finished game): engines' rules changed between waves (a side-B set-up and a
shipment rotation, for instance), and an event of a different game would be a lie.  A game
whose replay fails or differs keeps its stored sentences (``Move.description``), which the
log still shows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.engines import EngineError, get_engine

logger = logging.getLogger(__name__)


@dataclass
class BackfillReport:
    """What a backfill did: games whose moves got events, games left as they were."""

    filled: list[int] = field(default_factory=list)
    kept: dict[int, str] = field(default_factory=dict)  # game id -> why


def _replay_events(game: Any, moves: list[Any], engine: Any) -> list[dict]:
    """The events of ``moves``; ``ValueError`` (with the reason) when the replay differs."""
    state = engine.new_game(game.variant_data, game.num_players, game.seed)
    events = []
    for move in moves:
        action = engine.action_from_json(move.action)
        event = engine.describe_action(state, action)
        if not isinstance(event, dict):
            raise ValueError("the engine gives no events")
        events.append(event)
        state = engine.apply(state, move.seat, action)
    if game.state_json is not None:
        stored = engine.state_from_json(game.state_json)
        if engine.observe(stored, None) != engine.observe(state, None):
            raise ValueError("the replay does not reach the stored state")
    if game.status == "finished":
        result = {"scores": list(engine.scores(state)), "winners": list(engine.winners(state))}
        if (game.result or {}) != result:
            raise ValueError("the replay does not reach the stored result")
    return events


def backfill_events(game_model: Any, move_model: Any,
                    engine_for: Callable[[str], Any] = get_engine) -> BackfillReport:
    """Fill the missing events of every started game (models may be historical)."""
    report = BackfillReport()
    game_ids = (
        move_model.objects.filter(event__isnull=True)
        .values_list("game_id", flat=True)
        .distinct()
    )
    for game in game_model.objects.filter(pk__in=list(game_ids)).order_by("pk"):
        moves = list(move_model.objects.filter(game=game).order_by("seq"))
        try:
            events = _replay_events(game, moves, engine_for(game.game_name))
        except (EngineError, ValueError, TypeError, KeyError, IndexError) as exc:
            report.kept[game.pk] = str(exc) or type(exc).__name__
            logger.info("game %s keeps its move sentences: %s", game.pk, exc)
            continue
        for move, event in zip(moves, events, strict=True):
            if move.event is None:
                move.event = event
                move.save(update_fields=["event"])
        report.filled.append(game.pk)
    return report
