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
from celery.signals import worker_ready
from django.conf import settings
from django.core.cache import cache

from accounts.ratelimit import cache_failed
from games import services
from games.errors import GameServiceError, StaleVersion
from games.models import Game
from games.services import AI_KEY_PREFIX, ai_seat_to_move, submit_action

logger = logging.getLogger(__name__)

#: Seconds an AI search may run before Celery interrupts it (the levels stop at 6 s).
AI_SOFT_TIME_LIMIT = 60

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


def play_one_ai_turn(game_id: int, version: int, *, fallback: bool = False) -> bool:
    """Play the AI's action for ``version`` if it is still due; True when a move was made.

    ``fallback`` plays the greedy bot's move instead of the seat's level (after repeated
    failures of the real search), so the game goes on.
    """
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
    ignore_result=True,
    # A search that hangs is cut off (then retried, then replaced by the greedy move);
    # the broker's visibility timeout is set well above ``time_limit`` (settings).
    soft_time_limit=AI_SOFT_TIME_LIMIT,
    time_limit=AI_SOFT_TIME_LIMIT + 15,
)
def play_ai_turn(self: Any, game_id: int, version: int) -> bool | None:
    """Play the AI seat's turn of ``game_id`` at ``version`` (nothing if it moved on).

    An error is retried with a backoff; from attempt ``AI_MAX_ATTEMPTS + 1`` on (errors,
    time-outs, killed workers alike) the seat plays the greedy bot's move instead.
    """
    if getattr(self.request, "is_eager", False):
        _drain_eagerly(game_id, version)
        return None
    attempt = count_attempt(game_id, version, self.request.retries or 0)
    fallback = attempt > settings.AI_MAX_ATTEMPTS
    try:
        return play_one_ai_turn(game_id, version, fallback=fallback)
    except GameServiceError as exc:
        logger.warning("AI turn for game %s refused: %s", game_id, exc.code)
        return False
    except Exception as exc:
        if fallback:
            logger.exception("AI turn for game %s at version %s failed even with the "
                             "fallback; the sweep will try again", game_id, version)
            return False
        logger.warning("AI turn for game %s at version %s failed (attempt %s: %r); retrying",
                       game_id, version, attempt, exc)
        raise self.retry(exc=exc, countdown=min(30, 2 ** attempt), max_retries=None) from exc


@shared_task(ignore_result=True)
def sweep_stalled_ai() -> int:
    """Periodic (Celery beat): re-enqueue AI turns pending past ``AI_STALL_SECONDS``."""
    return services.sweep_stalled_ai()


@shared_task(ignore_result=True)
def sweep_clocks() -> int:
    """Periodic (Celery beat): apply the table's rule to every seat out of time."""
    return services.apply_timeouts()


@shared_task(ignore_result=True)
def expire_open_tables() -> int:
    """Periodic (Celery beat): close open tables that never started in time."""
    return services.expire_open_tables()


@worker_ready.connect
def _sweep_on_worker_start(**_kwargs: Any) -> None:
    """A worker that (re)starts sweeps at once: turns lost with its predecessor resume,
    and deadlines that passed while no worker ran are applied."""
    for task in (sweep_stalled_ai, sweep_clocks):
        try:
            task.delay()
        except Exception:
            logger.warning("could not queue the start-up sweep %s", task.name)


#: Upper bound on chunks one eager analysis runs (a game has far fewer moves).
MAX_EAGER_ANALYSIS_CHUNKS = 100_000


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    # One chunk runs about ANALYSIS_CHUNK_SECONDS; a hung one is cut off (the sweep
    # queues it again, and a chunk that keeps failing ends the analysis as failed).
    soft_time_limit=AI_SOFT_TIME_LIMIT,
    time_limit=AI_SOFT_TIME_LIMIT + 15,
)
def analyse_game(self: Any, analysis_id: int, run: int) -> None:
    """Judge the next chunk of moves of an analysis, then queue the rest behind
    whatever arrived meanwhile (AI turns wait at most one chunk); eagerly: all of it."""
    from games.analysis import run_analysis_chunk

    if getattr(self.request, "is_eager", False):
        for _chunk in range(MAX_EAGER_ANALYSIS_CHUNKS):
            if not run_analysis_chunk(analysis_id=analysis_id, run=run):
                break
        return
    if run_analysis_chunk(analysis_id=analysis_id, run=run):
        analyse_game.delay(analysis_id, run)


@shared_task(ignore_result=True)
def sweep_stalled_analyses() -> int:
    """Periodic (Celery beat): queue again analyses with no progress for a while."""
    from games.analysis import sweep_stalled_analyses as sweep

    return sweep()


@worker_ready.connect
def _sweep_analyses_on_worker_start(**_kwargs: Any) -> None:
    """A worker that (re)starts picks up analyses lost with its predecessor."""
    try:
        sweep_stalled_analyses.delay()
    except Exception:
        logger.warning("could not queue the start-up sweep of stalled analyses")


@shared_task(ignore_result=True)
def send_turn_mails(game_id: int, version: int) -> int:
    """Mail the people whose turn it became at ``version`` (see ``games.turns.services``)."""
    from games.turns.services import send_turn_mails as send

    return send(game_id=game_id, version=version)
