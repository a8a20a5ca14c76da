"""Replay every golden playthrough (regenerate: ``python -m games.engines.golden``)."""

from __future__ import annotations

import pytest

from games.engines import get_engine, golden

CASES = [(name, game) for name, games in golden.GAMES.items() for game in games]
IDS = [f"{name}-{game.stem}" for name, game in CASES]


@pytest.mark.parametrize(("name", "game"), CASES, ids=IDS)
def test_golden_replay(name, game):
    """The recorded actions replay to the recorded views, sentences and result."""
    engine = get_engine(name)
    stored = golden.load(name, game.stem)
    assert stored["game"] == name
    assert (stored["variant"], stored["players"], stored["seed"]) == game[1:4]
    state = engine.new_game(engine.default_variants()[game.variant], game.players, game.seed)
    assert golden.normalise(golden.views(engine, state, game.players)) == stored["initial"]
    for index, step in enumerate(stored["steps"]):
        seat = step["seat"]
        assert engine.to_move(state)[0] == seat, index
        action = engine.action_from_json(step["action"])
        assert action in engine.legal_actions(state, seat), index
        assert engine.describe_action(state, action) == step["text"], index
        state = engine.apply(state, seat, action)
        views = golden.normalise(golden.views(engine, state, game.players))
        assert views == step["views"], f"step {index}: {step['action']}"
    assert engine.is_over(state)
    assert engine.scores(state) == stored["scores"]
    assert engine.winners(state) == stored["winners"]


@pytest.mark.parametrize("name", sorted(golden.GAMES))
def test_the_policy_reproduces_the_file(name):
    """The files were made by the seeded policy, not edited by hand."""
    game = golden.GAMES[name][0]
    assert golden.record(get_engine(name), game) == golden.load(name, game.stem)
