"""Replays: the view at step K for seat S is ``observe`` of the fold of the first K actions,
and the access rules (one selector, ``games.replay.selectors``) hold on the page, the API and the
export -- during a game nobody gets another seat's perspective or the revealed view."""

from __future__ import annotations

import json
import random
import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from replay_support import fold_json, random_actions, random_game, store_game

from games.boards import board_names, get_board
from games.engines import get_engine
from games.engines.replay import replay_export
from games.models import Game, Move
from games.replay.errors import InvalidReplayRequest, PerspectiveForbidden, ReplayNotStarted
from games.replay.selectors import _STATE_FORMATS, PUBLIC, Perspective, cache_key, replay_step
from games.tables.services import create_game

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
GAMES = [(name, n) for name in ("newhaven", "nouvellefrance")
         for n in range(get_engine(name).min_players, get_engine(name).max_players + 1)]


def stored_actions(game: Game) -> list:
    return list(Move.objects.filter(game=game).order_by("seq").values_list("seat", "action"))


def expected(game: Game, step: int, perspective: str):
    """The test's own answer: observe (or reveal) of the fold of the first ``step`` moves."""
    engine = get_engine(game.game_name)
    state = fold_json(game.game_name, game.variant_data, game.num_players, game.seed,
                      stored_actions(game), step)
    if perspective == "all":
        return engine.reveal(state)
    return engine.observe(state, None if perspective == "spectator" else int(perspective))


# --- the view at every step is observe of the fold ---------------------------------------------


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_every_perspective_of_sampled_steps_of_a_random_finished_game(name, players, make_user):
    users = [make_user() for _ in range(players - 1)] + [None]  # one AI seat
    game = random_game(name, users, seed=1000 + players, rng_seed=players)
    assert game.status == Game.Status.FINISHED
    steps = game.moves.count()
    rng = random.Random(players)
    sample = sorted({0, 1, steps - 1, steps, *rng.sample(range(steps), 6)})
    perspectives = [str(s) for s in range(players)] + ["spectator", "all"]
    viewer = AnonymousUser()  # after the end anyone may take any perspective
    for step in sample:
        for p in perspectives:
            got = replay_step(game, viewer, step=str(step), seat=p)
            assert got.step == step and got.steps == steps
            assert got.view == expected(game, step, p), (step, p)
    # The last step is the stored game itself.
    engine = get_engine(name)
    final = replay_step(game, viewer, seat="all")
    assert final.view == engine.reveal(engine.state_from_json(game.state_json))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(game_index=st.integers(0, len(GAMES) - 1), rng_seed=st.integers(0, 10_000),
       fraction=st.floats(0, 1), seat_pick=st.integers(0, 10))
def test_replay_view_equals_observe_of_the_fold(game_index, rng_seed, fraction, seat_pick,
                                                 make_user):
    name, players = GAMES[game_index]
    game = random_game(name, [make_user() for _ in range(players)], seed=rng_seed,
                       rng_seed=rng_seed)
    steps = game.moves.count()
    step = round(fraction * steps)
    options = [str(s) for s in range(players)] + ["spectator", "all"]
    seat = options[seat_pick % len(options)]
    got = replay_step(game, AnonymousUser(), step=step, seat=seat)
    assert got.view == expected(game, step, seat)
    assert got.event == (game.moves.get(seq=step).event if step else None)


def test_checkpoints_give_the_same_states_in_any_order(make_user):
    cache.clear()
    game = random_game("newhaven", [make_user(), make_user()], seed=5, rng_seed=5)
    steps = game.moves.count()
    order = [steps, 40, 35, 17, 16, 15, 0, 33, steps - 1]
    for step in order:  # later requests start from checkpoints the earlier ones stored
        got = replay_step(game, AnonymousUser(), step=step, seat="all")
        assert got.view == expected(game, step, "all"), step
    assert cache.get(cache_key(game, "state", 32)) is not None


def test_a_checkpoint_of_an_older_state_format_is_folded_over(make_user, monkeypatch):
    """A checkpoint cached before an engine upgrade may load (old formats are converted)
    but lack what the new format adds: the replay folds from the deal instead."""
    cache.clear()
    game = random_game("newhaven", [make_user(), make_user()], seed=7, rng_seed=7)
    replay_step(game, AnonymousUser(), step=16, seat="all")
    key = cache_key(game, "state", 16)
    # A wrong state (the deal) stored under key 16 by an engine one format behind this
    # one: used, it would show the wrong view.
    engine = game.engine
    stale = engine.state_to_json(engine.new_game(game.variant_data, 2, game.seed))
    cache.set(key, stale)
    monkeypatch.setitem(_STATE_FORMATS, engine.name, stale["format"] + 1)
    got = replay_step(game, AnonymousUser(), step=16, seat="all")
    assert got.view == expected(game, 16, "all")


