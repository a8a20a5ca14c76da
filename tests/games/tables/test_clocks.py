"""Clocks: deadlines kept by the server, charged by moves, applied once when they pass."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from accounts.models import RatingChange
from games import periodic as tasks
from games.ai_turns.turn import play_one_ai_turn
from games.core.errors import InvalidTableRules, OutOfTime
from games.core.services import submit_action
from games.models import Game, Seat, Variant
from games.tables import selectors as tables
from games.tables.services import _time_out, apply_timeouts, create_game, join_game

pytestmark = pytest.mark.django_db

LIVE = {"kind": "live", "reserve": 60, "increment": 5}


def pair(variant: Variant, make_user: Any, names: tuple[str, str] = ("ann", "bob"),
         **rules: Any) -> tuple[Game, Any, Any]:
    ann, bob = make_user(names[0]), make_user(names[1])
    game = create_game(creator=ann, variant=variant,
                                seats=[{"type": "human"}] * 2, **rules)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    return game, ann, bob


def seat(game: Game, index: int) -> Seat:
    return Seat.objects.get(game=game, index=index)


def expire(game: Game, index: int, seconds: float = 1) -> None:
    """Move the seat's deadline into the past (as if that much time had gone by)."""
    Seat.objects.filter(game=game, index=index).update(
        deadline=timezone.now() - timedelta(seconds=seconds))


def test_live_clock_starts_charges_and_adds_the_increment(variant: Variant,
                                                          make_user: Any) -> None:
    game, ann, bob = pair(variant, make_user, time_control=LIVE)
    first = game.to_move[0]
    other = 1 - first
    mover = seat(game, first)
    assert mover.deadline is not None
    assert 58 < (mover.deadline - timezone.now()).total_seconds() <= 60
    assert seat(game, other).deadline is None and seat(game, other).time_left == 60
    # 20 seconds of thinking: the deadline is 40 s away when the move is made.
    Seat.objects.filter(pk=mover.pk).update(deadline=timezone.now() + timedelta(seconds=40))
    submit_action(game=game, user=(ann, bob)[first], seat=first, action={"play": 0},
                           version=game.version, key="m1")
    mover = seat(game, first)
    assert mover.deadline is None
    assert 44 < mover.time_left <= 45  # 40 left + 5 increment
    nxt = seat(game, other)
    assert 58 < (nxt.deadline - timezone.now()).total_seconds() <= 60


def test_correspondence_clock_gives_days_per_move(variant: Variant, make_user: Any) -> None:
    game, ann, bob = pair(variant, make_user,
                          time_control={"kind": "correspondence", "days": 3})
    deadline = seat(game, game.to_move[0]).deadline
    assert timedelta(days=3) - timedelta(seconds=5) < deadline - timezone.now() <= timedelta(
        days=3)
    first = game.to_move[0]
    submit_action(game=game, user=(ann, bob)[first], seat=first, action={"play": 0},
                           version=game.version, key="m1")
    assert seat(game, first).deadline is None and seat(game, first).time_left is None
    assert seat(game, 1 - first).deadline is not None


def test_no_clock_no_deadline(variant: Variant, make_user: Any) -> None:
    game, _ann, _bob = pair(variant, make_user)
    assert not Seat.objects.filter(game=game, deadline__isnull=False).exists()


@pytest.mark.parametrize("control", [
    {"kind": "live", "reserve": 0},
    {"kind": "live"},
    {"kind": "live", "reserve": 60, "increment": -1},
    {"kind": "correspondence", "days": 0},
    {"kind": "correspondence", "days": 31},
    {"kind": "hourglass"},
    {"kind": "live", "reserve": True},
])
def test_bad_time_controls_are_refused(variant: Variant, make_user: Any,
                                       control: dict) -> None:
    with pytest.raises(InvalidTableRules) as info:
        create_game(creator=make_user("ann"), variant=variant,
                             seats=[{"type": "human"}] * 2, time_control=control)
    assert "time_control" in info.value.errors
    assert not Game.objects.exists()


