"""Hypothesis property tests over random legal play of every default variant."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from newhaven_helpers import VARIANTS, E, building_total, play_random, tile_total

from games.engines import IllegalAction

SETTINGS = settings(
    # at least 40; more in the long profile (tests/conftest.py)
    max_examples=max(40, settings.default.max_examples),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
games = st.tuples(
    st.integers(min_value=0, max_value=2**31),
    st.sampled_from([2, 3, 4]),
    st.sampled_from(sorted(VARIANTS)),
)

FORBIDDEN_KEYS = {"seed", "rng", "pool", "bag", "ship", "shipment", "private", "priv"}


def keys_of(data) -> set[str]:
    out: set[str] = set()
    if isinstance(data, dict):
        for k, v in data.items():
            out.add(k)
            out |= keys_of(v)
    elif isinstance(data, list):
        for v in data:
            out |= keys_of(v)
    return out


def check_views(state, rng: random.Random) -> None:
    """observe(determinize(s, p), p) == observe(s, p); no hidden keys; JSON-able."""
    for seat in [*range(state.num_players), None]:
        view = E.observe(state, seat)
        text = json.dumps(view)
        assert json.loads(text) == view
        assert not keys_of(view) & FORBIDDEN_KEYS
        assert view["you"] == seat
        if seat is None:
            assert view["hand"] is None
        for other in view["players"]:
            assert "tiles" not in other and "hand" not in other
        det = E.determinize(state, seat, rng)
        assert E.observe(det, seat) == view
        # The resampled state is itself consistent and playable.
        assert building_total(det) == building_total(state)
        assert tile_total(det) == tile_total(state)
        mover = E.to_move(det)
        if mover:
            actions = E.legal_actions(det, mover[0])
            E.apply(det, mover[0], actions[len(actions) // 2])


GARBAGE = [
    None,
    (),
    ("harvest",),
    ("harvest", 0, 0, 0, 0, 0),
    ("build", "wheat", 9, 0, 0, True),
    ("build", "gold", 1, 0, 0, True),
    ("build", "wheat", 1, 0, 9, True),
    ("build", "wheat", 1, 0, 0, "yes"),
    ("draw_market", "wheat", 0),
    ("draw_market",),
    ("ship", -1, 0, "wheat"),
    ("ship", 3, 3, 7),
    ("pass", 1),
    ("end_build", None),
    ("harvest", -1, 3, 3, 0),
    ("harvest", 0, 3.0, 3, 0),
    ("nonsense", 1),
    (1, 2),
    "pass",
    ["pass"],
    ("draw_bag", 0),
    ("harvest", 0, 3, 3, -1),
    ("ship", 3, 3, ["wheat"]),
]


def check_illegal(state, seen_actions: list, rng: random.Random) -> None:
    """Garbage, other seats' moves and actions from other states raise, state unchanged."""
    before = E.state_to_json(state)
    mover = E.to_move(state)[0]
    legal = E.legal_actions(state, mover)
    legal_set = set(legal)
    assert len(legal_set) == len(legal), "legal actions are distinct"
    candidates = [(mover, a) for a in rng.sample(GARBAGE, 6)]
    for seat in range(state.num_players):
        if seat != mover:
            assert E.legal_actions(state, seat) == []
            candidates.append((seat, rng.choice(legal)))
    candidates += [
        (mover, a)
        for a in rng.sample(seen_actions, min(15, len(seen_actions)))
        if a not in legal_set
    ]
    candidates.append((None, legal[0]))
    candidates.append((mover + state.num_players, legal[0]))
    for seat, action in candidates:
        with pytest.raises(IllegalAction):
            E.apply(state, seat, action)
    assert E.state_to_json(state) == before
    # The other way round: a sample of the listed actions all apply.
    for action in rng.sample(legal, min(5, len(legal))):
        E.apply(state, mover, action)
    assert E.state_to_json(state) == before


