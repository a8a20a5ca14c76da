"""Build, share, draw, shipment and side-B rules, action JSON and descriptions."""

from __future__ import annotations

import json

import pytest
from newhaven_helpers import (
    VARIANTS,
    E,
    at_build,
    code,
    edit,
    play_random,
    set_hand_tiles,
    set_village,
)

from games.engines import Engine, IllegalAction, InvalidVariant, get_engine
from games.engines.newhaven.state import DRAW, HARVEST, SHARE, SHIP_UP


@pytest.fixture
def game2():
    return E.new_game(VARIANTS["standard"], 2, 5)


@pytest.fixture
def game3():
    return E.new_game(VARIANTS["standard"], 3, 5)


def unchanged_raise(state, seat, action, match=None):
    before = E.state_to_json(state)
    with pytest.raises(IllegalAction, match=match):
        E.apply(state, seat, action)
    assert E.state_to_json(state) == before


def test_registry_and_protocol_attributes():
    engine = get_engine("newhaven")
    assert engine is E
    assert isinstance(engine, Engine)
    assert (engine.name, engine.min_players, engine.max_players) == ("newhaven", 2, 4)


def test_bad_player_count_and_variant():
    with pytest.raises(InvalidVariant, match="num_players"):
        E.new_game(VARIANTS["standard"], 5, 1)
    with pytest.raises(InvalidVariant, match="num_players"):
        E.new_game(VARIANTS["standard"], 1, 1)
    broken = VARIANTS["standard"] | {"market_size": 0}
    with pytest.raises(InvalidVariant) as info:
        E.new_game(broken, 2, 1)
    assert any("market_size" in p for p in info.value.problems)


def test_cost_payment_and_face_up_rule(game2):
    state = at_build(game2, 0, {"wheat": 5}, [("wheat", 5), ("wheat", 2)])
    unchanged_raise(state, 0, ("build", "wheat", 5, 0, 0, False), "costs 6")
    unchanged_raise(state, 0, ("build", "wheat", 2, 1, 0, True), "face up only")
    after = E.apply(state, 0, ("build", "wheat", 5, 1, 0, True))
    assert after.markers[0] == 0
    assert after.players[0].village[5] == code(after, "wheat", 5) << 2 | 3
    assert state.markers[0] == 5  # the input state is untouched
    # A face-down building goes on any affordable space.
    state = at_build(game2, 0, {"wheat": 5}, [("wheat", 2)])
    after = E.apply(state, 0, ("build", "wheat", 2, 1, 3, False))
    assert after.markers[0] == 0
    view = E.observe(after, 1)["players"][0]["village"][1][3]
    assert view == {"resource": "wheat", "number": None, "face_up": False, "turn": 1, "builds": 1}
    assert E.observe(after, 0)["players"][0]["village"][1][3]["number"] == 2


def test_same_colour_must_be_adjacent(game2):
    state = set_village(game2, 0, {(5, 0): ("sheep", 1, True)})
    state = at_build(state, 0, {"sheep": 2}, [("sheep", 2)])
    unchanged_raise(state, 0, ("build", "sheep", 2, 4, 3, True), "next to")
    E.apply(state, 0, ("build", "sheep", 2, 4, 0, True))
    E.apply(state, 0, ("build", "sheep", 2, 5, 1, False))


def test_taken_space_refused_without_rebuild(game2):
    state = set_village(game2, 0, {(5, 0): ("sheep", 1, False)})
    state = at_build(state, 0, {"sheep": 2}, [("sheep", 1)])
    unchanged_raise(state, 0, ("build", "sheep", 1, 5, 0, True), "already holds")


def test_rebuild_replaces_and_removes():
    game = E.new_game(VARIANTS["rebuild"], 2, 5)
    state = set_village(game, 0, {(5, 0): ("sheep", 4, False), (4, 0): ("wheat", 2, True)})
    state = at_build(state, 0, {"sheep": 2, "wheat": 1}, [("sheep", 1), ("wheat", 1)])
    before_removed = len(state.removed)
    after = E.apply(state, 0, ("build", "sheep", 1, 5, 0, True))
    assert after.removed[-1] == (code(after, "sheep", 4), -1)
    assert len(after.removed) == before_removed + 1
    assert after.players[0].village[25] >> 2 == code(after, "sheep", 1)
    # Replacing the only wheat with a sheep: the wheat colour is gone, so a wheat may then
    # go anywhere affordable.
    after2 = E.apply(state, 0, ("build", "sheep", 1, 4, 0, False))
    assert after2.players[0].colour_masks[0] == 0
    after3 = E.apply(after2, 0, ("build", "wheat", 1, 5, 4, True))
    assert after3.players[0].colour_masks[0] == 1 << 29
    replaced = E.apply(
        at_build(state, 0, {"wheat": 2}, [("wheat", 1)]), 0, ("build", "wheat", 1, 4, 0, False)
    )
    assert replaced.removed[-1] == (code(state, "wheat", 2), -1)
    # The same action is illegal without the rebuild rule.
    plain = at_build(
        set_village(E.new_game(VARIANTS["standard"], 2, 5), 0, {(5, 0): ("sheep", 4, False)}),
        0,
        {"sheep": 2},
        [("sheep", 1)],
    )
    unchanged_raise(plain, 0, ("build", "sheep", 1, 5, 0, True))