def test_a_broken_cache_only_folds_from_the_deal(make_user, monkeypatch):
    game = random_game("newhaven", [make_user(), make_user()], seed=6, rng_seed=6)

    def down(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "get_many", down)
    monkeypatch.setattr(cache, "set_many", down)
    got = replay_step(game, AnonymousUser(), step=50, seat="0")
    assert got.view == expected(game, 50, "0")


# --- the access rules in the selector ---------------------------------------------------------


@pytest.fixture
def running(make_user):
    """A running 3-player New Haven game (30 moves in): ann seat 0, bob seat 1, AI seat 2."""
    ann, bob = make_user("ann"), make_user("bob")
    data = get_engine("newhaven").default_variants()["standard"]
    actions = random_actions("newhaven", data, 3, seed=9, rng_seed=9, limit=30)
    game = store_game("newhaven", data, [ann, bob, None], 9, actions)
    assert game.status == Game.Status.RUNNING
    return game


@pytest.fixture
def finished(make_user):
    ann, bob = make_user("fin_ann"), make_user("fin_bob")
    return random_game("newhaven", [ann, bob, None], seed=21, rng_seed=21)


@pytest.fixture
def staff(make_user):
    user = make_user("staffer")
    user.is_staff = user.is_superuser = True
    user.save()
    return user


def seated(game, index):
    return game.seats.get(index=index).user


def test_during_a_game_a_player_has_only_their_own_seat(running):
    ann, bob = seated(running, 0), seated(running, 1)
    assert replay_step(running, ann, step=10).perspective == Perspective(seat=0)
    assert replay_step(running, bob, step=10).view == expected(running, 10, "1")
    for user, others in ((ann, ["1", "2", "spectator", "all"]),
                         (bob, ["0", "2", "spectator", "all"])):
        for seat in others:
            with pytest.raises(PerspectiveForbidden):
                replay_step(running, user, step=10, seat=seat)


@pytest.mark.parametrize("who", ["anonymous", "not_seated", "staff"])
def test_during_a_game_everyone_else_has_the_public_view_only(running, who, make_user, staff):
    user = {"anonymous": AnonymousUser(), "not_seated": make_user("eve"), "staff": staff}[who]
    got = replay_step(running, user, step=12)
    assert got.perspective == PUBLIC
    assert got.view == expected(running, 12, "spectator")
    assert got.seed is None
    for seat in ("0", "1", "2", "all"):
        with pytest.raises(PerspectiveForbidden):
            replay_step(running, user, step=12, seat=seat)


@pytest.mark.parametrize("who", ["anonymous", "not_seated", "staff", "player"])
def test_after_the_end_anyone_takes_any_perspective(finished, who, make_user, staff):
    user = {"anonymous": AnonymousUser(), "not_seated": make_user("eve"), "staff": staff,
            "player": seated(finished, 1)}[who]
    for seat in ("0", "1", "2", "spectator"):
        assert replay_step(finished, user, step=7, seat=seat).view == expected(
            finished, 7, seat)
    revealed = replay_step(finished, user, step=7, seat="all")
    assert revealed.seed == finished.seed and "revealed" in revealed.view


def test_the_analysis_state_knows_no_more_than_the_perspective(running, finished):
    engine = get_engine("newhaven")
    ann = seated(running, 0)
    step = replay_step(running, ann, step=20)
    for k in range(5):
        state = step.analysis_state(random.Random(k))
        assert engine.observe(state, 0) == step.view  # indistinguishable for ann ...
    others = {json.dumps(engine.observe(step.analysis_state(random.Random(k)), 1),
                         sort_keys=True) for k in range(5)}
    assert len(others) > 1  # ... while bob's hidden hand is resampled, not the true one
    true = fold_json("newhaven", running.variant_data, 3, running.seed,
                     stored_actions(running), 20)
    assert engine.observe(true, 1) not in [json.loads(o) for o in others]
    revealed = replay_step(finished, None, step=20, seat="all")
    assert engine.reveal(revealed.analysis_state(random.Random(0))) == revealed.view


