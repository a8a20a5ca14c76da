"""The anchor's pure part (``ailab.anchor``): the bookkeeping of wrapping an engine for
OpenSpiel, and the arena's choosers.  Runs without OpenSpiel installed."""

from __future__ import annotations

import random

import pytest
from toygame import ENGINE

from ailab.anchor import ActionCodec, LevelPlayer, Wrapped, win_shares
from ailab.arena import play_game
from games.engines import get_engine

VARIANT = {"hand": 5}


def engines():
    yield "toy", ENGINE, VARIANT
    for name in ("newhaven", "nouvellefrance"):
        engine = get_engine(name)
        yield name, engine, engine.default_variants()["standard"]


def test_codec_numbers_actions_as_first_seen_and_decodes_them():
    codec = ActionCodec()
    assert codec.encode(("bid", 3)) == 0
    assert codec.encode(("build", "wheat", 2)) == 1
    assert codec.encode(("bid", 3)) == 0
    assert len(codec) == 2
    assert codec.decode(1) == ("build", "wheat", 2)
    with pytest.raises(KeyError):
        codec.decode(2)
    with pytest.raises(KeyError):
        codec.decode(-1)


@pytest.mark.parametrize("players", [2, 3])
def test_a_playthrough_by_numbers_is_the_engine_fold(players):
    """Random numbered actions replay, as engine actions, to the same end and returns."""
    for name, engine, variant in engines():
        wrapped = Wrapped(engine, variant, players)
        rng = random.Random(7)
        state = wrapped.new_game(11)
        fold = engine.new_game(variant, players, 11)
        while wrapped.current_player(state) is not None:
            seat = wrapped.current_player(state)
            assert seat == engine.to_move(fold)[0]
            codes = wrapped.legal_codes(state)
            assert [wrapped.codec.decode(c) for c in codes] == engine.legal_actions(fold, seat)
            code = rng.choice(codes)
            state = wrapped.apply(state, code)
            fold = engine.apply(fold, seat, wrapped.codec.decode(code))
        assert engine.is_over(fold), name
        assert wrapped.legal_codes(state) == []
        assert engine.scores(state) == engine.scores(fold)
        returns = wrapped.returns(state)
        assert returns == win_shares(engine, fold)
        assert sum(returns) == pytest.approx(1.0)
        assert all(returns[s] > 0 for s in engine.winners(fold))
        with pytest.raises(ValueError):
            wrapped.apply(state, 0)


def test_returns_are_zero_while_the_game_runs():
    state = ENGINE.new_game(VARIANT, 2, 1)
    assert win_shares(ENGINE, state) == [0.0, 0.0]


def test_information_keys_are_the_seats_views():
    """Worlds a seat cannot tell apart have one key; other seats' keys may differ."""
    wrapped = Wrapped(ENGINE, VARIANT, 2)
    state = wrapped.new_game(3)
    seat = wrapped.current_player(state)
    differs = False
    for k in range(10):
        world = wrapped.resample(state, seat, random.Random(k))
        assert wrapped.info_key(world, seat) == wrapped.info_key(state, seat)
        differs |= wrapped.info_key(world, 1 - seat) != wrapped.info_key(state, 1 - seat)
    assert differs


def test_level_player_searches_its_iteration_budget_through_the_arena():
    ours = LevelPlayer("easy", iterations=9)
    record = play_game(ENGINE, VARIANT, ["easy", "other"], 4, choosers={
        "easy": ours, "other": LevelPlayer("normal", iterations=5),
    })
    assert sum(record.moves) > 0
    assert ours.searches > 0
    assert ours.iterations_done == 9 * ours.searches


def test_level_player_needs_a_budget_and_a_known_level():
    with pytest.raises(ValueError):
        LevelPlayer("greedy")
    state = ENGINE.new_game(VARIANT, 2, 1)
    with pytest.raises(ValueError):
        LevelPlayer("easy")(ENGINE, state, ENGINE.to_move(state)[0], 1, None)
