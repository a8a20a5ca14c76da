"""Celery tasks: AI turns, played through the same ``submit_action`` as people.

Arguments are ids and versions only (no state, no seed).  A task for a version the game
has left does nothing, so duplicates and late retries are harmless; the idempotency key
``ai-{game}-{version}`` makes a retried submit a no-op too.
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
from collections import deque
from typing import Any

from celery import shared_task
from django.db import InterfaceError, OperationalError

from games.errors import GameServiceError, StaleVersion
from games.models import Game
from games.services import AI_KEY_PREFIX, ai_seat_to_move, submit_action

logger = logging.getLogger(__name__)

#: Upper bound on AI turns one eager loop plays (an all-AI game ends long before).
MAX_EAGER_TURNS = 20_000

_local = threading.local()


def ai_seed(game_seed: int, version: int) -> int:
    """The AI's seed for one turn: a hash of the game's seed and version (server-side)."""
    digest = hashlib.blake2b(f"{game_seed}:{version}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def choose_ai_action(engine: Any, state: Any, seat: int, level: str, seed: int) -> Any:
    """``ai.choose_action``; a seeded uniformly random legal action while it is missing."""
    try:
        import ai

        choose = ai.choose_action
    except (ImportError, AttributeError):
        logger.warning("ai.choose_action is not available: playing a random legal action")
        return random.Random(seed).choice(engine.legal_actions(state, seat))
    return choose(engine, state, seat, level=level, seed=seed)


def play_one_ai_turn(game_id: int, version: int) -> bool:
    """Play the AI's action for ``version`` if it is still due; True when a move was made."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.RUNNING or game.version != version:
        return False
    seat = ai_seat_to_move(game)
    if seat is None:
        return False
    engine = game.engine
    # The AI gets the true state but only ever looks at it through ``determinize``.
    state = engine.state_from_json(game.state_json)
    action = choose_ai_action(
        engine, state, seat.index, seat.ai_level, ai_seed(game.seed, version)
    )
    try:
        submit_action(
            game=game_id,
            seat=seat.index,
            action=engine.action_to_json(action),
            version=version,
            key=f"{AI_KEY_PREFIX}{game_id}-{version}",
            ai=True,
        )
    except StaleVersion:
        return False
    return True


def _drain_eagerly(game_id: int, version: int) -> None:
    """Eager mode: play AI turns in a loop, not by recursion through on_commit hooks.

    A turn enqueued while a loop is running on this thread joins the loop's queue.
    """
    pending: deque | None = getattr(_local, "pending", None)
    if pending is not None:
        pending.append((game_id, version))
        return
    _local.pending = pending = deque([(game_id, version)])
    try:
        turns = 0
        while pending and turns < MAX_EAGER_TURNS:
            turns += 1
            item = pending.popleft()
            try:
                play_one_ai_turn(*item)
            except GameServiceError as exc:
                logger.warning("AI turn for game %s refused: %s", item[0], exc.code)
    finally:
        _local.pending = None


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def play_ai_turn(self: Any, game_id: int, version: int) -> bool | None:
    """Play the AI seat's turn of ``game_id`` at ``version`` (nothing if it moved on)."""
    if getattr(self.request, "is_eager", False):
        _drain_eagerly(game_id, version)
        return None
    try:
        return play_one_ai_turn(game_id, version)
    except GameServiceError as exc:
        logger.warning("AI turn for game %s refused: %s", game_id, exc.code)
        return False
