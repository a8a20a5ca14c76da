"""Property tests over random legal play: 2/3/4 players x each default variant."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nf_helpers import E, new, play_random

from games.engines.nouvellefrance.events import EVENT_TYPES
from games.engines.nouvellefrance.state import State
from games.engines.protocol import IllegalAction

GAMES = st.tuples(st.integers(0, 2**31), st.integers(2, 4), st.sampled_from(["standard", "simple"]))
GARBAGE = [
    None,
    "draw",
    3,
    (),
    [],
    ("draw", True),
    ("nonsense",),
    ("card", 99),
    ("card", "0"),
    ("copy", -1),
    ("place", "church", 0, 0, 0),
    ("place", "nowhere", 0, 0, 0, 0),
    ("bonus", "plank", "church", 0, 0, 0),
    ("bonus", "peg", "church", 0, 1.5, 0),
    ("order", 0, 0, 0),
    ("coureur",),
    ("fille_du_roy",),
    ("discard", 0),
    ("draw", 1),
    ("huron",),
    ("place", "church", 10**6, 0, 0),
]


def conservation(s: State) -> None:
    cv = s.compiled
    placed = Counter(shape for shape, _k, _site in s.placed)
    removed = Counter(shape for shape, _k in s.removed_pieces)
    for i in range(len(cv.shapes)):
        assert sum(s.supply[i]) + placed[i] + removed[i] == len(cv.copies)
    assert len(s.deck) + len(s.display) + len(s.discard) + s.storms == cv.total_cards == 39
    for p in range(s.num_players):
        assert sum(s.breakdown[p]) == s.scores[p]
    bonus_cubes = sum(
        len(b.cells)
        for p in range(s.num_players)
        for b, st_ in zip(cv.bonus, s.bonus[p], strict=True)
        if st_ == "used"
    )
    shape_cubes = sum(len(cv.shapes[shape].cells) for shape, _k, _site in s.placed)
    assert sum(len(c) for c in s.cubes) == shape_cubes + bonus_cubes
    for i, site in enumerate(cv.sites):
        for x, y, lv in s.cubes[i]:
            assert 1 <= lv <= site.height_limit
            assert lv <= s.heights[i][site.index[(x, y)]]


def views(s: State) -> list:
    return [*range(s.num_players), None]


def heavy_checks(s: State, rng: random.Random) -> None:
    data = E.state_to_json(s)
    text = json.dumps(data)
    back = E.state_from_json(json.loads(text))
    assert E.state_to_json(back) == data
    for p in views(s):
        view = E.observe(s, p)
        dumped = json.dumps(view)
        assert '"seed"' not in dumped and '"deck"' not in dumped
        known = s.known[p] if p is not None else 0
        assert len(view["huron_known"]) == known
        d = E.determinize(s, p, rng)
        assert E.observe(d, p) == view
        # The same cards; the piles as everyone counts them (after a Huron reorder each
        # card's true pile is hidden); which building card lies in which pile is hidden
        # too (see test_nf_determinize).
        assert Counter(d.deck) == Counter(s.deck)
        assert Counter(d.deck_piles) == Counter(
            {pile["pile"]: pile["left"] for pile in view["piles"] if pile["left"]})
        assert d.deck[:known] == s.deck[:known]
    before = E.state_to_json(s)
    movers = E.to_move(s)
    legal = E.legal_actions(s, movers[0])
    assert legal
    for seat in range(s.num_players):
        if seat not in movers:
            assert E.legal_actions(s, seat) == []
            with pytest.raises(IllegalAction):
                E.apply(s, seat, legal[0])
    for bad in GARBAGE:
        if bad in legal:
            continue
        with pytest.raises(IllegalAction):
            E.apply(s, movers[0], bad)
    for a in legal:
        assert E.action_from_json(json.loads(json.dumps(E.action_to_json(a)))) == a
        if a[0] in ("place", "bonus"):
            shifted = (*a[:-2], a[-2] + 50, a[-1])
            with pytest.raises(IllegalAction):
                E.apply(s, movers[0], shifted)
    for a in rng.sample(legal, min(len(legal), 8)):
        E.apply(s, movers[0], a)  # every listed action is accepted
        event = E.describe_action(s, a)
        assert event["type"] in EVENT_TYPES and event["seat"] == movers[0]
        json.dumps(event)
    assert E.state_to_json(s) == before


@settings(max_examples=max(24, settings.default.max_examples), deadline=None)
@given(game=GAMES)
def test_random_play_invariants(game) -> None:
    seed, n, name = game
    s = new(name, n, seed)
    rng = random.Random(seed)
    check_rng = random.Random(seed + 1)
    conservation(s)
    heavy_checks(s, check_rng)
    for i, (_before, _seat, _a, t) in enumerate(play_random(s, rng)):
        conservation(t)
        if i % 6 == 0 and not E.is_over(t):
            heavy_checks(t, check_rng)
        s = t
    assert E.is_over(s) and s.storms == 3
    assert E.to_move(s) == [] and all(E.legal_actions(s, p) == [] for p in range(n))
    assert E.winners(s)
    assert E.observe(s, None)["winners"] == E.winners(s)
    for p in views(s):
        assert E.observe(E.determinize(s, p, check_rng), p) == E.observe(s, p)


@settings(max_examples=max(10, settings.default.max_examples), deadline=None)
@given(game=GAMES)
def test_determinism(game) -> None:
    seed, n, name = game

    def run():
        s = new(name, n, seed)
        actions = []
        for _b, _seat, a, t in play_random(s, random.Random(seed ^ 0x5EED)):
            actions.append(a)
            s = t
        return actions, E.state_to_json(s)

    first, second = run(), run()
    assert first == second
    # Replaying the actions through JSON gives the same end state too.
    s = E.state_from_json(json.loads(json.dumps(E.state_to_json(new(name, n, seed)))))
    for a in first[0]:
        s = E.apply(s, E.to_move(s)[0], E.action_from_json(E.action_to_json(a)))
    assert E.state_to_json(s) == first[1]


@pytest.mark.parametrize("name", ["standard", "simple"])
def test_determinize_really_reshuffles(name: str) -> None:
    s = new(name, 3, 12)
    decks = {E.determinize(s, p, random.Random(k)).deck for k in range(5) for p in (0, None)}
    assert len(decks) > 1
    me = s.active
    t = E.apply(s, me, ("huron",)) if s.phase == "huron" else None
    if t is not None:
        for k in range(5):
            d = E.determinize(t, me, random.Random(k))
            assert d.deck[:3] == t.deck[:3]


def test_action_from_json_rejects_garbage() -> None:
    for bad in [
        None,
        3,
        "draw",
        [],
        {},
        [1, 2],
        ["place", 1.5],
        ["x", None],
        [["draw"]],
        ["place", True, 0, 0, 0],
    ]:
        with pytest.raises(IllegalAction):
            E.action_from_json(bad)
    assert E.action_from_json(["place", "church", 3, 0, 1]) == ("place", "church", 3, 0, 1)


def test_copy_copies_every_field_and_apply_never_mutates() -> None:
    s = new("standard", 3, 5)
    c = s.copy()
    for name in type(s).__slots__:
        assert getattr(c, name) is getattr(s, name)
    before = E.state_to_json(s)
    for _b, _seat, _a, t in play_random(s, random.Random(3)):
        if t.turn > 4:
            break
    assert E.state_to_json(s) == before
    data = E.state_to_json(s)
    data["variant"]["sites"][0]["height_limit"] = 1  # editing the JSON leaves the state alone
    assert E.state_to_json(s) == before


def test_events_are_data_and_cover_a_game() -> None:
    """Every action of a game has an event: JSON data with a known type, never prose."""
    s = new("standard", 3, 21)
    seen = set()
    for b, seat, a, _t in play_random(s, random.Random(21)):
        event = E.describe_action(b, a)
        assert event["type"] in EVENT_TYPES and event["seat"] == seat
        assert json.loads(json.dumps(event)) == event
        assert not any(isinstance(v, str) and " " in v for v in event.values())
        seen.add(event["type"])
    assert {"drew", "card_chosen", "copy_taken", "placed", "bonus_placed"} <= seen
