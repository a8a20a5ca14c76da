"""``python -m tools.replay FILE``: a pure replay of an export (no Django)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from games.engines import get_engine
from games.engines.replay import ExportError, fold, replay_export
from tools.replay import main

ROOT = Path(__file__).resolve().parents[2]


def export_of(name: str, players: int, seed: int, *, limit: int | None = None) -> dict:
    """An export document of a random game, made with the engine alone."""
    engine = get_engine(name)
    variant = engine.default_variants()["standard"]
    rng = random.Random(seed)
    state = engine.new_game(variant, players, seed)
    rows = []
    while not engine.is_over(state) and (limit is None or len(rows) < limit):
        seat = engine.to_move(state)[0]
        action = rng.choice(engine.legal_actions(state, seat))
        rows.append({"seq": len(rows) + 1, "seat": seat, "action": engine.action_to_json(action),
                     "event": engine.describe_action(state, action)})
        state = engine.apply(state, seat, action)
    return {
        "format": 1, "game": name, "variant": variant, "players": players,
        "seats": [{"index": i, "type": "human", "username": f"p{i}", "level": None}
                  for i in range(players)],
        "seed": seed, "actions": json.loads(json.dumps(rows)),
        "_final": {"scores": engine.scores(state), "winners": engine.winners(state)},
    }


@pytest.mark.parametrize("name", ["newhaven", "nouvellefrance"])
def test_replaying_an_export_gives_the_final_scores(name):
    doc = export_of(name, 3, 17)
    replayed = replay_export(doc)
    assert replayed.over and replayed.steps == len(doc["actions"])
    assert replayed.scores == doc["_final"]["scores"]
    assert replayed.winners == doc["_final"]["winners"]


def test_fold_equals_step_by_step_apply():
    engine = get_engine("newhaven")
    doc = export_of("newhaven", 2, 3, limit=25)
    actions = [(r["seat"], engine.action_from_json(r["action"])) for r in doc["actions"]]
    state = engine.new_game(doc["variant"], 2, 3)
    for seat, action in actions:
        state = engine.apply(state, seat, action)
    assert engine.state_to_json(fold(engine, doc["variant"], 2, 3, actions)) == \
        engine.state_to_json(state)


def test_the_command_prints_the_scores(tmp_path, capsys):
    doc = export_of("newhaven", 2, 8)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    assert main([str(path)]) == 0
    out = capsys.readouterr().out
    for seat, score in enumerate(doc["_final"]["scores"]):
        assert f"seat {seat} p{seat}: {score}" in out
    assert main([str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == doc["_final"]["scores"]


def test_the_command_runs_as_a_module_without_django(tmp_path):
    doc = export_of("nouvellefrance", 2, 4)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    code = (f"import runpy, sys; sys.argv = ['replay', {str(path)!r}]; "
            "runpy.run_module('tools.replay', run_name='__main__')")
    guard = "import sys; sys.modules['django'] = None; " + code  # importing Django would fail
    done = subprocess.run([sys.executable, "-c", guard], cwd=ROOT, capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert f"{len(doc['actions'])} actions" in done.stdout


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("seed"), "missing keys: seed"),
    (lambda d: d.update(seed=None), "seed is null"),
    (lambda d: d.update(game="chess"), "unknown game"),
    (lambda d: d.update(players="two"), "players"),
    (lambda d: d.update(format=9), "unknown export format"),
    (lambda d: d["actions"][3].update(action=None), "action 4: hidden"),
    (lambda d: d["actions"][0].update(action=["nonsense"]), "action 1"),
    (lambda d: d["actions"].insert(0, dict(d["actions"][1])), "action 1"),
    (lambda d: d.update(variant=[]), "variant"),
])
def test_a_bad_export_is_refused_clearly(change, message, tmp_path, capsys):
    doc = export_of("newhaven", 2, 5, limit=10)
    change(doc)
    with pytest.raises(ExportError, match=message):
        replay_export(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    assert main([str(path)]) == 2
    assert message.split(":")[0] in capsys.readouterr().err


def test_unreadable_files(tmp_path, capsys):
    assert main([str(tmp_path / "missing.json")]) == 2
    path = tmp_path / "x.json"
    path.write_text("{not json")
    assert main([str(path)]) == 2
    path.write_text("[1, 2]")
    assert main([str(path)]) == 2
    assert "error:" in capsys.readouterr().err
