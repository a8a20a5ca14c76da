"""Post-game analysis through the web layer: service, task, API, panel, sweep, access."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

import ai
from games.analysis import tasks as analysis
from games.analysis.errors import GameNotFinished
from games.analysis.graph import win_graph
from games.analysis.runner import run_analysis_chunk
from games.analysis.services import request_analysis, sweep_stalled_analyses
from games.analysis.tasks import analyse_game
from games.core.services import submit_action
from games.engines import get_engine
from games.live import broadcast
from games.models import Analysis, Game, Variant
from games.tables.services import create_game, join_game, resign_game

pytestmark = pytest.mark.django_db


def client_for(user: Any | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def running_game(variant: Variant, ann: Any, bob: Any) -> Game:
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    return game


def finish(game: Game, users: dict[int, Any]) -> Game:
    """Play the toy game to its end (always the first card; ``None``: an AI's seat)."""
    while game.status == Game.Status.RUNNING:
        seat = game.to_move[0]
        game = submit_action(game=game, user=users[seat], seat=seat,
                                      action={"play": 0}, version=game.version,
                                      key=f"k{game.version}", ai=users[seat] is None)
    return game


@pytest.fixture
def finished(variant: Variant, ann: Any, bob: Any) -> Game:
    game = finish(running_game(variant, ann, bob), {0: ann, 1: bob})
    assert game.status == Game.Status.FINISHED and game.moves.count() == 6
    return game


URL = "/api/games/{}/analysis/"


# --- access ---------------------------------------------------------------------------------


def test_a_player_queues_it_and_reads_the_result(finished: Game, ann: Any, eve: Any,
                                                 on_commit: Any) -> None:
    with on_commit():
        r = client_for(ann).post(URL.format(finished.pk), {}, format="json")
    assert r.status_code == 202, r.content
    assert r.json()["status"] in ("queued", "done")
    # Anyone may read a finished game's analysis (every action is public by then).
    for reader in (client_for(eve), APIClient()):
        doc = reader.get(URL.format(finished.pk)).json()
        assert doc["status"] == "done" and doc["progress"] == 1
        assert doc["total"] == doc["done"] == 6
        assert [m["step"] for m in doc["moves"]] == list(range(6))
        assert [m["seat"] for m in doc["moves"]] == [0, 1, 0, 1, 0, 1]
        assert [m["played"] for m in doc["moves"]] == [{"play": 0}] * 6
        assert len(doc["summary"]) == 2 and doc["summary"][0]["seat"] == 0
        assert doc["budget"]["iterations"] == 8  # the tiny test budget (settings)


def test_the_stored_analysis_is_reused_and_rerun_only_on_request(
    finished: Game, ann: Any, on_commit: Any
) -> None:
    with on_commit():
        client_for(ann).post(URL.format(finished.pk), {}, format="json")
    first = Analysis.objects.get(game=finished)
    assert first.status == Analysis.Status.DONE and first.run == 1
    r = client_for(ann).post(URL.format(finished.pk), {}, format="json")
    assert r.status_code == 200
    assert Analysis.objects.get(game=finished).run == 1
    with on_commit():
        r = client_for(ann).post(URL.format(finished.pk), {"rerun": True}, format="json")
    assert r.status_code == 202
    again = Analysis.objects.get(game=finished)
    assert again.run == 2 and again.status == Analysis.Status.DONE
    assert again.moves == first.moves  # the same seeds: the same judgement


def test_only_players_and_staff_may_start_it(finished: Game, eve: Any, make_user: Any,
                                            on_commit: Any) -> None:
    r = client_for(eve).post(URL.format(finished.pk), {}, format="json")
    assert r.status_code == 403 and r.json()["code"] == "analysis_forbidden"
    r = APIClient().post(URL.format(finished.pk), {}, format="json")
    assert r.status_code == 401 and set(r.json()) >= {"detail", "code"}
    assert not Analysis.objects.exists()
    staff = make_user("sam")
    staff.is_staff = True
    staff.save()
    with on_commit():
        r = client_for(staff).post(URL.format(finished.pk), {}, format="json")
    assert r.status_code == 202


@pytest.mark.parametrize("rule", [Game.DepartureRule.LOSE, Game.DepartureRule.AI])
def test_a_player_who_resigned_may_start_it(variant: Variant, ann: Any, bob: Any, eve: Any,
                                           client: Any, on_commit: Any, rule: str) -> None:
    """Everyone who sat at the table may start the analysis: a resigner too, whether the
    resignation ended the game ("lose") or the AI played the seat to the end ("ai")."""
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2,
                       departure_rule=rule)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    game = submit_action(game=game, user=ann, seat=0, action={"play": 0},
                         version=game.version, key="k0")
    resign_game(game=game, user=bob)
    game.refresh_from_db()
    if game.status == Game.Status.RUNNING:  # the AI plays bob's seat on
        game = finish(game, {0: ann, 1: None})
    assert game.status == Game.Status.FINISHED
    seat = game.seats.get(index=1)
    assert seat.user_id is None and seat.left_user_id == bob.pk
    # The page offers bob the button, not eve (who never sat there).
    client.force_login(eve)
    assert 'id="analysis-start"' not in panel(client, game)
    client.force_login(bob)
    assert 'id="analysis-start"' in panel(client, game)
    r = client_for(eve).post(URL.format(game.pk), {}, format="json")
    assert r.status_code == 403 and r.json()["code"] == "analysis_forbidden"
    with on_commit():
        r = client_for(bob).post(URL.format(game.pk), {}, format="json")
    assert r.status_code == 202, r.content
    assert Analysis.objects.get(game=game).status == Analysis.Status.DONE
    # And through the page's button (the service behind it).
    with on_commit():
        r = client.post(f"/games/{game.pk}/analysis/start/", {"rerun": "1"},
                        HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and "X-Colonia-Error" not in r
    assert Analysis.objects.get(game=game).run == 2


def test_running_games_are_never_analysed(variant: Variant, ann: Any, bob: Any) -> None:
    game = running_game(variant, ann, bob)
    r = client_for(ann).post(URL.format(game.pk), {}, format="json")
    assert r.status_code == 409 and r.json()["code"] == "game_not_finished"
    with pytest.raises(GameNotFinished):
        request_analysis(game=game, user=ann)
    assert not Analysis.objects.exists()


def test_errors_have_the_api_shape(finished: Game, ann: Any) -> None:
    r = APIClient().get(URL.format(finished.pk))
    assert r.status_code == 404 and r.json()["code"] == "not_analysed"
    r = APIClient().get(URL.format(finished.pk + 999))
    assert r.status_code == 404 and "detail" in r.json()
    r = client_for(ann).post(URL.format(finished.pk), {"rerun": "maybe"}, format="json")
    assert r.status_code == 400 and "rerun" in r.json()["errors"]


def test_the_schema_documents_the_route(db: None) -> None:
    r = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    route = r.json()["paths"]["/api/games/{game_id}/analysis/"]
    assert {"200", "202", "403", "409"} <= set(route["post"]["responses"])
    assert {"200", "404"} <= set(route["get"]["responses"])


# --- the task, resumption and recovery ------------------------------------------------------


def test_chunks_resume_where_the_last_one_stopped(finished: Game, ann: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "enqueue_chunk", lambda *_a: True)  # no worker: run by hand
    found, queued = request_analysis(game=finished, user=ann)
    assert queued and found.status == Analysis.Status.QUEUED
    # A zero-second chunk judges one move and stores it.
    assert run_analysis_chunk(analysis_id=found.pk, seconds=0) is True
    found.refresh_from_db()
    assert found.status == Analysis.Status.RUNNING and found.done == 1
    assert len(found.moves) == 1 and found.attempts == 0
    # A chunk of another run stores nothing.
    assert run_analysis_chunk(analysis_id=found.pk, run=found.run + 1) is False
    found.refresh_from_db()
    assert found.done == 1
    while run_analysis_chunk(analysis_id=found.pk, run=found.run, seconds=0):
        pass
    found.refresh_from_db()
    assert found.status == Analysis.Status.DONE and found.done == 6
    assert [m["step"] for m in found.moves] == list(range(6))


def test_a_stalled_analysis_is_queued_again_by_the_sweep(
    finished: Game, ann: Any, monkeypatch: pytest.MonkeyPatch, on_commit: Any
) -> None:
    """A worker that died mid-analysis leaves it ``running``: the sweep picks it up."""
    queued: list = []
    monkeypatch.setattr(analysis, "enqueue_chunk", lambda *a: queued.append(a) or True)
    found, _ = request_analysis(game=finished, user=ann)
    run_analysis_chunk(analysis_id=found.pk, seconds=0)  # one chunk, then "dies"
    queued.clear()
    assert sweep_stalled_analyses() == 0  # fresh: nothing to do
    Analysis.objects.filter(pk=found.pk).update(
        updated_at=timezone.now() - timedelta(seconds=3600))
    assert sweep_stalled_analyses() == 1
    assert queued == [(found.pk, found.run)]
    assert sweep_stalled_analyses() == 0  # once per stall period
    monkeypatch.undo()

    analyse_game.delay(found.pk, found.run)  # what the queued task does (eagerly)
    found.refresh_from_db()
    assert found.status == Analysis.Status.DONE and found.done == 6


def test_a_chunk_that_keeps_killing_its_worker_fails_the_analysis(
    finished: Game, ann: Any, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    monkeypatch.setattr(analysis, "enqueue_chunk", lambda *_a: True)
    found, _ = request_analysis(game=finished, user=ann)
    # Each delivery takes the chunk up and dies before storing it.
    Analysis.objects.filter(pk=found.pk).update(attempts=settings.ANALYSIS_MAX_ATTEMPTS)
    assert run_analysis_chunk(analysis_id=found.pk) is False
    found.refresh_from_db()
    assert found.status == Analysis.Status.FAILED and "too often" in found.error
    doc = APIClient().get(URL.format(finished.pk)).json()
    assert doc["status"] == "failed" and "error" not in doc
    # Asking again starts it over.
    monkeypatch.undo()
    found, queued = request_analysis(game=finished, user=ann)
    assert queued and found.run == 2


def test_an_engine_error_fails_the_analysis(finished: Game, ann: Any,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a, **_k):
        raise RuntimeError("engine broke")
        yield  # pragma: no cover

    monkeypatch.setattr(ai.analysis, "analyse_moves", boom)
    monkeypatch.setattr(analysis, "enqueue_chunk", lambda *_a: True)
    found, _ = request_analysis(game=finished, user=ann)
    assert run_analysis_chunk(analysis_id=found.pk) is False
    found.refresh_from_db()
    assert found.status == Analysis.Status.FAILED and "engine broke" in found.error


def test_progress_hints_carry_numbers_only(finished: Game, ann: Any, on_commit: Any,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple] = []
    monkeypatch.setattr(broadcast, "_send", lambda group, msg: sent.append((group, msg)))
    with on_commit():
        request_analysis(game=finished, user=ann)
    hints = [m for g, m in sent if g == f"analysis-{finished.pk}"]
    assert hints[0]["status"] == "queued" and hints[-1]["status"] == "done"
    assert hints[-1]["done"] == hints[-1]["total"] == 6
    for hint in hints:
        assert set(hint) == {"type", "game_id", "done", "total", "status"}


# --- the panel --------------------------------------------------------------------------------


def panel(client: Any, game: Game, query: str = "") -> str:
    r = client.get(f"/games/{game.pk}/analysis/{query}", HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    return r.content.decode()


def test_panel_offers_the_start_button_to_players_only(finished: Game, ann: Any, eve: Any,
                                                       client: Any) -> None:
    assert 'id="analysis-start"' not in panel(client, finished)
    client.force_login(eve)
    assert 'id="analysis-start"' not in panel(client, finished)
    client.force_login(ann)
    assert 'id="analysis-start"' in panel(client, finished)
    r = client.get(f"/games/{finished.pk}/analysis/?step=3")
    assert r.status_code == 302 and r["Location"].endswith(f"/games/{finished.pk}/replay/?step=3")


def test_panel_start_then_graph_with_links_to_steps(finished: Game, ann: Any, eve: Any,
                                                   client: Any, on_commit: Any) -> None:
    client.force_login(eve)
    r = client.post(f"/games/{finished.pk}/analysis/start/", {"step": 2},
                    HTTP_HX_REQUEST="true")
    assert r["X-Colonia-Error"] == "403" and 'id="analysis-error"' in r.content.decode()
    client.force_login(ann)
    with on_commit():
        r = client.post(f"/games/{finished.pk}/analysis/start/", {"step": 2, "seat": 1},
                        HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    html = panel(client, finished, "?step=2&seat=1")
    assert 'id="analysis-graph"' in html and "<svg" in html
    steps = set(re.findall(r'href="/games/\d+/replay/\?step=(\d+)&amp;seat=1"', html))
    assert steps == {str(k) for k in range(7)}
    assert 'class="graph-current"' in html or 'graph-current' in html
    assert 'id="analysis-move" data-step="2"' in html
    assert 'id="analysis-summary"' in html and html.count("<tr data-seat=") == 2
    assert "style=" not in html  # the CSP allows no inline styles


def test_the_panel_explains_the_formula_and_the_marks(finished: Game, ann: Any, client: Any,
                                                      on_commit: Any) -> None:
    """Like lichess's accuracy page: the formula with its numbers and the marks'
    thresholds, from ``ai.analysis`` (so the text follows the code), in the reader's
    language."""
    import ai.analysis as pure

    client.force_login(ann)
    with on_commit():
        client.post(f"/games/{finished.pk}/analysis/start/", HTTP_HX_REQUEST="true")
    html = panel(client, finished)
    method = html[html.index('id="analysis-method"'):html.index("</details>")]
    assert "How accuracy is computed" in method
    assert f"{pure.ACCURACY_A:.2f} × e<sup>−{pure.ACCURACY_K:.4g} × d</sup>" in method
    assert "d = 50 × (B − P) ÷ B" in method and "harmonic mean" in method
    thresholds = [f"{100 * loss:g}" for _name, loss in reversed(pure.MARKS)]
    assert (f"at least d = {thresholds[0]} points against the best move found, a mistake "
            f"{thresholds[1]}, a blunder {thresholds[2]}") in method
    assert f"under {100 * pure.CHANCE_FLOOR:g}% count" in method
    html = client.get(f"/games/{finished.pk}/analysis/", HTTP_HX_REQUEST="true",
                      HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Wie die Genauigkeit berechnet wird" in html and "harmonische Mittel" in html


def test_panel_progress_part_while_running(finished: Game, ann: Any, client: Any,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "enqueue_chunk", lambda *_a: True)
    request_analysis(game=finished, user=ann)
    html = panel(client, finished)
    assert 'id="analysis-progress"' in html and 'ws-connect="/ws/games/' in html
    part = panel(client, finished, "?part=progress")
    assert part.strip().startswith('<div id="analysis-progress"')
    assert 'data-status="queued"' in part and 'hx-trigger="every 5s"' in part


def test_the_graph_has_one_click_target_per_step_titled_with_its_mark() -> None:
    """Lines, dots and diamonds only draw; the step bands are the top layer and the only
    links (a dot over a band used to take the click meant for the band)."""
    from xml.etree import ElementTree


    moves = [{"seat": 0, "step": 0, "win": [0.6, 0.4]},
             {"seat": 1, "step": 1, "win": [0.8, 0.2], "mark": "blunder", "loss": 0.23},
             {"seat": 0, "step": 2, "win": [0.7, 0.3], "chance": True, "luck": [0.05, -0.05]}]
    html = str(win_graph(moves, num_players=2, total=3, names=["Ann", "Bob"],
                         link=lambda k: f"?step={k}", current=2))
    root = ElementTree.fromstring(html)
    layers = list(root)
    assert layers[-1].get("class") == "graph-steps"  # drawn last: on top
    for layer in layers[:-1]:
        assert layer.get("pointer-events") == "none"
    links = root.findall(".//a")
    assert [a.get("data-step") for a in links] == ["0", "1", "2", "3"]
    assert all(a.get("class") == "graph-step" for a in links)
    mark = root.find(".//*[@data-mark]")
    assert mark is not None and mark.tag == "circle"
    assert mark.get("class") == "graph-mark mark-blunder" and mark.get("data-step") == "2"
    titles = {a.get("data-step"): a.findtext("title") for a in links}
    assert titles == {"0": "Start", "1": "Move 1", "2": "Move 2, Bob: blunder (23% lost)",
                      "3": "Move 3, Ann drew: luck +5%"}
    assert root.find(".//*[@class='graph-current']") is not None


# --- the replay page's slot ---------------------------------------------------------------


def test_the_replay_page_of_a_finished_game_holds_the_panel(ann: Any, bob: Any, eve: Any,
                                                            client: Any, on_commit: Any) -> None:
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "colonia_tests_replay_support", Path(__file__).parents[1] / "replay_support.py")
    support = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(support)

    variant = get_engine("newhaven").default_variants()["standard"]
    actions = support.random_actions("newhaven", variant, 2, seed=3, rng_seed=2)
    game = support.store_game("newhaven", variant, [ann, bob], 3, actions)
    running = support.store_game("newhaven", variant, [ann, bob], 3, actions[:20])

    client.force_login(ann)
    html = client.get(f"/games/{running.pk}/replay/?step=3&seat=0").content.decode()
    assert 'id="analysis-body"' not in html  # mid-game: no analysis at all
    html = client.get(f"/games/{game.pk}/replay/?step=3&seat=0").content.decode()
    assert 'id="analysis-start"' in html and 'hx-push-url="false"' in html
    with on_commit():
        r = client.post(f"/games/{game.pk}/analysis/start/", {"step": 7, "seat": "all"})
    assert r.status_code == 302 and r["Location"].endswith("?step=7&seat=all")
    html = client.get(r["Location"]).content.decode()
    assert 'id="analysis-graph"' in html and 'id="analysis-move" data-step="7"' in html
    assert f'href="/games/{game.pk}/replay/?step={len(actions)}&amp;seat=all"' in html
    # HTMX stepping re-sends the slot with the panel at the new step.
    html = client.get(f"/games/{game.pk}/replay/?step=9&seat=all",
                      HTTP_HX_REQUEST="true").content.decode()
    assert 'id="analysis-move" data-step="9"' in html
    client.force_login(eve)  # a spectator reads it, and cannot start it again
    html = client.get(f"/games/{game.pk}/replay/?step=9").content.decode()
    assert 'id="analysis-graph"' in html and 'id="analysis-rerun"' not in html
