"""Undo never goes back past a move that showed the player something they could not
foresee (a draw from the bag or deck, a tile drawn, a card turned up): the game refolds
from the same seed, so a replay would be played knowing it (as on Board Game Arena).  A
pure placement is taken back; a draw is refused with a clear message, nothing changed,
and the page's undo button is disabled."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from games.ai_turns.turn import play_one_ai_turn
from games.core.selectors import legal_actions_json
from games.core.services import submit_action
from games.models import Game, Move, Rewind, Variant
from games.practice.errors import UndoRevealed
from games.practice.selectors import practice_panel
from games.practice.services import undo_last_move
from games.tables.services import create_game
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db

REFUSED = "You cannot take back a move that revealed something new (a drawn card or tile)."


def practice(game_name: str, user: Any) -> Game:
    """``user`` in seat 0 against the random AI, ``user`` to move (the AI's first turns
    played when it starts)."""
    load_default_variants(games=[game_name])
    variant = Variant.objects.filter(game=game_name, name="standard").first()
    game = create_game(creator=user, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    game.refresh_from_db()
    ai_until_mine(game)
    return game


def ai_until_mine(game: Game) -> None:
    game.refresh_from_db()
    while game.to_move and game.to_move != [0]:
        play_one_ai_turn(game.pk, game.version)
        game.refresh_from_db()


def move(game: Game, user: Any, action: Any) -> None:
    """``user``'s action (no on-commit hooks: the AI does not answer)."""
    game.refresh_from_db()
    submit_action(game=game, user=user, seat=0, action=action, version=game.version,
                  key=f"m{game.version}")
    game.refresh_from_db()


def snapshot(game: Game) -> tuple:
    game.refresh_from_db()
    return (game.version, game.state_json, game.to_move, game.rewinds,
            list(Move.objects.filter(game=game).values_list("seq", "action")),
            Rewind.objects.filter(game=game).count())


def refused_and_unchanged(client: Any, game: Game, user: Any) -> None:
    """The undo is refused (service, page, API) and nothing changed; no undo form."""
    before = snapshot(game)
    with pytest.raises(UndoRevealed) as refused:
        undo_last_move(game=game, user=user, version=game.version, key="u-svc")
    assert refused.value.status_code == 409 and str(refused.value) == REFUSED
    client.force_login(user)
    url = reverse("practice_undo", args=[game.pk])
    page = client.post(url, {"version": game.version, "key": "u-page"}, follow=True)
    html = page.content.decode()
    assert REFUSED in html
    assert 'id="undo-move"' not in html and 'id="undo-blocked"' in html
    api = client.post(f"/api/games/{game.pk}/undo/",
                      {"version": game.version, "key": "u-api"},
                      content_type="application/json")
    assert api.status_code == 409 and api.json()["code"] == "undo_revealed"
    assert snapshot(game) == before
    assert practice_panel(game, 0)["can_undo"] is False


def test_new_haven_undo_of_a_placement_but_not_of_a_draw(client, ann) -> None:
    game = practice("newhaven", ann)
    before = snapshot(game)
    harvest = next(a for a in legal_actions_json(game, 0) if a["type"] == "harvest")
    move(game, ann, harvest)  # a tile from my hand onto the board: nothing new
    assert practice_panel(game, 0)["can_undo"] is True
    undo_last_move(game=game, user=ann, version=game.version, key="u1")
    after = snapshot(game)
    assert after[1:3] == before[1:3] and after[4] == before[4]

    # Play my turns on until my last draw: the market is refilled, my next tile drawn.
    for _ in range(200):
        ai_until_mine(game)
        legal = legal_actions_json(game, 0)
        kinds = [a["type"] if isinstance(a, dict) else a[0] for a in legal]
        preferred = next((k for k in ("harvest", "end_build", "pass", "draw_market",
                                      "draw_bag") if k in kinds), kinds[0])
        action = legal[kinds.index(preferred)]
        move(game, ann, action)
        if preferred.startswith("draw") and game.to_move != [0]:
            break  # the turn passed: the draw step ended with the refill and my tile
    else:
        raise AssertionError("no draw")
    refused_and_unchanged(client, game, ann)


def test_nouvelle_france_undo_of_a_placement_but_not_of_a_draw(client, ann) -> None:
    game = practice("nouvellefrance", ann)
    for _ in range(5):
        ai_until_mine(game)  # the AI's Huron window comes before my draw too
        legal = legal_actions_json(game, 0)
        if ["skip_huron"] in legal:
            move(game, ann, ["skip_huron"])  # then the draw
        elif ["draw"] in legal:
            break
        else:  # a late Huron order step or the like: play on
            move(game, ann, legal[0])
    else:
        raise AssertionError("no draw")
    move(game, ann, ["draw"])  # a card turned up from the deck
    refused_and_unchanged(client, game, ann)

    # The card taken, its copy chosen, then placed: the placement itself reveals nothing.
    for _ in range(10):
        legal = legal_actions_json(game, 0)
        placed = next((a for a in legal if a[0] == "place"), None)
        if placed is not None:
            break
        move(game, ann, next((a for a in legal if a[0] in ("card", "copy")), legal[0]))
    else:
        raise AssertionError("nothing to place")
    before = snapshot(game)
    move(game, ann, placed)
    assert practice_panel(game, 0)["can_undo"] is True
    undo_last_move(game=game, user=ann, version=game.version, key="u-place")
    after = snapshot(game)
    assert after[1:3] == before[1:3] and after[4] == before[4]
