"""Practice help on the play page and in the API: the buttons where they belong, a hint in
the board's words whose moves the board's buttons carry, undo back to the player's turn,
and refusals (a clear message, nothing changed) in rated games and games with people."""

from __future__ import annotations

import html as htmllib
import json
import re
from typing import Any

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.ai_turns.turn import play_one_ai_turn
from games.core.selectors import legal_actions_json
from games.models import Game, Move, Rewind, Variant
from games.practice import hints, tasks
from games.practice.selectors import hint_key
from games.tables.services import create_game, join_game
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
REFUSED = "Hints and undo are only for unrated practice games against the AI."


@pytest.fixture(autouse=True)
def empty_cache(clear_cache):
    """Hints live in the cache (per game version): every test starts without any."""


def nh_game(variants, creator: Any, *, rated: bool = False, people: tuple = ()) -> Game:
    seats = [{"type": "human"}, *({"type": "human"} for _ in people),
             {"type": "ai", "level": "random"}]
    game = create_game(creator=creator, variant=variants["standard"], seats=seats, rated=rated)
    for person in people:
        join_game(game=game, user=person)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.to_move == [0]
    return game


def snapshot(game: Game) -> tuple:
    game.refresh_from_db()
    return (game.version, game.state_json, game.to_move, game.rewinds,
            list(Move.objects.filter(game=game).values_list("seq", "action")),
            Rewind.objects.filter(game=game).count())


def page(client, game) -> str:
    return client.get(reverse("play", args=[game.pk])).content.decode()


def ask_hint(client, game, version=None, **extra):
    version = game.version if version is None else version
    return client.post(reverse("practice_hint", args=[game.pk]), {"version": version}, **extra)


def hint_rows(html: str) -> list[tuple[str, str, int]]:
    """(action JSON, text, percent) of each row of the hint panel."""
    rows = re.findall(r'<tr data-hint-action="([^"]*)" data-hint-rank="\d">'
                      r'<td class="hint-text">(.*?)</td><td class="hint-win">(\d+)%</td>',
                      html)
    return [(htmllib.unescape(a), htmllib.unescape(t), int(p)) for a, t, p in rows]


def act(client, game, action_json: str, key: str):
    return client.post(reverse("act", args=[game.pk]),
                       {"action": action_json, "version": game.version, "key": key})


def test_buttons_only_in_practice_games(client, nh_variants, ann, bob) -> None:
    client.force_login(ann)
    practice = nh_game(nh_variants, ann)
    html = page(client, practice)
    assert 'id="ask-hint"' in html and 'id="practice"' in html
    assert 'id="undo-move"' not in html  # nothing to take back yet
    rated = nh_game(nh_variants, ann, rated=True)
    people = nh_game(nh_variants, ann, people=(bob,))
    for game in (rated, people):
        assert 'id="practice"' not in page(client, game)
    client.force_login(bob)  # a spectator of the practice game, a player with a person
    assert 'id="practice"' not in page(client, practice)
    assert 'id="practice"' not in page(client, people)


def test_hint_shows_three_moves_in_the_board_words(client, nh_variants, ann,
                                                    django_capture_on_commit_callbacks) -> None:
    client.force_login(ann)
    game = nh_game(nh_variants, ann)
    with django_capture_on_commit_callbacks(execute=True):
        response = ask_hint(client, game, **HX)
    assert response.status_code == 200 and "X-Colonia-Error" not in response
    html = response.content.decode()
    # The eager worker ran during the request (after its commit): if the hook ran later,
    # the panel polls; either way a second ask answers from the cache.
    if "hint-pending" in html:
        assert 'hx-trigger="load delay:1s"' in html
        html = ask_hint(client, game, **HX).content.decode()
    rows = hint_rows(html)
    assert len(rows) == 3
    legal = legal_actions_json(game, 0)
    assert all(json.loads(a) in legal for a, _t, _p in rows)
    assert all(0 <= p <= 100 for _a, _t, p in rows)
    # The page shows the same hint (cached for this version), also while the player picks
    # a tile, and the board's buttons of the picked tile carry the hinted move's action
    # (the page lights them up: static/js/play.js).
    assert hint_rows(page(client, game)) == rows
    tiled = next(json.loads(a) for a, _t, _p in rows if "tile" in json.loads(a))
    query = f"?tile={tiled['tile']}&rot={tiled['rotation']}"
    picked = client.get(reverse("play", args=[game.pk]) + query).content.decode()
    assert hint_rows(picked) == rows
    buttons = {htmllib.unescape(b) for b in re.findall(r'data-action="([^"]*)"', picked)}
    assert json.dumps(tiled, separators=(",", ":"), sort_keys=True) in buttons
    # Played, the first move reads in the log exactly as the hint said.
    with django_capture_on_commit_callbacks(execute=True):
        assert act(client, game, rows[0][0], "hinted-1").status_code == 302
    game.refresh_from_db()
    first = Move.objects.filter(game=game).order_by("seq").first()
    log = page(client, game)
    assert f'id="log-{first.seq}"' in log
    assert rows[0][1] in htmllib.unescape(log)
    # The old version's hint is gone from the page, and asking for it is dropped.
    assert "hint-moves" not in log
    old = ask_hint(client, game, version=0, **HX).content.decode()
    assert "hint-moves" not in old and "hint-error" not in old