def test_bad_departure_rule_and_level_are_refused(variant: Variant, make_user: Any) -> None:
    with pytest.raises(InvalidTableRules) as info:
        create_game(creator=make_user("ann"), variant=variant,
                             seats=[{"type": "human"}] * 2, departure_rule="vanish",
                             takeover_level="godlike")
    assert set(info.value.errors) == {"departure_rule", "takeover_level"}


# --- timeouts -------------------------------------------------------------------------------


def test_timeout_hands_the_seat_to_the_ai_which_plays_on(
    variant: Variant, make_user: Any, ai_calls: list
) -> None:
    game, ann, bob = pair(variant, make_user, time_control=LIVE, takeover_level="easy")
    late = game.to_move[0]
    version = game.version
    expire(game, late)
    assert apply_timeouts() == 1
    game.refresh_from_db()
    taken = seat(game, late)
    assert taken.ai_level == "easy" and taken.user is None
    assert taken.left_user == (ann, bob)[late] and taken.left_reason == "timeout"
    assert taken.deadline is None
    assert game.status == Game.Status.RUNNING and game.version == version + 1
    # The AI plays the seat on (the task would be enqueued on commit).
    assert play_one_ai_turn(game.pk, game.version)
    assert ai_calls and ai_calls[-1]["seat"] == late and ai_calls[-1]["level"] == "easy"
    game.refresh_from_db()
    assert seat(game, 1 - late).deadline is not None  # the person's clock runs now
    assert "AI" in taken.display_name and taken.left_user.username in taken.display_name


def test_timeout_under_the_lose_rule_ends_a_two_player_game_rated(
    variant: Variant, make_user: Any
) -> None:
    game, ann, bob = pair(variant, make_user, time_control=LIVE, departure_rule="lose",
                          rated=True)
    late = game.to_move[0]
    expire(game, late)
    assert apply_timeouts() == 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.result["winners"] == [1 - late] and game.result["ended_by"] == "timeout"
    assert not Seat.objects.filter(game=game, deadline__isnull=False).exists()
    changes = {c.seat: c for c in RatingChange.objects.filter(game=game)}
    assert changes[1 - late].rank == 1 and changes[late].rank == 2
    # The person, not the AI, is rated (a rated table draws who sits where).
    assert changes[late].user == Seat.objects.get(game=game, index=late).left_user
    assert changes[late].user in (ann, bob)
    assert changes[late].rating_after < changes[late].rating_before


def test_a_timeout_is_applied_once(variant: Variant, make_user: Any) -> None:
    game, _ann, _bob = pair(variant, make_user, time_control=LIVE)
    late = game.to_move[0]
    expire(game, late)
    stale = Seat.objects.get(game=game, index=late)  # what a second, slower sweep read
    assert apply_timeouts() == 1
    assert apply_timeouts() == 0
    # The slower sweep acts on what it read before: nothing happens.
    assert _time_out(game_id=game.pk, seat_id=stale.pk, deadline=stale.deadline,
                              now=timezone.now()) is False
    game.refresh_from_db()
    assert game.version == 1
    assert Seat.objects.filter(game=game, left_reason="timeout").count() == 1


def test_a_deadline_moved_by_a_move_is_not_applied(variant: Variant, make_user: Any) -> None:
    """A sweep that read a deadline which a move has since replaced does nothing."""
    game, ann, bob = pair(variant, make_user, time_control=LIVE)
    first = game.to_move[0]
    read = seat(game, first)
    submit_action(game=game, user=(ann, bob)[first], seat=first, action={"play": 0},
                           version=game.version, key="m1")
    assert _time_out(game_id=game.pk, seat_id=read.pk, deadline=read.deadline,
                              now=read.deadline + timedelta(seconds=1)) is False
    assert not Seat.objects.filter(game=game, left_user__isnull=False).exists()


