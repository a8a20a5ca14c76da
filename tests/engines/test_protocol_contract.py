"""The engine protocol's contract, checked on every registered engine.

Random legal play (Hypothesis draws the seed, the player count, the variant and the
random policy) must terminate, stay deterministic, round-trip through JSON, never let
an illegal action change a state, and never leak hidden information: ``observe`` of
a seat is unchanged by ``determinize`` for that seat, and no view carries the seed.
Game-specific invariants (turn counts, conservation of pieces) live beside each game.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import IllegalAction, InvalidVariant, engine_names, get_engine

MAX_STEPS = 5000
SEED_BASE = 7_391_000_000_000  # a seed that cannot appear by chance in a view


def _cases() -> list[tuple[str, str]]:
    return [
        (name, variant)
        for name in engine_names()
        for variant in sorted(get_engine(name).default_variants())
    ]


CASES = _cases()


def _dump(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _play(engine, variant: dict, players: int, seed: int, policy_seed: int, check=None):
    """Play a random game; call ``check(state, step, rng)`` before each action."""
    rng = random.Random(policy_seed)
    state = engine.new_game(variant, players, seed)
    actions = []
    for step in range(MAX_STEPS):
        if engine.is_over(state):
            return state, actions
        seats = engine.to_move(state)
        assert seats, "a running game must have a seat to move"
        seat = rng.choice(seats)
        legal = engine.legal_actions(state, seat)
        assert legal, f"seat {seat} is to move but has no legal action"
        if check is not None:
            check(state, step, rng)
        action = rng.choice(legal)
        actions.append((seat, action))
        state = engine.apply(state, seat, action)
    pytest.fail(f"game did not end within {MAX_STEPS} actions")


def test_unknown_engine_name_lists_the_known_ones():
    with pytest.raises(KeyError) as excinfo:
        get_engine("chess")
    for name in engine_names():
        assert name in str(excinfo.value)


@pytest.mark.parametrize("name", engine_names())
def test_engine_identity_and_defaults(name):
    engine = get_engine(name)
    assert engine.name == name
    assert 1 <= engine.min_players <= engine.max_players
    variants = engine.default_variants()
    assert "standard" in variants
    schema = engine.variant_schema()
    assert isinstance(schema, dict) and schema
    for variant_name, data in variants.items():
        assert engine.validate_variant(data) == [], variant_name
        json.dumps(data)  # JSON-able
    # default_variants hands out copies: mutating one never changes the next.
    variants["standard"]["__scratch__"] = 1
    assert "__scratch__" not in engine.default_variants()["standard"]


@pytest.mark.parametrize("name", engine_names())
def test_unplayable_player_counts_are_refused(name):
    engine = get_engine(name)
    variant = engine.default_variants()["standard"]
    for players in (engine.min_players - 1, engine.max_players + 1):
        with pytest.raises(InvalidVariant):
            engine.new_game(variant, players, 1)


@pytest.mark.parametrize("name", engine_names())
def test_malformed_variant_is_refused_with_a_message(name):
    engine = get_engine(name)
    problems = engine.validate_variant({"nonsense": True})
    assert problems and all(isinstance(p, str) and p for p in problems)
    with pytest.raises(InvalidVariant):
        engine.new_game({"nonsense": True}, engine.min_players, 1)


@pytest.mark.parametrize(("name", "variant_name"), CASES)
@given(data=st.data())
def test_random_play_keeps_the_contract(name, variant_name, data):
    engine = get_engine(name)
    variant = engine.default_variants()[variant_name]
    players = data.draw(st.integers(engine.min_players, engine.max_players), label="players")
    seed = SEED_BASE + data.draw(st.integers(0, 10**6), label="seed")
    policy_seed = data.draw(st.integers(0, 10**6), label="policy")
    seats = [*range(players), None]

    def check(state, step, rng):
        before = _dump(engine.state_to_json(state))
        # Views: JSON-able, no seed; stable under determinize for that seat.
        if rng.random() < 0.15:
            for seat in seats:
                view = engine.observe(state, seat)
                text = _dump(view)
                assert str(seed) not in text
                assert '"seed"' not in text and '"rng"' not in text
                world_seed = rng.random()
                world = engine.determinize(state, seat, random.Random(world_seed))
                assert engine.observe(world, seat) == view
                # Never peek: determinize is a function of what ``seat`` can tell apart
                # (and the rng), so a world it cannot tell from the truth gives the same
                # worlds as the truth does.
                twin = engine.determinize(state, seat, random.Random(rng.random()))
                assert _dump(
                    engine.state_to_json(engine.determinize(twin, seat, random.Random(world_seed)))
                ) == _dump(engine.state_to_json(world))
        # Round trip of the whole state.
        if rng.random() < 0.1:
            again = engine.state_from_json(json.loads(before))
            assert _dump(engine.state_to_json(again)) == before
            assert engine.to_move(again) == engine.to_move(state)
        # Illegal input is refused and changes nothing.
        if rng.random() < 0.1:
            mover = engine.to_move(state)[0]
            legal = set(engine.legal_actions(state, mover))
            for garbage in (None, 17, "x", ("nope",), ("build",), (), ("draw", -1)):
                if garbage in legal:
                    continue
                with pytest.raises(IllegalAction):
                    engine.apply(state, mover, garbage)
            for other in range(players):
                if other in engine.to_move(state):
                    continue
                assert engine.legal_actions(state, other) == []
                with pytest.raises(IllegalAction):
                    engine.apply(state, other, next(iter(legal)))
            with pytest.raises(IllegalAction):
                engine.action_from_json({"garbage": [1, 2]})
        # Every listed action round-trips through JSON and is described.
        if rng.random() < 0.1:
            mover = engine.to_move(state)[0]
            for action in engine.legal_actions(state, mover):
                encoded = json.loads(json.dumps(engine.action_to_json(action)))
                assert engine.action_from_json(encoded) == action
                assert isinstance(engine.describe_action(state, action), str)
        assert _dump(engine.state_to_json(state)) == before, "a check mutated the state"

    final, actions = _play(engine, variant, players, seed, policy_seed, check)
    assert engine.is_over(final)
    assert engine.to_move(final) == []
    scores = engine.scores(final)
    assert len(scores) == players and all(isinstance(s, int) for s in scores)
    winners = engine.winners(final)
    assert winners and set(winners) <= set(range(players))
    best = max(scores)
    assert all(scores[w] == best for w in winners)

    # Determinism: the same seed and actions give the same game.
    replay = engine.new_game(variant, players, seed)
    for seat, action in actions:
        replay = engine.apply(replay, seat, action)
    assert _dump(engine.state_to_json(replay)) == _dump(engine.state_to_json(final))


@pytest.mark.parametrize("name", engine_names())
def test_apply_never_mutates_its_input(name):
    engine = get_engine(name)
    variant = engine.default_variants()["standard"]
    state = engine.new_game(variant, engine.min_players, 3)
    rng = random.Random(3)
    for _ in range(60):
        if engine.is_over(state):
            break
        seat = engine.to_move(state)[0]
        before = _dump(engine.state_to_json(state))
        view_before = engine.observe(state, seat)
        nxt = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        assert _dump(engine.state_to_json(state)) == before
        assert engine.observe(state, seat) == view_before
        state = nxt


@pytest.mark.parametrize("name", engine_names())
def test_determinize_really_resamples_hidden_parts(name):
    """The spectator's world changes under determinize while its view does not."""
    engine = get_engine(name)
    state = engine.new_game(engine.default_variants()["standard"], engine.max_players, 11)
    truth = _dump(engine.state_to_json(state))
    worlds = {
        _dump(engine.state_to_json(engine.determinize(state, None, random.Random(i))))
        for i in range(5)
    }
    assert worlds - {truth}, "determinize returned the true hidden state every time"
