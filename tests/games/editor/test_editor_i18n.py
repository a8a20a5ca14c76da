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


# --- the engines' problems with a draft, in the reader's language (issue 21) -----------------


def _nh_broken(**changes: Any) -> dict:
    data = get_engine("newhaven").default_variants()["standard"]
    for path, value in changes.items():
        *head, last = path.split("__")
        target = data
        for step in head:
            target = target[int(step)] if isinstance(target, list) else target[step]
        if value is None:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return data


def test_schema_errors_read_in_german_beside_their_fields() -> None:
    editor = VariantEditor("newhaven", name="standard")
    data = _nh_broken(village__col_values__0=-1, village__rows="x", market_size=None,
                      board__side="")
    with translation.override("de"):
        errors = editor.check(data).errors
        assert errors[("village", "col_values", "0")] == ["muss mindestens 0 sein"]
        assert errors[("village", "rows")] == ["muss eine ganze Zahl sein"]
        assert errors[("board", "side")] == ["darf nicht leer sein"]
        assert errors[()] == ["„Größe des Fundus“ fehlt"]
        _root, placed = editor.render(data, errors)
        titles = {p.path: p.title for p in placed}
        assert titles["village.col_values[0]"] == "Dorf › Spaltenwerte › 1"
    # English: the engine's words, as before; the summary names the field by its title.
    errors = editor.check(data).errors
    assert errors[("village", "col_values", "0")] == ["-1 is less than the minimum of 0"]
    assert errors[()] == ["'market_size' is a required property"]
    _root, placed = editor.render(data, errors)
    assert {p.title for p in placed} >= {"Village › Col values › 1", "Board › Side"}


def test_the_engines_own_checks_read_in_german_with_fields_by_title() -> None:
    editor = VariantEditor("newhaven", name="standard")
    data = _nh_broken(turns_per_player=_nh_broken()["turns_per_player"] + 1)
    problems = get_engine("newhaven").validate_variant(data)
    assert problems[0].startswith("board.play_area['2']: gives ")
    with translation.override("de"):
        errors = editor.check(data).errors
        message = errors[("board", "play_area", "2")][0]
        assert message.startswith("ergibt ") and "„Züge pro Spieler“ sagt" in message
        assert editor.lines_of(problems)[0].startswith("Spielplan › Spielbereich › 2: ergibt")
    nf = VariantEditor("nouvellefrance", name="standard")
    data = get_engine("nouvellefrance").default_variants()["standard"]
    data["deck"]["piles"][0] += 1
    data["copies"][0] = data["copies"][0][:-1]
    with translation.override("de"):
        lines = nf.lines_of(get_engine("nouvellefrance").validate_variant(data))
    assert any(line.startswith("Exemplare › 1: ") and "(Formen › 1)" in line
               for line in lines), lines
    assert any("„Baustapel › Karten pro Form“" in line for line in lines), lines


def test_every_template_and_word_of_the_checks_is_translated() -> None:
    from games.engines.problems import SCHEMA_TEMPLATES, TERMS

    texts = set(SCHEMA_TEMPLATES) | set(TERMS)
    for game in GAMES:
        texts |= set(get_engine(game).problem_templates())
    for lang in ("de", "fr", "it"):
        with translation.override(lang):
            same = sorted(t for t in texts if translation.gettext(t) == t)
        assert not same, (lang, same)


@pytest.mark.django_db
def test_a_draft_sent_back_with_errors_reads_in_german(boss: Any) -> None:
    from django.test import Client
    from django.urls import reverse
    from formdata import form_post

    from games.editor import services as editor_services

    load_default_variants(games=["newhaven"])
    variant = Variant.objects.get(game="newhaven", name="standard")
    editor_services.start_draft(variant=variant, user=boss)
    client = Client()
    client.force_login(boss)
    client.cookies["django_language"] = "de"
    page = client.get(reverse("editor:draft", args=[variant.pk])).content.decode()
    post = form_post(page, **{"village.col_values[0]": "-1", "market_size": "99"})
    response = client.post(reverse("editor:draft", args=[variant.pk]), post)
    html = response.content.decode()
    assert response.status_code == 422
    assert "muss mindestens 0 sein" in html and "darf höchstens 20 sein" in html
    assert 'data-path="village.col_values[0]">Dorf › Spaltenwerte › 1</span>' in html
    assert "less than the minimum" not in html and "maximum" not in html
