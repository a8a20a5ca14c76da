"""One hint: the search's best moves for a seat, from that seat's view, into the cache.

Run by the worker (``tasks.compute_hint``); arguments are ids and versions only.  A hint
for a version the game has left is dropped (nothing is searched or stored).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache

import ai
from games.models import Game
from games.practice.selectors import HINT_MOVES, hint_key, hint_seed

logger = logging.getLogger(__name__)

#: Seconds a hint stays in the cache (a version is short-lived: this only bounds memory).
HINT_SECONDS = 3600
#: Seconds a failed search is remembered (the next click after it searches again).
FAILED_SECONDS = 30


def compute_hint(game_id: int, version: int, seat: int) -> bool:
    """Search ``seat``'s best moves at ``version`` and store them; False when dropped."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.RUNNING or game.version != version:
        return False  # the game has moved on: an old version's hint is dropped
    if seat not in (game.to_move or []):
        return False
    key = hint_key(game, version, seat)
    engine = game.engine
    # The search reads the true state only through ``determinize`` for ``seat``.
    state = engine.state_from_json(game.state_json)
    try:
        found = ai.suggest(engine, state, seat, count=HINT_MOVES,
                           iterations=settings.PRACTICE_HINT_ITERATIONS or None,
                           time_limit=settings.PRACTICE_HINT_SECONDS,
                           seed=hint_seed(game, version, seat))
    except Exception:
        logger.exception("the hint of game %s at version %s failed", game_id, version)
        cache.set(key, {"status": "failed"}, timeout=FAILED_SECONDS)
        return False
    moves = [{"action": engine.action_to_json(action), "win": round(float(value), 4),
              "visits": int(visits)} for action, value, visits in found]
    cache.set(key, {"status": "done", "moves": moves}, timeout=HINT_SECONDS)
    return True
