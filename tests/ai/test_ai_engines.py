"""The AI on the real engines.

Budgets are tiny: these check legality, determinism and never-peek, not strength.
"""

from __future__ import annotations

import random

import pytest

import ai
from ai.ismcts import search
from ai.knowledge import get_knowledge


def load(name: str):
    from games.engines import get_engine

    return get_engine(name)


GAMES = ["newhaven", "nouvellefrance"]


def positions(
    engine, players: int, count: int, seed: int, variant_name: str = "standard"
) -> list[tuple[object, int]]:
    """Positions with a real choice, spread over seeded random games."""
    rng = random.Random(seed)
    variant = engine.default_variants()[variant_name]
    found = []
    game = 0
    while len(found) < count:
        state = engine.new_game(variant, players, seed + game)
        game += 1
        ply = 0
        while not engine.is_over(state):
            seat = engine.to_move(state)[0]
            actions = engine.legal_actions(state, seat)
            if len(actions) > 1 and rng.random() < 0.08:
                found.append((state, seat))
            state = engine.apply(state, seat, rng.choice(actions))
            ply += 1
    return found[:count]


@pytest.mark.parametrize("game", GAMES)
def test_knowledge_is_registered(game):
    engine = load(game)
    assert type(get_knowledge(engine)).__module__ == f"ai.{game}"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_baselines_and_search_stay_legal(game, players):
    engine = load(game)
    for index, (state, seat) in enumerate(positions(engine, players, 8, seed=players)):
        legal = engine.legal_actions(state, seat)
        for level in ("random", "greedy"):
            assert ai.choose_action(engine, state, seat, level, seed=index) in legal
        assert search(engine, state, seat, 25, seed=index).action in legal


@pytest.mark.parametrize("game", GAMES)
def test_every_default_variant_is_playable_by_the_ai(game):
    engine = load(game)
    for name in engine.default_variants():
        for index, (state, seat) in enumerate(positions(engine, 3, 3, 23, name)):
            legal = engine.legal_actions(state, seat)
            assert ai.choose_action(engine, state, seat, "greedy", seed=index) in legal
            assert search(engine, state, seat, 15, seed=index).action in legal


@pytest.mark.parametrize("game", GAMES)
def test_evaluator_is_a_value_per_seat(game):
    engine = load(game)
    knowledge = get_knowledge(engine)
    for state, _seat in positions(engine, 3, 6, seed=7):
        values = knowledge.evaluate(engine, state)
        assert len(values) == 3 and all(0.0 <= v <= 1.0 for v in values)


@pytest.mark.parametrize("game", GAMES)
def test_search_is_deterministic_for_a_seed(game):
    engine = load(game)
    for state, seat in positions(engine, 2, 3, seed=11):
        first = search(engine, state, seat, 30, seed=5)
        second = search(engine, state, seat, 30, seed=5)
        assert first.action == second.action
        assert [(s.action, s.visits) for s in first.stats] == [
            (s.action, s.visits) for s in second.stats
        ]


class Watched:
    """An engine proxy that fails when the true state reaches anything but the allowed calls."""

    ALLOWED = {"determinize", "legal_actions", "to_move"}

    def __init__(self, engine, state, seat):
        self._engine, self._state, self._seat = engine, state, seat
        self.name = engine.name
        self.calls: list[str] = []

    def __getattr__(self, attr):
        method = getattr(self._engine, attr)

        def call(*args, **kwargs):
            if any(a is self._state for a in args):
                self.calls.append(attr)
                assert attr in self.ALLOWED, f"the search read the true state via {attr}"
                if attr in ("legal_actions", "determinize"):
                    assert args[1] == self._seat, f"{attr} for another seat"
            return method(*args, **kwargs)

        return call


@pytest.mark.parametrize("game", GAMES)
def test_search_touches_the_true_state_only_through_determinize(game):
    engine = load(game)
    for index, (state, seat) in enumerate(positions(engine, 3, 4, seed=19)):
        watched = Watched(engine, state, seat)
        for level in ("greedy", "easy"):
            assert ai.choose_action(watched, state, seat, level, seed=index) in (
                engine.legal_actions(state, seat)
            )
        assert "determinize" in watched.calls


@pytest.mark.parametrize("game", GAMES)
def test_never_peeks(game):
    """Two states the seat cannot tell apart give the same action for one seed."""
    engine = load(game)
    compared = 0
    for index, (state, seat) in enumerate(positions(engine, 3, 6, seed=13)):
        one = engine.determinize(state, seat, random.Random(1000 + index))
        two = engine.determinize(state, seat, random.Random(2000 + index))
        assert engine.observe(one, seat) == engine.observe(two, seat)
        if engine.state_to_json(one) == engine.state_to_json(two):
            continue
        compared += 1
        assert search(engine, one, seat, 25, seed=index).action == search(
            engine, two, seat, 25, seed=index
        ).action
        assert ai.choose_action(engine, one, seat, "greedy", seed=index) == ai.choose_action(
            engine, two, seat, "greedy", seed=index
        )
    assert compared >= 3


