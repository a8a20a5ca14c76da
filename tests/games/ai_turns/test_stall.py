"""AI turns never stall: the sweep, nudges on reads, retries and the greedy fallback."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.utils import timezone
from rest_framework.test import APIClient

import ai
from config.celery import app
from games import periodic
from games.ai_turns import tasks as ai_tasks
from games.ai_turns.services import sweep_stalled_ai
from games.ai_turns.tasks import play_ai_turn
from games.ai_turns.turn import count_attempt
from games.core.services import submit_action
from games.models import Game, Move, Variant
from games.tables.services import create_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    cache.clear()


def pending_ai_turn(variant: Variant, user: Any, *, age: float = 60) -> Game:
    """A game whose AI seat is to move at version 1 and whose task was lost ``age`` s ago."""
    game = create_game(creator=user, variant=variant,
                                seats=[{"type": "human"}, {"type": "ai", "level": "easy"}])
    submit_action(game=game, user=user, seat=0, action={"play": 0}, version=0,
                           key="a")  # on_commit hooks not run: the AI task is "lost"
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - timedelta(seconds=age))
    game.refresh_from_db()
    assert game.version == 1 and game.to_move == [1]
    return game


def test_sweep_replays_a_stalled_turn_once_per_period(
    variant: Variant, make_user: Any, on_commit: Any, ai_calls: list, settings: Any
) -> None:
    settings.AI_STALL_SECONDS = 15
    fresh = pending_ai_turn(variant, make_user(), age=1)  # merely slow: left alone
    stalled = pending_ai_turn(variant, make_user(), age=60)
    with on_commit():
        assert sweep_stalled_ai() == 1
    stalled.refresh_from_db()
    fresh.refresh_from_db()
    assert stalled.version == 2 and fresh.version == 1
    assert Move.objects.get(game=stalled, seq=2).key == f"ai-{stalled.pk}-1"


def test_sweep_nudges_once_per_version_and_period(
    variant: Variant, make_user: Any, monkeypatch: pytest.MonkeyPatch, on_commit: Any,
    settings: Any,
) -> None:
    settings.AI_STALL_SECONDS = 15
    game = pending_ai_turn(variant, make_user())
    queued: list[tuple[int, int]] = []
    monkeypatch.setattr(ai_tasks, "enqueue_turn", lambda g, v: queued.append((g, v)))
    with on_commit():
        sweep_stalled_ai()
        sweep_stalled_ai()
    assert queued == [(game.pk, 1)]


def test_a_starting_worker_queues_a_lost_turn_at_once(
    variant: Variant, make_user: Any, monkeypatch: pytest.MonkeyPatch, on_commit: Any,
    settings: Any,
) -> None:
    """Issue 23: after a worker was killed, the AI moved 17-21 s later (the start-up sweep
    skipped turns younger than AI_STALL_SECONDS).  A turn pending 2 s: the periodic sweep
    waits, the start-up sweep queues it."""
    settings.AI_STALL_SECONDS = 15
    game = pending_ai_turn(variant, make_user(), age=2)
    queued: list[tuple[int, int]] = []
    monkeypatch.setattr(ai_tasks, "enqueue_turn", lambda g, v: queued.append((g, v)))
    with on_commit():
        sweep_stalled_ai()
        assert queued == []
        periodic._sweep_on_worker_start()
    assert queued == [(game.pk, 1)]


def test_sweep_ignores_games_where_people_are_to_move(
    variant: Variant, make_user: Any, settings: Any
) -> None:
    settings.AI_STALL_SECONDS = 0
    game = create_game(creator=make_user(), variant=variant,
                                seats=[{"type": "human"}, {"type": "ai"}])
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    assert sweep_stalled_ai() == 0  # seat 0 (a person) is to move


def test_failed_enqueue_is_logged_and_picked_up_by_the_sweep(
    variant: Variant, make_user: Any, monkeypatch: pytest.MonkeyPatch, on_commit: Any,
    ai_calls: list, caplog: pytest.LogCaptureFixture, settings: Any,
) -> None:
    """Redis down at commit time: the move is kept, the enqueue logged, the sweep replays it."""
    settings.AI_STALL_SECONDS = 15
    ann = make_user()
    game = create_game(creator=ann, variant=variant,
                                seats=[{"type": "human"}, {"type": "ai", "level": "easy"}])

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ConnectionRefusedError("Connection refused")

    caplog.set_level(logging.WARNING, logger="games.ai_turns.tasks")
    monkeypatch.setattr(play_ai_turn, "delay", refuse)
    with on_commit():
        submit_action(game=game, user=ann, seat=0, action={"play": 0}, version=0,
                               key="a")
    game.refresh_from_db()
    assert game.version == 1 and "could not enqueue the AI turn" in caplog.text
    monkeypatch.undo()  # the broker is back
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - timedelta(seconds=30))
    with on_commit():
        assert sweep_stalled_ai() == 1
    game.refresh_from_db()
    assert game.version == 2


def test_api_read_nudges_a_stalled_turn(
    variant: Variant, make_user: Any, on_commit: Any, ai_calls: list, settings: Any
) -> None:
    settings.AI_STALL_SECONDS = 15
    game = pending_ai_turn(variant, make_user())
    with on_commit():
        response = APIClient().get(f"/api/games/{game.pk}/")
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.version == 2


def test_sweep_task_and_beat_schedule(settings: Any) -> None:
    entry = app.conf.beat_schedule["sweep-stalled-ai"]
    assert entry["task"] == periodic.sweep_stalled_ai.name
    assert entry["schedule"] <= settings.AI_STALL_SECONDS
    # Redelivery of an unacknowledged task must wait longer than any AI task may run.
    assert app.conf.broker_transport_options["visibility_timeout"] > (
        play_ai_turn.time_limit
    )


class Boom(RuntimeError):
    pass


def test_failing_search_is_retried_then_the_greedy_move_is_played(
    variant: Variant, make_user: Any, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture, settings: Any,
) -> None:
    """The search raises every time: retried, and after AI_MAX_ATTEMPTS the greedy bot."""
    settings.AI_MAX_ATTEMPTS = 3
    game = pending_ai_turn(variant, make_user())
    levels: list[str] = []

    def choose_action(engine: Any, state: Any, seat: int, level: str = "normal",
                      seed: int = 0) -> Any:
        levels.append(level)
        if level != "greedy":
            raise Boom("search crashed")
        return engine.legal_actions(state, seat)[0]

    monkeypatch.setattr(ai, "choose_action", choose_action)
    retries: list[int] = []

    def fake_retry(*, exc: BaseException, countdown: float, max_retries: Any) -> Exception:
        retries.append(countdown)
        return exc  # the task raises it: this delivery ends

    monkeypatch.setattr(play_ai_turn, "retry", fake_retry)
    caplog.set_level(logging.WARNING, logger="games.ai_turns.tasks")
    for _attempt in range(3):  # three deliveries fail...
        with pytest.raises(Boom):
            play_ai_turn.run(game.pk, 1)
    game.refresh_from_db()
    assert game.version == 1 and len(retries) == 3
    assert play_ai_turn.run(game.pk, 1) is True  # ... the fourth plays greedy
    game.refresh_from_db()
    assert game.version == 2
    assert levels == ["easy", "easy", "easy", "greedy"]
    assert "playing the greedy bot's move" in caplog.text


def test_a_killed_delivery_counts_as_an_attempt(variant: Variant, make_user: Any,
                                                settings: Any) -> None:
    """Deliveries that never finished (worker SIGKILLed) count toward the fallback."""
    game = pending_ai_turn(variant, make_user())
    assert [count_attempt(game.pk, 1, 0) for _ in range(3)] == [1, 2, 3]
    assert count_attempt(game.pk, 2, 0) == 1  # per version