def test_default_perspective_is_the_viewers_seat(finished, make_user):
    assert replay_step(finished, seated(finished, 1)).perspective.seat == 1
    assert replay_step(finished, make_user()).perspective == PUBLIC


def test_an_aborted_game_keeps_its_secrets(running, make_user):
    Game.objects.filter(pk=running.pk).update(status=Game.Status.ABORTED)
    running.refresh_from_db()
    with pytest.raises(PerspectiveForbidden):
        replay_step(running, make_user(), seat="all")
    with pytest.raises(PerspectiveForbidden):
        replay_step(running, seated(running, 0), seat="1")


@pytest.mark.parametrize(("step", "seat"), [("-1", None), ("x", None), ("31", None),
                                            ("1e3", None), (None, "3"), (None, "everyone"),
                                            (None, "-1"), (None, "0x1"), ("²", None),
                                            ("٣", None), (None, "²"), ("1" * 40, None)])
def test_malformed_steps_and_seats_are_refused(running, step, seat):
    with pytest.raises(InvalidReplayRequest) as info:
        replay_step(running, seated(running, 0), step=step, seat=seat)
    assert set(info.value.errors) == {"step" if step else "seat"}


@pytest.mark.parametrize("query", ["step=", "seat=", "step=&seat=0"])
def test_the_api_refuses_empty_parameters(client, finished, query):
    response = client.get(f"/api/games/{finished.pk}/replay/?{query}")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert set(response.json()["errors"]) == {query.split("=")[0]}


def test_an_open_table_has_nothing_to_replay(nh_variants, ann):
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    with pytest.raises(ReplayNotStarted):
        replay_step(game, ann)


# --- the page -----------------------------------------------------------------------------------


def replay_page(client, game, **params):
    return client.get(f"/games/{game.pk}/replay/", params)


def test_page_during_a_game(client, running, make_user, staff):
    client.force_login(seated(running, 0))
    response = replay_page(client, running, step=10)
    assert response.status_code == 200
    assert response.context["replay"].view == expected(running, 10, "0")
    for seat in ("1", "all", "spectator"):
        response = replay_page(client, running, step=10, seat=seat)
        assert response.status_code == 403, seat
        assert "replay" not in response.context
    for user in (make_user("eve"), staff, None):
        if user is None:
            client.logout()
        else:
            client.force_login(user)
        assert replay_page(client, running, step=3, seat="0").status_code == 403
        assert replay_page(client, running, step=3, seat="all").status_code == 403
        response = replay_page(client, running, step=3)
        assert response.status_code == 200
        assert response.context["replay"].view == expected(running, 3, "spectator")


def test_page_after_the_end_anonymous(client, finished):
    response = replay_page(client, finished, step=4, seat="all")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<code id="replay-seed">{finished.seed}</code>' in html
    assert 'id="analysis-panel"' in html
    assert response.context["replay"].view == expected(finished, 4, "all")
    response = replay_page(client, finished, step=4, seat="2")
    assert response.context["replay"].view == expected(finished, 4, "2")


def test_page_whole_for_plain_requests_fragments_for_htmx(client, finished):
    plain = replay_page(client, finished, step=5, seat="1").content.decode()
    assert "<html" in plain and 'id="replay-root"' in plain
    # Links work without JS: real hrefs to the neighbouring steps.
    assert f'href="/games/{finished.pk}/replay/?step=6&amp;seat=1"' in plain
    assert f'href="/games/{finished.pk}/replay/?step=4&amp;seat=1"' in plain
    swap = client.get(f"/games/{finished.pk}/replay/", {"step": 6, "seat": "1"}, **HX)
    html = swap.content.decode()
    assert "<html" not in html
    assert 'id="game-status"' in html and 'data-step="6"' in html
    assert 'id="log-panel"' in html and 'id="analysis-panel"' in html
    # Only out-of-band fragments: the board's layout (its nonce'd style) is not re-sent.
    assert "<style" not in html
    assert html.count('hx-swap-oob="true"') >= 4
    assert 'id="ev-6" data-step="6" class="current"' in html
    assert swap["HX-Push-Url"] == f"/games/{finished.pk}/replay/?step=6&seat=1"


