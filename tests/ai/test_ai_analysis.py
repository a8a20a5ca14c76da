"""Post-game analysis (ai.analysis): marks, summaries, and never a peek at hidden state."""

from __future__ import annotations

import math
import random

import pytest

from ai.analysis import (
    ACCURACY_A,
    ACCURACY_B,
    ACCURACY_K,
    CHANCE_FLOOR,
    MARKS,
    WEIGHT_MAX,
    WEIGHT_MIN,
    Budget,
    analyse_decision,
    analyse_moves,
    chance_lost,
    compare,
    game_accuracy,
    mark_for,
    move_accuracy,
    play_game,
    summarise,
    volatility_weights,
)
from games.engines import get_engine

TINY = Budget(iterations=24, samples=3, worlds=2)


def test_mark_thresholds() -> None:
    assert [name for name, _t in MARKS] == ["blunder", "mistake", "inaccuracy"]
    assert mark_for(0.0) is None
    assert mark_for(0.049) is None
    assert mark_for(0.05) == "inaccuracy"
    assert mark_for(0.1) == "mistake"
    assert mark_for(0.25) == "blunder"


def _game(name: str, seed: int, players: int = 2):
    engine = get_engine(name)
    variant = engine.default_variants()["standard"]
    moves = play_game(engine, variant, players, seed, bot="random")
    return engine, variant, moves


def _states(engine, variant, players, seed, moves):
    state = engine.new_game(variant, players, seed)
    states = [state]
    for seat, action in moves:
        state = engine.apply(state, seat, action)
        states.append(state)
    return states


def _twin(engine, state, seat, action, seed):
    """A state ``seat`` cannot tell from ``state`` -- before and after ``action`` -- with
    different hidden parts (another deal behind), or ``None`` when none was found."""
    seen_before = engine.observe(state, seat)
    seen_after = engine.observe(engine.apply(state, seat, action), seat)
    truth = engine.state_to_json(state)
    rng = random.Random(seed)
    for _try in range(200):
        other = engine.determinize(state, seat, rng)
        if engine.state_to_json(other) == truth:
            continue
        assert engine.observe(other, seat) == seen_before
        if engine.observe(engine.apply(other, seat, action), seat) == seen_after:
            return other
    return None


@pytest.mark.parametrize("name", ["newhaven", "nouvellefrance"])
def test_the_mover_gets_the_same_analysis_in_games_it_cannot_tell_apart(name: str) -> None:
    """Two games that look the same to the mover (same observation before and after its
    move) but differ behind (other hands, another deck order) get the same analysis."""
    engine, variant, moves = _game(name, seed=5)
    states = _states(engine, variant, 2, 5, moves)
    rng = random.Random(1)
    steps = [k for k in range(len(moves))
             if len(engine.legal_actions(states[k], moves[k][0])) > 1]
    checked = draws = 0
    for step in sorted(rng.sample(steps, 12)):
        seat, action = moves[step]
        twin = _twin(engine, states[step], seat, action, seed=step)
        if twin is None:
            continue
        ours = analyse_decision(engine, states[step], seat, action, states[step + 1],
                                step=step, budget=TINY)
        theirs = analyse_decision(engine, twin, seat, action, engine.apply(twin, seat, action),
                                  step=step, budget=TINY)
        assert ours.to_json(engine) == theirs.to_json(engine), step
        checked += 1
        draws += ours.chance
    assert checked >= 6


def test_hidden_state_is_read_only_through_determinize() -> None:
    """An engine whose hidden parts raise when read outside ``determinize`` still analyses."""
    engine, variant, moves = _game("newhaven", seed=2)
    states = _states(engine, variant, 2, 2, moves)
    step = next(k for k in range(len(moves))
                if len(engine.legal_actions(states[k], moves[k][0])) > 1)
    seat, action = moves[step]
    truth = engine.state_to_json(states[step])

    class Guard:
        """The engine, except that ``state_to_json`` / ``reveal`` of a state are refused."""

        name = engine.name

        def __getattr__(self, attr):
            if attr in ("state_to_json", "reveal"):
                raise AssertionError(f"the analysis called {attr}")
            return getattr(engine, attr)

    decision = analyse_decision(Guard(), states[step], seat, action, states[step + 1],
                                step=step, budget=TINY)
    assert engine.state_to_json(states[step]) == truth  # nothing was changed either
    assert decision.seat == seat and decision.played == action


def test_a_game_is_judged_move_by_move() -> None:
    engine, variant, moves = _game("newhaven", seed=3)
    moves = moves[:30]
    state = engine.new_game(variant, 2, 3)
    decisions = list(analyse_moves(engine, state, moves, budget=TINY))
    assert [d.step for d in decisions] == list(range(len(moves)))
    for d, (seat, action) in zip(decisions, moves, strict=True):
        assert d.seat == seat and d.played == action
        assert len(d.win) == 2 and abs(sum(d.win) - 1) < 1e-6
        assert 0 <= d.value_played <= 1 and 0 <= d.value_best <= 1
        assert d.loss >= 0
        assert d.mark == mark_for(d.loss)
        if d.forced:
            assert d.mark is None and d.best == d.played and d.choices == 1
        if d.played == d.best:
            assert d.loss == 0
        if not d.chance:
            assert d.luck == [0.0, 0.0]
        else:
            assert abs(sum(d.luck)) < 1e-6  # win chances sum to 1 before and after
    # The same analysis again, resumed half-way (as the chunked task does): the same.
    again = list(analyse_moves(engine, state, moves, budget=TINY))
    assert [d.to_json(engine) for d in again] == [d.to_json(engine) for d in decisions]
    half = 15
    mid = state
    for seat, action in moves[:half]:
        mid = engine.apply(mid, seat, action)
    resumed = list(analyse_moves(engine, mid, moves, start=half, budget=TINY,
                                 previous_win=decisions[half - 1].win))
    assert [d.to_json(engine) for d in resumed] == [d.to_json(engine)
                                                     for d in decisions[half:]]


