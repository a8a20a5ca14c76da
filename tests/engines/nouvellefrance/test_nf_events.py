"""Events, the public placement lists in ``observe``, ``reveal``, rule data and figures."""

from __future__ import annotations

import json
import random

import pytest
from nf_helpers import E, edit, finish, new, play_random, variant, with_cubes

from games.engines.nouvellefrance.events import EVENT_TYPES
from games.engines.nouvellefrance.state import SNOWFLAKE
from games.engines.protocol import IllegalAction, InvalidVariant

W, B, Y, U = 0, 1, 2, 3


def _events_of(name: str, n: int, seed: int):
    s = new(name, n, seed)
    out = []
    for before, seat, action, after in play_random(s, random.Random(seed)):
        out.append((before, seat, action, E.describe_action(before, action), after))
    return out


# -- events ------------------------------------------------------------------------------


def test_events_name_only_public_things() -> None:
    """No event changes when the hidden deck order is resampled (determinize), except a
    draw's card, which is public once it lands face up; a Huron event holds no card."""
    for before, _seat, action, event, _after in _events_of("standard", 3, 5):
        assert set(event) == {"type", "seat", *EVENT_TYPES[event["type"]]}
        text = json.dumps(event)
        if event["type"] in ("huron", "huron_ordered", "huron_skipped"):
            assert set(event) <= {"type", "seat", "cards"}
            continue
        if event["type"] in ("drew", "discarded"):
            continue
        for p in [*range(3), None]:
            world = E.determinize(before, p, random.Random(1))
            assert json.dumps(E.describe_action(world, action)) == text


def test_draw_event_names_the_card_and_the_storm_points_per_site_and_seat() -> None:
    """Rules file: "Snowstorm k ... on each site, every player gets n x (+1, +2 or -1) by
    the stick's symbol for level k"; the event gives those points seat by seat."""
    s = new(n=2, seed=9)
    s = edit(
        s,
        sticks=(0, 1, 2),
        phase="draw",
        huron_queue=(),
        deck=(SNOWFLAKE, *s.deck),
        deck_piles=(2, *s.deck_piles),
        bonus=(("ready", "used", "ready"), ("used", "ready", "ready")),
    )
    s = with_cubes(s, "church", {(0, 0, 1): W, (1, 0, 1): W, (2, 0, 1): B, (3, 0, 2): W})
    s = with_cubes(s, "mill", {(0, 0, 1): W, (1, 0, 1): Y})
    event = E.describe_action(s, ("draw",))
    after = E.apply(s, s.active, ("draw",))
    assert event["type"] == "drew" and event["seat"] == s.active
    assert (
        event["card"]
        == s.compiled.shapes[after.display[-1]].name
        == s.compiled.shapes[s.deck[1]].name
    )
    (storm,) = event["storms"]
    assert storm["storm"] == 1 and storm["level"] == 1
    assert storm["symbols"] == {"church": "+", "mill": "x2", "redoubt": "-"}
    assert storm["points"] == {"church": [2, 1], "mill": [2, 0], "redoubt": [0, 0]}
    assert storm["expired"] == [[0, "beam"]] and storm["characters"] == []
    assert event["over"] is False and event["dropped"] is None
    # The last storm ends the game: no card comes up, the characters are scored.
    last = edit(s, storms=2, holders=(1, -1, 0))
    event = E.describe_action(last, ("draw",))
    assert event["card"] is None and event["over"] is True
    assert event["storms"][0]["characters"] == [
        ["church", "priest", 1, 8],
        ["redoubt", "soldier", 0, 4],
    ]