def test_share_order_clockwise_and_single_opportunity(game3):
    state = at_build(game3, 1, {"stone": 4, "wheat": 1}, [])
    assert E.to_move(state) == [1]
    state = E.apply(state, 1, ("end_build",))
    assert state.phase == SHARE and E.to_move(state) == [2]
    unchanged_raise(state, 0, ("pass",), "not your turn")
    unchanged_raise(state, 2, ("end_build",), "pass")
    state = E.apply(state, 2, ("pass",))
    assert E.to_move(state) == [0]
    state = E.apply(state, 0, ("pass",))
    assert state.phase == DRAW and E.to_move(state) == [1]
    assert state.draws_owed == 2


def test_sharer_builds_then_passes(game3):
    state = at_build(game3, 0, {"stone": 1}, [])
    state = edit(
        state, lambda d: d["players"][1].update(private_buildings=[code(game3, "stone", 1)])
    )
    state = E.apply(state, 0, ("end_build",))
    assert E.legal_actions(state, 1)[0] == ("pass",)
    state = E.apply(state, 1, ("build", "stone", 1, 5, 2, True))
    # Every marker is now 0: the rest of the share step is skipped.
    assert state.phase == SHARE
    assert E.describe_action(state, ("pass",)) == {"type": "passed", "seat": 1, "built": True}
    state = E.apply(state, 1, ("pass",))
    assert state.phase == DRAW and state.draws_owed == 4


def test_sharer_who_cannot_build_is_offered_pass_only(game3):
    state = at_build(game3, 0, {"stone": 1}, [])
    state = edit(state, lambda d: d["players"][1].update(private_buildings=[], public_buildings=[]))
    state = E.apply(state, 0, ("end_build",))
    assert E.legal_actions(state, 1) == [("pass",)]
    assert E.describe_action(state, ("pass",)) == {"type": "passed", "seat": 1, "built": False}


def test_share_skipped_when_markers_all_zero(game3):
    state = at_build(game3, 0, {}, [])
    state = E.apply(state, 0, ("end_build",))
    assert state.phase == DRAW and E.to_move(state) == [0]
    assert state.draws_owed == 4


def test_draw_step_market_first_then_refill(game2):
    state = at_build(game2, 0, {"wheat": 3}, [])
    state = E.apply(state, 0, ("end_build",))
    state = E.apply(state, 1, ("pass",))
    assert state.phase == DRAW and state.draws_owed == 3
    actions = E.legal_actions(state, 0)
    assert ("draw_bag",) not in actions and all(a[0] == "draw_market" for a in actions)
    unchanged_raise(state, 0, ("draw_bag",), "first building must come from the market")
    first = state.market[0]
    a = ("draw_market", *E.observe(state, 0)["market"][0].values())
    assert E.describe_action(state, a) == {
        "type": "drew_market",
        "seat": 0,
        **state.compiled.building(first),
    }
    state = E.apply(state, 0, a)
    assert len(state.market) == 4  # no refill before the end of the draws
    assert state.players[0].public_buildings == [first]
    assert ("draw_bag",) in E.legal_actions(state, 0)
    # A blind draw names no building: only its drawer may know it.
    assert E.describe_action(state, ("draw_bag",)) == {"type": "drew_blind", "seat": 0}
    bag_before = len(state.bag)
    state = E.apply(state, 0, ("draw_bag",))
    assert len(state.players[0].private_buildings) == 1
    state = E.apply(state, 0, ("draw_bag",))
    # The turn ended: market refilled, next player to harvest, markers reset.
    assert len(state.market) == 5 and len(state.bag) == bag_before - 2 - 1
    assert state.phase == HARVEST and state.active == 1 and not any(state.markers)
    view = E.observe(state, 1)
    assert view["players"][0]["public_buildings"] == [
        {
            "resource": state.compiled.resources[state.compiled.code_resource[first]],
            "number": state.compiled.code_number[first],
        }
    ]
    assert view["players"][0]["private_building_count"] == 2


