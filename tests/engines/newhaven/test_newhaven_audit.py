"""Rule-by-rule audit against ``shared/rules/new-haven.md``: one guard per verified point."""

from __future__ import annotations

import copy
import random
from collections import Counter
from itertools import combinations, permutations

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

from games.engines import IllegalAction
from games.engines.newhaven.state import DRAW, HARVEST, POND_CELL, SHARE, SHIP_DOWN, TILE

RES = ("wheat", "sheep", "timber", "stone")


def tile_index(state, names):
    cv = state.compiled
    return next(i for i, t in enumerate(cv.tiles) if [cv.resources[x] for x in t] == names)


def with_hand_tile(state, seat, names):
    t = tile_index(state, names)
    return edit(state, lambda d: set_hand_tiles(d, seat, [t, *d["players"][seat]["tiles"][1:]]))


def board_tile(view, row, col):
    return next(t for t in view["board"]["tiles"] if (t["row"], t["col"]) == (row, col))


def finish_turn(state):
    """Play the first legal action until the active player changes or the game ends."""
    active = state.active
    while not E.is_over(state) and not (state.phase == HARVEST and state.active != active):
        seat = E.to_move(state)[0]
        state = E.apply(state, seat, E.legal_actions(state, seat)[0])
    return state


# -- 1. setup -------------------------------------------------------------------------------


@pytest.mark.parametrize("vname", sorted(VARIANTS))
def test_deck_arrangements_exactly_as_the_spec(vname):
    expected: Counter = Counter()
    for a, b in permutations(RES, 2):  # 3+1: both copies [A, A, A, B]
        expected[(a, a, a, b)] += 2
    for i, a in enumerate(RES):  # 2+2: [A, A, B, B] and [A, B, A, B]
        for b in RES[i + 1 :]:
            expected[(a, a, b, b)] += 1
            expected[(a, b, a, b)] += 1
    for a in RES:  # 2+1+1: [A, A, B, C] and [A, B, A, C]
        for b, c in combinations([x for x in RES if x != a], 2):
            expected[(a, a, b, c)] += 1
            expected[(a, b, a, c)] += 1
    got = Counter(tuple(t) for t in VARIANTS[vname]["harvest_tiles"])
    assert sum(expected.values()) == 60
    assert got == expected


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_deal_standard(n):
    state = E.new_game(VARIANTS["standard"], n, 31)
    everything = Counter(state.bag) + Counter(state.market)
    for p in state.players:
        everything.update(p.private_buildings)
        assert (
            len(p.private_buildings) == 6
            and p.public_buildings == []
            and len(p.tiles) == 2
            and p.shipment >= 0
        )
    assert len(state.market) == 5
    assert sum(everything.values()) == 144 and set(everything.values()) == {6}
    assert len(state.compiled.play_area[n]) == {2: 25, 3: 35, 4: 45}[n]
    assert not any(state.markers) and state.phase == HARVEST


