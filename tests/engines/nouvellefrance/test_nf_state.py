"""The state: copy, key and equality, and its versioned, validated JSON form."""

from __future__ import annotations

import copy
import json
import random

import pytest
from nf_helpers import E, edit, new, play_random

from games.engines.nouvellefrance.state import PHASES, STATE_FORMAT, State
from games.engines.protocol import EngineError


def _mid_game(seed: int = 4) -> State:
    s = new("standard", 3, seed)
    for _b, _seat, _a, t in play_random(s, random.Random(seed)):
        if t.phase == "place" and t.storms >= 1:
            return t
    raise AssertionError("no such position")


def test_json_has_the_format_and_round_trips() -> None:
    s = _mid_game()
    data = E.state_to_json(s)
    assert data["format"] == STATE_FORMAT and data["phase"] in PHASES
    back = E.state_from_json(json.loads(json.dumps(data)))
    assert back == s and back.key() == s.key()
    assert E.state_to_json(back) == data
    assert E.legal_actions(back, back.active) == E.legal_actions(s, s.active)


def test_key_and_equality_see_every_field() -> None:
    s = _mid_game()
    assert s.copy() == s and s.copy().key() == s.key()
    assert edit(s, points=s.points + 1) != s
    assert edit(s, known=(1, 0, 0)) != s
    other = E.new_game({**E.default_variants()["standard"], "name": "other"}, 3, 4)
    assert other != new("standard", 3, 4)  # same play, another variant


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(format=0), "format 0"),
        (lambda d: d.pop("format"), "format None"),
        (lambda d: d.update(num_players=7), "num_players"),
        (lambda d: d.pop("deck"), "deck: missing"),
        (lambda d: d.update(phase="step"), "phase"),
        (lambda d: d["heights"][0].append(0), "heights[0]"),
        (lambda d: d["heights"][1].__setitem__(0, 4), "heights[1]"),
        (lambda d: d["cubes"][0].append([99, 99, 1, 0]), "not over the footprint"),
        (lambda d: d["cubes"][0].append([0, 0, 3, 0]), "cubes[0] level"),
        (lambda d: d.update(deck=[*d["deck"], 3]), "deck_piles"),
        (lambda d: d.update(scores=[0, 0]), "scores"),
        (lambda d: d.update(active=3), "active"),
        (lambda d: d.update(over="no"), "over"),
        (lambda d: d["bonus"][0].__setitem__(0, "lost"), "bonus[0]"),
        (lambda d: d.update(sticks=[0, 0, 1]), "sticks"),
        (lambda d: d.update(pending_card=-1), "pending_card"),
        (lambda d: d.update(huron_queue=[5]), "huron_queue"),
        (lambda d: d["variant"]["sites"][0].update(height_limit=0), "variant"),
        (lambda d: d.update(discard=d["discard"][1:]), "do not add up"),
        (lambda d: d.update(ready=[[True, True]] * 3), "ready[0]"),
    ],
)
def test_malformed_state_json_is_refused_with_the_field(change, words: str) -> None:
    s = _mid_game()
    data = copy.deepcopy(E.state_to_json(s))
    data["cubes"][0] = [c for c in data["cubes"][0] if not (c[0] == 0 and c[1] == 0)]
    data["heights"][0][s.compiled.sites[0].index[(0, 0)]] = 0
    E.state_from_json(copy.deepcopy(data))  # the clean-up itself is valid
    change(data)
    with pytest.raises(EngineError, match=words.replace("[", r"\[").replace("]", r"\]")):
        E.state_from_json(data)


@pytest.mark.parametrize("garbage", [None, [], "state", 3, {"format": STATE_FORMAT}])
def test_garbage_state_json_is_refused(garbage) -> None:
    with pytest.raises(EngineError):
        E.state_from_json(garbage)


def test_the_previous_unversioned_layout_is_refused() -> None:
    """States stored before the format number (``step``, no ``format``) must be replayed."""
    data = E.state_to_json(new())
    del data["format"]
    data["step"] = data.pop("phase")
    with pytest.raises(EngineError, match="replayed"):
        E.state_from_json(data)
