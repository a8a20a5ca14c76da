"""New Haven's rule data, events, reveal, figures and stored states."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from newhaven_helpers import VARIANTS, E, at_build, code, edit, play_random

from games.engines import EngineError, IllegalAction, InvalidVariant
from games.engines.newhaven import events
from games.engines.newhaven.state import PHASES, STATE_FORMAT
from tools import simulate

DATA = Path(__file__).resolve().parent / "data"


def seven_row_village() -> dict:
    """The standard variant with a 7-row village (a row costing 7 on top)."""
    v = copy.deepcopy(VARIANTS["standard"])
    v["name"] = "seven-rows"
    v["village"].update(rows=7, row_costs=[7, 6, 5, 4, 3, 2, 1], row_values=[7, 6, 5, 4, 3, 2, 1])
    return v


def fifth_resource() -> dict:
    """The standard variant with a fifth resource, gold, on a quarter of the squares."""
    v = copy.deepcopy(VARIANTS["standard"])
    v["name"] = "gold"
    v["resources"].append("gold")
    for i, tile in enumerate(v["harvest_tiles"]):
        if i % 4 == 0:
            tile[i % 3] = "gold"
    v["board"]["printed_areas"][0]["squares"][3] = "gold"
    return v


# -- rule data -------------------------------------------------------------------------------


def test_rule_data_of_the_standard_variant():
    data = E.rule_data(VARIANTS["standard"])
    assert {k: data[k] for k in ("game", "title", "variant", "player_counts")} == {
        "game": "newhaven",
        "title": "New Haven",
        "variant": "standard",
        "player_counts": [2, 3, 4],
    }
    assert data["description"] == VARIANTS["standard"]["description"]
    assert data["resources"] == ["wheat", "sheep", "timber", "stone"]
    assert data["buildings"]["in_bag"] == {"2": 144, "3": 144, "4": 144}
    village = data["village"]
    assert village["row_costs"] == [6, 5, 4, 3, 2, 1]
    assert village["col_values"] == [5, 4, 3, 4, 5]
    assert village["space_costs"][1] == [5] * 5
    board = data["board"]
    assert len(board["cells"]) == 45 and [0, 0] not in board["cells"]
    assert len(board["play_area"]["2"]) == 25 and len(board["play_area"]["4"]) == 45
    assert board["printed_areas"][0] == {
        "cell": [1, 1],
        "squares": ["wheat", "wheat", "sheep", "timber"],
    }
    deck = data["harvest_tiles"]
    assert deck["count"] == 60 and len(deck["tiles"]) == 60
    assert sum(c["copies"] for c in deck["compositions"]) == 60
    assert data["turns_per_player"] == {"2": 10, "3": 10, "4": 10}
    assert data["hand"] == {"buildings": 6, "tiles": 2, "shipments": 1}
    assert data["market_size"] == 5 and data["rebuild"] is False
    assert data["events"] == {k: list(v) for k, v in events.EVENT_TYPES.items()}
    assert data["actions"]["build"] == ["resource", "number", "row", "col", "face_up"]


def test_rule_data_of_side_b_and_careful_harvest():
    side_b = E.rule_data(VARIANTS["side-b"])["board"]
    assert side_b["side"] == "B" and side_b["ponds"] == [2, 2, 3, 4]
    assert len(side_b["settlements"]) == 8 and len(side_b["clearings"]) == 6
    assert E.rule_data(VARIANTS["side-b"])["turns_per_player"]["4"] == 9
    careful = E.rule_data(VARIANTS["careful-harvest"])
    assert careful["buildings"]["removed_copies"] == {"2": 2, "3": 1, "4": 0}
    assert careful["buildings"]["in_bag"] == {"2": 96, "3": 120, "4": 144}
    assert careful["hand"]["tiles"] == 3


@pytest.mark.parametrize("make", [seven_row_village, fifth_resource])
def test_other_shapes_are_fully_described_and_play_to_the_end(make):
    """A 7-row village and a fifth resource need nothing a consumer would hard-code."""
    v = make()
    assert E.validate_variant(v) == []
    data = E.rule_data(v)
    assert data["variant"] == v["name"]
    assert data["resources"] == v["resources"]
    assert data["village"]["rows"] == v["village"]["rows"]
    assert len(data["village"]["space_costs"]) == v["village"]["rows"]
    assert data["village"]["row_values"] == v["village"]["row_values"]
    if "gold" in v["resources"]:
        assert data["buildings"]["in_bag"]["2"] == 5 * 6 * 6
    for n in (2, 4):
        final, history = play_random(v, n, 4)
        built = {a[1] for _seat, a in history if a[0] == "build"}
        assert built <= set(data["resources"])
        assert [p.turns for p in final.players] == [10] * n
        view = E.observe(final, None)
        assert len(view["players"][0]["village"]) == data["village"]["rows"]


def test_rule_data_is_a_fresh_copy_and_refuses_bad_variants():
    data = E.rule_data(VARIANTS["standard"])
    data["resources"].append("scratch")
    assert "scratch" not in E.rule_data(VARIANTS["standard"])["resources"]
    with pytest.raises(InvalidVariant):
        E.rule_data({"name": "nonsense"})
    with pytest.raises(InvalidVariant):
        E.rule_data({"name": object()})


# -- events -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_event_has_exactly_its_documented_fields(name):
    seen = set()

    def visit(before, seat, action, after):
        event = E.describe_action(before, action)
        assert json.loads(json.dumps(event)) == event
        assert event["seat"] == seat
        assert set(event) == {"type", "seat", *events.EVENT_TYPES[event["type"]]}
        seen.add(event["type"])

    play_random(VARIANTS[name], 3, 8, visit)
    assert seen >= {"harvested", "built", "ended_build", "passed", "drew_market", "drew_blind"}


def test_harvest_event_gives_cell_squares_markers_and_clearing_building():
    """Spec: "On side B, P takes the building on that clearing cell (if any)"."""
    state = E.new_game(VARIANTS["side-b"], 2, 11)
    cv = state.compiled
    taken = state.clearings[2 * 7 + 2]
    action = next(a for a in E.legal_actions(state, 0) if a[0] == "harvest" and a[2:4] == (2, 2))
    event = E.describe_action(state, action)
    after = E.apply(state, 0, action)
    placed = next(
        t for t in E.observe(after, 1)["board"]["tiles"] if (t["row"], t["col"]) == (2, 2)
    )
    assert event == {
        "type": "harvested",
        "seat": 0,
        "cell": [2, 2],
        "squares": placed["squares"],
        "building": cv.building(taken),
        "markers": E.observe(after, 1)["markers"],
    }


def test_built_event_shows_numbers_only_when_public():
    state = at_build(E.new_game(VARIANTS["standard"], 2, 1), 0, {"wheat": 6}, [("wheat", 6)])
    up = E.describe_action(state, ("build", "wheat", 6, 0, 0, True))
    assert up == {
        "type": "built",
        "seat": 0,
        "resource": "wheat",
        "number": 6,
        "space": [0, 0],
        "face_up": True,
        "replaced": None,
    }
    down = E.describe_action(state, ("build", "wheat", 6, 0, 1, False))
    assert down["number"] is None and down["face_up"] is False


def test_describe_refuses_illegal_actions_and_changes_nothing():
    state = E.new_game(VARIANTS["standard"], 2, 1)
    before = E.state_to_json(state)
    for action in [("build", "wheat", 1, 0, 0, True), ("fly",), None, ("harvest", 0, 1, 1, 0)]:
        with pytest.raises(IllegalAction):
            E.describe_action(state, action)
    assert E.state_to_json(state) == before


# -- reveal and figures ------------------------------------------------------------------------


def test_reveal_shows_every_hidden_part():
    state = E.new_game(VARIANTS["side-b"], 3, 2)
    state = E.apply(state, 0, ("ship", 3, 3, "wheat"))
    cv = state.compiled
    view = E.reveal(state)
    spectator = E.observe(state, None)
    assert set(view) == set(spectator) | {"revealed"}
    revealed = view["revealed"]
    assert revealed["bag"] == [cv.building(c) for c in reversed(state.bag)]
    assert revealed["pool"] == [
        [cv.resources[r] for r in cv.tiles[t]] for t in reversed(state.pool)
    ]
    for seat, p in enumerate(state.players):
        hand = revealed["hands"][seat]
        assert hand["private_buildings"] == [cv.building(c) for c in p.private_buildings]
        assert view["players"][seat]["revealed_hand"] is not None
    # Seat 0's shipment lies face down on (3, 3): its true face and coming rotation.
    tile = state.cells[3 * 7 + 3][1]
    rotation = state.players[0].shipment_rotation
    assert revealed["shipments"][0] == {
        "squares": [cv.resources[r] for r in cv.rotate(tile, rotation)],
        "cell": [3, 3],
    }
    other = state.players[1]
    assert revealed["shipments"][1]["cell"] is None
    assert revealed["shipments"][1]["squares"] == [
        cv.resources[r] for r in cv.rotate(other.shipment, other.shipment_rotation)
    ]


def test_figures_of_a_finished_game():
    log = []
    final, _ = play_random(
        VARIANTS["side-b"], 3, 6, lambda b, s, a, _after: log.append(E.describe_action(b, a))
    )
    figures = E.figures(log, final)
    assert figures["turns"] == 27
    empties = [p["empty_spaces"] for p in E.observe(final, None)["players"]]
    assert figures["empty_village_spaces"] == pytest.approx(sum(empties) / 3)
    assert figures["buildings_built"] == pytest.approx(
        sum(1 for e in log if e["type"] == "built") / 3
    )
    assert 0 <= figures["face_down_share"] <= 1 and 0 <= figures["blind_draw_share"] <= 1
    assert figures["clearing_buildings"] == sum(
        1 for e in log if e["type"] in ("harvested", "shipped") and e["building"]
    )
    scores = sorted(E.scores(final), reverse=True)
    assert figures["winning_margin"] == scores[0] - scores[1]
    assert all(isinstance(v, (int, float)) for v in figures.values())


# -- stored states -----------------------------------------------------------------------------


def test_state_json_carries_the_format_and_readable_names():
    state = E.new_game(VARIANTS["side-b"], 2, 1)
    data = E.state_to_json(state)
    assert data["format"] == STATE_FORMAT and data["phase"] in PHASES
    assert {"num_players", "shipment_cell", "clearings", "players"} <= set(data)
    assert set(data["players"][0]) >= {"public_buildings", "private_buildings", "shipment"}
    # The copy handed out is the caller's: changing it changes no state.
    data["variant"]["name"] = "scratch"
    assert E.state_to_json(state)["variant"]["name"] == "side-b"


def _garbage(state):
    data = E.state_to_json(state)
    tile = data["players"][0]["tiles"][0]
    yield "format", {**data, "format": 1}
    yield "format", {**data, "format": float(STATE_FORMAT)}
    yield "format", {k: v for k, v in data.items() if k != "format"}
    yield "missing", {k: v for k, v in data.items() if k != "bag"}
    yield "unknown fields", {**data, "extra": 1}
    yield "phase", {**data, "phase": 1}
    yield "active", {**data, "active": 2}
    yield "active", {**data, "active": True}
    yield "markers", {**data, "markers": [0, 0, 0]}
    yield "markers", {**data, "markers": [0, 0, 0, -1]}
    yield "cells", {**data, "cells": data["cells"][:-1]}
    yield "cells[0]", {**data, "cells": [[0, 1, 0], *data["cells"][1:]]}  # a removed corner
    yield "cells[24]", {**data, "cells": [*data["cells"][:24], [0, 1, 9], *data["cells"][25:]]}
    yield "bag", {**data, "bag": [*data["bag"], 999]}
    yield "two places", {**data, "pool": [*data["pool"], tile]}
    yield "variant", {**data, "variant": {"name": "x"}}
    yield "num_players", {**data, "num_players": 5}
    yield "players", {**data, "players": data["players"][:1]}
    bad_village = copy.deepcopy(data)
    bad_village["players"][1]["village"] = [-1] * 29
    yield "village", bad_village
    bad_clearing = copy.deepcopy(data)
    bad_clearing["clearings"].append([0, 3])
    yield "clearings", bad_clearing
    no_rotation = copy.deepcopy(data)
    no_rotation["players"][0]["shipment_rotation"] = -1  # its shipment is still unplayed
    yield "shipment_rotation", no_rotation
    stray = copy.deepcopy(data)
    stray["cells"][24] = [3, stray["players"][0]["shipment"], 0]  # face down, no turn of it
    stray["players"][0]["shipment"] = -1
    yield "face-down shipment", stray
    yield "the state", [1, 2]
    yield "the state", None


def test_state_from_json_refuses_garbage_with_a_clear_error():
    state = E.new_game(VARIANTS["side-b"], 2, 1)
    for needle, data in _garbage(state):
        with pytest.raises(EngineError, match=needle.replace("[", r"\[").replace("]", r"\]")):
            E.state_from_json(data)


def test_state_round_trip_after_edits_and_over_whole_games():
    state = at_build(E.new_game(VARIANTS["rebuild"], 3, 4), 1, {"sheep": 3}, [("sheep", 3)])
    assert E.state_from_json(json.loads(json.dumps(E.state_to_json(state)))) == state
    rng = random.Random(2)
    final, history = play_random(VARIANTS["side-b"], 2, 3)
    replay = E.new_game(VARIANTS["side-b"], 2, 3)
    for step, (seat, action) in enumerate(history):
        if rng.random() < 0.2:
            again = E.state_from_json(json.loads(json.dumps(E.state_to_json(replay))))
            assert again == replay, step
        replay = E.apply(replay, seat, action)
    assert replay == final
    assert code(final, "wheat", 1) == 0
    assert edit(final, lambda d: None) == final


def test_views_show_when_each_building_went_down():
    """Everybody at the table sees where a building goes: rebuilding one of two look-alike
    face-down buildings shows which one (the turn it went down in), as the event does."""
    game = E.new_game(VARIANTS["rebuild"], 2, 5)
    hidden = code(game, "stone", 4) << 2  # face down, number hidden from the others

    def two_face_down(d):
        d["turn"] = 3
        d["players"][0]["village"][25:27] = [hidden, hidden]
        d["players"][0]["built_turns"][25:27] = [0, 0]
        d["players"][0]["build_counts"][25:27] = [1, 1]

    state = at_build(edit(game, two_face_down), 0, {"stone": 1}, [("stone", 5), ("stone", 2)])
    left = E.apply(state, 0, ("build", "stone", 5, 5, 0, False))
    right = E.apply(state, 0, ("build", "stone", 2, 5, 1, False))
    row = E.observe(left, 1)["players"][0]["village"][5]
    assert [row[0]["turn"], row[1]["turn"]] == [4, 1]
    assert [row[0]["builds"], row[1]["builds"]] == [2, 1]
    assert E.observe(left, 1) != E.observe(right, 1)
    assert E.describe_action(state, ("build", "stone", 5, 5, 0, False))["space"] == [5, 0]


def test_views_show_which_of_two_look_alikes_of_one_turn_was_built_over():
    """Two identical face-down buildings that went down in one turn, one built over in
    that same turn: the turns cannot tell them apart, the build counts can (issue 8)."""
    game = E.new_game(VARIANTS["rebuild"], 2, 5)
    hand = [("stone", 4), ("stone", 4), ("stone", 2)]
    state = at_build(game, 0, {"stone": 3}, hand)
    for col in (0, 1):  # two stone 4 face down side by side, both blind-drawn
        state = E.apply(state, 0, ("build", "stone", 4, 5, col, False))
    before = E.observe(state, 1)["players"][0]["village"][5]
    assert before[0] == before[1] == {
        "resource": "stone", "number": None, "face_up": False, "turn": 1, "builds": 1
    }
    left = E.apply(state, 0, ("build", "stone", 2, 5, 0, False))
    right = E.apply(state, 0, ("build", "stone", 2, 5, 1, False))
    views = [E.observe(after, seat) for after in (left, right) for seat in (1, None)]
    assert views[0] != views[2] and views[1] != views[3]
    row = views[0]["players"][0]["village"][5]
    assert [row[0]["builds"], row[1]["builds"], row[0]["turn"], row[1]["turn"]] == [2, 1, 1, 1]
    # The count says where, never what: the new building's number stays hidden.
    assert row[0]["number"] is None
    assert E.state_from_json(json.loads(json.dumps(E.state_to_json(left)))) == left


def test_states_stored_in_format_1_still_load_and_play_on():
    """A game stored before issue 8 (format 1, data/state-format-1.json: 3 players,
    rebuild, seat 1's shipment turned up, seat 2 building) goes on after the upgrade."""
    stored = json.loads((DATA / "state-format-1.json").read_text(encoding="utf-8"))
    state = E.state_from_json(stored["state"])
    assert E.state_to_json(state)["format"] == STATE_FORMAT
    assert state.phase == "build" and state.active == 2
    view = E.observe(state, 0)
    old = stored["observe_seat_0"]
    # Format 1 recorded neither when buildings went down nor how many went down where.
    for player in view["players"]:
        for row in player["village"]:
            for space in row:
                if space is not None:
                    assert (space.pop("turn"), space.pop("builds")) == (1, 1)
    assert view == old
    # Seats 0 and 2 still hold their shipments (rotation 0, as format 1 turned them up).
    assert [p.shipment_rotation for p in state.players] == [0, -1, 0]
    rng = random.Random(1)
    while not E.is_over(state):
        seat = E.to_move(state)[0]
        state = E.apply(state, seat, rng.choice(E.legal_actions(state, seat)))
    assert [p.turns for p in state.players] == [10, 10, 10]
    # A format 1 state that lacks its fields is refused like any garbage.
    with pytest.raises(EngineError, match="format 1"):
        E.state_from_json({"format": 1, "players": []})


def test_states_stored_in_format_2_still_load_and_play_on():
    """A game stored before the build counts (format 2, data/state-format-2.json: 3
    players, rebuild, spaces built over, seat 2 building) goes on after the upgrade;
    every occupied space counts as built once."""
    stored = json.loads((DATA / "state-format-2.json").read_text(encoding="utf-8"))
    assert stored["state"]["format"] == 2 and stored["state"]["removed"]
    state = E.state_from_json(stored["state"])
    assert E.state_to_json(state)["format"] == STATE_FORMAT == 3
    assert state.phase == "build" and state.active == 2
    view = E.observe(state, 0)
    counted = 0
    for player in view["players"]:
        for row in player["village"]:
            for space in row:
                if space is not None:
                    assert space.pop("builds") == 1
                    counted += 1
    assert counted and view == stored["observe_seat_0"]
    rng = random.Random(1)
    while not E.is_over(state):
        seat = E.to_move(state)[0]
        state = E.apply(state, seat, rng.choice(E.legal_actions(state, seat)))
    assert [p.turns for p in state.players] == [10, 10, 10]
    assert max(k for p in state.players for k in p.build_counts) >= 2  # rebuilt after
    # A format 2 state that lacks its fields is refused like any garbage.
    for garbage in ({"format": 2}, {"format": 2, "players": [{"village": None}]}):
        with pytest.raises(EngineError, match="format 2"):
            E.state_from_json(garbage)


def test_the_simulation_command_reports_new_havens_figures():
    """``tools.simulate`` plays side B to the end and reports its figures."""
    report = simulate.run("newhaven", variant="side-b", players=3, games=4, bots=["random"])
    assert report["errors"] == [] and report["completed"] == 4
    assert report["turns"]["min"] == report["turns"]["max"] == 27
    assert {"empty_village_spaces", "clearing_buildings", "face_down_share"} <= set(
        report["figures"]
    )
    text = simulate.format_report(report)
    assert "empty_village_spaces" in text and "errors         0" in text