def test_a_move_sent_too_late_is_refused_and_the_rule_applied(
    variant: Variant, make_user: Any
) -> None:
    game, ann, bob = pair(variant, make_user, time_control=LIVE)
    late = game.to_move[0]
    expire(game, late)
    with pytest.raises(OutOfTime):
        submit_action(game=game.pk, user=(ann, bob)[late], seat=late,
                               action={"play": 0}, version=game.version, key="late")
    assert seat(game, late).left_reason == "timeout"
    assert not game.moves.exists()


def test_reading_the_game_applies_an_expired_deadline(client: Any, variant: Variant,
                                                      make_user: Any) -> None:
    game, _ann, _bob = pair(variant, make_user, time_control=LIVE)
    late = game.to_move[0]
    expire(game, late)
    data = client.get(f"/api/games/{game.pk}/").json()
    assert data["seats"][late]["type"] == "ai"
    assert data["seats"][late]["left"]["reason"] == "timeout"
    game2, _c, _d = pair(variant, make_user, ("cy", "di"), time_control=LIVE)
    late2 = game2.to_move[0]
    expire(game2, late2)
    page = client.get(reverse("play", args=[game2.pk]))
    assert page.status_code == 200
    assert seat(game2, late2).left_reason == "timeout"


def test_sweep_task_and_beat_schedule(settings: Any, variant: Variant, make_user: Any) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["sweep-clocks"]
    assert entry["task"] == "games.tasks.sweep_clocks"
    game, _ann, _bob = pair(variant, make_user, time_control=LIVE)
    expire(game, game.to_move[0])
    assert tasks.sweep_clocks.delay().get() == 1


@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="needs PostgreSQL (set DATABASE_URL): SQLite serialises writers")
@pytest.mark.django_db(transaction=True)
def test_concurrent_sweeps_apply_a_timeout_once(variant: Variant, make_user: Any) -> None:
    game, _ann, _bob = pair(variant, make_user, time_control=LIVE)
    expire(game, game.to_move[0])
    barrier = threading.Barrier(3)
    counts: list[Any] = [None] * 3

    def sweep(slot: int) -> None:
        try:
            barrier.wait(timeout=10)
            counts[slot] = apply_timeouts()
        except Exception as exc:  # recorded and asserted below
            counts[slot] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=sweep, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(counts) == [0, 0, 1], counts
    game.refresh_from_db()
    assert Seat.objects.filter(game=game, left_reason="timeout").count() == 1
    assert game.version == 1 + game.moves.count()  # one takeover; then the AI's moves


# --- restart --------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[3]

BEFORE = """
import sys
from datetime import timedelta
sys.path[:0] = [{tests!r}, {root!r}]
import django
django.setup()
import placegame
placegame.register()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.contrib.auth import get_user_model
from django.utils import timezone
from games.models import Seat, Variant
from games.tables.services import create_game, join_game
from games.variants.services import load_default_variants
load_default_variants(games=["placegame"])
users = [get_user_model().objects.create_user(n, password="pw-x-123!") for n in ("ann", "bob")]
game = create_game(creator=users[0], variant=Variant.objects.get(game="placegame"),
                   seats=[{{"type": "human"}}] * 2, time_control={{"kind": "live",
                            "reserve": 5}}, takeover_level="random")
join_game(game=game, user=users[1])
game.refresh_from_db()
# The server stops while seat to_move[0] thinks; it comes back after the deadline passed.
Seat.objects.filter(game=game, index=game.to_move[0]).update(
    deadline=timezone.now() - timedelta(seconds=30))
print(game.pk, game.to_move[0])
"""

AFTER = """
import sys
sys.path[:0] = [{tests!r}, {root!r}]
import django
django.setup()
import placegame
placegame.register()
from games import periodic
from games.models import Game, Seat
periodic._sweep_on_worker_start()  # what a (re)started worker does first
game = Game.objects.get(pk={game})
seat = Seat.objects.get(game=game, index={seat})
print(seat.left_reason, seat.ai_level, game.version, game.moves.count())
"""