def test_a_history_restore_gets_the_whole_page(client, finished):
    response = client.get(f"/games/{finished.pk}/replay/", {"step": 3},
                          HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert "<html" in response.content.decode()


def test_stepping_sends_only_the_two_rows_whose_highlight_changes(client, finished):
    steps = finished.moves.count()
    url = f"/games/{finished.pk}/replay/"
    html = client.get(url, {"step": 6, "seat": "1", "shown": f"5:1:{steps}"}, **HX
                      ).content.decode()
    assert 'id="log-panel"' not in html
    rows = re.findall(r'<li id="ev-(\d+)" data-step="\d+"( class="current")?[^>]*'
                      r'hx-swap-oob="true"', html)
    assert rows == [("5", ""), ("6", ' class="current"')]
    # Another perspective (its links change) or a list that grew: the whole list.
    for shown in (f"5:0:{steps}", f"5:1:{steps - 1}", "garbage", f"{steps + 3}:1:{steps}",
                  f"²:1:{steps}"):
        html = client.get(url, {"step": 6, "seat": "1", "shown": shown}, **HX).content.decode()
        assert 'id="log-panel"' in html, shown
        assert html.count('<li id="ev-') == steps + 1


def test_page_errors(client, finished, running):
    assert replay_page(client, finished, step="999").status_code == 400
    assert replay_page(client, finished, seat="9").status_code == 400
    assert client.get("/games/999999/replay/").status_code == 404
    response = replay_page(client, running, seat="all")
    assert response.status_code == 403
    assert 'id="replay-retry"' in response.content.decode()


def test_links_to_the_replay(client, finished):
    client.force_login(seated(finished, 0))
    url = f"/games/{finished.pk}/replay/"
    end_screen = client.get(f"/games/{finished.pk}/").content.decode()
    assert f'href="{url}" id="watch-replay"' in end_screen
    user = seated(finished, 0)
    profile = client.get(f"/accounts/{user.username}/").content.decode()
    assert f'href="{url}"' in profile
    assert f'href="{url}"' in client.get("/lobby/").content.decode()


def test_event_list_is_the_boards_event_text(client, finished):
    response = replay_page(client, finished, step=3)
    events = response.context["events"]
    first = finished.moves.get(seq=1)
    names = {s.index: s.display_name for s in finished.seats.all()}
    assert events[0]["step"] == 0 and events[0]["text"] == "The deal"
    assert events[1]["text"] == get_board("newhaven").event_text(
        first.event, names, response.context["replay"].game.engine.rule_data(
            finished.variant_data))
    assert [e["current"] for e in events].index(True) == 3


# --- the API ------------------------------------------------------------------------------------


def api(client, game, path="replay", **params):
    return client.get(f"/api/games/{game.pk}/{path}/", params)


def test_api_replay_during_a_game(client, running, make_user, staff):
    client.force_login(seated(running, 1))
    body = api(client, running, step=8).json()
    assert body["step"] == 8 and body["steps"] == 30 and body["seat"] == 1
    assert body["view"] == json.loads(json.dumps(expected(running, 8, "1")))
    assert body["event"] == running.moves.get(seq=8).event and body["seed"] is None
    for seat in ("0", "2", "all", "spectator"):
        response = api(client, running, step=8, seat=seat)
        assert response.status_code == 403
        assert response.json()["code"] == "perspective_forbidden"
    for user in (make_user("eve"), staff, None):
        if user is None:
            client.logout()
        else:
            client.force_login(user)
        assert api(client, running, seat="1").status_code == 403
        assert api(client, running, seat="all").status_code == 403
        body = api(client, running, step=2).json()
        assert body["perspective"] == "spectator" and body["seat"] is None


def test_api_replay_after_the_end(client, finished):
    body = api(client, finished, step=0, seat="all").json()
    assert body["seed"] == finished.seed and body["event"] is None
    assert body["view"] == json.loads(json.dumps(expected(finished, 0, "all")))
    body = api(client, finished, seat="0").json()
    assert body["step"] == body["steps"] == finished.moves.count()


def test_api_replay_errors_have_the_one_shape(client, finished, nh_variants, ann):
    bad = api(client, finished, step="abc")
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid" and "step" in bad.json()["errors"]
    assert api(client, finished, seat="7").json()["errors"]["seat"]
    missing = client.get("/api/games/999999/replay/")
    assert missing.status_code == 404 and set(missing.json()) >= {"detail", "code"}
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    response = api(client, game)
    assert response.status_code == 409 and response.json()["code"] == "game_not_started"
    assert api(client, game, path="export").status_code == 409


def test_export_during_a_game_has_no_seed_and_only_my_actions(client, running, make_user):
    client.force_login(seated(running, 0))
    doc = api(client, running, path="export").json()
    assert doc["seed"] is None and doc["result"] is None
    assert len(doc["actions"]) == 30
    for row in doc["actions"]:
        assert (row["action"] is not None) == (row["seat"] == 0)
        assert row["event"] is not None
    client.force_login(make_user("eve"))
    doc = api(client, running, path="export").json()
    assert doc["seed"] is None and all(row["action"] is None for row in doc["actions"])
    client.logout()
    doc = api(client, running, path="export").json()
    assert doc["seed"] is None and all(row["action"] is None for row in doc["actions"])


def test_export_after_the_end_replays_to_the_final_scores(client, finished):
    response = api(client, finished, path="export")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    doc = response.json()
    assert set(doc) >= {"variant", "players", "seats", "seed", "actions"}
    assert doc["seed"] == finished.seed and doc["variant"] == finished.variant_data
    assert len(doc["actions"]) == finished.moves.count()
    replayed = replay_export(doc)
    assert replayed.over
    assert replayed.scores == finished.result["scores"]
    assert replayed.winners == finished.result["winners"]


def test_routes_are_in_the_openapi_schema(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    replay = paths["/api/games/{game_id}/replay/"]["get"]
    assert {p["name"] for p in replay["parameters"]} >= {"step", "seat", "game_id"}
    assert {"200", "400", "403", "404", "409"} <= set(replay["responses"])
    assert set(schema["components"]["schemas"]["ReplayOutput"]["properties"]) >= {
        "step", "steps", "seat", "view", "event"}
    export = paths["/api/games/{game_id}/export/"]["get"]
    assert "200" in export["responses"]
    assert set(schema["components"]["schemas"]["ExportOutput"]["properties"]) >= {
        "variant", "players", "seats", "seed", "actions"}


# --- any registered board: the test game of tests/placegame/ -----------------------------------


def test_the_test_game_replays_through_its_own_board(client, placegame, make_user):
    ann, bob = make_user("pg_ann"), make_user("pg_bob")
    game = random_game(placegame.NAME, [ann, bob], seed=3, rng_seed=4)
    assert game.status == Game.Status.FINISHED
    steps = game.moves.count()
    for step in range(steps + 1):
        response = replay_page(client, game, step=step, seat="all")
        assert response.status_code == 200
        html = response.content.decode()
        assert 'id="pg-board"' in html and "<form" not in html.split('id="pg-board"')[1]
        marks = sum(line.count(v) for line in expected(game, step, "all")["grid"]
                    for v in (0, 1))
        assert html.count('data-pg-cell') == 9
        assert sum(1 for m in re.findall(r'data-pg-cell="\w+">([XO]?)<', html) if m) == marks
    first = game.moves.get(seq=1)
    assert "pg_ann marked" in html or "pg_bob marked" in html
    assert first.event["type"] == "marked"


@pytest.mark.parametrize("name", board_names())
def test_every_registered_board_replays_every_perspective(name, client, make_user):
    """Generic by the board registry: a board registered later (Nouvelle-France) is covered
    as soon as it lands -- whole pages and HTMX steps, no form anywhere."""
    engine = get_engine(name)
    players = engine.max_players
    game = random_game(name, [make_user() for _ in range(players)], seed=31, rng_seed=31)
    steps = game.moves.count()
    for step in (0, 1, steps // 2, steps):
        for seat in [str(s) for s in range(players)] + ["spectator", "all"]:
            page = replay_page(client, game, step=step, seat=seat)
            assert page.status_code == 200, (step, seat)
            assert page.context["replay"].view == expected(game, step, seat)
            swap = client.get(f"/games/{game.pk}/replay/", {"step": step, "seat": seat}, **HX)
            for html in (page.content.decode(), swap.content.decode()):
                assert "<form" not in html.split('id="game-status"')[1].replace(
                    '<form class="replay-slider"', "")


def test_perspectives_of_seats_with_the_same_name_are_told_apart(client, make_user):
    game = random_game("newhaven", [make_user("solo"), None, None], seed=2, rng_seed=2)
    labels = [p["label"] for p in replay_page(client, game, step=1).context["perspectives"]]
    assert labels[:3] == ["solo", "AI (random) · Seat 2", "AI (random) · Seat 3"]


def test_a_replay_names_the_seat_whose_hand_it_shows(client, finished):
    html = replay_page(client, finished, step=5, seat="1").content.decode()
    assert "Hand of fin_bob" in html and "Village of fin_bob" in html
    assert "Your hand" not in html
