"""The schema-generated form: drawn, submitted as a browser would, read back."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest
from django.template.loader import render_to_string
from formdata import form_fields, form_post

from common.jsondata import diff
from games.editor.forms import VariantEditor
from games.editor.schemaform import Invalid
from games.engines import get_engine


def draw(editor: VariantEditor, data: Any, errors: dict | None = None) -> str:
    root, placed = editor.render(data, errors)
    return render_to_string("editor/partials/variant_form.html", {
        "root": root, "placed": placed, "variant": SimpleNamespace(pk=1),
        "form_url": "/form/", "validate_url": "/validate/"})


def submit(editor: VariantEditor, html: str, op: str = "", **changes: str):
    post = form_post(html, **changes)
    if op:
        post["op"] = op
    return editor.check(editor.read(post))


def defaults() -> list[tuple[str, str, dict]]:
    return [(game, name, data) for game in ("newhaven", "nouvellefrance")
            for name, data in get_engine(game).default_variants().items()]


@pytest.mark.parametrize(("game", "name", "data"), defaults(),
                         ids=[f"{g}-{n}" for g, n, _d in defaults()])
def test_every_default_variant_survives_the_form_unchanged(game, name, data):
    """Drawn and submitted untouched, the form gives back exactly the data: the visual
    editors lose nothing (order of tiles, cells and cubes included)."""
    editor = VariantEditor(game, name=name)
    checked = submit(editor, draw(editor, data))
    assert checked.ok, checked.errors
    assert diff(data, checked.data) == []


def test_help_comes_from_the_schema(toy):
    editor = VariantEditor("toygame", name="basic")
    html = draw(editor, toy.default_variants()["basic"])
    assert "The counter value that ends the game." in html
    assert "from 3 to 100" in html  # the bounds of an integer field


def test_a_bad_value_is_kept_as_typed_with_its_fields_message(toy):
    editor = VariantEditor("toygame", name="basic")
    html = draw(editor, toy.default_variants()["basic"])
    checked = submit(editor, html, target="ten")
    assert not checked.ok
    assert checked.errors[("target",)] == ["Enter a whole number."]
    assert checked.tree["target"] == Invalid("ten", "Enter a whole number.")
    again = draw(editor, checked.tree, checked.errors)
    assert 'value="ten"' in again and "Enter a whole number." in again


def test_schema_and_engine_problems_land_on_their_fields(toy):
    editor = VariantEditor("toygame", name="basic")
    html = draw(editor, toy.default_variants()["basic"])
    checked = submit(editor, html, **{"steps[1]": "0", "target": "5", "steps[2]": "7"})
    assert ("steps", "1") in checked.errors and "less than the minimum" in \
        checked.errors[("steps", "1")][0]
    _root, placed = editor.render(checked.tree, checked.errors)
    slots = {p.slot for p in placed}
    assert "f-steps--1" in slots
    # The engine's own check (not the schema) names steps[2] too once the schema is happy.
    checked = submit(editor, html, **{"target": "5", "steps[2]": "7"})
    assert checked.errors == {("steps", "2"): ["7 reaches the target in one move"]}


def test_add_and_remove_list_items_and_map_entries(toy):
    editor = VariantEditor("toygame", name="basic")
    html = draw(editor, toy.default_variants()["basic"])
    added = submit(editor, html, op="add:steps")
    assert added.data["steps"] == [1, 2, 3, 3]  # a new item starts as a copy of the last
    removed = submit(editor, html, op="remove:steps[0]")
    assert removed.data["steps"] == [2, 3]
    entry = submit(editor, html, op="add:bonus")
    assert entry.data["bonus"] == {"2": 5, "3": 4, "4": 4}  # numeric keys count on
    gone = submit(editor, html, op="remove:bonus{0}")
    assert gone.data["bonus"] == {"3": 4}
    renamed = submit(editor, html, **{"bonus{1}#key": "4"})
    assert renamed.data["bonus"] == {"2": 5, "4": 4}


def test_booleans_enums_and_optional_fields(toy):
    editor = VariantEditor("toygame", name="basic")
    data = {**toy.default_variants()["basic"], "mode": "fancy"}
    html = draw(editor, data)
    unchecked = [(n, v) for n, v in form_fields(html) if not (n == "board.fast" and v == "true")]
    from django.http import QueryDict

    post = QueryDict(mutable=True)
    for n, v in unchecked:
        post.appendlist(n, v)
    checked = editor.check(editor.read(post))
    assert checked.data["board"]["fast"] is False and checked.data["mode"] == "fancy"
    no_description = submit(editor, html, description="")
    assert "description" not in no_description.data  # an optional field left empty


def test_garbage_submissions_give_messages_not_tracebacks(toy):
    editor = VariantEditor("toygame", name="basic")
    from django.http import QueryDict

    for fields in ({"steps#n": "999999", "board#o": "1"}, {"bonus#n": "2"},
                   {"target": "1e999"}, {"steps#n": "x"}, {"op": "remove:nothing[3]"}, {}):
        post = QueryDict(mutable=True)
        post.update(fields)
        checked = editor.check(editor.read(post))
        assert not checked.ok
        draw(editor, checked.tree, checked.errors)


# --- New Haven's visual editors ----------------------------------------------------------------


def nh(name: str = "standard") -> tuple[VariantEditor, dict, str]:
    data = get_engine("newhaven").default_variants()[name]
    editor = VariantEditor("newhaven", name=name)
    return editor, data, draw(editor, data)


def test_village_grid_edits_a_value_and_follows_the_row_count():
    editor, _data, html = nh()
    assert 'id="village-grid"' in html
    checked = submit(editor, html, **{"village.col_values[0]": "7"})
    assert checked.ok and checked.data["village"]["col_values"][0] == 7
    bad = submit(editor, html, **{"village.col_values[0]": "-1"})
    assert ("village", "col_values", "0") in bad.errors
    grown = submit(editor, html, **{"village.rows": "7"})
    village = grown.data["village"]
    assert len(village["row_costs"]) == len(village["row_values"]) == 7


def test_board_cells_change_kind_and_keep_their_order():
    editor, data, html = nh()
    board = data["board"]
    first = board["printed_areas"][0]["cell"]
    checked = submit(editor, html, **{
        f"board#cell-{first[0]}-{first[1]}": "", "board#cell-3-3": "clearing"})
    after = checked.data["board"]
    assert [a["cell"] for a in after["printed_areas"]] == [
        a["cell"] for a in board["printed_areas"][1:]]
    assert after["clearings"] == [[3, 3]]
    printed = submit(editor, html, **{"board#cell-2-2": "printed"})
    added = printed.data["board"]["printed_areas"][-1]
    assert added["cell"] == [2, 2] and len(added["squares"]) == 4


def test_harvest_deck_counts_keep_the_deck_order():
    editor, data, html = nh()
    tiles = data["harvest_tiles"]
    checked = submit(editor, html, **{"harvest_tiles#t0-count": "3"})
    assert checked.data["harvest_tiles"][: len(tiles)] == tiles
    assert checked.data["harvest_tiles"][len(tiles)] == tiles[0]
    fewer = submit(editor, html, **{"harvest_tiles#t0-count": "0"})
    assert tiles[0] not in fewer.data["harvest_tiles"]
    assert len(fewer.data["harvest_tiles"]) == len(tiles) - tiles.count(tiles[0])


def test_an_unplayable_board_names_the_field():
    editor, _data, html = nh()
    checked = submit(editor, html, **{"board#cell-3-3": "settlement"})
    assert not checked.ok  # a settlement with nothing to put on it
    assert checked.errors and all(key[0] == "board" for key in checked.errors)
    _root, placed = editor.render(checked.tree, checked.errors)
    assert all(p.slot.startswith("f-board") for p in placed)


# --- Nouvelle-France's visual editors ---------------------------------------------------------


def nf() -> tuple[VariantEditor, dict, str]:
    data = get_engine("nouvellefrance").default_variants()["standard"]
    editor = VariantEditor("nouvellefrance", name="standard")
    return editor, data, draw(editor, data)


def test_footprint_cells_are_clicked_on_and_off():
    editor, data, html = nf()
    post = form_post(html)
    mill = data["sites"][1]["footprint"]
    new = [max(x for x, _y in mill) + 1, max(y for _x, y in mill) + 1]  # just outside it
    post.appendlist("sites[1].footprint#cell", f"{new[0]},{new[1]}")
    checked = editor.check(editor.read(post))
    footprint = checked.data["sites"][1]["footprint"]
    assert footprint[:-1] == data["sites"][1]["footprint"] and footprint[-1] == new


def test_shape_cube_order_is_kept_when_a_cell_is_removed():
    editor, data, html = nf()
    cells = data["shapes"][0]["cells"]
    drop = cells[1]
    post = form_post(html)
    values = [v for v in post.getlist("shapes[0].cells#cell") if v != f"{drop[0]},{drop[1]}"]
    post.setlist("shapes[0].cells#cell", values)
    checked = editor.check(editor.read(post))
    assert checked.tree["shapes"][0]["cells"] == [c for c in cells if c != drop]
    assert not checked.ok  # copies no longer match the shape's cube count
    assert any(key[0] == "copies" for key in checked.errors)


def test_snowflake_piles_are_check_boxes():
    editor, _data, html = nf()
    post = form_post(html)
    post.setlist("deck#flake", ["2", "5", "6"])
    checked = editor.check(editor.read(post))
    assert checked.data["deck"]["snowflake_piles"] == [2, 5, 6]


def test_copies_pick_colours_by_index():
    editor, data, html = nf()
    checked = submit(editor, html, **{"copies[0][0]": "3"})
    expected = copy.deepcopy(data["copies"])
    expected[0][0] = 3
    assert checked.ok and checked.data["copies"] == expected
