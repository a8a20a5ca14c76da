"""Versions, drafts, publishing, the change log and shipped defaults."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from common.jsondata import digest
from games.core.errors import GameServiceError, VariantUnavailable
from games.editor import services, simulation, tasks
from games.editor.errors import (
    DraftExists,
    SimulationInvalid,
    SimulationRequired,
    SimulationRunning,
)
from games.engines import get_engine
from games.engines.protocol import InvalidVariant
from games.models import (
    AppendOnly,
    Game,
    ImmutableVersion,
    Simulation,
    Variant,
    VariantChange,
    VariantVersion,
)
from games.tables.services import create_game
from games.variants import selectors as variant_selectors
from games.variants import services as variants
from games.variants.errors import NoDraft, VariantDataInvalid, VariantNameTaken
from games.variants.selectors import active_variants
from games.variants.services import save_variant

pytestmark = pytest.mark.django_db


def shipped(toy: Any) -> Variant:
    """The toy game's default, loaded as a shipped variant (version 1)."""
    variants.load_default_variants(games=["toygame"])
    return Variant.objects.get(game="toygame", name="basic")


@pytest.fixture(autouse=True)
def run_on_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run after-commit work (the simulation task, eager) at once, as after a commit."""
    monkeypatch.setattr(transaction, "on_commit", lambda fn, using=None, robust=False: fn())


def simulate_and_publish(variant: Variant, user: Any, games: int = 6) -> VariantVersion:
    services.request_simulation(variant=variant, user=user, games=games, bots=["random"])
    return services.publish_draft(variant=variant, user=user)


def test_a_new_variant_is_a_draft_that_tables_do_not_offer(toy, boss):
    variant = variants.create_variant(game="toygame", name="mine", user=boss)
    assert variants.draft_of(variant).data["name"] == "mine"  # the data's name follows
    assert variants.current_version(variant) is None
    assert variant not in active_variants(game="toygame")
    with pytest.raises(VariantNameTaken):
        variants.create_variant(game="toygame", name="mine", user=boss)


def test_bad_data_is_refused_by_field_and_changes_nothing(toy, boss):
    variant = shipped(toy)
    log_before = VariantChange.objects.count()
    bad = {**toy.default_variants()["basic"], "target": 2, "steps": [1, "x"]}
    with pytest.raises(VariantDataInvalid) as refused:
        services.save_draft(variant=variant, data=bad, user=boss)
    assert set(refused.value.errors) == {"target", "steps[1]"}
    assert "target" in str(refused.value) and "steps[1]" in str(refused.value)
    assert variants.draft_of(variant) is None and VariantChange.objects.count() == log_before
    with pytest.raises(VariantDataInvalid):
        services.save_draft(variant=variant, data=[1, 2], user=boss)


def test_one_draft_at_most_and_published_versions_never_change(toy, boss):
    variant = shipped(toy)
    draft = services.start_draft(variant=variant, user=boss)
    assert services.start_draft(variant=variant, user=boss) == draft
    with pytest.raises(DraftExists):
        services.start_draft(variant=variant, user=boss,
                             from_version=variants.current_version(variant))
    with pytest.raises(IntegrityError), transaction.atomic():
        VariantVersion.objects.create(variant=variant, data={}, status="draft")
    v1 = VariantVersion.objects.get(variant=variant, number=1)
    v1.data = {**v1.data, "target": 50}
    with pytest.raises(ImmutableVersion):
        v1.save()
    v1.refresh_from_db()
    assert v1.data["target"] == 10


def test_publishing_needs_a_passing_simulation_of_the_draft_as_it_is(toy, boss, fast_checks):
    variant = shipped(toy)
    data = {**toy.default_variants()["basic"], "target": 12}
    services.save_draft(variant=variant, data=data, user=boss)
    with pytest.raises(SimulationRequired):
        services.publish_draft(variant=variant, user=boss)
    sim = services.request_simulation(variant=variant, user=boss, games=6, bots=["random"])
    sim.refresh_from_db()
    assert sim.status == "done" and sim.passed and sim.players == [2, 3]
    services.save_draft(variant=variant, data={**data, "target": 13}, user=boss)
    with pytest.raises(SimulationRequired, match="Simulate"):  # the draft changed since
        services.publish_draft(variant=variant, user=boss)
    version = simulate_and_publish(variant, boss)
    variant.refresh_from_db()
    assert version.number == 2 and version.status == "published"
    assert variants.current_version(variant) == version and variant.data["target"] == 13
    assert variants.draft_of(variant) is None


def test_a_simulation_with_errors_blocks_publishing(toy, boss, fast_checks):
    variant = shipped(toy)
    services.save_draft(variant=variant, data={**toy.default_variants()["basic"],
                                               "crash_at": 4}, user=boss)
    sim = services.request_simulation(variant=variant, user=boss, games=8, bots=["random"])
    sim.refresh_from_db()
    errors = sim.report["errors"]
    assert sim.status == "done" and not sim.passed and errors
    assert all(e["seed"] % 2 == 1 and e["players"] in (2, 3) for e in errors)
    assert "RuntimeError: the toy engine broke" in errors[0]["error"]
    with pytest.raises(SimulationRequired, match="errors"):
        services.publish_draft(variant=variant, user=boss)


def test_simulation_settings_are_checked(toy, boss):
    variant = shipped(toy)
    services.start_draft(variant=variant, user=boss)
    for kwargs in ({"games": 0, "bots": ["random"]}, {"games": 5, "bots": ["wizard"]},
                   {"games": 5, "bots": "random"}, {"games": 5, "bots": ["random"], "players": 4},
                   {"games": 5, "bots": ["random"] * 3, "players": 2},
                   {"games": True, "bots": ["random"]}):
        with pytest.raises(SimulationInvalid):
            services.request_simulation(variant=variant, user=boss, **kwargs)
    with pytest.raises(NoDraft):
        services.request_simulation(variant=Variant.objects.create(
            game="toygame", name="empty", data=toy.default_variants()["basic"]),
            user=boss, games=4, bots=["random"])


def test_one_simulation_at_a_time_and_lost_ones_expire(toy, boss, settings, monkeypatch):
    variant = shipped(toy)
    services.start_draft(variant=variant, user=boss)
    monkeypatch.setattr(tasks, "enqueue_simulation", lambda sim_id: None)  # no worker
    sim = services.request_simulation(variant=variant, user=boss, games=4, bots=["random"])
    with pytest.raises(SimulationRunning):
        services.request_simulation(variant=variant, user=boss, games=4, bots=["random"])
    settings.EDITOR_SIMULATION_STALE_SECONDS = -1
    assert services.expire_stale_simulations(variant=variant) == 2  # and its comparison
    sim.refresh_from_db()
    assert sim.status == "failed" and "worker" in sim.error
    services.request_simulation(variant=variant, user=boss, games=4, bots=["random"])


def test_games_pin_their_version_and_new_tables_get_the_new_one(toy, boss, fast_checks):
    variant = shipped(toy)
    old = create_game(creator=boss, variant=variant,
                                    seats=[{"type": "human"}, {"type": "ai"}])
    services.save_draft(variant=variant, data={**toy.default_variants()["basic"],
                                               "target": 20}, user=boss)
    simulate_and_publish(variant, boss)
    new = create_game(creator=boss, variant=variant,
                                    seats=[{"type": "human"}, {"type": "ai"}])
    old.refresh_from_db()
    assert old.variant_version.number == 1 and old.variant_data["target"] == 10
    assert new.variant_version.number == 2 and new.variant_data["target"] == 20


def test_retire_and_restore_variants_and_versions(toy, boss, fast_checks):
    variant = shipped(toy)
    services.save_draft(variant=variant, data={**toy.default_variants()["basic"],
                                               "target": 20}, user=boss)
    v2 = simulate_and_publish(variant, boss)
    variants.set_version_retired(version=v2, retired=True, user=boss)
    variant.refresh_from_db()
    assert variants.current_version(variant).number == 1 and variant.data["target"] == 10
    variants.set_version_retired(version=v2, retired=False, user=boss)
    variants.set_variant_active(variant=variant, active=False, user=boss)
    assert variant not in active_variants()
    with pytest.raises(VariantUnavailable):
        create_game(creator=boss, variant=Variant.objects.get(pk=variant.pk),
                                  seats=[{"type": "human"}, {"type": "ai"}])
    variants.set_variant_active(variant=variant, active=True, user=boss)
    assert variant in active_variants()
    actions = list(VariantChange.objects.filter(variant=variant)
                   .values_list("action", flat=True))
    assert {"version_retired", "version_restored", "retired", "restored"} <= set(actions)


def test_clone_export_and_import(toy, boss):
    variant = shipped(toy)
    clone = variants.clone_variant(variant=variant, name="copy", user=boss)
    assert variants.draft_of(clone).data == {**variant.data, "name": "copy"}
    document = variant_selectors.export_document(variants.current_version(variant))
    assert document["format"] == "colonia-variant/1" and document["version"] == 1
    imported = services.import_variant(payload=document, user=boss, name="again")
    assert variants.draft_of(imported).data["target"] == 10
    bare = services.import_variant(payload={**variant.data, "target": 30}, user=boss,
                                   game="toygame", name="bare")
    assert variants.draft_of(bare).data["target"] == 30
    services.import_variant(payload={**document, "data": {**variant.data, "target": 40}},
                            user=boss, into=variant)
    assert variants.draft_of(variant).data["target"] == 40
    with pytest.raises(GameServiceError):
        services.import_variant(payload={"format": "colonia-variant/1", "game": "newhaven",
                                         "data": variant.data}, user=boss, into=variant)


def test_the_change_log_records_who_changed_which_field(toy, boss):
    variant = shipped(toy)
    services.save_draft(variant=variant, data={**toy.default_variants()["basic"],
                                               "target": 11}, user=boss, note="longer")
    entry = VariantChange.objects.filter(variant=variant, action="draft_saved").first()
    assert entry.username == "boss" and entry.note == "longer"
    assert entry.changes == [{"path": "target", "kind": "changed", "old": "10", "new": "11"}]
    with pytest.raises(AppendOnly):
        entry.save()
    with pytest.raises(AppendOnly):
        entry.delete()


def test_load_defaults_never_overwrites(toy, boss, fast_checks, monkeypatch):
    results = variants.load_default_variants(games=["toygame"])
    assert [r.outcome for r in results] == ["created"]
    assert [r.outcome for r in variants.load_default_variants(games=["toygame"])] == [
        "unchanged"]
    variant = Variant.objects.get(game="toygame", name="basic")
    # A shipped default that changes is a new version while the admins have none ...
    changed = {**toy.default_variants()["basic"], "target": 15}
    monkeypatch.setattr(type(toy), "default_variants", lambda self: {"basic": changed})
    assert [r.outcome for r in variants.load_default_variants(games=["toygame"])] == [
        "updated"]
    assert variants.current_version(variant).data["target"] == 15
    # ... but once they publish their own, theirs stays, and a retirement stays too.
    services.save_draft(variant=variant, data={**changed, "target": 25}, user=boss)
    simulate_and_publish(variant, boss)
    variants.set_variant_active(variant=variant, active=False, user=boss)
    changed2 = {**changed, "target": 16}
    monkeypatch.setattr(type(toy), "default_variants", lambda self: {"basic": changed2})
    assert [r.outcome for r in variants.load_default_variants(games=["toygame"])] == ["kept"]
    variant.refresh_from_db()
    assert variant.data["target"] == 25 and not variant.active
    assert variants.current_version(variant).number == 3


def test_a_variant_made_outside_the_editor_is_adopted_as_version_1(toy, boss):
    variant = Variant.objects.create(game="toygame", name="old", data=toy.default_variants()[
        "basic"])
    assert variant in active_variants()
    game = create_game(creator=boss, variant=variant,
                                     seats=[{"type": "human"}, {"type": "ai"}])
    assert game.variant_version.number == 1 and game.variant_version.origin == "script"


def test_save_variant_still_publishes_for_scripts(toy):
    variant = save_variant(game="toygame", name="s", data=toy.default_variants()[
        "basic"])
    save_variant(game="toygame", name="s",
                               data={**toy.default_variants()["basic"], "target": 9})
    assert variants.current_version(variant).number == 2

    with pytest.raises(InvalidVariant):
        save_variant(game="toygame", name="s", data={"target": "x"})
    assert Simulation.objects.count() == 0 and Game.objects.count() == 0


def test_the_published_version_is_simulated_alongside_for_comparison(toy, boss, fast_checks):
    variant = shipped(toy)
    services.save_draft(variant=variant, data={**toy.default_variants()["basic"],
                                               "target": 12}, user=boss)
    draft_sim = services.request_simulation(variant=variant, user=boss, games=6,
                                            bots=["random"], seed=5)
    v1 = variants.current_version(variant)
    compared = v1.simulations.get()
    assert (compared.seed, compared.games, compared.bots) == (5, 6, ["random"])
    assert compared.status == "done" and compared.report["completed"] == 6
    # Once there is one for these settings, the next draft simulation needs no other.
    services.request_simulation(variant=variant, user=boss, games=6, bots=["random"])
    assert v1.simulations.count() == 1 and draft_sim.version.simulations.count() == 2


def test_restarting_make_run_keeps_an_admins_edit(boss, fast_checks, monkeypatch):
    """``make run`` runs ``load_variants`` at every start: a published edit, a draft and a
    retirement all survive it."""
    from io import StringIO

    from django.core.management import call_command


    call_command("load_variants", "newhaven", stdout=StringIO())
    variant = Variant.objects.get(game="newhaven", name="standard")
    data = json.loads(json.dumps(variant.data))
    data["village"]["col_values"][0] = 6
    services.save_draft(variant=variant, data=data, user=boss)
    # The admins' version is published as the editor would after a passing simulation.
    draft = variants.draft_of(variant)
    Simulation.objects.create(version=draft, digest=digest(draft.data), data=draft.data,
                              games=12, players=simulation.player_counts(
                                  get_engine("newhaven"), draft.data), bots=["random"],
                              status="done", report={"completed": 12, "errors": []})
    services.publish_draft(variant=variant, user=boss)
    services.start_draft(variant=variant, user=boss)
    side_b = Variant.objects.get(game="newhaven", name="side-b")
    variants.set_variant_active(variant=side_b, active=False, user=boss)
    out = StringIO()
    call_command("load_variants", stdout=out)
    variant.refresh_from_db()
    side_b.refresh_from_db()
    assert variant.data["village"]["col_values"][0] == 6 and not side_b.active
    assert variants.current_version(variant).number == 2 and variants.draft_of(variant)
    assert "newhaven/standard: unchanged" in out.getvalue()
