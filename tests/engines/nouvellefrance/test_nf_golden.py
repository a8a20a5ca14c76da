"""Replay the golden playthroughs and compare every recorded detail."""

from __future__ import annotations

import json

import pytest

from games.engines.nouvellefrance.golden import GAMES, load, record


@pytest.mark.parametrize(("stem", "variant", "players", "seed", "policy_seed"), GAMES)
def test_golden_replay(stem: str, variant: str, players: int, seed: int, policy_seed: int) -> None:
    expected = load(stem)
    # Compare through JSON so tuples/lists and key types match the stored file.
    actual = json.loads(json.dumps(record(variant, players, seed, policy_seed)))
    assert len(actual["steps"]) == len(expected["steps"])
    for i, (a, e) in enumerate(zip(actual["steps"], expected["steps"], strict=True)):
        assert a == e, f"step {i} differs: {a['action']} vs {e['action']}"
    assert actual == expected
