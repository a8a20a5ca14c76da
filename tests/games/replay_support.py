"""Games for the replay tests: played by random legal actions through the engine itself and
stored as rows (no services, no AI), so any game, player count and length is cheap."""

from __future__ import annotations

import random
from typing import Any

from django.utils import timezone

from games.engines import get_engine
from games.models import Game, Move, Seat


def random_actions(name: str, variant: dict, num_players: int, seed: int, rng_seed: int,
                   *, limit: int | None = None) -> list[tuple[int, Any]]:
    """``(seat, action)`` pairs of a random game (to its end, or ``limit`` actions)."""
    engine = get_engine(name)
    rng = random.Random(rng_seed)
    state = engine.new_game(variant, num_players, seed)
    actions = []
    while not engine.is_over(state) and (limit is None or len(actions) < limit):
        seat = rng.choice(engine.to_move(state))
        action = rng.choice(engine.legal_actions(state, seat))
        actions.append((seat, action))
        state = engine.apply(state, seat, action)
    return actions


def store_game(name: str, variant: dict, users: list[Any], seed: int,
               actions: list[tuple[int, Any]], *, variant_name: str = "standard") -> Game:
    """A game row with its seats (``None`` = an AI seat) and moves; finished if it is over."""
    engine = get_engine(name)
    state = engine.new_game(variant, len(users), seed)
    moves = []
    for seq, (seat, action) in enumerate(actions, start=1):
        event = engine.describe_action(state, action)
        moves.append((seq, seat, engine.action_to_json(action), event))
        state = engine.apply(state, seat, action)
    over = engine.is_over(state)
    now = timezone.now()
    game = Game.objects.create(
        game_name=name, variant_name=variant_name, variant_data=variant,
        num_players=len(users), seed=seed,
        status=Game.Status.FINISHED if over else Game.Status.RUNNING,
        version=len(actions), started_at=now, finished_at=now if over else None,
        state_json=engine.state_to_json(state), to_move=engine.to_move(state),
        result={"scores": engine.scores(state), "winners": engine.winners(state)} if over else {},
    )
    for index, user in enumerate(users):
        Seat.objects.create(game=game, index=index, user=user, joined_at=now,
                            ai_level="" if user is not None else "random")
    Move.objects.bulk_create(
        Move(game=game, seq=seq, seat=seat, action=action, key=f"k{seq}", event=event)
        for seq, seat, action, event in moves
    )
    return game


def random_game(name: str, users: list[Any], *, seed: int = 7, rng_seed: int = 1,
                limit: int | None = None, variant: str = "standard") -> Game:
    """A stored random game of ``name`` with the engine's ``variant``."""
    data = get_engine(name).default_variants()[variant]
    actions = random_actions(name, data, len(users), seed, rng_seed, limit=limit)
    return store_game(name, data, users, seed, actions, variant_name=variant)


def fold_json(name: str, variant: dict, num_players: int, seed: int, actions: list,
              upto: int) -> Any:
    """The state after ``upto`` stored (JSON) actions ``[(seat, action_json)]``: the test's
    own fold, independent of the replay code."""
    engine = get_engine(name)
    state = engine.new_game(variant, num_players, seed)
    for seat, action in actions[:upto]:
        state = engine.apply(state, seat, engine.action_from_json(action))
    return state
