"""The engine protocol's contract, checked on every registered engine.

Random legal play (Hypothesis draws the seed, the player count, the variant and the
random policy) must terminate, stay deterministic, round-trip through JSON, never let
an illegal action change a state, and never leak hidden information: ``observe`` of
a seat is unchanged by ``determinize`` for that seat, no view carries the seed, and no
event tells any seat more than its view does (see ``assert_event_hides_nothing``).
The wave-2 parts of the protocol are checked too: ``rule_data`` (envelope, JSON,
determinism), events (JSON dicts with ``type`` and ``seat``), ``reveal``, ``figures``
and versioned, validated stored states.
Game-specific invariants (turn counts, conservation of pieces) live beside each game.
"""

from __future__ import annotations

import contextlib
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import EngineError, IllegalAction, InvalidVariant, engine_names, get_engine

MAX_STEPS = 5000
SEED_BASE = 7_391_000_000_000  # a seed that cannot appear by chance in a view


def _cases() -> list[tuple[str, str]]:
    return [
        (name, variant)
        for name in engine_names()
        for variant in sorted(get_engine(name).default_variants())
    ]


CASES = _cases()


_MISSING = object()


def _distance(a: dict, b: dict) -> int:
    """How many fields two events differ in."""
    return sum(1 for k in set(a) | set(b) if a.get(k, _MISSING) != b.get(k, _MISSING))


def assert_event_hides_nothing(engine, state, seat, action, players, rng) -> None:
    """The event of ``action`` tells no other seat (nor a spectator) more than its view.

    An observer sees the event and its view after the action.  Take a world the
    observer cannot tell from the truth (``determinize`` for it) and any action of the
    mover in that world that leaves the observer's view exactly as the true action
    does: the observer cannot tell those histories apart, so the event must be the same
    in all of them.  A leaked private building number, a named blind draw or a hand
    index gives another event for an alternative that looks the same (another building
    of the colour from the resampled hand, another building on top of the resampled
    bag, the same tile at another index), and fails here.  Alternatives are ranked by
    how few fields their event differs in, so the ones a leak would make look alike are
    compared first.

    This relies on views showing everything public: a view that forgets a public fact
    (which of two look-alike pieces was just built over) makes the event's mention of
    it look like a leak.  Fix such a view rather than the event.
    """
    event = engine.describe_action(state, action)
    after = engine.apply(state, seat, action)
    observer = rng.choice([o for o in [*range(players), None] if o != seat])
    seen = engine.observe(after, observer)
    world = engine.determinize(state, observer, random.Random(rng.random()))
    alternatives = list(engine.legal_actions(world, seat))
    if len(alternatives) > 400:  # keep huge action lists affordable, the truth included
        alternatives = [*rng.sample(alternatives, 400), action]
    ranked = []
    for index, alternative in enumerate(alternatives):
        try:
            other = engine.describe_action(world, alternative)
        except IllegalAction:
            continue
        if other != event:
            ranked.append((_distance(other, event), index, alternative, other))
    ranked.sort(key=lambda item: item[:2])
    for *_rank, alternative, other in ranked[:30]:
        if engine.observe(engine.apply(world, seat, alternative), observer) == seen:
            pytest.fail(
                f"the event {event} of {action!r} by seat {seat} tells seat {observer} "
                f"more than its view: {alternative!r}, in a world it cannot tell from this "
                f"one, leaves the same view but gives the event {other}"
            )


def _dump(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _play(engine, variant: dict, players: int, seed: int, policy_seed: int, check=None):
    """Play a random game; call ``check(state, step, rng, seat, action)`` before each action."""
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
        action = rng.choice(legal)
        if check is not None:
            check(state, step, rng, seat, action)
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
    events = []

    def check(state, step, rng, mover, action):
        before = _dump(engine.state_to_json(state))
        # Every event is JSON data with its type and the acting seat, never prose.
        event = engine.describe_action(state, action)
        assert isinstance(event, dict) and isinstance(event.get("type"), str)
        assert event["seat"] == mover
        assert json.loads(json.dumps(event)) == event
        events.append(event)
        # ... and tells nobody more than their view.
        if rng.random() < 0.06:
            assert_event_hides_nothing(engine, state, mover, action, players, rng)
        if rng.random() < 0.05:
            revealed = engine.reveal(state)
            assert set(revealed) == set(engine.observe(state, None)) | {"revealed"}
            json.dumps(revealed)
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
                event = engine.describe_action(state, action)
                # A wave-2 engine returns an event; the others still return a sentence.
                assert isinstance(event, dict)
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
    figures = engine.figures(events, final)
    assert isinstance(figures.get("turns"), int) and figures["turns"] > 0
    assert all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in figures.values()
    ), figures
    json.dumps(figures)

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


