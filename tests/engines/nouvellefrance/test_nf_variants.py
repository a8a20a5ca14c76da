"""Variant data: defaults valid, every kind of malformed data named by field."""

from __future__ import annotations

from collections.abc import Callable

import jsonschema
import pytest
from nf_helpers import E, variant

from games.engines.protocol import InvalidVariant


def test_engine_identity() -> None:
    from games.engines import get_engine
    from games.engines.protocol import Engine

    eng = get_engine("nouvellefrance")
    assert eng is E and isinstance(eng, Engine)
    assert (eng.name, eng.min_players, eng.max_players) == ("nouvellefrance", 2, 4)


@pytest.mark.parametrize("name", ["standard", "simple"])
def test_defaults_valid(name: str) -> None:
    v = variant(name)
    assert E.validate_variant(v) == []
    jsonschema.Draft202012Validator.check_schema(E.variant_schema())
    jsonschema.validate(v, E.variant_schema())


def test_default_variants_are_fresh_copies() -> None:
    a = E.default_variants()
    a["standard"]["sites"][0]["height_limit"] = 99
    assert E.default_variants()["standard"]["sites"][0]["height_limit"] == 3
    assert set(a) == {"standard", "simple"}
    assert a["simple"]["simple"] is True and a["simple"]["deck"]["piles"] == [6] * 6
    assert a["simple"]["allies"]["refresh_after_storm"] is False


def _set(path: str, value: object) -> Callable[[dict], None]:
    def change(v: dict) -> None:
        *head, last = path.split(".")
        node = v
        for k in head:
            node = node[int(k)] if isinstance(node, list) else node[k]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return change


CASES = [
    (_set("sites.0.footprint", [[0, 0], [0, 0], [1, 0]]), "sites[0].footprint", "duplicate"),
    (_set("sites.1.footprint", [[0, 0], [-1, 0]]), "sites[1].footprint", "negative"),
    (_set("sites.2.footprint", [[0, 0.5]]), "sites[2].footprint", "integer"),
    (_set("sites.0.height_limit", 0), "sites[0].height_limit", "at least 1"),
    (
        _set("shapes.3.cells", [[0, 0], [2, 0], [3, 0], [4, 0], [5, 0]]),
        "shapes[3].cells",
        "face-connected",
    ),
    (_set("deck.piles", [11, 5, 5, 5, 5, 4]), "deck.piles", "35"),
    (_set("deck.cards_per_shape.dragon", 4), "deck.cards_per_shape", "unknown shapes"),
    (_set("colours", ["white", "brown", "yellow"]), "colours", "3 colours"),
    (_set("sticks.1.levels", ["+", "x2"]), "sticks[1].levels", "2 levels"),
    (_set("sticks.0.levels", ["+", "x2", "?"]), "sticks[0].levels", "unknown symbols"),
    (_set("copies.2", [0, 1, 2, 3]), "copies[2]", "4 colours"),
    (_set("copies.1", [0, 0, 1, 2, 7]), "copies[1]", "colour index"),
    (_set("deck.snowflake_piles", [1, 4, 6]), "deck.snowflake_piles", "2..6"),
    (_set("bonus_pieces.0.expires_at_storm", 5), "bonus_pieces[0].expires_at_storm", "only 3"),
    (_set("display.initial_face_up", 3), "display.initial_face_up", "room"),
    (_set("tiebreak_bonus_piece", "plank"), "tiebreak_bonus_piece", "unknown"),
    (_set("sites.2.extra_adjacency", [[[5, 0], [9, 9]]]), "sites[2].extra_adjacency[0]", "outside"),
    (_set("allies.enabled", ["fille_du_roy", "wizard"]), "allies.enabled[1]", "wizard"),
    (_set("simple", "yes"), "simple", "boolean"),
    (_set("sites.0.character_bonus", {"+": 6}), "sites[0].character_bonus", "no bonus"),
    (lambda v: v.pop("deck"), "(variant)", "deck"),
]


@pytest.mark.parametrize(("change", "field", "words"), CASES)
def test_malformed_variants_are_named(change, field: str, words: str) -> None:
    v = variant("standard")
    change(v)
    problems = E.validate_variant(v)
    assert problems, "expected a problem"
    assert any(p.startswith(field) and words in p for p in problems), problems
    with pytest.raises(InvalidVariant) as info:
        E.new_game(v, 2, 1)
    assert info.value.problems == problems


def test_not_an_object() -> None:
    assert E.validate_variant([]) != []


@pytest.mark.parametrize("n", [0, 1, 5, "2", 2.0])
def test_bad_player_count(n) -> None:
    with pytest.raises(InvalidVariant, match="num_players"):
        E.new_game(variant("standard"), n, 1)


def test_variant_data_drives_the_game() -> None:
    """A changed variant (a 2-level mill, room made up elsewhere, snowflakes elsewhere)
    plays through."""
    from nf_helpers import finish

    v = variant("standard")
    v["name"] = "custom"
    v["sites"][1]["height_limit"] = 2
    v["sites"][0]["height_limit"] = 4
    v["deck"]["snowflake_piles"] = [3, 5, 6]
    assert E.validate_variant(v) == []
    s = finish(E.new_game(v, 3, 4), 4)
    assert E.is_over(s)
    mill = s.compiled.site_index["mill"]
    assert all(lv <= 2 for (_x, _y, lv) in s.cubes[mill])
    assert E.state_from_json(E.state_to_json(s)).compiled.variant["name"] == "custom"


def test_capacity_below_the_cubes_dealt_is_refused_naming_the_field() -> None:
    """Rules file: "The validator rejects data whose capacity (cells x 3) is below the
    cubes that a game deals" (36 pieces x 5 cubes + 4 players x 6 bonus cubes = 204)."""
    v = variant("standard")
    cells = sum(len(s["footprint"]) for s in v["sites"])
    room = 3 * cells
    assert room >= 204
    # Remove footprint cells until exactly one cube place too few is left.
    drop = room // 3 - 204 // 3 + 1
    site = max(v["sites"], key=lambda s: len(s["footprint"]))
    site["footprint"] = site["footprint"][:-drop]
    site["extra_adjacency"] = []
    problems = E.validate_variant(v)
    assert len(problems) == 1 and problems[0].startswith("sites: ")
    assert "204 cubes a game deals" in problems[0] and str(3 * (cells - drop)) in problems[0]
    # The earlier reconstruction (rings of 6x4 and 4x4, redoubt arms of 6: 40 cells, 120
    # cube places) is refused for the same reason.
    old = variant("standard")
    ring = lambda w, h: [  # noqa: E731
        [x, y] for y in range(h) for x in range(w) if x in (0, w - 1) or y in (0, h - 1)
    ]
    old["sites"][0]["footprint"] = ring(6, 4)
    old["sites"][1]["footprint"] = ring(4, 4)
    old["sites"][2]["footprint"] = [[x, 0] for x in range(6)] + [[6, y] for y in range(1, 7)]
    old["sites"][2]["extra_adjacency"] = [[[5, 0], [6, 1]]]
    assert any("room for 120 cubes" in p for p in E.validate_variant(old))
    # A taller height limit makes room too: capacity counts cells x height limit.
    site["height_limit"] = 4
    assert E.validate_variant(v) == []


def test_variant_files_are_in_the_canonical_layout() -> None:
    """The files are written by ``dump_variant`` (cells on one line, readable diffs)."""
    from games.engines.nouvellefrance.variant import _HERE, dump_variant

    for name, data in E.default_variants().items():
        text = (_HERE / f"{name}.json").read_text(encoding="utf-8")
        assert text == dump_variant(data)
        assert "[0, 0]" in text