@SETTINGS
@given(games)
def test_random_play_invariants(game):
    seed, n, vname = game
    variant = VARIANTS[vname]
    rng = random.Random(seed)
    initial = E.new_game(variant, n, seed)
    buildings = building_total(initial)
    n_buildings = (
        len(variant["resources"])
        * len(variant["buildings"]["numbers"])
        * (variant["buildings"]["copies"])
    )
    assert sum(buildings.values()) == n_buildings
    tiles = Counter(range(len(variant["harvest_tiles"])))
    assert tile_total(initial) == tiles
    seen: list = []
    step = [0]
    check_every = rng.randrange(15, 30)

    def visit(before, seat, action, after):
        step[0] += 1
        key = before.key()
        assert building_total(after) == buildings
        assert tile_total(after) == tiles
        if step[0] % check_every == 0:
            check_views(before, rng)
            check_illegal(before, seen, rng)
            data = json.loads(json.dumps(E.state_to_json(before)))
            again = E.state_from_json(data)
            assert again == before
            assert E.apply(again, seat, action) == after
        if len(seen) < 300 and action not in seen:
            seen.append(action)
        assert before.key() == key, "apply mutated its input"

    final, history = play_random(variant, n, seed, visit)
    check_views(final, rng)
    turns = [p.turns for p in final.players]
    assert turns == [variant["turns_per_player"]] * n
    assert len(final.empty_cells) == 1
    assert E.winners(final)
    # Determinism: the same seed and actions give the same game.
    state = E.new_game(variant, n, seed)
    for seat, action in history:
        state = E.apply(state, seat, action)
    assert state == final
    assert E.state_to_json(state) == E.state_to_json(final)


@pytest.mark.parametrize("vname", ["standard", "side-b"])
def test_determinize_really_changes_hidden_parts(vname):
    _final, history = play_random(VARIANTS[vname], 3, 4)
    state = E.new_game(VARIANTS[vname], 3, 4)
    for seat, action in history[:12]:
        state = E.apply(state, seat, action)
    assert any(p.shipment >= 0 for p in state.players)
    for seat in (0, None):
        changed = Counter()
        for k in range(8):
            det = E.determinize(state, seat, random.Random(k))
            assert E.observe(det, seat) == E.observe(state, seat)
            changed["bag"] += det.bag != state.bag
            changed["pool"] += det.pool != state.pool
            for q in range(3):
                if q == seat:
                    # The own hand stays, the own shipment does not (nobody knows it).
                    assert det.players[q].tiles == state.players[q].tiles
                    assert det.players[q].private_buildings == state.players[q].private_buildings
                else:
                    changed["tiles"] += det.players[q].tiles != state.players[q].tiles
                    changed["priv"] += (
                        det.players[q].private_buildings != state.players[q].private_buildings
                    )
                if state.players[q].shipment >= 0:
                    changed["shipment"] += det.players[q].shipment != state.players[q].shipment
        assert all(changed[k] >= 4 for k in ("bag", "pool", "tiles", "priv", "shipment")), changed


def test_hidden_face_down_numbers_are_resampled_by_colour():
    """Until the end, other seats' face-down numbers from blind draws are resampled."""
    states = []
    play_random(VARIANTS["standard"], 2, 8, lambda before, *_: states.append(before))
    final = states[-1]  # the last running state: at the end every number is revealed
    p1 = final.players[1]
    hidden = [s for s, v in enumerate(p1.village) if v >= 0 and not v & 1]
    assert hidden, "random play builds face-down buildings from blind draws"
    cv = final.compiled
    numbers_changed = False
    for k in range(6):
        det = E.determinize(final, 0, random.Random(k))
        for s in hidden:
            a, b = p1.village[s], det.players[1].village[s]
            assert cv.code_resource[a >> 2] == cv.code_resource[b >> 2] and a & 3 == b & 3
            numbers_changed |= a != b
        assert E.observe(det, 0) == E.observe(final, 0)
    assert numbers_changed


def test_the_end_reveals_every_hand_and_number():
    final, _history = play_random(VARIANTS["standard"], 2, 8)
    spectator = E.observe(final, None)
    for index, player in enumerate(spectator["players"]):
        revealed = player["revealed_hand"]
        assert len(revealed["tiles"]) == player["tiles_in_hand"]
        assert len(revealed["buildings"]) == player["buildings_in_hand"]
        hidden_numbers = [
            space
            for row in player["village"]
            for space in row
            if space is not None and space["number"] is None
        ]
        assert hidden_numbers == [], index
    assert E.determinize(final, 0, random.Random(1)) is final