def _lichess(points: float) -> float:
    """The documented curve: a move that lost ``points`` of win chance."""
    return min(100.0, max(0.0, ACCURACY_A * math.exp(-ACCURACY_K * points) - ACCURACY_B))


def test_summary_counts_marks_accuracy_and_luck() -> None:
    def move(seat, loss, forced=False, luck=None):
        return {"seat": seat, "loss": loss, "mark": mark_for(loss), "forced": forced,
                "chance": luck is not None, "luck": luck or [0.0, 0.0]}

    rows = summarise([
        move(0, 0.0), move(0, 0.25), move(1, 0.06), move(1, 0.12, luck=[-0.1, 0.1]),
        move(0, 0.0, forced=True, luck=[0.2, -0.2]),
    ], 2)
    assert rows[0]["decisions"] == 2 and rows[0]["blunder"] == 1
    # No win curve: every move weighs the same; the mean of the mean and the harmonic mean.
    scores = [_lichess(0), _lichess(25)]
    harmonic = 2 / sum(1 / max(1, s) for s in scores)  # a move counts at least 1 there
    assert rows[0]["accuracy"] == pytest.approx((sum(scores) / 2 + harmonic) / 2, abs=0.06)
    assert rows[0]["luck"] == pytest.approx(0.1) and rows[0]["draws"] == 1
    assert rows[1]["inaccuracy"] == 1 and rows[1]["mistake"] == 1
    scores = [_lichess(6), _lichess(12)]
    harmonic = 2 / sum(1 / max(1, s) for s in scores)
    assert rows[1]["accuracy"] == pytest.approx((sum(scores) / 2 + harmonic) / 2, abs=0.06)
    assert rows[1]["luck"] == pytest.approx(-0.1)


def test_a_moves_accuracy_falls_with_the_win_chance_it_lost() -> None:
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert move_accuracy(-0.1) == move_accuracy(0.0)  # never above 100
    assert move_accuracy(0.5) == 0.0  # never below 0
    points = [0, 0.5, 1, 2, 5, 10]
    values = [move_accuracy(p / 100) for p in points]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert values == pytest.approx([_lichess(p) for p in points])


def test_a_few_bad_moves_pull_the_game_accuracy_down() -> None:
    """The harmonic half: one blunder among good moves costs more than its share."""
    good = [100.0] * 9
    assert game_accuracy(good) == pytest.approx(100.0)
    assert game_accuracy([]) is None
    spoiled = game_accuracy([*good, 0.0])
    assert spoiled < 100 - 10 - 20  # the plain mean would be 90
    # Weights: the same moves count more where the game swings.
    assert game_accuracy([100.0, 50.0], [1.0, 3.0]) < game_accuracy([100.0, 50.0], [3.0, 1.0])


def test_moves_in_a_decided_game_weigh_least() -> None:
    """Volatility weights: a flat stretch of the seat's win curve weighs ``WEIGHT_MIN``,
    a swinging one more, never above ``WEIGHT_MAX``."""
    flat = [{"seat": 0, "win": [0.02, 0.98]}] * 30
    swing = [{"seat": 0, "win": [0.5 + 0.3 * (-1) ** i, 0.5 - 0.3 * (-1) ** i]}
             for i in range(30)]
    assert volatility_weights(flat, 0, 2)[10:] == [WEIGHT_MIN] * 20
    heavy = volatility_weights(swing, 0, 2)
    assert all(w == WEIGHT_MAX for w in heavy[10:])
    assert volatility_weights(flat + swing, 1, 2)[40] > volatility_weights(flat + swing, 1,
                                                                            2)[20]


def test_a_loss_is_the_share_of_the_win_chance_given_away() -> None:
    """Counted in points of an even game: 50% -> 40%, 10% -> 8% and 25% -> 20% all lose
    ten points; a player far behind still loses by throwing its chance away."""
    assert chance_lost(0.5, 0.4) == pytest.approx(0.10)
    assert chance_lost(0.1, 0.08) == pytest.approx(0.10)
    assert chance_lost(0.25, 0.2) == pytest.approx(0.10)
    assert chance_lost(0.04, 0.01) == pytest.approx(0.375)
    assert chance_lost(0.4, 0.5) == 0.0  # never a gain
    assert chance_lost(1e-6, 0.0) == 0.0  # below the floor: noise, not a loss
    assert chance_lost(0.9, 0.0) == pytest.approx(0.5 * (0.9 - CHANCE_FLOOR) / 0.9)


def test_moves_are_compared_in_the_same_worlds() -> None:
    """``compare`` plays every move in the same worlds with the same playouts: the same
    move twice gets the same chances, to the last digit."""
    from ai.knowledge import search_knowledge

    engine, variant, moves = _game("newhaven", seed=4)
    states = _states(engine, variant, 2, 4, moves)
    step = next(k for k in range(len(moves))
                if len(engine.legal_actions(states[k], moves[k][0])) > 3)
    seat = moves[step][0]
    legal = engine.legal_actions(states[step], seat)
    knowledge = search_knowledge(engine)
    rows = compare(engine, states[step], seat, [legal[0], legal[1], legal[0]], 6,
                   random.Random(3), knowledge)
    assert rows[0] == rows[2]
    assert all(abs(sum(r) - 1) < 1e-9 for r in rows)
    alone = compare(engine, states[step], seat, [legal[0]], 6, random.Random(3), knowledge)
    assert alone[0] == rows[0]  # the other moves change nothing in its worlds
