"""The anchor's pure part (``ailab.anchor``): the bookkeeping of wrapping an engine for
OpenSpiel, and the arena's choosers.  Runs without OpenSpiel installed."""

from __future__ import annotations

import random

import pytest
from toygame import ENGINE

from ailab.anchor import (
    ActionCodec,
    LevelPlayer,
    Wrapped,
    pimc_choice,
    split_budget,
    win_shares,
)
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


def test_split_budget_spreads_evenly_and_gives_every_part_something():
    assert split_budget(10, 3) == [4, 3, 3]
    assert sum(split_budget(3000, 8)) == 3000
    assert split_budget(2, 4) == [1, 1, 1, 1]
    with pytest.raises(ValueError):
        split_budget(5, 0)


def test_pimc_sums_votes_over_worlds_sampled_from_the_seats_view():
    """PIMC's bookkeeping with a stand-in search: worlds from ``determinize`` (the
    seat's view kept), the budget split over them, root votes summed, the most voted
    legal action taken; states the seat cannot tell apart give the same decision."""
    checked = 0
    for index in range(10):
        state = ENGINE.new_game(VARIANT, 3, index)
        rng = random.Random(index)
        for _ in range(index % 5):
            seat = ENGINE.to_move(state)[0]
            state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        seat = ENGINE.to_move(state)[0]
        legal = ENGINE.legal_actions(state, seat)
        calls = []
        view = ENGINE.observe(state, seat)

        def stand_in(world, iterations, seconds, seed, seat=seat, legal=legal, calls=calls,
                     view=view):
            assert ENGINE.observe(world, seat) == view
            calls.append((world, iterations, seconds, seed))
            # A vote for one legal action per world (by the world), and one for an
            # action the real state does not allow, which must not count.
            pick = legal[hash(repr(world)) % len(legal)]
            return {pick: iterations, ("not", "legal"): 99}, iterations

        result = pimc_choice(ENGINE, state, seat, 5, 4, stand_in, iterations=10)
        assert [c[1] for c in calls] == [3, 3, 2, 2] and result.iterations == 10
        assert len({c[3] for c in calls}) == 4  # each world's search has its own seed
        assert result.worlds == 4 and sum(result.votes.values()) == 10
        assert set(result.votes) == set(legal)
        top = max(result.votes.values())
        assert result.action == next(a for a in legal if result.votes[a] == top)
        # The true state is read only through determinize: a world the seat cannot
        # tell from it gives the same worlds, votes and decision.
        twin = ENGINE.determinize(state, seat, random.Random(50 + index))
        if twin != state:
            checked += 1
            again = pimc_choice(ENGINE, twin, seat, 5, 4, lambda w, i, s, d, legal=legal: (
                {legal[hash(repr(w)) % len(legal)]: i}, i), iterations=10)
            assert (again.action, again.votes) == (result.action, result.votes)
    assert checked >= 5


def test_pimc_splits_seconds_and_wants_one_budget():
    state = ENGINE.new_game(VARIANT, 2, 1)
    seat = ENGINE.to_move(state)[0]
    seen = []

    def stand_in(world, iterations, seconds, seed):
        seen.append((iterations, seconds))
        return {}, 1

    result = pimc_choice(ENGINE, state, seat, 1, 4, stand_in, seconds=0.2)
    assert seen == [(None, 0.05)] * 4
    assert result.action == ENGINE.legal_actions(state, seat)[0]  # no votes: engine order
    with pytest.raises(ValueError):
        pimc_choice(ENGINE, state, seat, 1, 4, stand_in)
    with pytest.raises(ValueError):
        pimc_choice(ENGINE, state, seat, 1, 4, stand_in, iterations=4, seconds=1.0)
