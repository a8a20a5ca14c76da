"""Variant data: defaults valid, every kind of malformed variant named by its field."""

from __future__ import annotations

import copy
import json
from collections import Counter

import jsonschema
import pytest
from newhaven_helpers import VARIANTS, E

from games.engines import InvalidVariant
from games.engines.newhaven.variant import VARIANTS_DIR, format_variant


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_default_variants_are_valid(name):
    assert E.validate_variant(VARIANTS[name]) == []
    jsonschema.validate(VARIANTS[name], E.variant_schema())
    assert VARIANTS[name]["name"] == name


def test_default_variants_are_fresh_copies():
    a = E.default_variants()
    a["standard"]["market_size"] = 99
    assert E.default_variants()["standard"]["market_size"] == 5
    assert set(a) == {"standard", "side-b", "rebuild", "careful-harvest"}


def test_default_deck_matches_the_rules():
    tiles = VARIANTS["standard"]["harvest_tiles"]
    assert len(tiles) == 60
    assert Counter(s for t in tiles for s in t) == dict.fromkeys(
        VARIANTS["standard"]["resources"], 60
    )
    assert all(2 <= len(set(t)) <= 3 for t in tiles)
    assert VARIANTS["careful-harvest"]["hand"]["tiles"] == 3
    assert VARIANTS["careful-harvest"]["building_removals"] == {"2": 2, "3": 1}
    assert VARIANTS["side-b"]["turns_per_player"] == 9


def mutated(fn, base="standard"):
    v = copy.deepcopy(VARIANTS[base])
    fn(v)
    return E.validate_variant(v)


def has(problems, *needles):
    return any(all(n in p for n in needles) for p in problems)


def test_schema_violations_name_the_field():
    assert has(mutated(lambda v: v.update(market_size="5")), "market_size")
    assert has(mutated(lambda v: v["village"].pop("rows")), "village", "rows")
    assert has(mutated(lambda v: v["harvest_tiles"][3].append("wheat")), "harvest_tiles[3]")
    assert has(mutated(lambda v: v.update(extra=1)), "extra")
    assert E.validate_variant("nope") == ["(variant): must be a JSON object"]


def test_unequal_turns():
    problems = mutated(
        lambda v: v["board"]["play_area"].update({"3": {"rows": [0, 5], "cols": [1, 5]}})
    )
    assert has(problems, "board.play_area['3']", "unequal turns")


def test_turns_per_player_mismatch():
    assert has(mutated(lambda v: v.update(turns_per_player=9)), "board.play_area['2']", "10")


def test_too_few_tiles_and_buildings():
    assert has(
        mutated(lambda v: v.update(harvest_tiles=v["harvest_tiles"][:40])),
        "harvest_tiles",
        "too few",
    )
    assert has(
        mutated(lambda v: v["buildings"].update(copies=1, numbers=[1])), "buildings", "too few"
    )
    assert has(mutated(lambda v: v["building_removals"].update({"4": 7})), "building_removals['4']")


def test_malformed_grids():
    assert has(
        mutated(lambda v: v["board"]["printed_areas"][0].update(cell=[9, 1])),
        "board.printed_areas[0].cell",
        "outside",
    )
    assert has(
        mutated(lambda v: v["board"]["printed_areas"][0].update(cell=[0, 0])),
        "board.printed_areas[0].cell",
        "corner",
    )
    assert has(
        mutated(lambda v: v["board"]["printed_areas"][1].update(cell=[1, 1])),
        "board.printed_areas[1].cell",
        "overlaps",
    )
    assert has(
        mutated(lambda v: v["board"]["clearings"].append([1, 1])), "board.clearings[0]", "overlaps"
    )
    assert has(
        mutated(lambda v: v["board"]["play_area"].update({"2": {"rows": [1, 9], "cols": [1, 5]}})),
        "board.play_area['2'].rows",
    )
    assert has(
        mutated(lambda v: v["board"]["play_area"].update({"5": {"rows": [0, 6], "cols": [0, 6]}})),
        "board.play_area['5']",
    )
    assert has(mutated(lambda v: v["village"].update(row_values=[1, 2])), "village.row_values")


def test_costs_out_of_range():
    assert has(
        mutated(lambda v: v["village"].update(row_costs=[6, 5, 4, 3, 2, 0])), "village.row_costs[5]"
    )
    assert has(
        mutated(lambda v: v["village"].update(row_costs=[600, 5, 4, 3, 2, 1])),
        "village.row_costs[0]",
    )


def test_unknown_resources_anywhere():
    assert has(
        mutated(lambda v: v["harvest_tiles"][0].__setitem__(0, "gold")), "harvest_tiles[0]", "gold"
    )
    assert has(
        mutated(lambda v: v["board"]["printed_areas"][2]["squares"].__setitem__(1, "ore")),
        "board.printed_areas[2].squares",
        "ore",
    )


def test_side_b_settlement_count_must_match():
    """One piece (pond or tile) for each settlement cell, as the set-up lays them."""
    assert has(
        mutated(lambda v: v["board"].update(ponds=[2, 3, 4]), "side-b"),
        "board.settlement_tiles",
        "8 settlement cells",
    )


def test_new_game_refuses_invalid_variant():
    v = copy.deepcopy(VARIANTS["standard"])
    v["turns_per_player"] = 3
    with pytest.raises(InvalidVariant) as info:
        E.new_game(v, 2, 1)
    assert info.value.problems


def test_custom_valid_variant_plays():
    """A variant with other numbers (3x3 board area, 2 players only) is playable."""
    v = copy.deepcopy(VARIANTS["standard"])
    v["board"]["play_area"] = {"2": {"rows": [2, 4], "cols": [2, 4]}}
    v["board"]["printed_areas"] = []
    v["turns_per_player"] = 4
    v["building_removals"] = {}
    assert E.validate_variant(v) == []
    state = E.new_game(v, 2, 1)
    assert len(state.empty_cells) == 9
    with pytest.raises(InvalidVariant):
        E.new_game(v, 3, 1)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_files_keep_their_readable_layout(name):
    """The files are laid out by ``format_variant`` (short lists such as a cell on one
    line), so an edit shows up as a small diff; rewrite them with it after an edit."""
    path = VARIANTS_DIR / f"{name}.json"
    text = path.read_text(encoding="utf-8")
    assert text == format_variant(json.loads(text))
    assert "    [1, 1],\n" not in text and "[\n      1," not in text


def test_format_variant_lays_out_short_lists_on_one_line():
    text = format_variant({"name": "x", "cells": [[1, 2], [3, 4]], "long": ["a" * 50] * 3})
    assert text == (
        '{\n  "name": "x",\n  "cells": [[1, 2], [3, 4]],\n  "long": [\n'
        + ",\n".join(['    "' + "a" * 50 + '"'] * 3)
        + "\n  ]\n}\n"
    )
