"""The core's rewind (what a practice undo runs): the fold of the shorter log, the version
up, and nothing changed when it is refused or loses a race."""

from __future__ import annotations

import pytest

from games.core.errors import GameNotRunning, StaleVersion
from games.core.selectors import current_state, replayed_state
from games.core.services import locked_game, rewind_moves, submit_action
from games.models import Game, Move, Rewind

pytestmark = pytest.mark.django_db


def moves_of(game: Game) -> list:
    return list(Move.objects.filter(game=game).order_by("seq").values_list("seq", "action"))


def three_moves(table, ann, bob) -> Game:
    for version, (user, seat) in enumerate([(ann, 0), (bob, 1), (ann, 0)]):
        submit_action(game=table, user=user, seat=seat, action={"play": 0}, version=version,
                      key=f"k{version}")
    table.refresh_from_db()
    return table


def test_rewind_folds_the_shorter_log(table, ann, bob) -> None:
    game = three_moves(table, ann, bob)
    after_one = replayed_state(game, upto=1)
    locked = locked_game(game)
    rewind_moves(game=locked, seats=list(locked.seats.all()), seat=1, from_seq=2, version=3,
                 key="r")
    game.refresh_from_db()
    assert moves_of(game) == [(1, {"play": 0})]
    assert current_state(game) == after_one == replayed_state(game)
    assert game.to_move == [1] and game.version == 4 and game.rewinds == 1
    assert Rewind.objects.get(game=game, key="r").removed == 2


def test_rewind_refused_or_raced_changes_nothing(table, ann, bob) -> None:
    game = three_moves(table, ann, bob)
    before = (moves_of(game), game.state_json, game.version)
    locked = locked_game(game)
    seats = list(locked.seats.all())
    with pytest.raises(StaleVersion):
        rewind_moves(game=locked, seats=seats, seat=0, from_seq=3, version=2, key="r")
    # Another writer got there between the read and the write: the cut is rolled back.
    Game.objects.filter(pk=game.pk).update(version=4)
    locked.version = 3
    with pytest.raises(StaleVersion):
        rewind_moves(game=locked, seats=seats, seat=0, from_seq=3, version=3, key="r")
    game.refresh_from_db()
    assert (moves_of(game), game.state_json) == before[:2] and game.rewinds == 0
    assert not Rewind.objects.exists()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, version=3)
    with pytest.raises(GameNotRunning):
        rewind_moves(game=locked_game(game), seats=seats, seat=0, from_seq=3, version=3,
                     key="r")
    assert moves_of(game) == before[0]


def test_after_a_rewind_step_k_is_still_the_first_k_moves(table, ann, bob) -> None:
    """Moves made after a rewind are numbered on from the version (a gap in ``seq``):
    ``replayed_state(upto=K)`` (the analysis page's step K) folds the first K moves."""
    game = three_moves(table, ann, bob)
    locked = locked_game(game)
    rewind_moves(game=locked, seats=list(locked.seats.all()), seat=1, from_seq=2, version=3,
                 key="r")
    for version, (user, seat) in enumerate([(bob, 1), (ann, 0)], start=4):
        submit_action(game=game, user=user, seat=seat, action={"play": 1}, version=version,
                      key=f"after{version}")
    game.refresh_from_db()
    assert [seq for seq, _action in moves_of(game)] == [1, 5, 6]  # a gap
    engine = game.engine
    state = engine.new_game(game.variant_data, game.num_players, game.seed)
    for k, move in enumerate(Move.objects.filter(game=game).order_by("seq"), start=1):
        state = engine.apply(state, move.seat, engine.action_from_json(move.action))
        assert replayed_state(game, upto=k) == state, k
