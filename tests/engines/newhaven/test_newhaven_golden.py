"""Replay the golden playthroughs (regenerate: ``python -m games.engines.newhaven.golden``)."""

from __future__ import annotations

import json

import pytest
from newhaven_helpers import E

from games.engines.newhaven import golden


@pytest.mark.parametrize("stem, variant, players, seed, policy_seed", golden.GAMES)
def test_golden_replay(stem, variant, players, seed, policy_seed):
    record = golden.load(stem)
    assert (record["variant"], record["players"], record["seed"]) == (variant, players, seed)
    state = E.new_game(E.default_variants()[variant], players, seed)
    seats = [*range(players), None]
    assert [E.observe(state, s) for s in seats] == record["initial_views"]
    for index, step in enumerate(record["steps"]):
        seat = step["seat"]
        assert E.to_move(state) == [seat], index
        action = E.action_from_json(step["action"])
        assert action in E.legal_actions(state, seat), index
        assert E.describe_action(state, action) == step["text"], index
        state = E.apply(state, seat, action)
        # Views went through JSON in the file: compare JSON-normalised data.
        views = json.loads(json.dumps([E.observe(state, s) for s in seats]))
        assert views == step["views"], index
    assert E.is_over(state)
    assert E.scores(state) == record["scores"]
    assert E.winners(state) == record["winners"]


def test_golden_policy_reproduces_the_file():
    stem, variant, players, seed, policy_seed = golden.GAMES[0]
    again = json.loads(json.dumps(golden.play(variant, players, seed, policy_seed)))
    assert again == golden.load(stem)
