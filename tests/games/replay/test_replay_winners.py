"""The replay's last step of a finished game stars the result record's winners, as the play
page does: a seat whose person left never wins, whatever the AI that took it over scored."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from replay_support import random_game

from games.models import Game, Seat
from games.replay.page import replay_context
from games.replay.selectors import replay_step
from games.results.selectors import results_of_game
from games.results.services import record_game_results

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["newhaven", "nouvellefrance"])
def test_the_last_step_marks_the_records_winners(name: str, make_user) -> None:
    ann, bob = make_user(f"{name}_ann"), make_user(f"{name}_bob")
    game = random_game(name, [ann, bob], seed=5, rng_seed=5)
    assert game.status == Game.Status.FINISHED
    engine_winner = game.result["winners"][0]
    # The engine's winner's person had left: the AI played the seat on and won it.
    leaver = Seat.objects.get(game=game, index=engine_winner)
    Seat.objects.filter(pk=leaver.pk).update(
        user=None, ai_level="easy", left_user=leaver.user, left_reason="resigned",
        left_at=timezone.now())
    record_game_results(game=game)
    recorded = [r.seat for r in results_of_game(game) if r.won]
    assert engine_winner not in recorded and recorded

    def starred(step: int) -> list[int]:
        replay = replay_step(game, AnonymousUser(), step=step, seat="spectator")
        board = replay_context(replay, AnonymousUser())["board"]
        return [p["seat"] for p in board["players"] if p["winner"]]

    assert starred(game.version) == recorded
