"""The migration that gives variants their versions and pins every existing game."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0003_move_event")]
AFTER = [("games", "0005_link_games_to_versions")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_games_are_linked_to_a_version_equal_to_their_snapshot():
    old = migrate(BEFORE)
    Variant, Game = old.get_model("games", "Variant"), old.get_model("games", "Game")
    User = old.get_model("auth", "User")
    user = User.objects.create(username="ann")
    edited = Variant.objects.create(game="newhaven", name="standard", data={"v": 2},
                                    is_default=True)
    mine = Variant.objects.create(game="newhaven", name="mine", data={"m": 1})
    before_edit = Game.objects.create(variant=edited, game_name="newhaven",
                                      variant_name="standard", variant_data={"v": 1},
                                      num_players=2, created_by=user)
    after_edit = Game.objects.create(variant=edited, game_name="newhaven",
                                     variant_name="standard", variant_data={"v": 2},
                                     num_players=2, created_by=user)
    orphan = Game.objects.create(variant=None, game_name="newhaven", variant_name="gone",
                                 variant_data={"g": 1}, num_players=2, created_by=user)
    new = migrate(AFTER)
    Game = new.get_model("games", "Game")
    Version = new.get_model("games", "VariantVersion")
    Variant = new.get_model("games", "Variant")
    versions = list(Version.objects.filter(variant_id=edited.pk).order_by("number"))
    assert [(v.number, v.data, v.origin) for v in versions] == [
        (1, {"v": 1}, "shipped"), (2, {"v": 2}, "shipped")]  # the current data is newest
    assert Game.objects.get(pk=before_edit.pk).variant_version_id == versions[0].pk
    assert Game.objects.get(pk=after_edit.pk).variant_version_id == versions[1].pk
    gone = Game.objects.get(pk=orphan.pk)
    assert gone.variant_version.data == {"g": 1} and not gone.variant.active
    assert Variant.objects.get(pk=gone.variant_id).name == "gone"
    assert Version.objects.get(variant_id=mine.pk).origin == "editor"
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())  # leave the database up to date