@pytest.mark.parametrize("game", GAMES)
def test_analyse_lists_every_legal_action_once(game):
    engine = load(game)
    state, seat = positions(engine, 2, 1, seed=17)[0]
    ranked = ai.analyse(engine, state, seat, 20)
    actions = [a for a, _p, _v in ranked]
    assert sorted(map(repr, actions)) == sorted(map(repr, engine.legal_actions(state, seat)))
    assert sum(v for _a, _p, v in ranked) == 20
    visits = [v for _a, _p, v in ranked]
    assert visits == sorted(visits, reverse=True)


def _finish_without_building(engine, state):
    """Play to the end with every later build declined: the score is then settled."""
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        actions = engine.legal_actions(state, seat)
        declines = [a for a in actions if a[0] in ("pass", "end_build")]
        state = engine.apply(state, seat, (declines or actions)[0])
    return state


def _last_build_deciding_the_game(engine):
    """A late New Haven build decision where exactly one action wins (found in random games)."""
    variant = engine.default_variants()["standard"]
    for game in range(300):
        rng = random.Random(game)
        state = engine.new_game(variant, 2, game)
        history = []
        while not engine.is_over(state):
            seat = engine.to_move(state)[0]
            actions = engine.legal_actions(state, seat)
            history.append((state, seat, actions))
            state = engine.apply(state, seat, rng.choice(actions))
        for position, seat, actions in history[-12:]:
            if len(actions) < 3 or not any(a[0] == "build" for a in actions):
                continue
            wins = [
                a
                for a in actions
                if seat in engine.winners(
                    _finish_without_building(engine, engine.apply(position, seat, a))
                )
            ]
            if len(wins) == 1:
                return position, seat, wins[0]
    pytest.fail("no deciding position found in the seeded games")


def test_analyse_finds_the_winning_build_in_new_haven():
    engine = load("newhaven")
    state, seat, winning = _last_build_deciding_the_game(engine)
    ranked = ai.analyse(engine, state, seat, 200)
    assert ranked[0][0] == winning
    assert ranked[0][1] > 0.5


@pytest.mark.parametrize("players", [2, 3])
def test_nouvellefrance_placement_gains_count_what_the_engine_scores(players):
    """Without storm points a placement's gain is the engine's points plus a character taken."""
    from ai.nouvellefrance import StrongNouvelleFranceKnowledge

    engine = load("nouvellefrance")
    knowledge = StrongNouvelleFranceKnowledge()
    knowledge.gain_storm_weight = 0.0
    checked = 0
    for state, seat in positions(engine, players, 40, seed=31):
        actions = [a for a in engine.legal_actions(state, seat) if a[0] in ("place", "bonus")]
        if not actions:
            continue
        gains = knowledge.placement_gains(engine, state, seat, actions)
        before = engine.observe(state, None)["sites"]
        for action in actions[::7]:
            after_state = engine.apply(state, seat, action)
            after = engine.observe(after_state, None)["sites"]
            taken = sum(
                a["character_bonus"] for a, b in zip(after, before, strict=True)
                if a["character_holder"] != b["character_holder"]
            )
            points = engine.scores(after_state)[seat] - engine.scores(state)[seat]
            assert gains[action] == points + taken, action
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("players", [2, 3])
def test_nouvellefrance_placement_gains_count_the_storm_points_a_piece_will_earn(players):
    """The storm term: the points every storm still to come gives for the placed cubes
    (the engine's own ``storm_points``), the seat's own minus the mean of the others'."""
    from ai.nouvellefrance import StrongNouvelleFranceKnowledge
    from games.engines.nouvellefrance.rules import storm_points

    engine = load("nouvellefrance")
    with_storms, without = StrongNouvelleFranceKnowledge(), StrongNouvelleFranceKnowledge()
    without.gain_storm_weight = 0.0
    checked = nonzero = 0
    for state, seat in positions(engine, players, 40, seed=37):
        actions = [a for a in engine.legal_actions(state, seat) if a[0] in ("place", "bonus")]
        if not actions:
            continue
        gains = with_storms.placement_gains(engine, state, seat, actions)
        base = without.placement_gains(engine, state, seat, actions)
        for action in actions[::7]:
            after = engine.apply(state, seat, action)
            earned = [0] * players
            for k in range(state.storms + 1, 4):
                for now, then in zip(storm_points(after, k), storm_points(state, k),
                                     strict=True):
                    for who in range(players):
                        earned[who] += now[who] - then[who]
            others = (sum(earned) - earned[seat]) / (players - 1)
            assert gains[action] - base[action] == pytest.approx(earned[seat] - others), action
            checked += 1
            nonzero += earned != [0] * players
    assert checked > 20 and nonzero > 10
