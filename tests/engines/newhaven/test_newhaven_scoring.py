"""Rulebook examples (scoring, adjacency) and resource chains."""

from __future__ import annotations

import pytest
from newhaven_helpers import VARIANTS, E, at_build, edit, set_hand_tiles, set_village

from games.engines.newhaven import rules
from games.engines.newhaven.state import POND


@pytest.fixture
def game():
    return E.new_game(VARIANTS["standard"], 2, 1)


# -- scoring example: rows cost 4 and 3 (indices 2, 3) and the first column ---------------

COSTS = [6, 5, 4, 3, 2, 1]


def example_village() -> dict:
    spaces = {}
    for col in range(5):
        spaces[(2, col)] = ("stone", 4, True)
        spaces[(3, col)] = ("wheat", 3, True)
    for row in range(6):
        spaces[(row, 0)] = ("wheat", COSTS[row], True)
    # The second column is filled except at row cost 2 (face-down buildings do not
    # complete anything yet).
    for row in (0, 1, 5):
        spaces[(row, 1)] = ("sheep", 1, False)
    return spaces


def test_rulebook_scoring_example_24(game):
    state = set_village(game, 0, example_village())
    assert E.scores(state)[0] == 24  # (2x3) + (2x4) + (2x5)


def test_rulebook_scoring_face_down_completes_column_28(game):
    spaces = example_village()
    spaces[(4, 1)] = ("wheat", 6, False)
    assert E.scores(set_village(game, 0, spaces))[0] == 28


def test_rulebook_scoring_face_down_loses_doubling_16(game):
    spaces = example_village()
    spaces[(3, 0)] = ("wheat", 5, False)  # the face-up 3-wheat becomes a face-down field
    state = set_village(game, 0, spaces)
    assert E.scores(state)[0] == 16


def test_breakdown_in_observe_when_over(game):
    state = set_village(game, 0, example_village())
    state = edit(state, lambda d: d.update(phase="over"))
    view = E.observe(state, None)
    assert view["is_over"]
    b = view["breakdown"][0]
    assert b["total"] == 24
    assert [r["row"] for r in b["rows"]] == [2, 3]
    assert [c["col"] for c in b["cols"]] == [0]
    assert all(x["doubled"] for x in b["rows"] + b["cols"])


def test_rulebook_adjacency_example(game):
    state = set_village(game, 0, {(1, 2): ("stone", 5, True)})
    state = at_build(state, 0, {"stone": 6}, [("stone", 1)])
    spaces = {(a[3], a[4]) for a in E.legal_actions(state, 0) if a[0] == "build"}
    assert spaces == {(0, 2), (1, 1), (1, 3), (2, 2)}
    assert sorted(state.compiled.space_cost[r * 5 + c] for r, c in spaces) == [4, 5, 5, 6]
    # Another colour may go anywhere.
    state = at_build(state, 0, {"wheat": 6}, [("wheat", 1)])
    spaces = {(a[3], a[4]) for a in E.legal_actions(state, 0) if a[0] == "build"}
    assert len(spaces) == 29


# -- chains ---------------------------------------------------------------------------------


def blank(cv):
    return bytearray(cv.square_width * cv.square_width)


def put(cv, squares, row, col, names):
    """Put squares [NW, NE, SE, SW] (names, 'pond' or None) on cell (row, col)."""
    for q, name in zip(cv.cell_squares[row * cv.size + col], names, strict=True):
        if name == "pond":
            squares[q] = POND
        elif name is not None:
            squares[q] = cv.resource_index[name] + 1


def markers(cv, squares, row, col):
    values = rules.gather(cv, squares, row * cv.size + col)
    return {name: values[i] for i, name in enumerate(cv.resources) if values[i]}


def test_diagonal_squares_do_not_chain(game):
    cv = game.compiled
    sq = blank(cv)
    put(cv, sq, 2, 2, ["sheep", "sheep", "wheat", "sheep"])  # wheat at SE
    put(cv, sq, 3, 3, ["wheat", "stone", "stone", "stone"])  # wheat at NW: diagonal only
    assert markers(cv, sq, 3, 3) == {"wheat": 1, "stone": 3}