def test_undo_from_the_page_brings_the_position_back(client, nh_variants, ann,
                                                     django_capture_on_commit_callbacks) -> None:
    client.force_login(ann)
    game = nh_game(nh_variants, ann)
    before = snapshot(game)
    harvest = next(a for a in legal_actions_json(game, 0) if a["type"] == "harvest")
    with django_capture_on_commit_callbacks(execute=True):
        act(client, game, json.dumps(harvest), "m1")
    game.refresh_from_db()
    assert game.version == 1
    html = page(client, game)
    assert 'id="undo-move"' in html
    key = re.search(r'name="key" value="([0-9a-f]{32})"><button type="submit" id="undo-move"',
                    html).group(1)
    url = reverse("practice_undo", args=[game.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"version": 1, "key": key}, follow=True)
    assert response.status_code == 200
    assert "Your last move was taken back." in response.content.decode()
    after = snapshot(game)
    assert after[1:3] == before[1:3] and after[0] == 2 and after[4] == []
    # The page is the deal again: nothing to undo, the log empty.
    html = response.content.decode()
    assert 'id="undo-move"' not in html and not re.search(r'id="log-\d', html)
    # The same form again (a double click) changes nothing.
    client.post(url, {"version": 1, "key": key})
    assert snapshot(game) == after


def test_refused_in_rated_games_and_games_with_people(client, nh_variants, ann, bob,
                                                       django_capture_on_commit_callbacks
                                                       ) -> None:
    client.force_login(ann)
    for game in (nh_game(nh_variants, ann, rated=True), nh_game(nh_variants, ann, people=(bob,))):
        harvest = next(a for a in legal_actions_json(game, 0) if a["type"] == "harvest")
        with django_capture_on_commit_callbacks(execute=True):
            act(client, game, json.dumps(harvest), f"m-{game.pk}")
        before = snapshot(game)
        url = reverse("practice_undo", args=[game.pk])
        response = client.post(url, {"version": game.version, "key": "u"}, follow=True)
        assert REFUSED in response.content.decode()
        hinted = ask_hint(client, game, **HX)
        assert hinted["X-Colonia-Error"] == "403" and REFUSED in hinted.content.decode()
        plain = ask_hint(client, game, follow=True)
        assert REFUSED in plain.content.decode()
        assert snapshot(game) == before
        assert cache.get(hint_key(game, game.version, 0)) is None


# --- the API ------------------------------------------------------------------------------


