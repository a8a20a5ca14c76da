"""The lesson pages: a step drawn with the game's board, a move posted with and without
HTMX, judged and explained; reachable from the home page and the rules pages; no account
and no database."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse
from django.utils.html import escape as _escape

from games.boards.lessons import get_lesson, judge
from games.engines import get_engine

HTMX = {"HTTP_HX_REQUEST": "true"}


def escape(text) -> str:
    return str(_escape(str(text)))


def _first_wrong(game: str, number: int):
    engine = get_engine(game)
    step = get_lesson(game).steps[number - 1]
    state = step.state(engine)
    for action in engine.legal_actions(state, step.seat(engine, state)):
        move = engine.action_to_json(action)
        if not judge(engine, step, state, move).right:
            return move, judge(engine, step, state, move).explanation
    raise AssertionError("no wrong move")


def _first_right(game: str, number: int):
    engine = get_engine(game)
    step = get_lesson(game).steps[number - 1]
    state = step.state(engine)
    for action in engine.legal_actions(state, step.seat(engine, state)):
        move = engine.action_to_json(action)
        if judge(engine, step, state, move).right:
            return move
    raise AssertionError("no right move")


def _post(client, game, number, move, **extra):
    return client.post(reverse("lesson_move", args=[game, number]),
                       {"action": json.dumps(move), "version": "2", "key": "k"}, **extra)


@pytest.mark.parametrize("game", ["newhaven", "nouvellefrance"])
def test_a_lesson_starts_at_its_first_step(client, game):
    response = client.get(reverse("lesson", args=[game]))
    assert response.status_code == 302
    assert response["Location"] == reverse("lesson_step", args=[game, 1])


@pytest.mark.parametrize("game", ["newhaven", "nouvellefrance"])
def test_each_step_is_drawn_by_the_board_with_forms_posting_to_the_lesson(
        client, game, django_assert_num_queries, db):
    lesson = get_lesson(game)
    move_url = reverse("lesson_move", args=[game, 1])
    with django_assert_num_queries(0):  # no account, no database
        html = client.get(reverse("lesson_step", args=[game, 1])).content.decode()
    assert escape(lesson.steps[0].task) in html and 'id="lesson-task"' in html
    assert f'class="play play-{game}' in html  # the game's own board layout
    assert f"<h1>{escape(lesson.title)}</h1>" in html
    # A tile picked (New Haven; Nouvelle-France's Huron buttons are forms at once): the
    # board's forms post the move to the lesson.
    html = client.get(reverse("lesson_step", args=[game, 1]), {"tile": "0"}).content.decode()
    assert f'action="{move_url}"' in html and f'hx-post="{move_url}"' in html
    assert reverse("act", args=[1]) not in html  # nothing posts to a real game
    for number in range(2, len(lesson.steps) + 1):
        response = client.get(reverse("lesson_step", args=[game, number]))
        assert response.status_code == 200
        assert escape(lesson.steps[number - 1].title) in response.content.decode()


@pytest.mark.parametrize("url", ["/learn/nosuchgame/", "/learn/newhaven/0/", "/learn/newhaven/99/",
                                 "/learn/nouvellefrance/99/move/"])
def test_unknown_lessons_and_steps_are_not_found(client, url):
    response = client.post(url) if url.endswith("move/") else client.get(url)
    assert response.status_code == 404


def test_a_game_without_a_lesson_has_no_lesson_page(client, placegame):
    assert client.get(reverse("lesson", args=[placegame.NAME])).status_code == 404
    home = client.get(reverse("home")).content.decode()
    assert f'data-game="{placegame.NAME}"' in home  # still listed, without a lesson link
    assert f'data-lesson="{placegame.NAME}"' not in home and 'data-lesson="newhaven"' in home
    rules = client.get(reverse("rules", args=[placegame.NAME]))
    assert rules.status_code != 200 or 'id="rules-lesson"' not in rules.content.decode()


@pytest.mark.parametrize("game", ["newhaven", "nouvellefrance"])
def test_a_right_move_without_javascript_shows_what_happened_and_leads_on(client, game):
    move = _first_right(game, 1)
    response = _post(client, game, 1, move)
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == reverse("lesson_step", args=[game, 1])
    assert json.loads(parse_qs(location.query)["move"][0]) == move
    html = client.get(response["Location"]).content.decode()
    assert 'id="lesson-right"' in html and 'id="lesson-wrong"' not in html
    assert escape(get_lesson(game).steps[0].done) in html
    assert f'href="{reverse("lesson_step", args=[game, 2])}" id="lesson-next"' in html
    assert 'id="lesson-task"' not in html  # the position after the move: nothing to play


@pytest.mark.parametrize("game", ["newhaven", "nouvellefrance"])
def test_a_wrong_move_with_htmx_is_explained_and_may_be_tried_again(client, game):
    move, explanation = _first_wrong(game, 1)
    response = _post(client, game, 1, move, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="lesson-wrong"' in html and 'hx-swap-oob="true"' in html
    assert explanation and escape(explanation) in html
    assert 'id="lesson-task"' in html  # the same position, to try again
    assert "<html" not in html  # fragments only
    assert response["HX-Replace-Url"].startswith(reverse("lesson_step", args=[game, 1]))


def test_the_last_step_ends_the_lesson(client):
    lesson = get_lesson("newhaven")
    last = len(lesson.steps)
    move = _first_right("newhaven", last)
    html = client.get(reverse("lesson_step", args=["newhaven", last]),
                      {"move": json.dumps(move)}).content.decode()
    assert 'id="lesson-finished"' in html and 'id="lesson-next"' not in html


def test_an_illegal_move_is_refused_by_the_engine_and_explained(client):
    # The first draw must come from the market: the bag is not offered, and a crafted post
    # gets the step's own explanation.
    number = next(i for i, s in enumerate(get_lesson("newhaven").steps, start=1)
                  if s.key == "draw-market")
    html = _post(client, "newhaven", number, {"type": "draw_bag"}, **HTMX).content.decode()
    assert 'id="lesson-wrong"' in html
    assert "the first draw must come from the market" in html


def test_garbage_is_not_a_move(client):
    url = reverse("lesson_move", args=["newhaven", 1])
    response = client.post(url, {"action": "{not json"})
    assert response.status_code == 302
    assert response["Location"] == reverse("lesson_step", args=["newhaven", 1])
    response = client.post(url, {"action": "x" * 5000}, **HTMX)
    assert response["X-Colonia-Error"] == "400"
    html = client.get(reverse("lesson_step", args=["newhaven", 1]),
                      {"move": "[[[["}).content.decode()
    assert 'id="lesson-wrong"' not in html and 'id="lesson-right"' not in html


def test_picks_keep_to_the_lesson_and_answer_htmx_with_fragments(client):
    url = reverse("lesson_step", args=["newhaven", 1])
    html = client.get(url).content.decode()
    assert f'href="{url}?tile=0' in html  # the board's picks link to the lesson step
    fragments = client.get(url, {"tile": "0"}, **HTMX).content.decode()
    assert 'id="board-targets"' in fragments and "<html" not in fragments


def test_home_and_rules_pages_link_to_the_lessons(client, nh_variants):
    home = client.get(reverse("home")).content.decode()
    for game in ("newhaven", "nouvellefrance"):
        assert f'href="{reverse("lesson", args=[game])}"' in home
        rules = client.get(reverse("rules", args=[game])).content.decode()
        assert f'href="{reverse("lesson", args=[game])}" id="rules-lesson"' in rules
