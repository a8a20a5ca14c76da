"""Each game's lesson steps: the position is built, each expected move is legal there and
right, each explanation of a wrong move is given, and the lesson covers every action kind
of the game and its scoring."""

from __future__ import annotations

import pytest
from django.utils import translation
from lesson_support import taught

from games import catalogue
from games.boards.lessons import get_lesson, judge, lesson_names, matches
from games.engines import get_engine
from games.engines.protocol import EngineError

GAMES = ["newhaven", "nouvellefrance"]


def _steps():
    for game in GAMES:
        for number, step in enumerate(get_lesson(game).steps, start=1):
            yield pytest.param(game, step, id=f"{game}-{number}-{step.key}")


def _legal(engine, state, seat):
    return [engine.action_to_json(a) for a in engine.legal_actions(state, seat)]


def test_both_games_have_a_lesson():
    assert lesson_names() == GAMES


@pytest.mark.parametrize(("game", "step"), list(_steps()))
def test_each_step_has_a_right_move_and_each_expected_move_is_legal_and_right(game, step):
    engine = get_engine(game)
    state = step.state(engine)
    seat = step.seat(engine, state)
    legal = _legal(engine, state, seat)
    for expected in step.expect:
        assert list(expected) in [list(a) for a in legal] if isinstance(expected, list) \
            else expected in legal, (step.key, expected)
        outcome = judge(engine, step, state, expected)
        assert outcome.right and outcome.legal and outcome.event["type"], step.key
    right = [a for a in legal if judge(engine, step, state, a).right]
    assert right, f"{step.key}: no legal move meets the goal"
    # A right move's event is the engine's own.
    assert judge(engine, step, state, right[0]).event == engine.describe_action(
        state, engine.action_from_json(right[0]))
    for text in (step.title, step.task, step.rule, step.done):
        assert str(text).strip()


@pytest.mark.parametrize(("game", "step"), list(_steps()))
def test_each_explanation_of_a_wrong_move_is_given(game, step):
    engine = get_engine(game)
    state = step.state(engine)
    seat = step.seat(engine, state)
    legal = _legal(engine, state, seat)
    for hint in step.hints:
        if hint.legal:
            move = next((a for a in legal if matches(hint.when, a)
                         and not judge(engine, step, state, a).right
                         and step.hint(a, legal=True) == str(hint.text)), None)
            assert move is not None, f"{step.key}: no legal wrong move gets {hint.text!r}"
        else:
            move = hint.when
            assert move not in legal
        outcome = judge(engine, step, state, move)
        assert not outcome.right and outcome.legal == hint.legal
        assert outcome.explanation == str(hint.text)


@pytest.mark.parametrize("game", ["newhaven"])
def test_a_wrong_move_without_its_own_explanation_gets_the_rule(game):
    engine = get_engine(game)
    for step in get_lesson(game).steps:
        state = step.state(engine)
        seat = step.seat(engine, state)
        for move in _legal(engine, state, seat):
            if not judge(engine, step, state, move).right and not step.hint(move, legal=True):
                outcome = judge(engine, step, state, move)
                assert str(step.rule) in outcome.explanation
                return
    raise AssertionError("no wrong move gets the generic explanation")


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_move_is_refused_by_the_engine_with_the_rule(game):
    engine = get_engine(game)
    step = get_lesson(game).steps[0]
    state = step.state(engine)
    outcome = judge(engine, step, state, "nonsense")  # no engine's action
    assert not outcome.legal and not outcome.right
    assert str(step.rule) in outcome.explanation
    assert engine.observe(step.state(engine), 0) == engine.observe(state, 0)  # unchanged


def _refusal(engine, step, state, move) -> str:
    try:
        engine.apply(state, step.seat(engine, state), engine.action_from_json(move))
    except EngineError as exc:
        return str(exc)
    raise AssertionError("the engine took it")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("language", ["de", "fr", "it"])
def test_an_illegal_move_is_explained_in_the_reader_s_language(game, language):
    """The engine's refusal is English: a translated page never shows it, only the
    translated generic text and the step's rule (its own hint when it has one)."""
    engine = get_engine(game)
    step = get_lesson(game).steps[0]
    state = step.state(engine)
    refusal = _refusal(engine, step, state, "nonsense")
    with translation.override("en"):
        english = judge(engine, step, state, "nonsense").explanation
    assert refusal in english
    with translation.override(language):
        outcome = judge(engine, step, state, "nonsense")
        generic = translation.gettext("The rules do not allow that move. %(rule)s") % {
            "rule": step.rule}
        assert not outcome.legal and outcome.explanation == generic
        assert refusal not in outcome.explanation
        # The step's rule, translated (not the English rule the English text has).
        assert str(step.rule) in outcome.explanation and str(step.rule) not in english


def _listed_actions(game: str) -> set[str]:
    engine = get_engine(game)
    return set(engine.rule_data(engine.default_variants()["standard"]).get("actions") or ())


@pytest.mark.parametrize("game", [g for g in GAMES if _listed_actions(g)])
def test_the_lesson_covers_every_action_and_the_scoring(game):
    """Every action kind the game's rule data lists is a step's right move or an explained
    wrong one, and one step scores (the reader's score goes up), as the issue asks.  A game
    whose rule data lists no actions checks it in its own file (test_<game>_lesson.py)."""
    kinds, scored = taught(game)
    missing = _listed_actions(game) - kinds
    assert not missing, missing
    assert scored


def test_a_game_without_a_lesson_has_none(placegame):
    assert catalogue.entry(placegame.NAME).lessons is None
    assert get_lesson(placegame.NAME) is None
    assert placegame.NAME not in lesson_names()