@pytest.mark.parametrize("n, removed", [(2, 48), (3, 24), (4, 0)])
def test_careful_harvest_removals_and_three_tiles(n, removed):
    state = E.new_game(VARIANTS["careful-harvest"], n, 5)
    assert len(state.removed) == removed
    per_code = Counter(c for c, _owner in state.removed)
    assert set(per_code.values()) <= {removed // 24}
    assert all(len(p.tiles) == 3 for p in state.players)
    in_game = Counter(state.bag) + Counter(state.market)
    for p in state.players:
        in_game.update(p.private_buildings)
    assert sum(in_game.values()) == 144 - removed


def test_play_areas_and_side_a_printed_areas():
    state = E.new_game(VARIANTS["standard"], 4, 1)
    cv = state.compiled
    rc = lambda n: {divmod(c, 7) for c in cv.play_area[n]}  # noqa: E731
    assert rc(2) == {(r, c) for r in range(1, 6) for c in range(1, 6)}
    assert rc(3) == {(r, c) for r in range(7) for c in range(1, 6)}
    assert rc(4) == {(r, c) for r in range(7) for c in range(7)} - {(0, 0), (0, 6), (6, 0), (6, 6)}
    view = E.observe(state, None)
    printed = {(t["row"], t["col"]): t["squares"] for t in view["board"]["tiles"]}
    assert printed == {
        (1, 1): ["wheat", "wheat", "sheep", "timber"],
        (1, 5): ["sheep", "sheep", "timber", "stone"],
        (5, 5): ["timber", "timber", "stone", "wheat"],
        (5, 1): ["stone", "stone", "wheat", "sheep"],
    }
    assert all(t["kind"] == "printed" for t in view["board"]["tiles"])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_side_b_settlement_tiles_come_from_the_pool_face_up(n):
    state = E.new_game(VARIANTS["side-b"], n, 3)
    cv = state.compiled
    placed = [
        state.cells[c] for c in cv.settlements if state.cells[c] and state.cells[c][0] == TILE
    ]
    assert len(placed) == 4
    # 60 tiles = pool + hands + shipments + the 4 settlement tiles.
    in_hands = sum(len(p.tiles) + 1 for p in state.players)
    assert len(state.pool) + in_hands + 4 == 60
    view = E.observe(state, 0)
    for kind, _tile, rot in placed:
        assert kind == TILE and 0 <= rot < 4
    play = set(cv.play_area[n])
    assert all(state.cells[c] is None for c in play if c in cv.clearings)
    assert len(view["board"]["clearings"]) == {2: 4, 3: 5, 4: 6}[n]


def test_side_b_settlement_rotations_are_random():
    rots = set()
    for seed in range(8):
        state = E.new_game(VARIANTS["side-b"], 2, seed)
        rots |= {e[2] for e in state.cells if e is not None and e[0] == TILE}
    assert rots == {0, 1, 2, 3}


# -- 2. harvest -----------------------------------------------------------------------------


def test_rotation_is_clockwise_nw_ne_se_sw():
    state = E.new_game(VARIANTS["standard"], 2, 1)
    state = with_hand_tile(state, 0, ["wheat", "wheat", "sheep", "timber"])
    expected = {
        0: ["wheat", "wheat", "sheep", "timber"],
        1: ["timber", "wheat", "wheat", "sheep"],  # NW square moved to NE, SW to NW
        2: ["sheep", "timber", "wheat", "wheat"],
        3: ["wheat", "sheep", "timber", "wheat"],
    }
    cv = state.compiled
    for rot, names in expected.items():
        after = E.apply(state, 0, ("harvest", 0, 3, 3, rot))
        assert board_tile(E.observe(after, 1), 3, 3)["squares"] == names
        # The square grid: NW (6,6), NE (6,7), SE (7,7), SW (7,6).
        grid = [after.squares[r * cv.square_width + c] for r, c in ((6, 6), (6, 7), (7, 7), (7, 6))]
        assert [cv.resources[x - 1] for x in grid] == names


def test_rotation_changes_the_gathered_chain():
    # Printed area (1,1) = [wheat, wheat, sheep, timber]: its NE wheat touches the NW square of
    # cell (1,2), its SE sheep the SW square.
    state = E.new_game(VARIANTS["standard"], 2, 1)
    state = with_hand_tile(state, 0, ["sheep", "sheep", "sheep", "wheat"])
    rot0 = E.apply(state, 0, ("harvest", 0, 1, 2, 0))  # [s, s, s, w]: nothing joins
    assert rot0.markers == [1, 3, 0, 0]
    rot1 = E.apply(state, 0, ("harvest", 0, 1, 2, 1))  # [w, s, s, s]: both chains join
    assert rot1.markers == [3, 4, 0, 0]


def test_shipment_on_a_clearing_takes_the_building_and_ship_needs_empty_cell():
    state = E.new_game(VARIANTS["side-b"], 2, 11)
    cell = 2 * 7 + 4
    building = state.clearings[cell]
    after = E.apply(state, 0, ("ship", 2, 4, "wheat"))
    assert after.players[0].public_buildings == [building] and cell not in after.clearings
    pond = next(
        c for c in state.compiled.settlements if state.cells[c] and state.cells[c][0] == POND_CELL
    )
    with pytest.raises(IllegalAction, match="already taken"):
        E.apply(state, 0, ("ship", pond // 7, pond % 7, "wheat"))


def test_shipment_squares_chain_then_real_face_from_next_turn():
    state = E.new_game(VARIANTS["standard"], 2, 3)
    ship_tile = state.players[0].shipment
    rotation = state.players[0].shipment_rotation
    state = E.apply(state, 0, ("ship", 3, 3, "stone"))
    assert state.cells[3 * 7 + 3][0] == SHIP_DOWN
    state = finish_turn(state)
    cv = state.compiled
    real = [cv.resources[x] for x in cv.rotate(ship_tile, rotation)]
    # Seat 1 now harvests next to it: the gathered chains use the real squares.
    grid = [state.squares[q] for q in cv.cell_squares[3 * 7 + 3]]
    assert [cv.resources[x - 1] for x in grid] == real


# -- 3. gather ------------------------------------------------------------------------------


def test_markers_for_resources_absent_from_the_tile_are_zero():
    state = E.new_game(VARIANTS["standard"], 2, 1)
    state = with_hand_tile(state, 0, ["stone", "stone", "stone", "timber"])
    # A big wheat chain right next to the tile does not count: wheat is not on the tile.
    after = E.apply(state, 0, ("harvest", 0, 1, 2, 0))
    assert after.markers[0] == 0 and after.markers[1] == 0
    assert after.markers[3] == 3 and after.markers[2] == 1


# -- 4. build -------------------------------------------------------------------------------


def test_face_down_building_of_the_colour_also_forces_adjacency():
    state = E.new_game(VARIANTS["standard"], 2, 1)
    state = set_village(state, 0, {(0, 4): ("stone", 2, False)})
    state = at_build(state, 0, {"stone": 6}, [("stone", 3)])
    spaces = {(a[3], a[4]) for a in E.legal_actions(state, 0) if a[0] == "build"}
    assert spaces == {(0, 3), (1, 4)}
    with pytest.raises(IllegalAction, match="next to one of your stone"):
        E.apply(state, 0, ("build", "stone", 3, 3, 2, True))


def test_rebuild_judges_the_space_as_if_empty():
    game = E.new_game(VARIANTS["rebuild"], 2, 5)
    # Two wheat buildings far apart: rebuilding a wheat over the one at (0,4) must be next to
    # the *other* wheat (at (5,0)); the building being replaced does not count.
    state = set_village(game, 0, {(5, 0): ("wheat", 1, True), (0, 4): ("wheat", 6, False)})
    state = at_build(state, 0, {"wheat": 6}, [("wheat", 6)])
    with pytest.raises(IllegalAction, match="next to"):
        E.apply(state, 0, ("build", "wheat", 6, 0, 4, True))
    legal = {(a[3], a[4]) for a in E.legal_actions(state, 0) if a[0] == "build"}
    assert legal == {(4, 0), (5, 1), (0, 3), (1, 4)}  # (0, 4) itself is not next to (5, 0)
    # The only wheat building is the one replaced: as if empty, no wheat is left, so any
    # affordable space -- including this one -- is fine.
    state = set_village(game, 0, {(0, 4): ("wheat", 6, False)})
    state = at_build(state, 0, {"wheat": 6}, [("wheat", 6)])
    after = E.apply(state, 0, ("build", "wheat", 6, 0, 4, True))
    assert after.players[0].village[4] >> 2 == code(after, "wheat", 6)
    assert after.removed[-1] == (code(after, "wheat", 6), -1)
    # Replacing a building still pays the full cost of the space.
    assert after.markers[0] == 0


def test_rebuild_over_a_private_face_down_keeps_its_number_secret():
    game = E.new_game(VARIANTS["rebuild"], 2, 5)
    state = edit(
        game,
        lambda d: (
            d["players"][0]["village"].__setitem__(29, code(game, "sheep", 4) << 2),
            d["players"][0]["built_turns"].__setitem__(29, 0),
            d["players"][0]["build_counts"].__setitem__(29, 1),
        ),
    )
    state = at_build(state, 0, {"sheep": 1}, [("sheep", 1)])
    event = E.describe_action(state, ("build", "sheep", 1, 5, 4, True))
    assert event["replaced"] == {"resource": "sheep", "number": None}
    assert event["number"] == 1 and event["face_up"] is True
    after = E.apply(state, 0, ("build", "sheep", 1, 5, 4, True))
    assert E.observe(after, 1)["removed"][-1] == {"resource": "sheep", "number": None}
    assert E.observe(after, 0)["removed"][-1] == {"resource": "sheep", "number": 4}


def test_several_builds_one_at_a_time_pay_each_cost():
    state = E.new_game(VARIANTS["standard"], 2, 1)
    state = at_build(state, 0, {"wheat": 6}, [("wheat", 1), ("wheat", 2), ("wheat", 3)])
    state = E.apply(state, 0, ("build", "wheat", 3, 3, 0, True))
    assert state.markers[0] == 3
    state = E.apply(state, 0, ("build", "wheat", 2, 4, 0, True))
    assert state.markers[0] == 1
    with pytest.raises(IllegalAction, match="Not enough wheat"):
        E.apply(state, 0, ("build", "wheat", 1, 3, 1, False))
    state = E.apply(state, 0, ("build", "wheat", 1, 5, 0, True))
    assert state.markers[0] == 0 and E.legal_actions(state, 0) == [("end_build",)]


# -- 5./6. share and draw -------------------------------------------------------------------


def test_share_four_players_clockwise_from_the_left_once_each():
    state = E.new_game(VARIANTS["standard"], 4, 2)
    state = at_build(state, 2, {"wheat": 3}, [])
    state = E.apply(state, 2, ("end_build",))
    order = []
    while state.phase == SHARE:
        seat = E.to_move(state)[0]
        order.append(seat)
        state = E.apply(state, seat, ("pass",))
    assert order == [3, 0, 1]
    assert state.phase == DRAW and E.to_move(state) == [2] and state.draws_owed == 3


def test_draw_count_uses_markers_after_sharing():
    state = E.new_game(VARIANTS["standard"], 2, 2)
    state = at_build(state, 0, {"wheat": 2, "sheep": 1}, [])
    state = edit(
        state, lambda d: d["players"][1].update(private_buildings=[code(state, "wheat", 2)])
    )
    state = E.apply(state, 0, ("end_build",))
    state = E.apply(state, 1, ("build", "wheat", 2, 4, 2, True))
    state = E.apply(state, 1, ("pass",))
    assert state.phase == DRAW and state.draws_owed == 3  # wheat used up by the sharer


# -- 7. end of the game -----------------------------------------------------------------------


@pytest.mark.parametrize("vname, n, turns", [("side-b", 2, 9), ("standard", 3, 10)])
def test_game_ends_after_equal_turns(vname, n, turns):
    final, history = play_random(VARIANTS[vname], n, 12)
    assert [p.turns for p in final.players] == [turns] * n
    assert len(final.empty_cells) == 1
    harvests = [s for s, a in history if a[0] in ("harvest", "ship")]
    assert Counter(harvests) == dict.fromkeys(range(n), turns)


# -- 8. scoring -------------------------------------------------------------------------------


def test_row_and_column_values_and_doubling():
    state = E.new_game(VARIANTS["standard"], 2, 1)
    row0 = {(0, c): ("timber", 6, True) for c in range(5)}
    assert E.scores(set_village(state, 0, row0))[0] == 12
    row0[(0, 2)] = ("timber", 1, False)
    assert E.scores(set_village(state, 0, row0))[0] == 6
    costs = [6, 5, 4, 3, 2, 1]
    for col, value in enumerate([5, 4, 3, 4, 5]):
        column = {(r, col): ("sheep", costs[r], True) for r in range(6)}
        assert E.scores(set_village(state, 0, column))[0] == 2 * value
    last = {(5, c): ("stone", 1, False) for c in range(5)}
    assert E.scores(set_village(state, 0, last))[0] == 1
    # Buildings in hand score nothing.
    assert E.scores(state) == [0, 0]


# -- 9. hidden information ----------------------------------------------------------------------


def mid_game(vname, n, steps, seed=6):
    _final, history = play_random(VARIANTS[vname], n, seed)
    state = E.new_game(VARIANTS[vname], n, seed)
    for seat, action in history[:steps]:
        state = E.apply(state, seat, action)
    return state


def scramble_hidden_from(state, seat, rng):
    """Change by hand everything ``seat`` may not know (not using ``determinize``)."""

    def fn(d):
        tiles = list(d["pool"])
        blds = list(d["bag"])
        for i, p in enumerate(d["players"]):
            if p["shipment"] >= 0:
                tiles.append(p["shipment"])
            if i != seat:
                tiles += p["tiles"]
                blds += p["private_buildings"]
        rng.shuffle(tiles)
        rng.shuffle(blds)
        for i, p in enumerate(d["players"]):
            if i != seat:
                p["tiles"] = [tiles.pop() for _ in p["tiles"]]
                p["private_buildings"] = [blds.pop() for _ in p["private_buildings"]]
            if p["shipment"] >= 0:
                p["shipment"] = tiles.pop()
        d["pool"] = tiles
        d["bag"] = blds

    return edit(state, fn)


@pytest.mark.parametrize("vname, n, steps", [("standard", 2, 25), ("side-b", 3, 40)])
def test_observe_does_not_depend_on_hidden_parts(vname, n, steps):
    state = mid_game(vname, n, steps)
    rng = random.Random(1)
    for seat in [*range(n), None]:
        view = E.observe(state, seat)
        for _ in range(3):
            other = scramble_hidden_from(state, seat, rng)
            assert E.observe(other, seat) == view
    # The own hand really is visible (the test would be vacuous otherwise).
    own = scramble_hidden_from(state, None, random.Random(2))
    assert any(E.observe(own, s)["hand"] != E.observe(state, s)["hand"] for s in range(n))


def test_own_shipment_is_unknown_to_its_owner():
    state = E.new_game(VARIANTS["standard"], 2, 9)
    cv = state.compiled
    me = state.players[0]
    other_face = next(t for t in state.pool if sorted(cv.tiles[t]) != sorted(cv.tiles[me.shipment]))

    def swap(d):
        pool = d["pool"]
        k = pool.index(other_face)
        pool[k], d["players"][0]["shipment"] = d["players"][0]["shipment"], pool[k]

    swapped = edit(state, swap)
    for seat in (0, 1, None):
        assert E.observe(swapped, seat) == E.observe(state, seat)
    # determinize resamples the own shipment too.
    ships = {E.determinize(state, 0, random.Random(k)).players[0].shipment for k in range(8)}
    assert len(ships) > 1


def test_face_down_shipment_on_the_board_is_resampled():
    state = E.new_game(VARIANTS["standard"], 2, 9)
    state = E.apply(state, 0, ("ship", 3, 3, "wheat"))
    cell = 3 * 7 + 3
    faces = set()
    for k in range(8):
        det = E.determinize(state, 0, random.Random(k))
        assert E.observe(det, 0) == E.observe(state, 0)
        assert det.cells[cell][0] == SHIP_DOWN and det.cells[cell][2] == state.cells[cell][2]
        faces.add(det.cells[cell][1])
    assert len(faces) > 1


def test_state_json_and_views_never_hold_the_seed():
    state = E.new_game(VARIANTS["standard"], 2, 987654321)
    assert "987654321" not in repr(E.state_to_json(state))
    for seat in (0, 1, None):
        assert "987654321" not in repr(E.observe(state, seat))


def test_describe_never_names_hidden_buildings_or_tiles():
    """Over a random game, a description equals the one of any state the others find
    equally likely (own hand kept, everything hidden from the others scrambled)."""
    _final, history = play_random(VARIANTS["rebuild"], 3, 21)
    state = E.new_game(VARIANTS["rebuild"], 3, 21)
    rng = random.Random(3)
    for seat, action in history:
        if action[0] in ("build", "draw_bag", "ship", "pass", "end_build"):
            # The actor's hand is the actor's own: keep it, scramble the rest.
            other = scramble_hidden_from(state, seat, rng)
            # Face-down buildings of the actor's village that others cannot see.
            assert E.describe_action(other, action) == E.describe_action(state, action)
            if action[0] == "build" and not action[5]:
                p = state.players[seat]
                c = code(state, action[1], action[2])
                if c not in p.public_buildings:
                    event = E.describe_action(state, action)
                    assert event["resource"] == action[1] and event["number"] is None
        state = E.apply(state, seat, action)


# -- 10./11. validation and messages ------------------------------------------------------------


def test_play_area_player_count_written_twice_is_refused():
    v = copy.deepcopy(VARIANTS["standard"])
    v["board"]["play_area"]["02"] = {"rows": [1, 5], "cols": [1, 5]}
    problems = E.validate_variant(v)
    assert any("board.play_area['02']" in p for p in problems)


def test_ship_message_without_any_shipment():
    v = copy.deepcopy(VARIANTS["standard"])
    v["hand"]["shipments"] = 0
    assert E.validate_variant(v) == []
    state = E.new_game(v, 2, 1)
    assert not any(a[0] == "ship" for a in E.legal_actions(state, 0))
    with pytest.raises(IllegalAction, match="no shipment in this game"):
        E.apply(state, 0, ("ship", 3, 3, "wheat"))


def test_clearing_building_can_be_built_in_the_same_turn():
    state = E.new_game(VARIANTS["side-b"], 2, 11)
    cv = state.compiled
    cell = 2 * 7 + 2
    c = state.clearings[cell]
    res, num = cv.resources[cv.code_resource[c]], cv.code_number[c]
    # Only the clearing building in hand; a shipment of its resource gives 4 squares at least.
    state = edit(state, lambda d: d["players"][0].update(private_buildings=[]))
    after = E.apply(state, 0, ("ship", 2, 2, res))
    assert after.players[0].public_buildings == [c] and after.markers[cv.code_resource[c]] >= 4
    builds = [a for a in E.legal_actions(after, 0) if a[0] == "build"]
    assert builds and all(a[1:3] == (res, num) for a in builds)
    after = E.apply(after, 0, builds[0])
    assert after.players[0].public_buildings == []


def test_determinize_resamples_hidden_removed_numbers_by_colour():
    game = E.new_game(VARIANTS["rebuild"], 2, 5)
    hidden = code(game, "sheep", 4)
    state = edit(game, lambda d: d.update(removed=[[hidden, 0]]))
    cv = state.compiled
    for k in range(6):
        assert E.determinize(state, 0, random.Random(k)).removed == [(hidden, 0)]
    seen = set()
    for k in range(12):
        det = E.determinize(state, 1, random.Random(k))
        assert E.observe(det, 1) == E.observe(state, 1)
        ((c, owner),) = det.removed
        assert owner == 0 and cv.code_resource[c] == cv.code_resource[hidden]
        seen.add(c)
    assert len(seen) > 1