def api(user: Any) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def test_api_hint_and_undo(nh_variants, ann, django_capture_on_commit_callbacks) -> None:
    game = nh_game(nh_variants, ann)
    client = api(ann)
    base = f"/api/games/{game.pk}"
    with django_capture_on_commit_callbacks(execute=True):
        first = client.post(f"{base}/hint/", {"version": 0}, format="json")
    assert first.status_code in (200, 202), first.content
    done = client.post(f"{base}/hint/", {"version": 0}, format="json")
    assert done.status_code == 200, done.content
    body = done.json()
    assert body["status"] == "done" and body["version"] == 0 and len(body["moves"]) == 3
    legal = legal_actions_json(game, 0)
    assert all(m["action"] in legal and m["text"] and 0 <= m["win"] <= 1
               for m in body["moves"])
    harvest = next(a for a in legal if a["type"] == "harvest")
    with django_capture_on_commit_callbacks(execute=True):
        moved = client.post(f"{base}/actions/", {"action": harvest, "version": 0, "key": "m1"},
                            format="json")
    assert moved.status_code == 200
    stale = client.post(f"{base}/undo/", {"version": 0, "key": "u1"}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "stale_version"
    with django_capture_on_commit_callbacks(execute=True):
        undone = client.post(f"{base}/undo/", {"version": 1, "key": "u1"}, format="json")
    assert undone.status_code == 200, undone.content
    doc = undone.json()
    assert doc["version"] == 2 and doc["to_move"] == [0] and harvest in doc["legal_actions"]
    # A client that follows the log with ``since`` learns that it was cut: fetch it whole.
    assert doc["rewinds"] == 1
    again = client.post(f"{base}/undo/", {"version": 1, "key": "u1"}, format="json")
    assert again.status_code == 200 and again.json()["version"] == 2
    nothing = client.post(f"{base}/undo/", {"version": 2, "key": "u2"}, format="json")
    assert nothing.status_code == 409 and nothing.json()["code"] == "nothing_to_undo"


def test_api_refuses_rated_games_and_games_with_people(nh_variants, ann, bob) -> None:
    for game in (nh_game(nh_variants, ann, rated=True), nh_game(nh_variants, ann, people=(bob,))):
        before = snapshot(game)
        for path, data in (("hint", {"version": 0}), ("undo", {"version": 0, "key": "u"})):
            r = api(ann).post(f"/api/games/{game.pk}/{path}/", data, format="json")
            assert r.status_code == 403 and r.json()["code"] == "not_practice"
            assert r.json()["detail"] == REFUSED
        assert snapshot(game) == before


def test_the_panel_polls_until_the_worker_has_searched(client, nh_variants, ann, monkeypatch,
                                                        django_capture_on_commit_callbacks
                                                        ) -> None:
    """With a real worker the first answer is "searching" and the panel asks again; the
    search is queued once however often it asks; the answer comes once it is stored."""

    queued = []
    monkeypatch.setattr(tasks, "enqueue_hint", lambda *args: queued.append(args) or True)
    client.force_login(ann)
    game = nh_game(nh_variants, ann)
    for _ in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            html = ask_hint(client, game, **HX).content.decode()
        assert 'id="hint-pending"' in html and 'hx-trigger="load delay:1s"' in html
        assert "data-aside" in html  # a poll never drops the player's own requests
    assert queued == [(game.pk, 0, 0)]
    assert 'id="hint-pending"' in page(client, game)  # a reload keeps polling
    assert hints.compute_hint(*queued[0])  # the worker
    done = ask_hint(client, game, **HX).content.decode()
    assert len(hint_rows(done)) == 3 and "hx-trigger" not in done


def test_nouvelle_france_hint_and_undo(nh_variants, ann,
                                       django_capture_on_commit_callbacks) -> None:
    """The other game: its best moves (at most three: as many as are legal) in its board's
    words, and undo back to the deal."""

    load_default_variants(games=["nouvellefrance"])
    variant = Variant.objects.filter(game="nouvellefrance").order_by("pk").first()
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    game.refresh_from_db()
    # The seed decides who starts: when it is the AI, its turn is played first (a hint is
    # only for the player's own turn).
    while game.to_move and game.to_move[0] != 0:
        play_one_ai_turn(game.pk, game.version)
        game.refresh_from_db()
    deal = snapshot(game)
    start = game.version
    client = api(ann)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/api/games/{game.pk}/hint/", {"version": start}, format="json")
    body = client.post(f"/api/games/{game.pk}/hint/", {"version": start},
                       format="json").json()
    legal = legal_actions_json(game, 0)
    assert body["status"] == "done" and len(body["moves"]) == min(3, len(legal)), body
    assert all(m["action"] in legal for m in body["moves"])
    texts = [m["text"] for m in body["moves"]]
    assert all(text and "{" not in text for text in texts), texts
    # A hinted move that shows nothing new (a Huron skipped, a bonus piece placed) is
    # taken back; a draw or a Huron peek is not (tests/games/practice/test_undo_reveals.py).
    hinted = [m["action"] for m in body["moves"]]
    pure = next((a for a in hinted if a[0] not in ("draw", "huron")), None)
    with django_capture_on_commit_callbacks(execute=False):  # the AI does not answer yet
        client.post(f"/api/games/{game.pk}/actions/",
                    {"action": pure or hinted[0], "version": start, "key": "m1"},
                    format="json")
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/api/games/{game.pk}/undo/", {"version": game.version, "key": "u"},
                        format="json")
    if pure is None:
        assert r.status_code == 409 and r.json()["code"] == "undo_revealed", r.content
        return
    assert r.status_code == 200, r.content
    after = snapshot(game)
    assert after[1:3] == deal[1:3] and after[4] == deal[4]
