"""The rules editor in the reader's language (issue 21): every simulation figure of both
games named by its game's editor package, field paths by their schema titles, variant
display names apart from their slugs."""

from __future__ import annotations

from importlib import import_module
from typing import Any

import pytest
from django.utils import translation

from games import catalogue
from games.editor import simulation
from games.editor.forms import VariantEditor
from games.editor.presenters import change_summary, diff_rows, report_sections
from games.editor.widgets import figure_label
from games.engines import get_engine
from games.models import Variant
from games.variants import services as variants
from games.variants.services import load_default_variants

GAMES = ["newhaven", "nouvellefrance"]


@pytest.mark.parametrize("game", GAMES)
def test_every_figure_of_a_simulation_has_a_translated_label(game: str) -> None:
    """The figures one real game gives (sites, sticks, levels, storms included) are each
    named by the game's package, and the names are translated."""
    data = get_engine(game).default_variants()["standard"]
    report = simulation.run_chunk(game, data, 2, 1, 0, bots=["random"], seed=5)
    names = sorted(report["figures"])
    assert names and "turns" in names
    package = import_module(catalogue.entry(game).editor)
    unnamed = [n for n in names if package.figure_label(n) is None]
    assert not unnamed, f"figures without a label in games/editor/{game}: {unnamed}"
    english = {name: figure_label(game, name) for name in names}
    with translation.override("de"):
        german = {name: figure_label(game, name) for name in names}
    assert all(german[n] != english[n] for n in names), german
    sections = report_sections({"by_players": {"2": report}}, None,
                               lambda name: figure_label(game, name))
    assert {row.label for row in sections[0].rows} >= set(english.values())


def test_figures_with_names_in_their_ids_name_them() -> None:
    with translation.override("fr"):
        assert figure_label("nouvellefrance", "level1_fill_at_first_storm_church") == (
            "niveau 1 rempli à la 1re tempête de neige : Église")
        assert "bâton B" in figure_label("nouvellefrance",
                                         "level1_fill_at_first_storm_stick_B")
        assert "tempête de neige 2" in figure_label("nouvellefrance", "unplaceable_share_2")
    assert figure_label("newhaven", "a_new_figure") == "a new figure"  # not named yet


def test_history_lines_and_diffs_name_fields_by_their_titles() -> None:
    title = VariantEditor("newhaven").form(None).path_title
    record = {"path": "village.row_values[0]", "kind": "changed", "old": 6, "new": 8}
    assert change_summary([record], title=title) == ["Village › Row values › 1: 6 → 8"]
    with translation.override("de"):
        assert change_summary([record], title=title) == ["Dorf › Reihenwerte › 1: 6 → 8"]
        settings_line = change_summary([{"games": 3, "players": [2, 3], "bots": ["random"],
                                         "seed": 7}])
        assert settings_line == ["3 Partien; Spieler: 2, 3; Bots: random; Seed 7"]
    assert title(("board", "play_area", "3", "rows")) == "Board › Play area › 3 › Rows"
    assert change_summary([record]) == ["village.row_values[0]: 6 → 8"]  # no schema: as is
    nf = VariantEditor("nouvellefrance").form(None).path_title
    from common.jsondata import diff

    rows = diff_rows(diff({"display": {"size": 3}}, {"display": {"size": 4}}), nf)
    assert [(r.path, r.code) for r in rows] == [("Display › Size", "display.size")]


@pytest.mark.django_db
def test_variant_display_names_are_translated_and_apart_from_the_slug(make_user: Any
                                                                     ) -> None:
    load_default_variants(games=["newhaven"])
    careful = Variant.objects.get(game="newhaven", name="careful-harvest")
    assert careful.title == "Careful harvest"
    with translation.override("it"):
        assert careful.title == "Raccolto prudente" and careful.name == "careful-harvest"
    copy = variants.clone_variant(variant=careful, name="winter-rules",
                                  user=make_user("boss", staff=True))
    draft = variants.draft_of(copy)
    # The copy does not borrow the original's name: its own, from its slug, until titled.
    assert "title" not in draft.data and Variant(name="winter-rules", data=draft.data
                                                 ).title == "Winter rules"


def test_notes_the_services_write_are_shown_in_the_readers_language() -> None:
    stored = variants.system_note(variants.SYSTEM_NOTES[1], source="standard", version="v2")
    assert stored == "Copy of standard v2"
    with translation.override("de"):
        assert variants.note_text(stored) == "Kopie von standard v2"
        assert variants.note_text(variants.system_note(variants.SYSTEM_NOTES[0],
                                                       version="v1")) == "aus v1"
        assert variants.note_text("Imported") == "Importiert"
        assert variants.note_text("richer corner") == "richer corner"  # typed: as typed


def test_data_saved_before_titles_shows_the_shipped_title() -> None:
    """Games pinned to a version without a title (and admins' versions of a shipped
    variant) still show the shipped variant's translated name; others their slug."""
    from games.models import Game

    old = Game(game_name="newhaven", variant_name="side-b", variant_data={"name": "side-b"})
    with translation.override("fr"):
        assert old.variant_title == "Face B"
    assert Variant(game="newhaven", name="side-b", data={}).title == "Side B"
    assert Game(game_name="newhaven", variant_name="my-own", variant_data={}
                ).variant_title == "My own"