# -- wave 2: rule data, stored states ---------------------------------------------------


@pytest.mark.parametrize(("name", "variant_name"), CASES)
def test_rule_data_envelope_json_and_determinism(name, variant_name):
    engine = get_engine(name)
    assert isinstance(engine.title, str) and engine.title
    variant = engine.default_variants()[variant_name]
    data = engine.rule_data(variant)
    assert data["game"] == name and data["title"] == engine.title
    assert data["variant"] == variant["name"]
    assert isinstance(data["description"], str)
    counts = data["player_counts"]
    assert counts and counts == sorted(set(counts))
    assert all(engine.min_players <= n <= engine.max_players for n in counts)
    # JSON data, static for the variant: equal for an equal variant and for every call.
    assert json.loads(json.dumps(data)) == data
    assert engine.rule_data(json.loads(json.dumps(variant))) == data
    assert engine.rule_data(variant) == data
    # Every player count it names can start a game.
    for n in counts:
        engine.new_game(variant, n, 1)
    # A copy: changing it changes nothing for the next caller.
    data["variant"] = "scratch"
    assert engine.rule_data(variant)["variant"] == variant["name"]


@pytest.mark.parametrize(("name", "variant_name"), CASES)
def test_variant_key_names_the_states_variant(name, variant_name):
    """``variant_key(state)``: one string per variant, through play; it gives the rule data."""
    engine = get_engine(name)
    variant = engine.default_variants()[variant_name]
    states = _states(engine, variant, 2, 5, 4)
    keys = {engine.variant_key(s) for s in states}
    assert len(keys) == 1
    (key,) = keys
    assert engine.rule_data(json.loads(key)) == engine.rule_data(variant)
    world = engine.determinize(states[1], 0, random.Random(3))
    assert engine.variant_key(world) == key
    others = [v for n, v in engine.default_variants().items() if n != variant_name]
    for other in others:
        assert engine.variant_key(engine.new_game(other, 2, 1)) != key


@pytest.mark.parametrize("name", engine_names())
def test_rule_data_refuses_invalid_variants(name):
    engine = get_engine(name)
    with pytest.raises(InvalidVariant) as info:
        engine.rule_data({"nonsense": True})
    assert info.value.problems


def _states(engine, variant, players, seed, count):
    """``count`` states spread over a random game, the initial and final ones included."""
    rng = random.Random(seed)
    state = engine.new_game(variant, players, seed)
    out = [state]
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        state = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        if rng.random() < 0.05:
            out.append(state)
    return [*out[: count - 1], state]


@pytest.mark.parametrize(("name", "variant_name"), CASES)
def test_stored_states_carry_a_format_and_refuse_garbage(name, variant_name):
    engine = get_engine(name)
    variant = engine.default_variants()[variant_name]
    for state in _states(engine, variant, engine.max_players, 5, 6):
        data = json.loads(json.dumps(engine.state_to_json(state)))
        assert isinstance(data.get("format"), int) and not isinstance(data["format"], bool)
        assert _dump(engine.state_to_json(engine.state_from_json(data))) == _dump(data)
        # Plain garbage and other formats are refused with EngineError.
        for garbage in (None, [], "state", 7, {}, {"format": data["format"]}):
            with pytest.raises(EngineError):
                engine.state_from_json(garbage)
        for other_format in (data["format"] + 1, -1, str(data["format"]), None):
            with pytest.raises(EngineError):
                engine.state_from_json({**data, "format": other_format})
        # Every field missing, or of a wrong type: refused with EngineError (never
        # another exception); a replacement can only pass when it is still valid data.
        for key in data:
            with pytest.raises(EngineError):
                engine.state_from_json({k: v for k, v in data.items() if k != key})
            for wrong in (None, "x", -1, 10**9, [], {}, [None], True):
                with contextlib.suppress(EngineError):
                    engine.state_from_json({**data, key: wrong})
        # The input is never changed.
        assert data == json.loads(json.dumps(engine.state_to_json(state)))
