"""Replay every golden playthrough (regenerate: ``python -m tools.golden``)."""

from __future__ import annotations

import pytest

from games.engines import get_engine
from tools import golden

CASES = [(name, game) for name, games in golden.GAMES.items() for game in games]
IDS = [f"{name}-{game.stem}" for name, game in CASES]


@pytest.mark.parametrize(("name", "game"), CASES, ids=IDS)
def test_golden_replay(name, game):
    """The recorded actions replay to the recorded views, events and result."""
    engine = get_engine(name)
    lines = golden.load(name, game.stem)
    head, steps, final = lines[0], lines[1:-1], lines[-1]
    assert {k: v for k, v in head.items() if k != "views"} == golden.header(name, game)
    state = engine.new_game(engine.default_variants()[game.variant], game.players, game.seed)
    assert golden.normalise(golden.views(engine, state, game.players)) == head["views"]
    for index, step in enumerate(steps):
        assert step["step"] == index
        seat = step["seat"]
        assert engine.to_move(state)[0] == seat, index
        action = engine.action_from_json(step["action"])
        assert action in engine.legal_actions(state, seat), index
        assert golden.normalise(engine.describe_action(state, action)) == step["event"], index
        state = engine.apply(state, seat, action)
        views = golden.normalise(golden.views(engine, state, game.players))
        changed = sorted(k for k, d in golden.digests(views).items() if step["digests"].get(k) != d)
        assert set(step["digests"]) == set(views) and not changed, (
            f"step {index}: {step['action']}: the views of {changed} changed"
        )
        # Full views at the checkpoints (a readable diff), and only there.
        assert ("views" in step) == golden.is_checkpoint(index, len(steps) - 1), index
        if "views" in step:
            assert views == step["views"], f"step {index}: {step['action']}"
    assert engine.is_over(state)
    assert final == {"scores": engine.scores(state), "winners": engine.winners(state)}


@pytest.mark.parametrize("name", sorted(golden.GAMES))
def test_the_policy_reproduces_the_file_byte_for_byte(name):
    """The files were made by the seeded policy and ``write``, not edited by hand."""
    game = golden.GAMES[name][0]
    lines = golden.record(get_engine(name), game)
    expected = "".join(golden.dumps(line) + "\n" for line in lines)
    assert golden.path_of(name, game.stem).read_text(encoding="utf-8") == expected


def test_a_changed_view_at_any_step_fails_the_replay(monkeypatch):
    """Digests pin the views between checkpoints: a view that changes at a step without
    full views (here the spectator's after step 1, by one field) fails the replay."""
    name, game = CASES[0]
    lines = golden.load(name, game.stem)
    assert "views" not in lines[2] and golden.CHECKPOINT_EVERY > 2
    engine = get_engine(name)
    observe = engine.observe
    calls = {"n": 0}

    def altered(state, seat):
        view = observe(state, seat)
        # The spectator's view after step 1 (the header and step 0 come first).
        if seat is None:
            calls["n"] += 1
            if calls["n"] == 3:
                view = {**view, "altered": True}
        return view

    monkeypatch.setattr(engine, "observe", altered)
    with pytest.raises(AssertionError, match=r"step 1: .*\['spectator'\] changed"):
        test_golden_replay(name, game)


def test_the_format_is_one_sorted_object_per_line(tmp_path, monkeypatch):
    """Header, one line per step, final line; keys sorted so diffs stay small."""
    monkeypatch.setattr(golden, "TESTS_DIR", tmp_path)
    path = golden.write("toy", "g", [{"b": 1, "a": {"d": 2, "c": 3}}, {"step": 0}])
    assert path == tmp_path / "toy" / "golden" / "g.jsonl"
    assert path.read_text(encoding="utf-8") == '{"a":{"c":3,"d":2},"b":1}\n{"step":0}\n'
    assert golden.load("toy", "g") == [{"a": {"c": 3, "d": 2}, "b": 1}, {"step": 0}]