def test_placement_event_gives_cubes_levels_points_and_character() -> None:
    s = new(n=2, seed=6)
    church = s.compiled.sites[0]
    last = church.cells[3]
    s = with_cubes(s, "church", {(x, y, 1): Y for (x, y) in church.cells if (x, y) != last})
    s = edit(s, active=B, phase="draw", huron_queue=())
    event = E.describe_action(s, ("bonus", "peg", "church", 0, *last))
    assert event == {
        "type": "bonus_placed",
        "seat": B,
        "piece": "peg",
        "copy": None,
        "site": "church",
        "orientation": 0,
        "x": last[0],
        "y": last[1],
        "level": 1,
        "cubes": [[last[0], last[1], 1, "brown"]],
        "points": 1,
        "character": "priest",
    }
    # A building piece names its copy; the cubes are where the piece landed.
    for before, seat, _action, event, after in _events_of("standard", 2, 3):
        if event["type"] == "placed":
            site = before.compiled.site_index[event["site"]]
            assert event["copy"] == before.pending_copy and event["seat"] == seat
            assert {(x, y, lv) for x, y, lv, _c in event["cubes"]} == set(after.cubes[site]) - set(
                before.cubes[site]
            )
            assert event["points"] == after.scores[seat] - before.scores[seat]
            assert event["level"] == min(lv for _x, _y, lv, _c in event["cubes"])
            break
    else:
        pytest.fail("no placement in the game")


def test_ally_and_choice_events() -> None:
    s = new(n=2, seed=1)
    i = s.compiled.shape_index["scythe"]
    s = edit(s, active=0, display=(i, 0), phase="card", huron_queue=())
    assert E.describe_action(s, ("card", 0)) == {
        "type": "card_chosen",
        "seat": 0,
        "index": 0,
        "shape": "scythe",
    }
    t = E.apply(s, 0, ("card", 0))
    assert E.describe_action(t, ("copy", 1)) == {
        "type": "copy_taken",
        "seat": 0,
        "shape": "scythe",
        "copy": 1,
        "colours": ["brown", "brown", "yellow", "blue", "white"],
    }
    f = edit(s, phase="fille", points=5)
    assert E.describe_action(f, ("fille_du_roy",)) == {
        "type": "fille_du_roy",
        "seat": 0,
        "points": 5,
    }
    assert E.describe_action(f, ("no_ally",)) == {"type": "no_ally", "seat": 0}
    c = edit(s, phase="coureur", points=5, coureur_queue=(1,))
    assert E.describe_action(c, ("coureur",)) == {"type": "coureur", "seat": 1, "points": 2}
    assert E.describe_action(c, ("decline",)) == {"type": "declined", "seat": 1}
    with pytest.raises(IllegalAction):
        E.describe_action(c, ("fille_du_roy",))


# -- observe: the public list of placements ------------------------------------------------


