"""The AI task: staleness, determinism, eager all-AI games, a real worker on Redis."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

import ai
from config.celery import app
from games.ai_turns.services import nudge_ai
from games.ai_turns.tasks import play_ai_turn
from games.ai_turns.turn import ai_seed, play_one_ai_turn
from games.core.selectors import replayed_state
from games.core.services import start_game, submit_action
from games.engines import get_engine
from games.models import Game, Move, Seat, Variant
from games.tables.services import create_game
from games.variants.services import save_variant

pytestmark = pytest.mark.django_db


def ai_table(variant: Variant, user: Any, *levels: str) -> Game:
    """A running game: ``user`` in seat 0, AI seats of ``levels`` after."""
    game = create_game(
        creator=user, variant=variant,
        seats=[{"type": "human"}, *({"type": "ai", "level": lv} for lv in levels)],
    )
    game.refresh_from_db()
    return game


def all_ai_game(variant: Variant, user: Any, players: int, level: str = "random") -> Game:
    """An open table whose seats are all turned into AI seats, then started."""
    game = create_game(creator=user, variant=variant,
                                seats=[{"type": "human"}] * players)
    Seat.objects.filter(game=game).update(user=None, ai_level=level)
    return start_game(game)


def test_ai_answers_a_human_move(
    variant: Variant, make_user: Any, on_commit: Any, ai_calls: list
) -> None:
    ann = make_user()
    game = ai_table(variant, ann, "hard")
    with on_commit():
        submit_action(game=game, user=ann, seat=0, action={"play": 0}, version=0,
                               key="a")
    game.refresh_from_db()
    assert game.version == 2 and game.to_move == [0]
    ai_move = Move.objects.get(game=game, seq=2)
    assert ai_move.seat == 1 and ai_move.key == f"ai-{game.pk}-1"
    assert ai_calls == [{"seat": 1, "level": "hard", "seed": ai_seed(game.seed, 1)}]


def test_stale_task_does_nothing(variant: Variant, make_user: Any, ai_calls: list) -> None:
    ann = make_user()
    game = ai_table(variant, ann, "normal")
    submit_action(game=game, user=ann, seat=0, action={"play": 0}, version=0, key="a")
    # The AI is to move at version 1: a task for version 0 (or 5) must not play.
    assert play_ai_turn.apply(args=(game.pk, 0)).get() is None
    assert play_one_ai_turn(game.pk, 0) is False
    assert play_one_ai_turn(game.pk, 5) is False
    assert play_one_ai_turn(game.pk + 999, 1) is False
    assert Move.objects.filter(game=game).count() == 1 and ai_calls == []
    # ... and the right version does play, once: a duplicate is a no-op.
    assert play_one_ai_turn(game.pk, 1) is True
    assert play_one_ai_turn(game.pk, 1) is False
    assert Move.objects.filter(game=game).count() == 2


def test_task_does_nothing_when_a_human_is_to_move(
    variant: Variant, make_user: Any, ai_calls: list
) -> None:
    game = ai_table(variant, make_user(), "normal")
    assert game.to_move == [0]
    assert play_one_ai_turn(game.pk, 0) is False
    assert ai_calls == []


def test_ai_seed_is_deterministic_and_per_version() -> None:
    assert ai_seed(42, 3) == ai_seed(42, 3)
    assert len({ai_seed(42, v) for v in range(50)}) == 50
    assert ai_seed(42, 3) != ai_seed(43, 3)
    assert 0 <= ai_seed(2**62, 10**6) < 2**63


def test_all_ai_game_finishes_in_eager_mode(
    fake_engine: Any, make_user: Any, on_commit: Any, ai_calls: list
) -> None:
    variant = Variant.objects.create(game="fakegame", name="long", data={"hand_size": 12})
    with on_commit():
        game = all_ai_game(variant, make_user(), 4)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.version == 48
    assert game.state_json == game.engine.state_to_json(replayed_state(game))
    assert len(ai_calls) == 48


@pytest.mark.django_db(transaction=True)
def test_all_ai_game_with_real_commits_is_not_recursive(
    fake_engine: Any, make_user: Any, ai_calls: list
) -> None:
    """With real commits each move's on_commit enqueues the next: a loop, not a recursion."""
    import sys

    variant = Variant.objects.create(game="fakegame", name="long", data={"hand_size": 12})
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)  # well below 48 nested commit -> task -> submit chains
    try:
        game = all_ai_game(variant, make_user(), 4)
    finally:
        sys.setrecursionlimit(limit)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.version == 48


def test_new_haven_all_ai_game(make_user: Any, on_commit: Any, ai_calls: list) -> None:
    engine = get_engine("newhaven")
    variant = save_variant(
        game="newhaven", name="standard", data=engine.default_variants()["standard"]
    )
    with on_commit():
        game = all_ai_game(variant, make_user(), 2)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.state_json == engine.state_to_json(replayed_state(game))
    assert game.result["winners"]


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (CI sets it)")
@pytest.mark.django_db(transaction=True)
def test_real_worker_plays_the_ai_turn(
    variant: Variant, make_user: Any, ai_calls: list
) -> None:
    from celery.contrib.testing.worker import start_worker


    saved = {k: app.conf[k] for k in ("task_always_eager", "broker_url", "result_backend")}
    app.conf.update(
        task_always_eager=False,
        broker_url=os.environ["REDIS_URL"],
        result_backend=os.environ["REDIS_URL"],
    )
    ann = make_user()
    game = ai_table(variant, ann, "easy")
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            submit_action(game=game, user=ann, seat=0, action={"play": 0},
                                   version=0, key="a")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                game.refresh_from_db()
                if game.version >= 2:
                    break
                time.sleep(0.05)
    finally:
        app.conf.update(saved)
    assert game.version == 2, "the worker did not play the AI turn within 20 s"
    assert Move.objects.get(game=game, seq=2).key == f"ai-{game.pk}-1"
    assert ai_calls and ai_calls[0]["level"] == "easy"


@pytest.mark.parametrize("level", ["random", "greedy"])
def test_real_ai_plays_new_haven_turns(make_user: Any, level: str) -> None:
    """The task with the real ``ai.choose_action`` (fast levels) on New Haven."""
    assert callable(ai.choose_action)
    engine = get_engine("newhaven")
    variant = save_variant(
        game="newhaven", name="standard", data=engine.default_variants()["standard"]
    )
    game = all_ai_game(variant, make_user(), 2, level=level)  # hooks not run: we drive it
    for version in range(6):
        assert play_one_ai_turn(game.pk, version) is True
    game.refresh_from_db()
    assert game.version == 6
    assert game.state_json == engine.state_to_json(replayed_state(game))


def test_nudge_ai_replays_a_lost_turn(
    variant: Variant, make_user: Any, on_commit: Any, ai_calls: list
) -> None:
    ann = make_user()
    game = ai_table(variant, ann, "normal")
    submit_action(game=game, user=ann, seat=0, action={"play": 0}, version=0,
                           key="a")  # hooks not run: the AI task is "lost"
    game.refresh_from_db()
    assert game.version == 1
    with on_commit():
        assert nudge_ai(game=game.pk) is True
    game.refresh_from_db()
    assert game.version == 2 and nudge_ai(game=game) is False
