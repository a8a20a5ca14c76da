"""Models: seats' properties, random seeds and tokens, constraints."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction

from games.models import Game, Move, Seat, Variant
from games.tables.services import create_game

pytestmark = pytest.mark.django_db


def test_seat_properties(variant: Variant, make_user: Any) -> None:
    ann = make_user("ann")
    game = create_game(
        creator=ann, variant=variant,
        seats=[{"type": "human"}, {"type": "ai", "level": "hard"}, {"type": "human"}],
    )
    human, bot, free = game.seats.order_by("index")
    assert (human.is_ai, human.is_open, human.display_name) == (False, False, "ann")
    assert (bot.is_ai, bot.is_open, bot.display_name) == (True, False, "AI (hard)")
    assert (free.is_ai, free.is_open, free.display_name) == (False, True, "Open seat")
    assert game.engine.name == "fakegame"
    assert str(game.seed) not in str(game) + repr(game)


def test_seeds_and_invite_tokens_are_random(variant: Variant, make_user: Any) -> None:
    user = make_user()
    games = [create_game(creator=user, variant=variant,
                                  seats=[{"type": "human"}] * 2) for _ in range(5)]
    assert len({g.seed for g in games}) == 5
    assert len({g.invite_token for g in games}) == 5
    assert all(0 <= g.seed < 2**63 and len(g.invite_token) >= 20 for g in games)


def test_constraints(variant: Variant, make_user: Any) -> None:
    ann = make_user()
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(game=game, index=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.filter(game=game, index=1).update(user=ann)  # one seat per user
    Move.objects.create(game=game, seq=1, seat=0, action={}, key="k")
    with pytest.raises(IntegrityError), transaction.atomic():
        Move.objects.create(game=game, seq=1, seat=0, action={}, key="other")
    with pytest.raises(IntegrityError), transaction.atomic():
        Move.objects.create(game=game, seq=2, seat=0, action={}, key="k")
    assert Game.Status.OPEN == "open" and Game.Status.ABORTED.value == "aborted"
