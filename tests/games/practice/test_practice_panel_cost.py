"""What the practice panel costs a render of the play page: the undo check is read once
per version (one query of the log, then the cache), never on a spectator's render."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.core.selectors import get_game, legal_actions_json, seats_of
from games.core.services import submit_action
from games.models import Game
from games.play.page import render_fragments
from games.practice.selectors import practice_panel
from games.tables.services import create_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def practice(nh_variants: dict, ann: Any, on_commit: Any) -> Game:
    """A New Haven practice game a few moves in (the random AI answering), ann to move."""
    cache.clear()  # no undo check of an earlier test's game under a reused id
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    for step in range(6):
        game.refresh_from_db()
        with on_commit():
            submit_action(game=game, user=ann, seat=0, action=legal_actions_json(game, 0)[0],
                          version=game.version, key=f"k{step}")
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.to_move == [0]
    return game


def render_queries(game: Game, viewer: Any) -> int:
    """The queries of one pushed render of ``viewer``'s fragments (the game freshly read,
    as the socket consumer reads it)."""
    loaded = get_game(game.pk)
    with CaptureQueriesContext(connection) as queries:
        render_fragments(loaded, viewer, log_since=loaded.version - 1)
    return len(queries)


def test_the_undo_check_costs_one_query_per_version(practice: Game) -> None:
    loaded = get_game(practice.pk)
    seats = seats_of(loaded)
    with CaptureQueriesContext(connection) as first:
        panel = practice_panel(loaded, 0, seats)
    assert panel is not None and (panel["can_undo"] or panel["undo_blocked"])
    with CaptureQueriesContext(connection) as again:
        repeated = practice_panel(loaded, 0, seats)
    assert repeated is not None
    assert repeated | {"undo_key": ""} == panel | {"undo_key": ""}  # a fresh key each time
    assert (len(first), len(again)) == (1, 0)


def test_a_practice_render_costs_what_a_spectators_does(
    practice: Game, ann: Any, eve: Any
) -> None:
    spectator = render_queries(practice, eve)
    assert render_queries(practice, ann) == spectator + 1  # the version's undo check
    assert render_queries(practice, ann) == spectator  # then the cache's
