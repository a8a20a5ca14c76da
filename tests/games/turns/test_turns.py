""""Your turn": the games waiting for me (page, nav count), the play page's hooks for the
tab title and notifications, and the mails of correspondence games with their one-click
unsubscribe."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse

from accounts.models import Preferences, set_turn_emails
from games.core.selectors import legal_actions_json
from games.core.services import submit_action
from games.live import broadcast
from games.models import Game, Seat, Variant
from games.tables.services import create_game, hand_over_seat, join_game
from games.turns import mails
from games.turns import receivers as turn_receivers
from games.turns import unsubscribe as tokens
from games.turns.selectors import is_correspondence, waiting_count, waiting_games
from games.variants.services import load_default_variants

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("clear_cache")]


@pytest.fixture
def correspondence(table) -> Game:
    """``table`` played by correspondence (3 days per move)."""
    Game.objects.filter(pk=table.pk).update(clock=Game.Clock.CORRESPONDENCE, clock_days=3)
    table.refresh_from_db()
    return table


@pytest.fixture
def with_emails(ann, bob):
    for user in (ann, bob):
        user.email = f"{user.username}@example.org"
        user.save()


def play(game: Game, user, seat: int, key: str) -> Game:
    game.refresh_from_db()
    return submit_action(game=game, user=user, seat=seat, action={"play": 0},
                         version=game.version, key=key)


# --- the list and the nav ---------------------------------------------------------------------


def test_waiting_games_and_count(table, variant, ann, bob, make_user):
    other = create_game(creator=bob, variant=variant,
                        seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=other, user=ann)  # bob (seat 0) to move there
    assert waiting_count(ann) == 1 and [g.game.pk for g in waiting_games(ann)] == [table.pk]
    assert waiting_count(bob) == 1 and [g.game.pk for g in waiting_games(bob)] == [other.pk]
    play(table, ann, 0, "k1")
    assert waiting_count(ann) == 0 and waiting_count(bob) == 2
    assert waiting_count(make_user("nobody")) == 0


def test_nav_count_and_waiting_page(client, table, ann, bob):
    client.force_login(ann)
    html = client.get(reverse("lobby")).content.decode()
    assert re.search(r'id="turn-count"[^>]*>1</span>', html)
    page = client.get(reverse("waiting")).content.decode()
    assert f'data-game="{table.pk}"' in page
    client.force_login(bob)
    assert 'id="turn-count"' not in client.get(reverse("lobby")).content.decode()
    assert 'id="no-waiting"' in client.get(reverse("waiting")).content.decode()


def test_waiting_page_needs_a_login(client):
    response = client.get(reverse("waiting"))
    assert response.status_code == 302 and reverse("accounts:login") in response["Location"]


def test_play_page_carries_the_turn_hooks(client, table, ann, make_user):
    client.force_login(ann)
    html = client.get(reverse("play", args=[table.pk])).content.decode()
    assert 'data-turn-title="Your move!"' in html and "favicon-turn.svg" in html
    assert 'id="notify-turns"' in html and "js/table.js" in html
    client.force_login(make_user("watcher"))
    html = client.get(reverse("play", args=[table.pk])).content.decode()
    assert 'id="notify-turns"' not in html


# --- mails ------------------------------------------------------------------------------------


def test_correspondence_move_mails_the_next_player(table, ann, bob, correspondence, with_emails,
                                                   on_commit):
    with on_commit():
        play(table, ann, 0, "k1")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["bob@example.org"]
    assert f"#{table.pk}" in message.subject and "your turn" in message.subject
    assert f"http://localhost:8000/games/{table.pk}/" in message.body
    unsubscribe = message.extra_headers["List-Unsubscribe"]
    assert unsubscribe.startswith("<http://localhost:8000/accounts/unsubscribe/")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe.strip("<>") in message.body
    token = unsubscribe.strip("<>").rstrip("/").rsplit("/", 1)[1]
    assert tokens.user_of_token(token) == bob.pk


def test_start_of_a_correspondence_game_mails_the_first_player(variant, ann, bob, with_emails,
                                                               on_commit):
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "human"}],
                       time_control={"kind": "correspondence", "days": 2})
    with on_commit():
        join_game(game=game, user=bob)
    assert [m.to for m in mail.outbox] == [["ann@example.org"]]


def test_no_mail_for_other_games(table, ann, with_emails, on_commit):
    with on_commit():
        play(table, ann, 0, "k1")
    assert mail.outbox == []


def test_no_mail_without_address_or_when_turned_off(table, ann, bob, correspondence, on_commit):
    with on_commit():
        play(table, ann, 0, "k1")  # bob has no address
    assert mail.outbox == []
    bob.email = "bob@example.org"
    bob.save()
    set_turn_emails(user=bob, enabled=False)
    table.refresh_from_db()
    assert mails.send_turn_mails(game_id=table.pk, version=table.version) == 0
    assert mail.outbox == []


def test_a_redelivered_or_stale_task_sends_nothing_more(table, ann, bob, correspondence,
                                                        with_emails):
    play(table, ann, 0, "k1")
    table.refresh_from_db()
    assert mails.send_turn_mails(game_id=table.pk, version=table.version) == 1
    assert mails.send_turn_mails(game_id=table.pk, version=table.version) == 0
    assert mails.send_turn_mails(game_id=table.pk, version=table.version - 1) == 0
    assert len(mail.outbox) == 1


def test_only_correspondence_clocks_count():
    for clock, expected in ((Game.Clock.CORRESPONDENCE, True), (Game.Clock.LIVE, False),
                            (Game.Clock.NONE, False)):
        assert is_correspondence(Game(clock=clock)) is expected, clock


# --- unsubscribe and settings -----------------------------------------------------------------


def test_one_click_unsubscribe_without_session_or_csrf(bob):
    token = tokens.unsubscribe_token(bob)
    client = Client(enforce_csrf_checks=True)
    url = reverse("accounts:unsubscribe", args=[token])
    page = client.get(url)
    assert page.status_code == 200 and 'id="confirm-unsubscribe"' in page.content.decode()
    assert not Preferences.objects.filter(user=bob).exists()  # a GET changes nothing
    response = client.post(url, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200 and 'id="unsubscribed"' in response.content.decode()
    assert Preferences.objects.get(user=bob).turn_emails is False


@pytest.mark.parametrize("token", ["nonsense", "eyJ1IjoxfQ:forged"])
def test_forged_unsubscribe_tokens_are_refused(client, token, bob):
    assert client.post(reverse("accounts:unsubscribe", args=[token])).status_code == 404
    assert not Preferences.objects.exists()


@override_settings(SITE_URL="https://colonia.example")
def test_mail_links_use_the_site_url(table, bob, with_emails):
    message = mails.turn_mail(table, bob)
    assert "https://colonia.example/games/" in message.body
    assert message.extra_headers["List-Unsubscribe"].startswith("<https://colonia.example/")


def test_mail_says_the_days_per_move_when_no_clock_runs_yet(correspondence, bob, with_emails):
    assert "You have 3 days for this move." in mails.turn_mail(correspondence, bob).body


def test_mail_states_the_deadline_in_the_recipients_language_in_utc(correspondence, ann,
                                                                     with_emails):
    # Ann (seat 0) is to move; her clock runs out at 19:05 in UTC+2, i.e. 17:05 UTC.
    deadline = datetime(2026, 12, 3, 19, 5, tzinfo=timezone(timedelta(hours=2)))
    Seat.objects.filter(game=correspondence, index=0).update(deadline=deadline)
    body = mails.turn_mail(correspondence, ann).body
    assert "Your time for this move runs out on Dec. 3, 2026, 5:05 p.m. (UTC)." in body
    assert "days for this move" not in body
    Preferences.objects.update_or_create(user=ann, defaults={"language": "de"})
    body = mails.turn_mail(correspondence, ann).body
    assert "Ihre Zeit für diesen Zug läuft am 3. Dezember 2026 17:05 (UTC) ab." in body


def test_a_move_mails_the_next_player_their_deadline(table, ann, bob, correspondence,
                                                     with_emails, on_commit):
    with on_commit():
        play(table, ann, 0, "k1")
    deadline = Seat.objects.get(game=table, index=1).deadline
    assert deadline is not None
    [message] = mail.outbox
    assert mails.deadline_text(deadline) + " (UTC)." in message.body
    assert "days for this move" not in message.body


def test_notification_settings_page(client, ann):
    client.force_login(ann)
    url = reverse("accounts:notifications")
    html = client.get(url).content.decode()
    assert 'id="id_turn_emails" checked' in html and 'id="no-email"' in html
    assert client.post(url, {}).status_code == 302
    assert Preferences.objects.get(user=ann).turn_emails is False
    client.post(url, {"turn_emails": "on"})
    assert Preferences.objects.get(user=ann).turn_emails is True


def test_nav_count_refetch(client, table, ann, bob, django_assert_num_queries):
    """The nav refetches its count when the window gets the focus back, and every minute
    on pages whose socket does not push it (one query); signed out: 204."""
    client.force_login(ann)
    nav = reverse("waiting_nav")
    for live_page in (reverse("lobby"), reverse("play", args=[table.pk])):
        page = client.get(live_page).content.decode()
        assert f'hx-get="{nav}?live=1"' in page and 'hx-trigger="focus from:window"' in page
        assert "every 60s" not in page
    page = client.get(reverse("waiting")).content.decode()  # no socket on this page
    assert f'hx-get="{nav}"' in page and 'hx-trigger="every 60s, focus from:window"' in page
    live = client.get(nav + "?live=1").content.decode()
    assert 'hx-trigger="focus from:window"' in live and f'hx-get="{nav}?live=1"' in live
    with django_assert_num_queries(1):
        waiting_count(ann)
    html = client.get(nav).content.decode()
    assert html.lstrip().startswith('<a href="/games/waiting/" id="nav-turns"')
    assert 'hx-trigger="every 60s, focus from:window"' in html
    assert re.search(r'id="turn-count"[^>]*>1</span>', html) and "hx-swap-oob" not in html
    client.force_login(bob)
    assert 'id="turn-count"' not in client.get(reverse("waiting_nav")).content.decode()
    client.logout()
    response = client.get(reverse("waiting_nav"))
    assert response.status_code == 204 and not response.content


def test_who_left_a_game_gets_its_nav_hint_once(table, ann, bob, monkeypatch, on_commit,
                                                ai_calls):
    """Leaving takes the game off the leaver's count: that change hints them too; the
    moves after it (the AI in their seat, the others) hint only the people seated."""

    sent: list[list[int]] = []
    monkeypatch.setattr(broadcast, "viewer_changed",
                        lambda ids: sent.append(sorted(set(ids))) or True)
    with on_commit():
        hand_over_seat(game=table, user=bob)  # a 2-seat resignation would end it
    assert sent == [sorted([ann.pk, bob.pk])]
    sent.clear()
    with on_commit():
        play(table, ann, 0, "k1")  # then the AI plays bob's old seat (eager task)
    table.refresh_from_db()
    assert ai_calls and table.version >= 3
    assert sent and all(ids == [ann.pk] for ids in sent), sent


def test_the_nav_counts_are_pushed_only_when_whose_turn_it_is_changes(
        ann, bob, monkeypatch, django_capture_on_commit_callbacks):
    """A step within a turn (New Haven's harvest, then builds) changes nobody's count:
    no push; ending the turn does."""

    load_default_variants()
    game = create_game(creator=ann, variant=Variant.objects.get(game="newhaven", name="standard"),
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    pushed = []
    monkeypatch.setattr(turn_receivers, "push_turn_counts",
                        lambda g, **kw: pushed.append(g.version))
    harvest = next(a for a in legal_actions_json(game, 0) if a["type"] == "harvest")
    with django_capture_on_commit_callbacks(execute=True):
        game = submit_action(game=game, user=ann, seat=0, action=harvest,
                             version=game.version, key="h")
    assert game.to_move == [0] and pushed == []
    with django_capture_on_commit_callbacks(execute=True):
        game = submit_action(game=game, user=ann, seat=0, action={"type": "end_build"},
                             version=game.version, key="e")
    assert game.to_move == [1] and pushed == [game.version]
