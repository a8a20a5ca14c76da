"""Leaving a running game (resign, hand over to the AI) and expiring abandoned tables."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import RatingChange
from games.ai_turns.turn import play_one_ai_turn
from games.core.errors import GameNotRunning, NotRunningSeat
from games.core.services import submit_action
from games.models import Game, Seat, Variant
from games.ratings.selectors import player_stats
from games.tables.selectors import games_of, summarize_game
from games.tables.services import (
    create_game,
    expire_open_tables,
    hand_over_seat,
    join_game,
    resign_game,
)

pytestmark = pytest.mark.django_db


def table(variant: Variant, make_user: Any, people: int = 2, **rules: Any) -> tuple[Game, list]:
    users = [make_user(f"p{i}") for i in range(people)]
    game = create_game(creator=users[0], variant=variant,
                                seats=[{"type": "human"}] * people, **rules)
    for user in users[1:]:
        join_game(game=game, user=user)
    game.refresh_from_db()
    return game, users


def test_resign_under_the_ai_rule_the_ai_plays_on_and_the_leaver_loses(
    variant: Variant, make_user: Any, ai_calls: list
) -> None:
    # Three seats: a resignation does not end the game (two seats: see below).
    game, (ann, _bob, _cy) = table(variant, make_user, people=3, rated=True,
                                 takeover_level="greedy")
    # A rated table draws who sits where.
    users = {s.index: s.user for s in Seat.objects.filter(game=game)}
    mine = next(i for i, u in users.items() if u == ann)
    resign_game(game=game, user=ann)
    game.refresh_from_db()
    seat = Seat.objects.get(game=game, index=mine)
    assert (seat.user, seat.ai_level, seat.left_user, seat.left_reason) == (
        None, "greedy", ann, "resigned")
    assert game.status == Game.Status.RUNNING and game.version == 1
    # Play to the end: bob, cy and the AI in ann's seat.
    for step in range(80):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        if game.to_move == [mine]:
            assert play_one_ai_turn(game.pk, game.version)
        else:
            mover = game.to_move[0]
            submit_action(game=game, user=users[mover], seat=mover, action={"play": 0},
                          version=game.version, key=f"b{step}")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert changes[ann.pk].rank == 3  # the leaver is last
    assert [s.wins for s in player_stats(ann)] == [0] and player_stats(ann)[0].played == 1
    # ann still finds the game in her list, as lost.
    [listing] = games_of(ann)
    assert listing.game.pk == game.pk and listing.my_seat == mine
    assert summarize_game(listing.game, ann)["result_label"] == "lost (resigned)"


def test_resign_under_the_lose_rule_ends_when_one_person_is_left(
    variant: Variant, make_user: Any
) -> None:
    game, (ann, bob, cy) = table(variant, make_user, people=3, departure_rule="lose")
    resign_game(game=game, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING  # two people are left: the AI plays bob's seat
    assert Seat.objects.get(game=game, index=1).ai_level == "normal"
    resign_game(game=game, user=cy)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.result["winners"] == [0] and game.result["ended_by"] == "resigned"
    assert game.to_move == []
    with pytest.raises(GameNotRunning):
        resign_game(game=game, user=ann)


def test_resign_in_a_two_person_game_ends_it_under_either_rule(
    variant: Variant, make_user: Any, on_commit: Any
) -> None:
    for rule in ("ai", "lose"):
        game, (ann, bob) = table(variant, lambda n, r=rule: make_user(n + r),
                                 departure_rule=rule)
        with on_commit():
            resign_game(game=game, user=bob)
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED and game.to_move == []
        assert game.result["winners"] == [0] and game.result["ended_by"] == "resigned"
        assert game.result["resigned"] == 1 and game.version == 1
        seat = Seat.objects.get(game=game, index=1)
        # Marked as resigned; no AI plays a seat of a finished game.
        assert (seat.user, seat.ai_level, seat.left_user, seat.left_reason) == (
            None, "", bob, "resigned")
        assert seat.left_at is not None and not seat.is_open
        assert seat.display_name == bob.username
        with pytest.raises(GameNotRunning):
            resign_game(game=game, user=ann)


def test_resign_against_the_ai_ends_the_game_and_the_ai_wins(
    variant: Variant, make_user: Any
) -> None:
    ann = make_user("ann")
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "easy"}])
    resign_game(game=game, user=ann)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result["winners"] == [1]


def test_hand_over_always_lets_the_ai_play_on(variant: Variant, make_user: Any) -> None:
    game, (_ann, bob) = table(variant, make_user, departure_rule="lose")
    hand_over_seat(game=game, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    seat = Seat.objects.get(game=game, index=1)
    assert seat.left_reason == "handover" and seat.is_ai


def test_only_seated_people_can_resign(variant: Variant, make_user: Any) -> None:
    game, (ann, _bob, _cy) = table(variant, make_user, people=3)
    stranger = make_user("zed")
    with pytest.raises(NotRunningSeat):
        resign_game(game=game, user=stranger)
    resign_game(game=game, user=ann)
    with pytest.raises(NotRunningSeat):  # once is enough: the seat is the AI's now
        resign_game(game=game, user=ann)
    assert Seat.objects.filter(game=game, left_user__isnull=False).count() == 1


def test_resign_and_hand_over_pages(client: Any, variant: Variant, make_user: Any) -> None:
    game, (_ann, bob) = table(variant, make_user, departure_rule="lose")
    client.force_login(bob)
    response = client.post(reverse("hand_over", args=[game.pk]))
    assert response.status_code == 302 and response.url == reverse("lobby")
    game2, (cy, _di) = table(variant, lambda n: make_user(n + "x"), departure_rule="lose")
    client.force_login(cy)
    response = client.post(reverse("resign", args=[game2.pk]))
    assert response.status_code == 302
    game2.refresh_from_db()
    assert game2.status == Game.Status.FINISHED and game2.result["winners"] == [1]
    assert client.get(reverse("resign", args=[game2.pk])).status_code == 405


def test_resign_api(client: Any, variant: Variant, make_user: Any) -> None:
    game, (ann, _bob) = table(variant, make_user, departure_rule="lose")
    client.force_login(ann)
    data = client.post(f"/api/games/{game.pk}/resign/").json()
    assert data["status"] == "finished" and data["result"]["winners"] == [1]
    assert data["seats"][0]["left"] == {"username": "p0", "reason": "resigned"}
    again = client.post(f"/api/games/{game.pk}/resign/")
    assert again.status_code == 409 and again.json()["code"] == "game_not_running"
    game2, (cy, _di) = table(variant, lambda n: make_user(n + "y"))
    client.force_login(cy)
    handed = client.post(f"/api/games/{game2.pk}/handover/")
    assert handed.status_code == 200 and handed.json()["seats"][0]["type"] == "ai"
    client.logout()
    assert client.post(f"/api/games/{game2.pk}/resign/").status_code in (401, 403)


# --- abandoned tables -----------------------------------------------------------------------


def test_open_tables_expire_after_the_configured_time(settings: Any, variant: Variant,
                                                      make_user: Any) -> None:
    settings.OPEN_TABLE_EXPIRY_SECONDS = 3600
    ann = make_user("ann")
    old = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    fresh = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    Game.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=2))
    running, _users = table(variant, lambda n: make_user(n + "r"))
    Game.objects.filter(pk=running.pk).update(created_at=timezone.now() - timedelta(hours=2))
    assert expire_open_tables() == 1
    assert expire_open_tables() == 0  # never twice
    old.refresh_from_db()
    assert old.status == Game.Status.ABORTED and old.result == {"ended_by": "expired"}
    assert Game.objects.get(pk=fresh.pk).status == Game.Status.OPEN
    assert Game.objects.get(pk=running.pk).status == Game.Status.RUNNING
    entry = settings.CELERY_BEAT_SCHEDULE["expire-open-tables"]
    assert entry["task"] == "games.tasks.expire_open_tables"


def test_expired_table_page_says_so(client: Any, variant: Variant, make_user: Any,
                                   settings: Any) -> None:
    settings.OPEN_TABLE_EXPIRY_SECONDS = 60
    ann = make_user("ann")
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    assert expire_open_tables(now=timezone.now() + timedelta(minutes=2)) == 1
    client.force_login(ann)
    assert 'id="table-expired"' in client.get(reverse("play", args=[game.pk])).content.decode()


def test_resigning_asks_first_as_a_page_or_an_htmx_dialog(
    client: Any, placegame: Any, make_user: Any
) -> None:
    game, (ann, _bob) = table(Variant.objects.get(game="placegame"), make_user)
    client.force_login(ann)
    play = client.get(reverse("play", args=[game.pk])).content.decode()
    # The menu links to the confirmation; nothing there posts a resignation directly.
    assert f'href="{reverse("resign_confirm", args=[game.pk])}"' in play
    assert f'action="{reverse("resign", args=[game.pk])}"' not in play
    assert "You lose and the game ends at once: p1 wins." in play
    page = client.get(reverse("resign_confirm", args=[game.pk]))
    html = page.content.decode()
    assert page.status_code == 200 and "<html" in html
    assert f'action="{reverse("resign", args=[game.pk])}"' in html
    assert 'id="resign-cancel"' in html and "p1 wins" in html
    dialog = client.get(reverse("resign_confirm", args=[game.pk]),
                        HTTP_HX_REQUEST="true").content.decode()
    assert dialog.lstrip().startswith("<dialog") and 'method="dialog"' in dialog
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING  # asking changed nothing
    client.force_login(make_user("zed"))
    assert client.get(reverse("resign_confirm", args=[game.pk])).status_code == 302
    client.force_login(ann)
    client.post(reverse("resign", args=[game.pk]))
    over = client.get(reverse("play", args=[game.pk])).content.decode()
    assert "p0 resigned: the game is over." in over
    assert client.get(reverse("resign_confirm", args=[game.pk])).status_code == 302


def test_the_resign_menu_says_what_follows_at_a_bigger_table(
    variant: Variant, make_user: Any
) -> None:
    game, (_ann, _bob, _cy) = table(variant, make_user, people=3)
    from games.tables.selectors import resign_outcome
    assert "the AI plays your seat on." in resign_outcome(game, 0)
    assert "ends at once" not in resign_outcome(game, 0)