def test_chain_across_several_tiles(game):
    cv = game.compiled
    sq = blank(cv)
    put(cv, sq, 3, 1, ["wheat", "wheat", "sheep", "sheep"])
    put(cv, sq, 3, 2, ["wheat", "wheat", "stone", "stone"])
    put(cv, sq, 2, 3, ["timber", "timber", "timber", "wheat"])
    put(cv, sq, 3, 3, ["wheat", "sheep", "sheep", "sheep"])  # the tile just placed
    # wheat: 1 (own) + 2 + 2 (row 3 cells 1-2) + 1 (SW of the cell above) = 6
    assert markers(cv, sq, 3, 3) == {"wheat": 6, "sheep": 3}


def test_chain_stopped_by_empty_cell_and_pond(game):
    cv = game.compiled
    sq = blank(cv)
    put(cv, sq, 3, 1, ["wheat"] * 3 + ["sheep"])
    # (3, 2) empty
    put(cv, sq, 3, 3, ["wheat", "wheat", "wheat", "sheep"])
    put(cv, sq, 3, 4, ["pond"] * 4)
    put(cv, sq, 3, 5, ["wheat"] * 3 + ["sheep"])
    assert markers(cv, sq, 3, 3) == {"wheat": 3, "sheep": 1}


def test_same_resource_twice_on_a_diagonal(game):
    cv = game.compiled
    sq = blank(cv)
    put(cv, sq, 3, 3, ["wheat", "sheep", "wheat", "sheep"])
    assert markers(cv, sq, 3, 3) == {"wheat": 2, "sheep": 2}
    # Join only the NW wheat to a 3-square chain on the left: union = 1 + 1 + 3.
    put(cv, sq, 3, 2, ["wheat", "wheat", "stone", "wheat"])
    assert markers(cv, sq, 3, 3)["wheat"] == 5
    # Join both wheat squares through the neighbours: a path of wheat squares runs from the
    # NW square up, right and down to the SE square.  The union is counted once.
    put(cv, sq, 2, 3, ["stone", "stone", "wheat", "wheat"])
    put(cv, sq, 2, 4, ["stone", "stone", "stone", "wheat"])
    put(cv, sq, 3, 4, ["wheat", "stone", "stone", "wheat"])
    chain = {(6, 6), (6, 5), (6, 4), (7, 4), (5, 6), (5, 7), (5, 8), (6, 8), (7, 8), (7, 7)}
    assert markers(cv, sq, 3, 3)["wheat"] == len(chain) == 10


def test_harvest_against_printed_area_sets_markers():
    state = E.new_game(VARIANTS["standard"], 2, 3)
    cv = state.compiled
    # Hand tile 0 := a [wheat, wheat, wheat, sheep] tile.
    tile = next(
        i
        for i, t in enumerate(cv.tiles)
        if [cv.resources[x] for x in t] == ["wheat", "wheat", "wheat", "sheep"]
    )
    state = edit(state, lambda d: set_hand_tiles(d, 0, [tile, d["players"][0]["tiles"][1]]))
    after = E.apply(state, 0, ("harvest", 0, 1, 2, 0))
    # Printed (1,1) = [wheat, wheat, sheep, timber]: its NE wheat touches our NW wheat, its SE
    # sheep touches our SW sheep.
    assert after.markers == [5, 2, 0, 0]
    assert E.observe(after, 1)["markers"] == {"wheat": 5, "sheep": 2, "timber": 0, "stone": 0}


def test_shipment_chains_with_neighbours():
    state = E.new_game(VARIANTS["standard"], 2, 3)
    after = E.apply(state, 0, ("ship", 1, 2, "wheat"))
    # 4 shipment squares + the printed area's 2 wheat squares (NW, NE) touching on the left.
    assert after.markers == [6, 0, 0, 0]
    view = E.observe(after, 0)
    tile = next(t for t in view["board"]["tiles"] if (t["row"], t["col"]) == (1, 2))
    assert tile == {
        "row": 1,
        "col": 2,
        "cell": "C2",
        "kind": "shipment",
        "squares": ["wheat"] * 4,
        "face_down": True,
    }
