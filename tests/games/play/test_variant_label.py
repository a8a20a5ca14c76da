"""The variant's name and version on the play page, the replay and the export (issue 20)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import Variant
from games.tables.services import create_game

pytestmark = pytest.mark.django_db


def test_the_variant_and_its_version_are_shown_and_exported(client, placegame, ann):
    variant = Variant.objects.get(game="placegame")
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    number = game.variant_version.number
    assert number is not None
    label = f"{game.variant_title}, version {number}"  # the display name (issue 21)
    client.force_login(ann)
    play = client.get(reverse("play", args=[game.pk])).content.decode()
    assert f'id="variant-label">{label}<' in play
    replay = client.get(reverse("replay", args=[game.pk])).content.decode()
    assert f'id="variant-label">{label}' in replay
    export = client.get(f"/api/games/{game.pk}/export/").json()
    assert export["variant_name"] == variant.name and export["variant_version"] == number


def test_the_label_is_read_with_the_game_not_by_a_query_per_render(placegame, ann):
    """Every push renders the label: its version number comes in the game's own read."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.core.selectors import get_game, variant_label

    variant = Variant.objects.get(game="placegame")
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    number = game.variant_version.number
    loaded = get_game(game.pk)
    with CaptureQueriesContext(connection) as queries:
        assert variant_label(loaded) == f"{game.variant_title}, version {number}"
    assert not queries.captured_queries
