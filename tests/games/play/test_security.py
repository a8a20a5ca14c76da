"""Security review of the web layer: escaping, who sees the invite link, hostile input
(huge, deep or forged action JSON), reserved request keys, nudge and table floods,
spoofed client addresses, and games the browser cannot draw."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from games.ai_turns import tasks as ai_tasks
from games.boards.newhaven import drawing
from games.core.selectors import legal_actions_json
from games.core.services import MAX_ACTION_BYTES, ActionTooLarge, submit_action
from games.models import Game, Move, Seat, Variant
from games.tables.selectors import summarize_game
from games.tables.services import (
    MAX_OPEN_TABLES_PER_USER,
    TooManyOpenTables,
    create_game,
    join_game,
)

pytestmark = pytest.mark.django_db

EVIL = "<img src=x onerror=alert(1)>\"'"
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def nh(nh_variants) -> Variant:
    return nh_variants["standard"]


@pytest.fixture
def running(nh, ann, bob) -> Game:
    game = create_game(creator=ann, variant=nh, seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    return game


def api_client(user: Any | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def unchanged(game: Game, version: int = 0) -> bool:
    game.refresh_from_db()
    return game.version == version and not Move.objects.filter(game=game).exists()


# --- XSS --------------------------------------------------------------------------------------


def test_hostile_usernames_and_variant_names_are_escaped_everywhere(client, nh, ann, eve):
    """Names that slip past the sign-up validator (admin, a custom user model) stay text."""
    evil = get_user_model().objects.create_user(username=EVIL, password="x-unused-Pw9")
    weird = Variant.objects.create(game="newhaven", name=EVIL, data=nh.data)
    waiting = create_game(creator=evil, variant=weird, seats=[{"type": "human"}] * 3)
    game = create_game(creator=evil, variant=weird, seats=[{"type": "human"}] * 2)
    join_game(game=game, user=ann)
    game.refresh_from_db()
    # A move, so the log names the hostile player too.
    action = next(a for a in legal_actions_json(game, 0) if a["type"] == "harvest")
    submit_action(game=game, user=evil, seat=0, action=action, version=0, key="x1")
    pages = {}
    for who in (eve, evil, None):
        client.logout()
        if who is not None:
            client.force_login(who)
        pages[f"lobby-{who}"] = client.get(reverse("lobby")).content.decode()
        pages[f"waiting-{who}"] = client.get(reverse("play", args=[waiting.pk])).content.decode()
        pages[f"play-{who}"] = client.get(reverse("play", args=[game.pk])).content.decode()
        pages[f"profile-{who}"] = client.get(
            reverse("accounts:profile", args=[EVIL])
        ).content.decode()
    client.force_login(eve)
    pages["invite"] = client.get(reverse("invite", args=[waiting.invite_token])).content.decode()
    for name, html in pages.items():
        assert "<img src=x" not in html, name
        assert "onerror=alert(1)>\"'" not in html, name
    assert "&lt;img src=x onerror=alert(1)&gt;" in pages[f"play-{eve}"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in pages[f"lobby-{eve}"]


def test_village_svg_escapes_variant_numbers():
    """Row costs and column values come from variant data, which the admin edits raw."""
    svg = drawing.village_svg(
        [[None] * 5 for _ in range(6)],
        drawing.looks(["wheat"]),
        row_costs=["<script>alert(1)</script>", 5, 4, 3, 2, 1],
        row_values=[6, 5, 4, 3, 2, 1],
        col_values=[5, 4, '"><script>alert(2)</script>', 4, 5],
    )
    assert "<script>" not in svg
    assert "&lt;script&gt;alert(1)" in svg and "&lt;script&gt;alert(2)" in svg


def test_action_json_in_attributes_is_quoted(client, running, ann):
    """Legal actions go into value="" and data-action="" as escaped JSON, never raw."""
    client.force_login(ann)
    html = client.get(reverse("play", args=[running.pk]), {"ship": "stone"}).content.decode()
    values = re.findall(r'data-action="([^"]*)"', html)
    assert values
    for value in values:
        assert '"' not in value and "<" not in value
        assert json.loads(value.replace("&quot;", '"'))["type"] in {"ship", "harvest"}


# --- the invite link ----------------------------------------------------------------------------


def test_invite_token_is_shown_only_to_people_at_the_table(client, nh, ann, bob, eve):
    game = create_game(creator=ann, variant=nh, seats=[{"type": "human"}] * 3)
    join_game(game=game, user=bob)
    token = game.invite_token
    url = reverse("play", args=[game.pk])
    for seated in (ann, bob):
        client.force_login(seated)
        assert token in client.get(url).content.decode()
        assert token in client.get(url, **HX).content.decode()
    client.force_login(eve)
    for page in (url, reverse("lobby"), reverse("accounts:profile", args=["ann"])):
        assert token not in client.get(page).content.decode(), page
        assert token not in client.get(page, **HX).content.decode(), page
    assert 'id="invite-link"' not in client.get(url).content.decode()
    client.logout()
    for page in (url, reverse("lobby")):
        assert token not in client.get(page).content.decode(), page
    # Not in any API document or move log either.
    for who in (None, eve, ann):
        for path in (f"/api/games/{game.pk}/", f"/api/games/{game.pk}/moves/"):
            body = api_client(who).get(path).content.decode()
            assert token not in body and str(game.seed) not in body


def test_summaries_carry_no_invite_link_for_outsiders(nh, ann, eve):
    game = create_game(creator=ann, variant=nh, seats=[{"type": "human"}] * 2)
    assert summarize_game(game, eve)["invite_url"] == ""
    assert summarize_game(game, None)["invite_url"] == ""
    assert game.invite_token in summarize_game(game, ann)["invite_url"]


# --- hostile action JSON ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        ("[" * 30_000 + "]" * 30_000, 413),  # deep nesting: was a RecursionError (500)
        ("[" * 2_000 + "]" * 2_000, 422),  # deep but under the limit: the engine refuses
        (json.dumps({"type": "harvest", "junk": "x" * 10_000}), 413),
        (json.dumps({"type": ["harvest"], "tile": {"a": 1}}), 422),
        ('{"type": 1e999}', 422),
    ],
)
def test_hostile_action_json_on_the_play_page(client, running, ann, raw, status):
    client.force_login(ann)
    url = reverse("act", args=[running.pk])
    data = {"action": raw, "version": 0, "key": "hostile-1"}
    response = client.post(url, data)
    assert response.status_code == status
    assert 'id="play-error"' in response.content.decode()
    response = client.post(url, data, **HX)
    assert response.status_code == 200 and response["X-Colonia-Error"] == str(status)
    assert unchanged(running)


def test_hostile_action_json_on_the_api(running, ann):
    client = api_client(ann)
    url = f"/api/games/{running.pk}/actions/"
    deep = "[" * 30_000 + "]" * 30_000
    # A whole body nested too deeply: a parse error, not a 500.
    r = client.post(url, '{"action": ' + deep + ', "version": 0, "key": "k1"}',
                    content_type="application/json")
    assert r.status_code == 400
    # Form-encoded: the action is a JSON string that the serializer parses.
    r = client.post(url, {"action": deep, "version": 0, "key": "k2"})
    assert r.status_code == 413 and r.json()["code"] == "action_too_large"
    r = client.post(url, {"action": "[" * 2_000 + "]" * 2_000, "version": 0, "key": "k3"})
    assert r.status_code == 422  # deep but small: parsed, and refused by the engine
    # Big but shallow.
    r = client.post(url, {"action": {"type": "harvest", "junk": "x" * 10_000}, "version": 0,
                          "key": "k4"}, format="json")
    assert r.status_code == 413 and r.json()["code"] == "action_too_large"
    # Wrong types: the engine's clean refusal.
    r = client.post(url, {"action": {"type": ["harvest"]}, "version": 0, "key": "k5"},
                    format="json")
    assert r.status_code == 422
    assert unchanged(running)


def test_request_bodies_are_capped_before_parsing(client, running, ann):
    """Over DATA_UPLOAD_MAX_MEMORY_SIZE Django refuses the body itself (413)."""
    client.force_login(ann)
    data = {"action": "x" * 100_000, "version": 0, "key": "big-1"}
    response = client.post(reverse("act", args=[running.pk]), data)
    assert response.status_code == 413
    assert unchanged(running)


def test_service_refuses_oversized_actions(running, ann):
    with pytest.raises(ActionTooLarge):
        submit_action(game=running, user=ann, seat=0, version=0, key="big",
                      action={"type": "pass", "x": "y" * MAX_ACTION_BYTES})
    nested: Any = []
    for _ in range(5_000):
        nested = [nested]
    with pytest.raises(ActionTooLarge):
        submit_action(game=running, user=ann, seat=0, version=0, key="deep", action=nested)
    assert unchanged(running)


# --- request keys reserved for the AI -----------------------------------------------------------


def test_a_person_cannot_take_the_ai_turns_key(
    variant: Variant, make_user: Any, on_commit: Any, ai_calls: list
) -> None:
    """A player who sent ``ai-{game}-{version}`` first made the AI's own submit a key
    conflict: the AI never moved again and the game stalled for everyone."""
    ann = make_user()
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "easy"}])
    game.refresh_from_db()
    client = api_client(ann)
    url = f"/api/games/{game.pk}/actions/"
    for key in (f"ai-{game.pk}-1", f"AI-{game.pk}-1"):
        r = client.post(url, {"action": {"play": 0}, "version": 0, "key": key}, format="json")
        assert r.status_code == 400, key
    assert unchanged(game)
    with on_commit():
        r = client.post(url, {"action": {"play": 0}, "version": 0, "key": "mine"}, format="json")
    assert r.status_code == 200
    game.refresh_from_db()
    assert game.version == 2 and game.to_move == [0]  # the AI answered
    assert Move.objects.get(game=game, seq=2).seat == 1


# --- authorization and CSRF ---------------------------------------------------------------------


def test_posts_need_csrf_and_login(nh, running, ann, bob, eve):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(ann)
    action = legal_actions_json(running, 0)[0]
    for name, args, data in [
        ("act", [running.pk], {"action": json.dumps(action), "version": 0, "key": "c1"}),
        ("table_join", [running.pk], {}),
        ("table_leave", [running.pk], {}),
        ("lobby_create", [], {"variant": nh.pk, "num_players": 2, "seat_2": "ai-random"}),
    ]:
        assert strict.post(reverse(name, args=args), data).status_code == 403, name
    assert unchanged(running)
    # Session-authenticated API calls need the CSRF token as well.
    session_api = APIClient(enforce_csrf_checks=True)
    session_api.force_login(ann)
    r = session_api.post(f"/api/games/{running.pk}/actions/",
                         {"action": action, "version": 0, "key": "c2"}, format="json")
    assert r.status_code == 403
    assert unchanged(running)
    # GET never changes anything.
    client = Client()
    client.force_login(bob)
    for name in ("act", "table_join", "table_leave"):
        assert client.get(reverse(name, args=[running.pk])).status_code == 405
    # Anonymous POSTs: to the log-in page, or refused.
    anon = Client()
    assert anon.post(reverse("table_join", args=[running.pk])).status_code == 302
    assert anon.post(reverse("lobby_create"), {}).status_code == 302
    for path in ("/api/games/", f"/api/games/{running.pk}/join/",
                 f"/api/games/{running.pk}/leave/", f"/api/games/{running.pk}/actions/"):
        assert APIClient().post(path, {}, format="json").status_code in (401, 403), path


def test_nobody_leaves_or_takes_a_seat_for_someone_else(client, nh, ann, bob, eve):
    game = create_game(creator=ann, variant=nh, seats=[{"type": "human"}] * 3)
    join_game(game=game, user=bob)
    client.force_login(eve)
    client.post(reverse("table_leave", args=[game.pk]))  # eve is not at the table
    assert {s.user for s in game.seats.all()} == {ann, bob, None}
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN
    # API: a seat that is taken cannot be joined; a stranger's leave changes nothing.
    r = api_client(eve).post(f"/api/games/{game.pk}/join/", {"seat": 1}, format="json")
    assert r.status_code == 409
    r = api_client(eve).post(f"/api/games/{game.pk}/leave/")
    assert r.status_code == 403 and r.json()["code"] == "not_seated"
    assert game.seats.get(index=1).user == bob


def test_a_seat_acts_only_for_itself(running, ann, bob):
    """The act view and the API take the seat from the session, never from the request."""
    action = legal_actions_json(running, 0)[0]
    client = Client()
    client.force_login(bob)
    response = client.post(reverse("act", args=[running.pk]),
                           {"action": json.dumps(action), "version": 0, "key": "s1", "seat": 0})
    assert response.status_code == 409  # bob is seat 1: not his turn
    r = api_client(bob).post(f"/api/games/{running.pk}/actions/",
                             {"action": action, "version": 0, "key": "s2", "seat": 0},
                             format="json")
    assert r.status_code == 409 and r.json()["code"] == "not_your_turn"
    assert unchanged(running)


# --- floods -------------------------------------------------------------------------------------


def test_page_loads_nudge_a_stalled_ai_once_per_version(client, running, monkeypatch, settings,
                                                        on_commit):
    """Every page load of a stalled game queued another AI search: anyone could flood the
    workers by reloading.  One nudge per game version and stall period now."""
    from datetime import timedelta

    from django.utils import timezone

    # Stalled for two hours with a one-hour stall period: the once-per-period guard holds
    # however slowly the loads below run (a loaded CI machine).
    settings.AI_STALL_SECONDS = 3600
    cache.clear()
    Seat.objects.filter(game=running, index=1).update(user=None, ai_level="easy")
    Game.objects.filter(pk=running.pk).update(  # the AI seat is to move, for a while
        to_move=[1], updated_at=timezone.now() - timedelta(hours=2))
    calls = []
    monkeypatch.setattr(ai_tasks, "enqueue_turn", lambda game_id, version: calls.append(game_id))
    for _ in range(5):
        with on_commit():
            assert client.get(reverse("play", args=[running.pk])).status_code == 200
    assert calls == [running.pk]
    Game.objects.filter(pk=running.pk).update(version=1)  # the game moved on
    with on_commit():
        client.get(reverse("play", args=[running.pk]))
    assert calls == [running.pk, running.pk]


def test_open_tables_per_person_are_capped(client, nh, ann):
    seats = [{"type": "human"}] * 2
    for _ in range(MAX_OPEN_TABLES_PER_USER):
        create_game(creator=ann, variant=nh, seats=seats)
    with pytest.raises(TooManyOpenTables):
        create_game(creator=ann, variant=nh, seats=seats)
    # Games against the AI start at once and do not count.
    create_game(creator=ann, variant=nh, seats=[{"type": "human"}, {"type": "ai"}])
    client.force_login(ann)
    response = client.post(reverse("lobby_create"), {
        "variant": nh.pk, "num_players": 2, "seat_2": "open", "seat_3": "open",
        "seat_4": "open"})
    assert response.status_code == 400
    assert "too many open tables" in response.content.decode()
    r = api_client(ann).post("/api/games/", {"variant": nh.pk, "seats": seats}, format="json")
    assert r.status_code == 409 and r.json()["code"] == "too_many_open_tables"
    assert Game.objects.filter(status=Game.Status.OPEN).count() == (
        MAX_OPEN_TABLES_PER_USER
    )


def test_register_throttle_ignores_a_spoofed_forwarded_for(db, monkeypatch):
    """DRF's default throttle key is the whole X-Forwarded-For header when NUM_PROXIES is
    unset: a fresh made-up header per request made sign-ups unlimited."""
    cache.clear()
    monkeypatch.setitem(api_settings.DEFAULT_THROTTLE_RATES, "register", "1/hour")
    client = APIClient(REMOTE_ADDR="10.20.30.40")
    codes = [
        client.post("/api/auth/register/",
                    {"username": f"t{uuid.uuid4().hex[:8]}", "password": "Correct-Horse-42"},
                    HTTP_X_FORWARDED_FOR=f"198.51.100.{i}").status_code
        for i in range(3)
    ]
    assert codes == [201, 429, 429]
    # Another real address still gets its own allowance.
    r = APIClient(REMOTE_ADDR="10.20.30.41").post(
        "/api/auth/register/", {"username": "other1", "password": "Correct-Horse-42"})
    assert r.status_code == 201


def test_register_throttle_follows_num_proxies_when_set(db, monkeypatch, settings):
    """Behind N proxies of ours (NUM_PROXIES = N), the client is the N-th address from the
    right of X-Forwarded-For, as DRF documents."""
    cache.clear()
    monkeypatch.setitem(api_settings.DEFAULT_THROTTLE_RATES, "register", "1/hour")
    settings.TRUSTED_PROXIES = 1
    proxy = APIClient(REMOTE_ADDR="10.0.0.1")
    codes = [
        proxy.post("/api/auth/register/",
                   {"username": f"p{uuid.uuid4().hex[:8]}", "password": "Correct-Horse-42"},
                   HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code
        for i in (1, 2, 1)
    ]
    assert codes == [201, 201, 429]


# --- games the browser cannot draw --------------------------------------------------------------


def test_a_game_without_a_browser_board_shows_its_status_not_a_500(client, variant, make_user):
    """A game with an engine but no board (the toy game) can be opened through the API; its
    play page shows the status card."""
    ann = make_user("ann")
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    for who in (ann, None):
        client.logout()
        if who is not None:
            client.force_login(who)
        response = client.get(reverse("play", args=[game.pk]))
        assert response.status_code == 200
        assert 'id="unsupported-game"' in response.content.decode()
        fragments = client.get(reverse("play", args=[game.pk]), **HX).content.decode()
        assert 'id="unsupported-game"' in fragments and "<html" not in fragments


def test_token_endpoint_is_throttled_per_address_across_usernames(db, monkeypatch):
    """django-axes locks one username + address; guessing across usernames is throttled."""
    cache.clear()
    monkeypatch.setitem(api_settings.DEFAULT_THROTTLE_RATES, "token", "2/minute")
    client = APIClient(REMOTE_ADDR="10.20.30.50")
    codes = [
        client.post("/api/auth/token/", {"username": f"guess{i}", "password": "nope"}).status_code
        for i in range(3)
    ]
    assert codes[:2] != [429, 429] and codes[2] == 429
