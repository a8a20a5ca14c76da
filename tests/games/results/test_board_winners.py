"""The boards' final tables star the result record's winners, not the engine's: a seat
whose person left never wins, whatever the AI that took it over then scored."""

from __future__ import annotations

import random

import pytest

from games.boards import PlayerInfo, Scene, get_board
from games.engines import get_engine


def finished_view(name: str) -> dict:
    engine = get_engine(name)
    variant = engine.default_variants()["standard"]
    state = engine.new_game(variant, 2, 7)
    rng = random.Random(7)
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        state = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
    return {"view": engine.observe(state, None), "rules": engine.rule_data(variant)}


@pytest.mark.parametrize("name", ["newhaven", "nouvellefrance"])
def test_a_finished_board_marks_the_records_winners(name: str) -> None:
    game = finished_view(name)
    engine_winners = game["view"]["winners"]
    players = (PlayerInfo(seat=0, name="Ann"), PlayerInfo(seat=1, name="Bob"))
    board = get_board(name)

    def marked(winners: tuple[int, ...] | None) -> list[int]:
        presented = board.present(Scene(view=game["view"], rules=game["rules"], seat=None,
                                        players=players, interactive=False, winners=winners))
        return [p["seat"] for p in presented["players"] if p["winner"]]

    assert marked(None) == engine_winners  # a replay: the engine's
    other = tuple(s for s in (0, 1) if s not in engine_winners) or (1,)
    assert marked(other) == list(other)  # the record's, whatever the scores
    assert marked(()) == []  # everyone left: nobody won
