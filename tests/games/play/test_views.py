"""Views of the games app: lobby, tables, invite links, the play page and acting on it."""

from __future__ import annotations

import json
import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from games.ai_turns import tasks as ai_tasks
from games.boards import get_board
from games.core.selectors import current_state, legal_actions_json
from games.core.services import submit_action
from games.engines import get_engine
from games.models import Game
from games.tables.services import create_game, join_game

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def two_player_game(nh_variants, ann, bob):
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    return game


def form_fields(html: str, action_json: str | None = None) -> list[dict]:
    """The act forms of a page: [{action, version, key}] (optionally one action only)."""
    forms = []
    for m in re.finditer(r'<form method="post" action="/games/\d+/act/".*?</form>', html, re.S):
        block = m.group(0)
        fields = dict(re.findall(r'name="(action|version|key)" value="([^"]*)"', block))
        fields["action"] = fields["action"].replace("&quot;", '"')
        forms.append(fields)
    if action_json is not None:
        forms = [f for f in forms if f["action"] == action_json]
    return forms


def test_home_links_to_lobby(client):
    response = client.get(reverse("home"))
    assert reverse("lobby") in response.content.decode()


def get_page(client, game, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    url = reverse("play", args=[game.pk]) + (f"?{query}" if query else "")
    return client.get(url)


def post_action(client, game, action: dict, *, version=None, key="k-" + "1" * 8, htmx=False):
    data = {
        "action": json.dumps(action),
        "version": game.version if version is None else version,
        "key": key,
    }
    return client.post(reverse("act", args=[game.pk]), data, **(HX if htmx else {}))


# --- lobby ------------------------------------------------------------------------------------


def test_lobby_lists_open_tables_and_create_form(client, nh_variants, ann, bob):
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    client.force_login(bob)
    response = client.get(reverse("lobby"))
    html = response.content.decode()
    assert response.status_code == 200
    assert f'data-table="{game.pk}"' in html
    assert f'data-join="{game.pk}"' in html
    assert 'id="create-table"' in html
    assert 'ws-connect="/ws/lobby/"' in html
    for level in ("random", "greedy", "easy", "normal", "hard"):
        assert f'value="ai-{level}"' in html


def test_lobby_htmx_gets_the_open_tables_partial(client, nh_variants, ann):
    client.force_login(ann)
    response = client.get(reverse("lobby"), **HX)
    html = response.content.decode()
    assert 'id="open-tables"' in html
    assert "<html" not in html and 'id="create-table"' not in html


def test_anonymous_lobby_invites_to_log_in(client, nh_variants):
    html = client.get(reverse("lobby")).content.decode()
    assert reverse("accounts:login") in html
    assert 'id="create-table"' not in html


def test_create_table_with_an_open_seat(client, nh_variants, ann):
    client.force_login(ann)
    response = client.post(reverse("lobby_create"), {
        "variant": nh_variants["side-b"].pk, "num_players": 3,
        "seat_2": "open", "seat_3": "ai-easy", "seat_4": "ai-hard",
    })
    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("play", args=[game.pk])
    assert game.num_players == 3 and game.variant_name == "side-b"
    seats = list(game.seats.order_by("index"))
    assert seats[0].user == ann and seats[1].is_open and seats[2].ai_level == "easy"
    html = client.get(response["Location"]).content.decode()
    assert 'id="table-waiting"' in html
    assert reverse("invite", args=[game.invite_token]) in html


def test_create_table_against_ai_starts_at_once(client, nh_variants, ann):
    client.force_login(ann)
    client.post(reverse("lobby_create"), {
        "variant": nh_variants["standard"].pk, "num_players": 2,
        "seat_2": "ai-random", "seat_3": "open", "seat_4": "open",
    })
    game = Game.objects.get()
    assert game.status == Game.Status.RUNNING
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    assert 'id="board-panel"' in html


def test_create_table_rejects_bad_input(client, nh_variants, ann):
    client.force_login(ann)
    response = client.post(reverse("lobby_create"), {
        "variant": "999999", "num_players": 7, "seat_2": "ai-godlike",
    })
    assert response.status_code == 400
    assert not Game.objects.exists()


def test_create_needs_login(client, nh_variants):
    response = client.post(reverse("lobby_create"), {"variant": "1", "num_players": 2})
    assert response.status_code == 302
    assert not Game.objects.exists()


def test_join_and_leave(client, nh_variants, ann, bob, make_user):
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}, {"type": "human"}])
    client.force_login(bob)
    response = client.post(reverse("table_join", args=[game.pk]))
    assert response.status_code == 302
    assert game.seats.get(index=1).user == bob
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    assert "Leave the table" in html
    response = client.post(reverse("table_leave", args=[game.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    assert game.seats.get(index=1).user is None
    # Joining twice is refused with a message, nothing changes.
    client.post(reverse("table_join", args=[game.pk]))
    response = client.post(reverse("table_join", args=[game.pk]), follow=True)
    assert "already have a seat" in response.content.decode()
    assert game.seats.filter(user=bob).count() == 1


def test_leave_after_start_is_refused(client, two_player_game, bob):
    client.force_login(bob)
    response = client.post(reverse("table_leave", args=[two_player_game.pk]), follow=True)
    assert "only leave a table before the game starts" in response.content.decode()
    assert two_player_game.seats.get(index=1).user == bob


def test_invite_link_shows_table_and_joins_on_post(client, nh_variants, ann, bob):
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    url = reverse("invite", args=[game.invite_token])
    anonymous = client.get(url).content.decode()
    assert "Log in to join" in anonymous
    client.force_login(bob)
    html = client.get(url).content.decode()
    assert f'data-join="{game.pk}"' in html
    assert Game.objects.get(pk=game.pk).status == Game.Status.OPEN  # a GET takes no seat
    client.post(reverse("table_join", args=[game.pk]))
    assert Game.objects.get(pk=game.pk).status == Game.Status.RUNNING
    # Once seated, the invite link leads to the game.
    response = client.get(url)
    assert response.status_code == 302 and response["Location"] == reverse("play", args=[game.pk])
    assert client.get(reverse("invite", args=["nope"])).status_code == 404


# --- the play page ----------------------------------------------------------------------------


def test_play_page_for_a_seat(client, two_player_game, ann):
    client.force_login(ann)
    response = get_page(client, two_player_game)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" in html
    for fragment in ("game-status", "board-panel", "hand-panel", "villages-panel", "log-panel"):
        assert f'id="{fragment}"' in html
    # The socket's address says what the page shows (the socket sends what changed since).
    assert f'ws-connect="/ws/games/{two_player_game.pk}/?v=0&amp;chat=0-0"' in html
    assert 'id="game-version" value="0"' in html
    assert 'id="your-turn"' in html  # seat 0 starts
    assert html.count("data-hand-tile=") == 2
    assert "data-select-tile" in html


def test_play_page_for_a_spectator(client, two_player_game, make_user):
    client.force_login(make_user("eve"))
    html = get_page(client, two_player_game).content.decode()
    assert 'id="spectating"' in html
    assert "data-hand-tile" not in html
    assert "data-private-building" not in html
    assert 'id="your-turn"' not in html
    assert "data-action" not in html
    # Anonymous visitors watch too.
    client.logout()
    assert "data-hand-tile" not in get_page(client, two_player_game).content.decode()


def test_htmx_gets_fragments_plain_gets_page(client, two_player_game, ann):
    client.force_login(ann)
    html = client.get(reverse("play", args=[two_player_game.pk]), **HX).content.decode()
    assert "<html" not in html
    # The status, each of the board's fragments, the log.

    assert html.count('hx-swap-oob="true"') == len(get_board("newhaven").fragments) + 2
    assert 'data-version="0"' in html


def test_selecting_a_tile_highlights_its_legal_cells(client, two_player_game, ann):
    client.force_login(ann)
    legal = legal_actions_json(two_player_game, 0)
    first = next(a for a in legal if a["type"] == "harvest")
    html = get_page(client, two_player_game, tile=first["tile"], rot=first["rotation"]).content
    forms = form_fields(html.decode())
    expected = [a for a in legal if a["type"] == "harvest" and a["tile"] == first["tile"]
                and a["rotation"] == first["rotation"]]
    assert len(forms) == len(expected) > 0
    offered = [json.loads(f["action"]) for f in forms]
    assert all(a in legal for a in offered)
    assert len({f["key"] for f in forms}) == len(forms)  # a fresh key per form
    assert all(f["version"] == "0" for f in forms)


def test_selecting_the_shipment_offers_cells(client, two_player_game, ann):
    client.force_login(ann)
    html = get_page(client, two_player_game, ship="stone").content.decode()
    offered = [json.loads(f["action"]) for f in form_fields(html)]
    assert offered and all(a["type"] == "ship" and a["resource"] == "stone" for a in offered)


def test_garbage_selection_is_ignored(client, two_player_game, ann):
    client.force_login(ann)
    response = get_page(client, two_player_game, tile="x", rot="y", b="nope", ship="gold")
    assert response.status_code == 200
    assert form_fields(response.content.decode()) == []


def test_legal_action_by_form_post(client, two_player_game, ann):
    client.force_login(ann)
    action = next(a for a in legal_actions_json(two_player_game, 0) if a["type"] == "harvest")
    response = post_action(client, two_player_game, action)
    assert response.status_code == 302
    two_player_game.refresh_from_db()
    assert two_player_game.version == 1
    assert two_player_game.moves.get().seat == 0
    html = client.get(response["Location"]).content.decode()
    assert 'id="game-version" value="1"' in html
    assert "ann placed a harvest tile" in html  # the log shows the event, with her name


def test_legal_action_by_htmx_returns_fragments(client, two_player_game, ann):
    client.force_login(ann)
    action = next(a for a in legal_actions_json(two_player_game, 0) if a["type"] == "ship")
    response = post_action(client, two_player_game, action, htmx=True)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and 'data-version="1"' in html
    assert 'id="play-error"' not in html
    # Now the build step: End building is offered, the markers show the harvest.
    assert "end_build" in html


def test_same_key_twice_is_idempotent(client, two_player_game, ann):
    client.force_login(ann)
    action = next(a for a in legal_actions_json(two_player_game, 0) if a["type"] == "harvest")
    post_action(client, two_player_game, action, key="same-key-1")
    response = post_action(client, two_player_game, action, version=0, key="same-key-1")
    assert response.status_code == 302
    two_player_game.refresh_from_db()
    assert two_player_game.version == 1


@pytest.mark.parametrize(
    ("who", "action", "version", "status", "message"),
    [
        ("ann", {"type": "harvest", "tile": 0, "row": 0, "col": 0, "rotation": 0}, 0, 422, ""),
        ("ann", {"type": "fly"}, 0, 422, "Unknown action"),
        ("ann", "HARVEST", 0, 422, ""),
        ("ann", None, 0, 400, "not a valid action"),
        ("ann", "first", 5, 409, "the page now shows the current position"),
        ("bob", "first", 0, 409, "not your turn"),
        ("eve", "first", 0, 403, "only watch"),
        ("anon", "first", 0, 403, "only watch"),
    ],
)
def test_refused_actions_change_nothing(client, two_player_game, make_user,
                                        ann, bob, who, action, version, status, message):
    users = {"ann": ann, "bob": bob, "eve": make_user("eve")}
    if who in users:
        client.force_login(users[who])
    if action == "first":
        action = legal_actions_json(two_player_game, 0)[0]
    data = {"action": "{not json" if action is None else json.dumps(action),
            "version": version, "key": "refused-1"}
    url = reverse("act", args=[two_player_game.pk])
    response = client.post(url, data)
    assert response.status_code == status
    html = response.content.decode()
    assert 'id="play-error"' in html
    assert message.lower() in html.lower()
    assert "<html" in html  # the whole page, re-rendered at the current version
    # HTMX: 200 with the error inside the status fragment.
    response = client.post(url, data, **HX)
    assert response.status_code == 200
    assert 'id="play-error"' in response.content.decode()
    assert message.lower() in response.content.decode().lower()
    assert "reload" not in response.content.decode().lower()
    assert response["X-Colonia-Error"] == str(status)
    two_player_game.refresh_from_db()
    assert two_player_game.version == 0
    assert not two_player_game.moves.exists()


def test_moves_are_rate_limited(client, two_player_game, ann, settings):
    settings.MOVE_RATE_LIMIT_PER_MINUTE = 1
    cache.delete(f"ratelimit:moves:{ann.pk}")  # earlier tests may have reused this pk
    client.force_login(ann)
    action = next(a for a in legal_actions_json(two_player_game, 0) if a["type"] == "harvest")
    assert post_action(client, two_player_game, action, key="rate-1").status_code == 302
    two_player_game.refresh_from_db()
    follow_up = legal_actions_json(two_player_game, 0)[0]
    response = post_action(client, two_player_game, follow_up, key="rate-2")
    assert response.status_code == 429
    assert "too many moves" in response.content.decode().lower()
    two_player_game.refresh_from_db()
    assert two_player_game.version == 1


def test_forged_action_is_refused(client, two_player_game, ann):
    """An action that is well-formed but not among the legal ones (a taken cell)."""
    client.force_login(ann)
    response = post_action(client, two_player_game,
                           {"type": "harvest", "tile": 0, "row": 1, "col": 1, "rotation": 0})
    assert response.status_code == 422
    two_player_game.refresh_from_db()
    assert two_player_game.version == 0


def test_act_on_missing_game_is_404(client, ann):
    client.force_login(ann)
    assert client.post(reverse("act", args=[999]), {}).status_code == 404
    assert client.get(reverse("play", args=[999])).status_code == 404


# --- a whole game: what each page shows, and what it must never show --------------------------


def _private_markers(view: dict) -> tuple[set[str], set[str]]:
    hand = view["hand"]
    tiles = {",".join(t["squares"]) for t in hand["tiles"]}
    blind = {f"{b['resource']}-{b['number']}" for b in hand["private_buildings"]}
    return tiles, blind


def _assert_page_shows_own_hand_only(client, game, users, engine, state) -> None:
    """Each seat's page shows exactly its hand tiles and blind buildings, never the other's."""
    for seat, user in users.items():
        client.force_login(user)
        html = get_page(client, game).content.decode()
        tiles, blind = _private_markers(engine.observe(state, seat))
        shown_tiles = set(re.findall(r'data-hand-tile="([^"]*)"', html))
        shown_blind = re.findall(r'data-private-building="([^"]*)"', html)
        assert shown_tiles == tiles
        assert sorted(shown_blind) == sorted(
            f"{b['resource']}-{b['number']}"
            for b in engine.observe(state, seat)["hand"]["private_buildings"]
        )
        assert set(shown_blind) <= blind
        # The other seat's private things appear nowhere as hand items.
        other_tiles, _other_blind = _private_markers(engine.observe(state, 1 - seat))
        assert not (other_tiles - tiles) & shown_tiles
        assert str(game.seed) not in html


def test_no_hidden_information_in_html_at_sampled_positions(client, ann, bob):
    """Seat A's page shows exactly A's hand tiles and blind buildings, never B's: a whole
    random game is played by the engine, and the pages are read at positions spread over it
    (stored directly, tests/games/replay_support.py), the finished page last.  The version
    that plays every move through the web layer is the ``long`` test below."""
    from replay_support import random_actions, store_game

    engine = get_engine("newhaven")
    data = engine.default_variants()["standard"]
    seed = 918273645  # long enough that its digits appear nowhere by chance
    actions = random_actions("newhaven", data, 2, seed, 7)
    users = {0: ann, 1: bob}
    cuts = sorted({round(len(actions) * f) for f in (0, 0.1, 0.3, 0.5, 0.7, 0.9)})
    for cut in cuts:
        game = store_game("newhaven", data, [ann, bob], seed, actions[:cut])
        assert game.status == Game.Status.RUNNING
        _assert_page_shows_own_hand_only(client, game, users, engine, current_state(game))
    # A stored game one move before its end, finished through the web layer.
    game = store_game("newhaven", data, [ann, bob], seed, actions[:-1])
    seat, action = actions[-1]
    game = submit_action(game=game, user=users[seat], seat=seat,
                         action=engine.action_to_json(action), version=game.version, key="last")
    assert game.status == Game.Status.FINISHED
    client.force_login(ann)
    html = get_page(client, game).content.decode()
    assert 'id="final-scores"' in html and 'id="winners"' in html
    assert html.count("data-final-seat=") == 2


@pytest.mark.long
def test_no_hidden_information_in_html_over_a_whole_game(client, two_player_game, ann, bob):
    """Seat A's page shows exactly A's hand tiles and blind buildings, never B's, every
    fourth move of a whole game played through the web layer (``make test-long``)."""
    import random

    engine = get_engine("newhaven")
    rng = random.Random(7)
    users = {0: ann, 1: bob}
    game = two_player_game
    checked = 0
    moves = 0
    while game.status == Game.Status.RUNNING:
        state = current_state(game)
        if moves % 4 == 0:
            _assert_page_shows_own_hand_only(client, game, users, engine, state)
            checked += 1
        seat = game.to_move[0]
        action = rng.choice(legal_actions_json(game, seat))
        game = submit_action(game=game, user=users[seat], seat=seat, action=action,
                             version=game.version, key=f"k{moves}")
        moves += 1
    assert game.status == Game.Status.FINISHED
    client.force_login(ann)
    html = get_page(client, game).content.decode()
    assert 'id="final-scores"' in html and 'id="winners"' in html
    assert html.count("data-final-seat=") == 2
    assert checked > 30


def test_ai_to_move_shows_thinking(client, nh_variants, ann, monkeypatch):
    monkeypatch.setattr(ai_tasks, "enqueue_turn", lambda *a, **k: None)  # no worker
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    client.force_login(ann)
    action = next(a for a in legal_actions_json(game, 0) if a["type"] == "harvest")
    post_action(client, game, action, key="t1")
    game.refresh_from_db()
    post_action(client, game, {"type": "end_build"}, key="t2")
    game.refresh_from_db()
    html = get_page(client, game).content.decode()
    if 1 in game.to_move:
        assert 'data-thinking="1"' in html
    else:  # every marker was 0: no share step, Ann draws
        assert "data-thinking" not in html


def test_opening_a_stalled_ai_game_enqueues_the_ai_again(
    client, nh_variants, ann, monkeypatch, django_capture_on_commit_callbacks
):
    """A lost AI task (no worker ran it) is re-enqueued when the page is opened later."""
    import datetime



    enqueued = []
    monkeypatch.setattr(ai_tasks, "enqueue_turn", lambda *a, **k: enqueued.append(a))
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    # Ann harvests and builds nothing: markers stay up, so the AI seat gets its share step.
    client.force_login(ann)
    action = next(a for a in legal_actions_json(game, 0) if a["type"] == "harvest")
    post_action(client, game, action, key="s1")
    game.refresh_from_db()
    post_action(client, game, {"type": "end_build"}, key="s2")
    game.refresh_from_db()
    assert game.to_move == [1]
    enqueued.clear()
    get_page(client, game)
    assert enqueued == []  # fresh: the task may simply still be running
    old = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)
    Game.objects.filter(pk=game.pk).update(updated_at=old)
    with django_capture_on_commit_callbacks(execute=True):
        get_page(client, game)
    assert enqueued == [(game.pk, game.version)]