def test_draw_with_empty_bag_and_with_nothing_left(game2):
    state = at_build(game2, 0, {"wheat": 3}, [])
    state = edit(state, lambda d: d.update(bag=[], market=d["market"][:2]))
    state = E.apply(state, 0, ("end_build",))
    state = E.apply(state, 1, ("pass",))
    assert ("draw_bag",) not in E.legal_actions(state, 0)
    state = E.apply(state, 0, E.legal_actions(state, 0)[0])
    assert ("draw_bag",) not in E.legal_actions(state, 0)
    state = E.apply(state, 0, E.legal_actions(state, 0)[0])
    # Nothing left: fewer draws, the turn ends.
    assert state.phase == HARVEST and state.active == 1 and state.market == []
    empty = edit(at_build(game2, 0, {}, []), lambda d: d.update(bag=[], market=[]))
    empty = E.apply(empty, 0, ("end_build",))
    assert empty.phase == HARVEST and empty.active == 1


def test_shipment_once_flipped_no_tile_draw(game2):
    state = game2
    tiles_before = list(state.players[0].tiles)
    ship_tile = state.players[0].shipment
    rotation = state.players[0].shipment_rotation
    assert E.describe_action(state, ("ship", 3, 3, "stone")) == {
        "type": "shipped",
        "seat": 0,
        "cell": [3, 3],
        "resource": "stone",
        "building": None,
        "markers": {"wheat": 0, "sheep": 0, "timber": 0, "stone": 4},
    }
    state = E.apply(state, 0, ("ship", 3, 3, "stone"))
    assert state.markers == [0, 0, 0, 4]
    assert state.players[0].shipment_played
    state = E.apply(state, 0, ("end_build",))
    state = E.apply(state, 1, ("pass",))
    while state.phase == DRAW:
        state = E.apply(state, 0, E.legal_actions(state, 0)[0])
    cell = 3 * 7 + 3
    assert state.cells[cell] == (SHIP_UP, ship_tile, rotation)
    cv = state.compiled
    real = [cv.resources[x] for x in cv.rotate(ship_tile, rotation)]
    tile_view = next(t for t in E.observe(state, None)["board"]["tiles"] if t["cell"] == "D4")
    assert tile_view["squares"] == real and tile_view["face_down"] is False
    assert state.players[0].tiles == tiles_before  # no draw after a shipment
    # Next turn of seat 0: no shipment any more.
    state = E.apply(state, 1, E.legal_actions(state, 1)[0])
    while state.phase != HARVEST:
        seat = E.to_move(state)[0]
        state = E.apply(state, seat, E.legal_actions(state, seat)[0])
    assert state.active == 0
    assert not any(a[0] == "ship" for a in E.legal_actions(state, 0))
    unchanged_raise(state, 0, ("ship", 2, 2, "stone"), "already played")


def test_normal_turn_draws_a_tile(game2):
    state = E.apply(game2, 0, E.legal_actions(game2, 0)[0])
    assert len(state.players[0].tiles) == 1
    while state.active == 0:
        seat = E.to_move(state)[0]
        state = E.apply(state, seat, E.legal_actions(state, seat)[0])
    assert len(state.players[0].tiles) == 2


def test_rotation_dedupe_and_canonical_actions(game2):
    state = game2
    cv = state.compiled
    diag = next(i for i, t in enumerate(cv.tiles) if t[0] == t[2] and t[1] == t[3])
    other = next(i for i, t in enumerate(cv.tiles) if len(set(t)) == 3)
    state = edit(state, lambda d: set_hand_tiles(d, 0, [diag, other]))
    actions = [a for a in E.legal_actions(state, 0) if a[0] == "harvest" and a[2:4] == (3, 3)]
    assert sorted((a[1], a[4]) for a in actions) == [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (1, 3)]
    unchanged_raise(state, 0, ("harvest", 0, 3, 3, 2), "same placement")
    # Two copies of a 3+1 tile: the second one places nothing the first does not.
    one = next(i for i, t in enumerate(cv.tiles) if sorted(t) == [0, 0, 0, 1])
    twin = next(i for i, t in enumerate(cv.tiles) if t == cv.tiles[one] and i != one)
    same = edit(state, lambda d: set_hand_tiles(d, 0, [one, twin]))
    assert not any(a[1] == 1 for a in E.legal_actions(same, 0) if a[0] == "harvest")
    unchanged_raise(same, 0, ("harvest", 1, 3, 3, 0), "same placement")


