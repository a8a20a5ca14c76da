"""Problem paths onto fields, and the field-by-field diff."""

from __future__ import annotations

import pytest

from common.jsondata import canonical, diff, digest
from common.jsonpaths import format_path, group_problems, parse_path, split_problem


@pytest.mark.parametrize(
    ("problem", "key", "message"),
    [
        ("sites[2].footprint: duplicate cells", ("sites", "2", "footprint"), "duplicate cells"),
        ("sites.2.footprint: duplicate cells", ("sites", "2", "footprint"), "duplicate cells"),
        ("village.row_costs[3]: cost 0 must be", ("village", "row_costs", "3"), "cost 0 must be"),
        ("board.play_area['3'].rows: bad", ("board", "play_area", "3", "rows"), "bad"),
        ('deck.cards_per_shape["cross"]: x', ("deck", "cards_per_shape", "cross"), "x"),
        ("(variant): must be a JSON object", (), "must be a JSON object"),
        ("harvest_tiles: 3 too few (a: b)", ("harvest_tiles",), "3 too few (a: b)"),
        ("Something without a path", (), "Something without a path"),
        ("a b: not a path", (), "a b: not a path"),
    ],
)
def test_every_message_style_names_its_field(problem, key, message):
    assert split_problem(problem) == (key, message)


def test_paths_format_like_the_engines_and_parse_back():
    path = ("board", "play_area", "3", "rows", 0)
    text = format_path(path)
    assert text == "board.play_area[3].rows[0]"
    assert parse_path(text) == ("board", "play_area", "3", "rows", "0")
    assert format_path(()) == "(variant)"


def test_problems_group_by_field_without_repeats():
    grouped = group_problems(["a[1]: x", "a.1: x", "a[1]: y", "b: z"])
    assert grouped == {("a", "1"): ["x", "y"], ("b",): ["z"]}


def test_diff_goes_field_by_field():
    old = {"a": 1, "b": {"c": [1, 2, 3]}, "gone": True}
    new = {"a": 2, "b": {"c": [1, 5, 3]}, "new": "x"}
    changes = {(c.label, c.kind) for c in diff(old, new)}
    assert changes == {("a", "changed"), ("b.c[1]", "changed"), ("gone", "removed"),
                       ("new", "added")}


def test_an_item_inserted_at_the_front_is_one_change():
    old = [[0, 0], [1, 0], [2, 0], [3, 0]]
    new = [[9, 9], *old]
    changes = diff(old, new)
    assert [(c.label, c.kind, c.new) for c in changes] == [("[0]", "added", [9, 9])]


def test_equal_data_has_no_diff_and_one_digest():
    a = {"x": [1, {"y": 2}], "z": None}
    b = {"z": None, "x": [1, {"y": 2}]}
    assert diff(a, b) == [] and canonical(a) == canonical(b) and digest(a) == digest(b)
    assert digest(a) != digest({**a, "z": 0})
