"""New Haven's board: what the presenter offers, how events read, odd variants."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from games.boards import PlayerInfo, Scene, get_board
from games.boards.newhaven import drawing
from games.boards.newhaven.events import event_text
from games.core.selectors import current_state, legal_actions_json, rule_data
from games.core.services import submit_action
from games.engines import get_engine
from games.models import Game
from games.tables.services import create_game, join_game
from games.variants.services import save_variant

pytestmark = pytest.mark.django_db

NAMES = {0: "Ann", 1: "Bob"}
RULES = {"village": {"row_costs": [6, 5, 4, 3, 2, 1]}}


@pytest.mark.parametrize(
    ("event", "text"),
    [
        ({"type": "harvested", "seat": 0, "cell": [3, 2], "squares": ["wheat"] * 3 + ["stone"],
          "building": None, "markers": {}},
         "Ann placed a harvest tile (wheat, wheat, wheat, stone) on C4."),
        ({"type": "harvested", "seat": 1, "cell": [2, 2], "squares": ["sheep"] * 4,
          "building": {"resource": "stone", "number": 3}, "markers": {}},
         "Bob placed a harvest tile (sheep, sheep, sheep, sheep) on C3 and took stone 3 from "
         "the clearing."),
        ({"type": "shipped", "seat": 0, "cell": [1, 4], "resource": "timber", "building": None,
          "markers": {}}, "Ann played the shipment as 4 timber on E2."),
        ({"type": "built", "seat": 1, "resource": "wheat", "number": 4, "space": [1, 2],
          "face_up": True, "replaced": None}, "Bob built wheat 4 face up on C2 (cost 5)."),
        ({"type": "built", "seat": 1, "resource": "wheat", "number": None, "space": [5, 0],
          "face_up": False, "replaced": {"resource": "sheep", "number": None}},
         "Bob built wheat face down on A6 (cost 1), replacing sheep."),
        ({"type": "ended_build", "seat": 0, "built": False}, "Ann built nothing."),
        ({"type": "ended_build", "seat": 0, "built": True}, "Ann finished building."),
        ({"type": "passed", "seat": 1, "built": False}, "Bob passed."),
        ({"type": "drew_market", "seat": 0, "resource": "stone", "number": 6},
         "Ann took stone 6 from the market."),
        ({"type": "drew_blind", "seat": 1}, "Bob drew a building blind from the bag."),
        ({"type": "something_new", "seat": 1, "x": 2}, "Bob something_new x 2"),
    ],
)
def test_event_texts_use_names_and_the_drawings_coordinates(event, text):
    assert event_text(event, NAMES, RULES) == text


def test_spaces_and_cells_share_one_coordinate_language():
    """The log's "C2" is the drawings' column C, row 2 (labels above and left)."""
    board = str(drawing.board_svg({"board": {"size": 7, "tiles": []}, "play_area": []},
                                  drawing.looks(["wheat"])))
    village = str(drawing.village_svg([[None] * 5 for _ in range(6)], drawing.looks(["wheat"]),
                                      row_costs=[6, 5, 4, 3, 2, 1],
                                      row_values=[6, 5, 4, 3, 2, 1], col_values=[5, 4, 3, 4, 5]))
    for svg in (board, village):
        assert re.search(r">C</text>", svg) and re.search(r">2</text>", svg)
    assert 'data-space="C2"' in village and 'data-cell="C2"' in board


def test_a_space_built_over_shows_its_build_count():
    """Variant rebuild: a space built over shows ×N (public, like the event); others not."""
    down = {"resource": "wheat", "number": None, "face_up": False, "turn": 3}
    village = [[None] * 5 for _ in range(6)]
    village[5][0] = {**down, "builds": 2}
    village[5][1] = {**down, "builds": 1}
    village[5][2] = dict(down)  # a view without counts (older data): nothing drawn
    svg = str(drawing.village_svg(village, drawing.looks(["wheat"]),
                                  row_costs=[6, 5, 4, 3, 2, 1],
                                  row_values=[6, 5, 4, 3, 2, 1], col_values=[5, 4, 3, 4, 5]))
    assert svg.count('class="builds"') == 1 and "×2<title>" in svg
    mark = svg.split('data-space="A6"')[1].split("</g>")[0]
    assert 'class="builds"' in mark and "2 buildings" in mark


def _scene(game, seat, **selection):
    engine = game.engine

    state = current_state(game)
    return Scene(
        view=engine.observe(state, seat),
        rules=rule_data(game.game_name, game.variant_data),
        seat=seat,
        players=(PlayerInfo(0, "ann", is_me=seat == 0), PlayerInfo(1, "bob", is_me=seat == 1)),
        legal=tuple(legal_actions_json(game, seat)),
        selection=selection,
        version=game.version,
    )


@pytest.fixture
def game(nh_variants, ann, bob):
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    return game


def test_buildable_buildings_are_marked_and_the_others_greyed(game, ann, bob):
    users = {0: ann, 1: bob}
    rng = random.Random(11)
    board = get_board("newhaven")
    seen = set()
    for n in range(400):
        seat = game.to_move[0]
        legal = legal_actions_json(game, seat)
        if any(a["type"] == "build" for a in legal):
            hand = board.present(_scene(game, seat))["hand"]
            build = {(a["resource"], a["number"]): a for a in legal if a["type"] == "build"}
            for b in hand["buildings"]:
                pair = (b["resource"], b["number"])
                if pair not in build:
                    assert b["state"] == "no" and b["pick"] is None
                    seen.add("no")
                else:
                    up = any(a["face_up"] for a in legal if a["type"] == "build"
                             and (a["resource"], a["number"]) == pair)
                    assert b["state"] == ("up" if up else "down") and b["pick"] is not None
                    seen.add(b["state"])
            if seen >= {"no", "up", "down"}:
                break
        game = submit_action(game=game, user=users[seat], seat=seat, action=rng.choice(legal),
                             version=game.version, key=f"b{n}")
        if game.status != Game.Status.RUNNING:
            break
    assert seen >= {"no", "down"}


def test_picking_a_tile_offers_its_cells_and_its_rotations(game):
    board = get_board("newhaven")
    legal = legal_actions_json(game, 0)
    tile = next(a["tile"] for a in legal if a["type"] == "harvest")
    rotations = sorted({a["rotation"] for a in legal if a["type"] == "harvest"
                        and a["tile"] == tile})
    shown = board.present(_scene(game, 0, tile=str(tile), rot=str(rotations[0])))
    placing = shown["placing"]
    assert placing["active"] and placing["tile"] == tile
    assert [c.action for c in placing["targets"]] == [
        a for a in legal if a["type"] == "harvest" and a["tile"] == tile
        and a["rotation"] == rotations[0]]
    if len(rotations) > 1:
        assert placing["rotate"].params == {"tile": tile, "rot": rotations[1]}
        assert placing["rotate"].focus == f"tile-{tile}"  # the Place button's key
    # Bob (not to move), spectators and replays get no targets.
    for scene in (_scene(game, 1, tile=str(tile)), _scene(game, None, tile=str(tile))):
        assert not board.present(scene)["placing"]["targets"]


def test_a_variant_with_a_fifth_resource_and_seven_rows_is_drawn(client, ann):
    engine = get_engine("newhaven")
    data = engine.default_variants()["standard"]
    data.update(name="fish-7", description="Seven rows and fish.")
    data["resources"].append("fish")
    data["harvest_tiles"] += [["fish", "fish", "fish", "wheat"]] * 4
    data["village"] = {"rows": 7, "cols": 5, "row_costs": [7, 6, 5, 4, 3, 2, 1],
                       "row_values": [7, 6, 5, 4, 3, 2, 1], "col_values": [5, 4, 3, 4, 5]}
    variant = save_variant(game="newhaven", name="fish-7", data=data)
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    client.force_login(ann)
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    assert 'data-marker="fish"' in html and 'id="nh-i4"' in html  # a fifth icon
    assert 'data-space="A7"' in html  # the seventh row
    lobby = client.get(reverse("lobby")).content.decode()
    assert "Seven rows and fish." in lobby


def test_the_page_shows_the_display_name(client, game, ann):
    client.force_login(ann)
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    assert "<title>New Haven #" in html and "Newhaven" not in html


def test_a_building_that_may_go_either_way_asks_for_the_face_first(game, ann, bob):
    """Each village space is one whole target of the chosen face (a thumb could not hit
    half a space): the face is picked first when both are possible; garbage is ignored."""
    users = {0: ann, 1: bob}
    rng = random.Random(5)
    board = get_board("newhaven")
    for n in range(400):
        seat = game.to_move[0]
        legal = legal_actions_json(game, seat)
        builds = [a for a in legal if a["type"] == "build"]
        pairs = {(a["resource"], a["number"]) for a in builds}
        both = [p for p in pairs if {a["face_up"] for a in builds
                                     if (a["resource"], a["number"]) == p} == {True, False}]
        if both:
            res, number = both[0]
            code = f"{res}-{number}"
            for face, up in (("up", True), ("down", False), (None, True), ("sideways", True)):
                params = {"b": code, **({"face": face} if face else {})}
                scene = _scene(game, seat, **params)
                shown = board.present(scene)
                building = shown["building"]
                assert building["face"] == ("up" if up else "down")
                assert [p.params.get("face") for p in building["faces"]] == ["up", "down"]
                assert [p.current for p in building["faces"]] == [up, not up]
                assert sorted(map(str, (c.action for c in building["targets"]))) == sorted(
                    str(a) for a in builds
                    if (a["resource"], a["number"]) == (res, number) and a["face_up"] == up)
                village = scene.view["players"][seat]["village"]
                for c in building["targets"]:  # the whole space, not a half
                    assert c.pos == drawing.space_box(c.action["row"], c.action["col"],
                                                         len(village), len(village[0]))
                assert shown["act"] == "building"
            return
        game = submit_action(game=game, user=users[seat], seat=seat, action=rng.choice(legal),
                             version=game.version, key=f"f{n}")
        if game.status != Game.Status.RUNNING:
            break
    raise AssertionError("no building could go either way")


def test_the_turn_counts_every_players_turns(game):
    """The engine's turn counts every player's turns: "of" all of them (a 2-player game of
    10 turns each has 20), never "Turn 16 of 10"."""
    shown = get_board("newhaven").present(_scene(game, 0))
    assert shown["turn"] == "Turn 1 of 20"