def test_harvest_cell_checks(game2):
    unchanged_raise(game2, 0, ("harvest", 0, 1, 1, 0), "already taken")  # printed area
    unchanged_raise(game2, 0, ("harvest", 0, 0, 3, 0), "not in the play area")
    unchanged_raise(game2, 0, ("harvest", 0, 9, 3, 0), "not on the board")
    unchanged_raise(game2, 0, ("harvest", 5, 3, 3, 0), "no harvest tile")
    unchanged_raise(game2, 1, ("harvest", 0, 3, 3, 0), "not your turn")
    unchanged_raise(game2, 0, ("harvest", 0, 3, 3, 4), "rotation")
    unchanged_raise(game2, 0, ("harvest", 0, 3, 3), "values")
    unchanged_raise(game2, 0, ("harvest", "0", 3, 3, 0), "whole number")
    unchanged_raise(game2, 0, ("harvest", True, 3, 3, 0), "whole number")
    unchanged_raise(game2, 0, ("fly",), "Unknown")
    unchanged_raise(game2, 0, ["harvest", 0, 3, 3, 0], "not a New Haven action")
    unchanged_raise(game2, 0, ("harvest", [0], 3, 3, 0))
    unchanged_raise(game2, 0, ("ship", 3, 3, "gold"), "Unknown resource")


def test_side_b_clearing_building_taken_publicly():
    state = E.new_game(VARIANTS["side-b"], 2, 11)
    cell = 2 * 7 + 2
    building = state.clearings[cell]
    action = next(a for a in E.legal_actions(state, 0) if a[0] == "harvest" and a[2:4] == (2, 2))
    event = E.describe_action(state, action)
    assert event["type"] == "harvested" and event["cell"] == [2, 2]
    assert event["building"] == state.compiled.building(building)
    after = E.apply(state, 0, action)
    assert cell not in after.clearings and after.players[0].public_buildings == [building]
    seen = E.observe(after, 1)["players"][0]["public_buildings"]
    assert seen == [
        {
            "resource": after.compiled.resources[after.compiled.code_resource[building]],
            "number": after.compiled.code_number[building],
        }
    ]


def test_ponds_break_chains_on_side_b():
    state = E.new_game(VARIANTS["side-b"], 2, 11)
    pond = next(c for c in state.compiled.settlements if state.cells[c] and state.cells[c][0] == 2)
    assert all(state.squares[q] == 255 for q in state.compiled.cell_squares[pond])


def test_game_ends_with_one_empty_cell():
    final, _history = play_random(VARIANTS["standard"], 2, 3)
    assert len(final.empty_cells) == 1
    assert E.to_move(final) == [] and E.legal_actions(final, 0) == []
    assert E.winners(final)
    unchanged_raise(final, 0, ("end_build",), "over")
    view = E.observe(final, None)
    assert view["is_over"] and view["winners"] == E.winners(final)


def test_winner_tie_breaks(game2):
    state = edit(game2, lambda d: d.update(phase="over"))
    assert E.winners(state) == [0, 1]  # all equal: shared
    state = set_village(state, 1, {(5, 0): ("wheat", 1, True)})
    assert E.winners(state) == [1]  # fewer empty village spaces
    state = set_village(state, 0, {(5, 0): ("wheat", 1, True)})
    state = edit(
        state,
        lambda d: d["players"][0].update(
            private_buildings=d["players"][0]["private_buildings"][:2]
        ),
    )
    assert E.winners(state) == [0]  # fewer buildings left in hand
    assert E.winners(game2) == []


def test_action_json_round_trip_and_garbage(game2):
    for action in [
        *E.legal_actions(game2, 0)[:5],
        ("end_build",),
        ("pass",),
        ("draw_bag",),
        ("draw_market", "wheat", 3),
        ("build", "wheat", 3, 3, 0, True),
    ]:
        data = E.action_to_json(action)
        assert E.action_from_json(json.loads(json.dumps(data))) == action
    for garbage in [
        None,
        3,
        "pass",
        [],
        {},
        {"type": "fly"},
        {"type": "pass", "x": 1},
        {"type": "harvest", "tile": 0, "row": 1, "col": 2},
        {"type": "harvest", "tile": "0", "row": 1, "col": 2, "rotation": 0},
        {"type": "build", "resource": "wheat", "number": 3, "row": 0, "col": 0, "face_up": 1},
        {"type": ["pass"]},
    ]:
        with pytest.raises(IllegalAction):
            E.action_from_json(garbage)
    with pytest.raises(IllegalAction):
        E.action_to_json(("fly",))


def test_describe_face_down_build_hides_private_number(game2):
    state = at_build(game2, 0, {"wheat": 6}, [("wheat", 4)])
    event = E.describe_action(state, ("build", "wheat", 4, 0, 0, False))
    assert event == {
        "type": "built",
        "seat": 0,
        "resource": "wheat",
        "number": None,
        "space": [0, 0],
        "face_up": False,
        "replaced": None,
    }
    # From the public part of the hand (taken from the market) the number is known.
    public = edit(
        state, lambda d: d["players"][0].update(public_buildings=[code(state, "wheat", 4)])
    )
    public = edit(public, lambda d: d["players"][0].update(private_buildings=[]))
    assert E.describe_action(public, ("build", "wheat", 4, 0, 0, False))["number"] == 4