def test_an_expired_deadline_is_applied_by_a_fresh_worker_after_a_restart(
    tmp_path: Path
) -> None:
    """Two processes on one database file: the first leaves a running clock and stops, a
    fresh one (a restarted worker, eager tasks) finds the deadline passed and applies it."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings.test",
               SQLITE_PATH=str(tmp_path / "restart.sqlite3"), COLONIA_VAR_DIR=str(tmp_path))
    where = {"tests": str(ROOT / "tests"), "root": str(ROOT)}

    def run(code: str) -> str:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.strip().splitlines()[-1]

    game_id, late = run(BEFORE.format(**where)).split()
    reason, level, version, moves = run(AFTER.format(game=game_id, seat=late, **where)).split()
    assert (reason, level) == ("timeout", "random")
    # The takeover bumped the version and the AI (eager here) has played the seat on.
    assert int(version) >= 2 and int(moves) >= 1


# --- lobby and API --------------------------------------------------------------------------


def test_lobby_form_sets_clock_and_departure_rule(client: Any, variant: Variant,
                                                  make_user: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "get_board", lambda name: object())
    client.force_login(make_user("ann"))
    response = client.post(reverse("lobby_create"), {
        "variant": str(variant.pk), "num_players": "2", "seat_2": "open", "clock": "live",
        "reserve_minutes": "0.5", "increment": "3", "departure_rule": "lose",
        "takeover_level": "hard"})
    assert response.status_code == 302, response.content.decode()[:2000]
    game = Game.objects.get()
    assert (game.clock, game.clock_reserve, game.clock_increment) == ("live", 30, 3)
    assert (game.departure_rule, game.takeover_level) == ("lose", "hard")
    bad = client.post(reverse("lobby_create"), {
        "variant": str(variant.pk), "num_players": "2", "clock": "live",
        "reserve_minutes": "-1"})
    assert bad.status_code == 400 and Game.objects.count() == 1


def test_api_takes_the_time_control_and_shows_the_clocks(client: Any, variant: Variant,
                                                         make_user: Any) -> None:
    client.force_login(make_user("ann"))
    body = {"variant": variant.pk, "seats": [{"type": "human"}, {"type": "ai"}],
            "time_control": {"kind": "correspondence", "days": 2}, "departure_rule": "lose"}
    response = client.post("/api/games/", body, content_type="application/json")
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["time_control"] == {"kind": "correspondence", "reserve": 0, "increment": 0,
                                    "days": 2}
    assert data["departure_rule"] == "lose"
    me = data["seats"][0]
    if data["to_move"] == [0]:
        assert me["clock"]["deadline"] and me["clock"]["time_left"] > 86400
    bad = client.post("/api/games/", {**body, "time_control": {"kind": "live", "reserve": 0}},
                      content_type="application/json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    assert "time_control" in bad.json()["errors"]
    missing = client.post("/api/games/", {**body, "time_control": {"kind": "live"}},
                          content_type="application/json")
    assert missing.status_code == 400 and missing.json()["code"] == "invalid_table_rules"


def test_play_page_shows_the_ticking_clock(client: Any, placegame: Any, make_user: Any) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    game = create_game(creator=ann, variant=Variant.objects.get(game="placegame"),
                                seats=[{"type": "human"}] * 2, time_control=LIVE)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    client.force_login(ann)
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    mover = game.to_move[0]
    assert f'data-clock="{mover}" data-remaining="' in html
    assert f'<span class="clock" data-clock="{1 - mover}"' in html  # banked, not running
    assert "1:00</span>" in html and "js/clock.js" in html


def test_lobby_and_waiting_page_show_the_table_rules(client: Any, variant: Variant,
                                                     make_user: Any) -> None:
    ann = make_user("ann")
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2,
                                rated=True, time_control={"kind": "live", "reserve": 300,
                                                          "increment": 5})
    lobby = client.get(reverse("lobby")).content.decode()
    assert f'data-table-rules="{game.pk}">rated · 5 min + 5 s per move' in lobby
    client.force_login(ann)
    page = client.get(reverse("play", args=[game.pk])).content.decode()
    assert 'id="waiting-rules">rated · 5 min + 5 s per move' in page
