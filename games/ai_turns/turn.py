"""One AI turn: the seat's action from its own view, submitted through the one write path.

Arguments are ids and versions only (no state, no seed).  A turn for a version the game
has left does nothing, so duplicates and late retries are harmless; the idempotency key
``ai-{game}-{version}`` makes a retried submit a no-op too.
"""

from __future__ import annotations

import hashlib
import logging
import random
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache

import ai
from common.ratelimit import cache_failed
from games.ai_turns.selectors import ai_seat_to_move
from games.core.errors import StaleVersion
from games.core.services import AI_KEY_PREFIX, submit_action
from games.models import Game

logger = logging.getLogger(__name__)
#: One line per AI move with what it cost (scripts/measure_ai_reply.py reads them).
timing = logging.getLogger("colonia.timing")


def ai_seed(game_seed: int, version: int) -> int:
    """The AI's seed for one turn: a hash of the game's seed and version (server-side)."""
    digest = hashlib.blake2b(f"{game_seed}:{version}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1



def choose_ai_action(engine: Any, state: Any, seat: int, level: str, seed: int) -> Any:
    """The action of the AI at ``level`` for ``seat`` (``ai.choose_action``)."""
    return ai.choose_action(engine, state, seat, level=level, seed=seed)



def play_one_ai_turn(game_id: int, version: int, *, fallback: bool = False) -> bool:
    """Play the AI's action for ``version`` if it is still due; True when a move was made.

    ``fallback`` plays the greedy bot's move instead of the seat's level (after repeated
    failures of the real search), so the game goes on.
    """
    started = time.time()
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.RUNNING or game.version != version:
        return False
    seat = ai_seat_to_move(game)
    if seat is None:
        return False
    engine = game.engine
    # The AI gets the true state but only ever looks at it through ``determinize``.
    state = engine.state_from_json(game.state_json)
    seed = ai_seed(game.seed, version)
    if fallback:
        logger.error(
            "AI seat %s of game %s failed %s times at version %s: "
            "playing the greedy bot's move so the game goes on",
            seat.index, game_id, settings.AI_MAX_ATTEMPTS, version,
        )
        action = fallback_action(engine, state, seat.index, seed)
    else:
        action = choose_ai_action(engine, state, seat.index, seat.ai_level, seed)
    searched = time.time()
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
    timing.info("ai-move game=%s version=%s level=%s start=%.3f search_ms=%.1f commit_ms=%.1f",
                game_id, version, seat.ai_level, started, 1000 * (searched - started),
                1000 * (time.time() - searched))
    return True



def fallback_action(engine: Any, state: Any, seat: int, seed: int) -> Any:
    """The greedy bot's action (cheap, no search); a random legal one if even that fails."""
    try:
        return choose_ai_action(engine, state, seat, "greedy", seed)
    except Exception:
        logger.exception("the greedy bot failed too: playing a random legal action")
        return random.Random(seed).choice(engine.legal_actions(state, seat))



def count_attempt(game_id: int, version: int, retries: int) -> int:
    """This delivery's attempt number for the turn (1 for the first).

    Counted in the cache, so deliveries that never got to fail cleanly (a worker killed
    mid-search, a task re-queued by the sweep) count too; Celery's own retry counter
    when the cache is down.
    """
    key = f"ai-attempts:{game_id}:{version}"
    try:
        if cache.add(key, 1, timeout=3600):
            return max(1, retries + 1)
        return max(int(cache.incr(key)), retries + 1)
    except Exception as exc:
        cache_failed("the AI attempt counter", exc)
        return retries + 1