def test_observe_lists_the_pending_piece_placements_with_their_level() -> None:
    """During a placement decision every seat sees the legal placements and where each
    lands, so a browser can show a ghost without geometry code of its own."""
    for _before, _seat, _action, _event, after in _events_of("standard", 3, 8):
        if after.phase != "place":
            continue
        views = [E.observe(after, p) for p in [*range(3), None]]
        listed = views[-1]["placements"]
        assert all(v["placements"] == listed for v in views)
        legal = E.legal_actions(after, after.active)
        assert [("place", *p[:4]) for p in listed] == legal
        for site, o, x, y, level in listed[:: max(1, len(listed) // 20)]:
            cubes = E.describe_action(after, ("place", site, o, x, y))["cubes"]
            assert min(c[2] for c in cubes) == level
        assert views[-1]["bonus_placements"] == {}
        break
    else:
        pytest.fail("no placement phase reached")


def test_observe_lists_the_ready_bonus_placements_in_the_draw_phase() -> None:
    s = edit(new(n=2, seed=4), phase="draw", huron_queue=())
    s = edit(s, bonus=(("used", "ready", "ready"), ("ready", "ready", "ready")))
    view = E.observe(s, None)
    me = s.active
    assert view["phase"] == "draw" and view["placements"] == []
    expected = {"post", "peg"} if me == 0 else {"beam", "post", "peg"}
    assert set(view["bonus_placements"]) == expected
    legal = {a for a in E.legal_actions(s, me) if a[0] == "bonus"}
    listed = {
        ("bonus", piece, *p[:4]) for piece, ps in view["bonus_placements"].items() for p in ps
    }
    assert listed == legal
    assert all(p[4] == 1 for ps in view["bonus_placements"].values() for p in ps)  # empty sites
    assert E.observe(s, 1 - me)["bonus_placements"] == view["bonus_placements"]


def test_observe_names_the_phase() -> None:
    s = new(n=2, seed=4)
    assert E.observe(s, 0)["phase"] == s.phase == "huron"
    assert E.observe(s, None)["huron_queue"] == list(s.huron_queue)


# -- reveal ---------------------------------------------------------------------------------


def test_reveal_shows_the_deck_order_and_every_huron_knowledge() -> None:
    s = new(n=3, seed=2)
    me = s.active
    t = E.apply(E.apply(s, me, ("huron",)), me, ("order", 2, 0, 1))
    shown = E.reveal(t)
    spectator = E.observe(t, None)
    assert {k: v for k, v in shown.items() if k != "revealed"} == spectator
    names = ["snowflake" if c == SNOWFLAKE else t.compiled.shapes[c].name for c in t.deck]
    assert shown["revealed"]["deck"] == names
    assert shown["revealed"]["deck_piles"] == list(t.deck_piles)
    assert shown["revealed"]["huron_known"][me] == names[:3]
    assert shown["revealed"]["huron_known"][(me + 1) % 3] == []


# -- rule data ------------------------------------------------------------------------------


def test_rule_data_envelope_and_sites() -> None:
    data = E.rule_data(variant())
    assert data["game"] == "nouvellefrance" and data["title"] == "Nouvelle-France" == E.title
    assert data["variant"] == "standard" and data["player_counts"] == [2, 3, 4]
    assert data["description"]
    json.dumps(data)
    names = [site["name"] for site in data["sites"]]
    assert names == ["church", "mill", "redoubt"]
    redoubt = data["sites"][2]
    assert len(redoubt["extra_adjacency"]) == 1 and redoubt["character"] == "soldier"
    assert data["deck"]["size"] == 39 and data["deck"]["piles"] == [11, 5, 5, 5, 5, 5]
    assert data["phases"][0] == "huron" and data["allies"]["huron_peek"] == 3
    assert data["dealt_cubes"] == 204
    assert sum(site["capacity"] for site in data["sites"]) >= data["dealt_cubes"]
    assert [b["expires_at_storm"] for b in data["bonus_pieces"]] == [1, 2, 3]
    with pytest.raises(InvalidVariant):
        E.rule_data({"name": "nonsense"})
    # The action and event vocabularies, and a fresh copy for every caller.
    assert data["actions"]["place"] == ["site", "orientation", "x", "y"]
    assert data["actions"]["discard"] == ["index", "copy"]
    assert data["events"]["placed"][-1] == "character"
    data["sites"][0]["footprint"].clear()
    assert E.rule_data(variant())["sites"][0]["footprint"]


def test_rule_data_orientations_draw_every_placement_without_geometry() -> None:
    """A placement ``[site, o, x, y, level]`` from ``observe`` plus the orientation's cube
    offsets from ``rule_data`` is exactly where the cubes land, colours included."""
    data = E.rule_data(variant())
    shapes = {shape["name"]: shape for shape in data["shapes"]}
    checked = 0
    for _before, _seat, _action, _event, after in _events_of("standard", 2, 12):
        if after.phase != "place" or checked >= 3:
            continue
        view = E.observe(after, None)
        copy = shapes[view["pending"]["shape"]]["copies"][view["pending"]["copy"]]
        for site, o, x, y, level in view["placements"][::7]:
            drawn = sorted(
                [x + dx, y + dy, level + dz, colour]
                for dx, dy, dz, colour in copy["orientations"][o]
            )
            placed = E.describe_action(after, ("place", site, o, x, y))
            assert drawn == sorted(placed["cubes"])
        checked += 1
    assert checked == 3
    cross = shapes["cross"]
    assert [len(c["orientations"]) for c in cross["copies"]] == [24] * 4
    assert cross["copies"][0]["colours"] == ["white", "white", "brown", "yellow", "blue"]
    beam = data["bonus_pieces"][0]
    assert sorted(map(tuple, beam["orientations"][0])) in (
        [(0, 0, 0), (1, 0, 0), (2, 0, 0)],
        [(0, 0, 0), (0, 1, 0), (0, 2, 0)],
        [(0, 0, 0), (0, 0, 1), (0, 0, 2)],
    )


# -- figures ---------------------------------------------------------------------------------


def test_figures_of_a_finished_game() -> None:
    rows = _events_of("standard", 4, 2)
    final = rows[-1][-1]
    figures = E.figures([r[3] for r in rows], final)
    assert figures["turns"] == final.turn
    assert figures["pieces_placed"] == len(final.placed)
    assert figures["pieces_removed"] == len(final.removed_pieces)
    discards = sum(1 for r in rows if r[3]["type"] == "discarded")
    assert figures["unplaceable_share"] == pytest.approx(discards / figures["cards_drawn"])
    assert 0 <= figures["level1_fill_at_first_storm"] <= 1
    assert figures["level1_fill_at_first_storm"] == min(
        figures[f"level1_fill_at_first_storm_{site}"] for site in ("church", "mill", "redoubt")
    )
    assert figures["sites_completed"] == sum(1 for h in final.holders if h >= 0)
    # the same fills by the stick each site was dealt (the bots fill level 1 by it)
    cv = final.compiled
    for i, site in enumerate(cv.sites):
        stick = cv.stick_names[final.sticks[i]]
        assert (
            figures[f"level1_fill_at_first_storm_stick_{stick}"]
            == figures[f"level1_fill_at_first_storm_{site.name}"]
        )
    assert 0 < figures["pieces_placed_at_first_storm"] <= figures["pieces_placed"]
    assert 0 <= figures["bonus_pieces_placed_at_first_storm"] <= figures["bonus_pieces_placed"]
    assert all(isinstance(v, int | float) for v in figures.values())


def test_level1_fill_counts_the_cells_covered_when_the_first_storm_comes() -> None:
    s = new(n=2, seed=9)
    s = edit(
        s, phase="draw", huron_queue=(), deck=(SNOWFLAKE, *s.deck), deck_piles=(2, *s.deck_piles)
    )
    me = s.active
    events = [E.describe_action(s, ("bonus", "beam", "mill", 0, 0, 0))]
    t = E.apply(s, me, ("bonus", "beam", "mill", 0, 0, 0))
    while E.to_move(t) != [1 - me] or t.phase not in ("draw", "huron"):
        action = E.legal_actions(t, E.to_move(t)[0])[-1]  # no ally, decline, skip
        events.append(E.describe_action(t, action))
        t = E.apply(t, E.to_move(t)[0], action)
    while t.phase == "huron":
        events.append(E.describe_action(t, ("skip_huron",)))
        t = E.apply(t, E.to_move(t)[0], ("skip_huron",))
    events.append(E.describe_action(t, ("draw",)))
    t = E.apply(t, 1 - me, ("draw",))
    assert t.storms == 1
    final = finish(t, 3)
    figures = E.figures(events, final)
    mill = final.compiled.sites[1]
    covered = len({(c[0], c[1]) for c in events[0]["cubes"] if c[2] == 1})
    assert covered >= 1
    assert figures["level1_fill_at_first_storm_mill"] == pytest.approx(covered / len(mill.cells))
    assert figures["level1_fill_at_first_storm_church"] == 0
    assert figures["level1_fill_at_first_storm"] == 0
    mill_stick = final.compiled.stick_names[final.sticks[1]]
    assert figures[f"level1_fill_at_first_storm_stick_{mill_stick}"] == pytest.approx(
        covered / len(mill.cells)
    )
    assert figures["pieces_placed_at_first_storm"] == 0
    assert figures["bonus_pieces_placed_at_first_storm"] == 1
