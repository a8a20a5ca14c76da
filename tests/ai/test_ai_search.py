"""ISMCTS, baselines and entry points on the toy blind-auction game (tests/ai/toygame.py)."""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import replace

import pytest
from toygame import ENGINE, ToyState

import ai
from ai.ismcts import SearchParams, search
from ailab.arena import play_game, seatings, tally

VARIANT = {"hand": 5}


def random_positions(count: int, players: int = 2, seed: int = 0) -> list[tuple[ToyState, int]]:
    """(state, seat to move) pairs from seeded random games."""
    rng = random.Random(seed)
    positions = []
    game = 0
    while len(positions) < count:
        state = ENGINE.new_game(VARIANT, players, seed + game)
        game += 1
        while not ENGINE.is_over(state):
            seat = ENGINE.to_move(state)[0]
            actions = ENGINE.legal_actions(state, seat)
            if len(actions) > 1:
                positions.append((state, seat))
            state = ENGINE.apply(state, seat, rng.choice(actions))
    return positions[:count]


def test_toy_determinize_keeps_the_observation():
    for state, seat in random_positions(20, players=3):
        world = ENGINE.determinize(state, seat, random.Random(5))
        assert ENGINE.observe(world, seat) == ENGINE.observe(state, seat)


def test_same_seed_same_decision_and_statistics():
    for state, seat in random_positions(6, players=3, seed=4):
        first = search(ENGINE, state, seat, 150, seed=11)
        second = search(ENGINE, state, seat, 150, seed=11)
        assert first.action == second.action
        assert [(s.action, s.visits, s.value) for s in first.stats] == [
            (s.action, s.visits, s.value) for s in second.stats
        ]
        assert ai.choose_action(ENGINE, state, seat, "easy", seed=3) == ai.choose_action(
            ENGINE, state, seat, "easy", seed=3
        )


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("level", ["random", "greedy", "easy"])
def test_every_chosen_action_is_legal(players, level):
    for index, (state, seat) in enumerate(random_positions(8, players, seed=players)):
        action = ai.choose_action(ENGINE, state, seat, level, seed=index)
        assert action in ENGINE.legal_actions(state, seat)


def test_never_peeks_at_hidden_information():
    """States the seat cannot tell apart give the same decision for a seed and level."""
    checked = 0
    for index, (state, seat) in enumerate(random_positions(15, players=3, seed=9)):
        one = ENGINE.determinize(state, seat, random.Random(100 + index))
        two = ENGINE.determinize(state, seat, random.Random(200 + index))
        assert ENGINE.observe(one, seat) == ENGINE.observe(two, seat)
        if one == two:
            continue
        checked += 1
        for level in ("easy", "greedy"):
            assert ai.choose_action(ENGINE, one, seat, level, seed=index) == ai.choose_action(
                ENGINE, two, seat, level, seed=index
            )
    assert checked >= 10


def test_toy_determinize_depends_only_on_the_observation():
    """What the never-peek test relies on: a seed gives the same world for twins."""
    for index, (state, seat) in enumerate(random_positions(10, players=3, seed=21)):
        one = ENGINE.determinize(state, seat, random.Random(index))
        two = ENGINE.determinize(state, seat, random.Random(index + 50))
        assert ENGINE.determinize(one, seat, random.Random(3)) == ENGINE.determinize(
            two, seat, random.Random(3)
        )


def test_iteration_budget_is_exact():
    state, seat = random_positions(1, seed=2)[0]
    assert search(ENGINE, state, seat, 37, seed=1).iterations == 37
    result = search(ENGINE, state, seat, 40, seed=1)
    assert sum(s.visits for s in result.stats) == 40  # every iteration passes the root


def test_clock_guard_stops_an_unbounded_budget():
    state, seat = random_positions(1, seed=2)[0]
    result = search(ENGINE, state, seat, 10**9, time_limit=0.2, seed=1)
    assert 0 < result.iterations < 10**9
    assert result.seconds < 2.0


def test_single_legal_action_needs_no_search(monkeypatch):
    state = ENGINE.new_game(VARIANT, 2, 1)
    seat = ENGINE.to_move(state)[0]
    state = replace(state, hands=tuple((4,) if s == seat else h for s, h in enumerate(state.hands)))

    def boom(*_args, **_kwargs):
        raise AssertionError("searched a forced move")

    monkeypatch.setattr(ENGINE, "determinize", boom)
    for level in ai.LEVEL_NAMES:
        assert ai.choose_action(ENGINE, state, seat, level) == ("bid", 4)


def test_unknown_level_is_refused():
    state, seat = random_positions(1)[0]
    with pytest.raises(ValueError, match="unknown level"):
        ai.choose_action(ENGINE, state, seat, "godlike")


def winning_position() -> ToyState:
    """Round 4 of 5, 10 points up for grabs (2 next); seat 0 bids second.

    Seat 1 has played 1, 2, 3, so its face-down bid is one of 4..7: bidding 7
    wins the 10 (or ties), bidding 1 hands it over and loses the game.
    """
    return ToyState(
        n=2,
        hands=((1, 7), (4,)),
        stock=((2, 4), (5, 6)),
        prizes=(2,),
        prize=10,
        bids=(None, 7),
        scores=(8, 0),
        starter=1,
        turn=0,
        history=((4, (3, 1)), (3, (5, 2)), (1, (6, 3))),
    )


def test_analyse_ranks_the_winning_move_first():
    ranked = ai.analyse(ENGINE, winning_position(), 0, 300)
    assert [a for a, _p, _v in ranked] == [("bid", 7), ("bid", 1)]
    (_, best_p, best_v), (_, worst_p, worst_v) = ranked
    assert best_v > worst_v and best_p > worst_p
    assert sum(v for _a, _p, v in ranked) == 300
    # Even the level that errs most keeps a clear win (its errors stay within a margin).
    assert ai.LEVELS["easy"].params.error_rate > 0
    assert all(ai.choose_action(ENGINE, winning_position(), 0, "easy", seed=s) == ("bid", 7)
               for s in range(10))


def test_progressive_widening_still_finds_the_best_move():
    params = SearchParams(widen_threshold=1, widen_c=1.0)
    result = search(ENGINE, winning_position(), 0, 200, params=params)
    assert result.action == ("bid", 7)


def test_search_beats_random_on_the_toy_game():
    """A strength check with a wide margin (measured ~75%), seeded so it is not flaky."""
    records = [
        play_game(ENGINE, VARIANT, seating, seed)
        for seed in range(10)
        for seating in seatings(["easy", "random"])
    ]
    rate = tally(records)["easy"].wins / len(records)
    assert rate >= 0.6, rate


def test_ai_imports_no_framework():
    code = (
        "import sys, ai, ailab.arena, ailab.bench, ai.newhaven, ai.nouvellefrance\n"
        "bad = {'django', 'channels', 'celery', 'rest_framework', 'accounts', 'config'}\n"
        "hit = sorted(m for m in sys.modules if m.split('.')[0] in bad)\n"
        "assert not hit, hit\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_error_rate_draws_other_searched_moves_by_visits_and_zero_takes_the_best():
    from ai.ismcts import ActionStats, _sample_by_visits

    others = [ActionStats("b", 30, 0.5), ActionStats("c", 10, 0.4), ActionStats("d", 0, 0.0)]
    rng = random.Random(1)
    draws = [_sample_by_visits(others, rng) for _ in range(4000)]
    assert abs(draws.count("b") / len(draws) - 0.75) < 0.03
    assert "d" not in draws  # never a move the search did not try
    state, seat = random_positions(1, players=2, seed=9)[0]
    base = search(ENGINE, state, seat, 300, seed=2)
    assert base.action == base.stats[0].action  # error_rate 0: the most visited move
    always = SearchParams(error_rate=1.0, error_margin=1.0)
    picks = [search(ENGINE, state, seat, 300, seed=s, params=always) for s in range(12)]
    assert all(p.action != p.stats[0].action for p in picks)
    assert len({p.action for p in picks}) > 1
    assert search(ENGINE, state, seat, 300, seed=5, params=always).action == search(
        ENGINE, state, seat, 300, seed=5, params=always).action


def test_the_runtime_ai_knows_no_lab_bot():
    """The frozen ``*-v1`` levels are the arena's (ailab), not a level of the site's AI."""
    state, seat = random_positions(1)[0]
    assert not hasattr(ai, "FROZEN_NAMES") and "hard-v1" not in ai.LEVEL_NAMES
    with pytest.raises(ValueError, match="unknown level"):
        ai.choose_action(ENGINE, state, seat, "hard-v1")


def test_a_game_gets_its_knowledge_from_the_catalogue_and_loses_it_when_unregistered():
    import ai.newhaven
    from ai.knowledge import GenericKnowledge, get_knowledge
    from games.catalogue import GameEntry, register_game, unregister_game

    assert isinstance(get_knowledge(ENGINE), GenericKnowledge)
    register_game(GameEntry(ENGINE.name, engine="toygame", knowledge="ai.newhaven"))
    try:
        assert get_knowledge(ENGINE) is ai.newhaven.KNOWLEDGE
    finally:
        unregister_game(ENGINE.name)
    assert isinstance(get_knowledge(ENGINE), GenericKnowledge)


def test_suggest_gives_the_best_moves_with_chances_and_never_peeks():
    """A practice game's hint: the best ``count`` legal moves, most visited first, each
    with a win chance; twins the seat cannot tell apart get the same hint."""
    best = ai.suggest(ENGINE, winning_position(), 0, count=3, iterations=300)
    assert [a for a, _p, _v in best] == [("bid", 7), ("bid", 1)]  # only two are legal
    assert best[0][1] > best[1][1] and all(0.0 <= p <= 1.0 for _a, p, _v in best)
    checked = 0
    for index, (state, seat) in enumerate(random_positions(12, players=3, seed=4)):
        one = ENGINE.determinize(state, seat, random.Random(100 + index))
        two = ENGINE.determinize(state, seat, random.Random(200 + index))
        if one == two:
            continue
        checked += 1
        hint = ai.suggest(ENGINE, one, seat, iterations=80, seed=index)
        assert hint == ai.suggest(ENGINE, two, seat, iterations=80, seed=index)
        legal = ENGINE.legal_actions(state, seat)
        assert 1 <= len(hint) <= 3 and all(a in legal for a, _p, _v in hint)
        assert len({a for a, _p, _v in hint}) == len(hint)
        visits = [v for _a, _p, v in hint]
        assert visits == sorted(visits, reverse=True)
    assert checked >= 6


def test_lcb_final_choice_prefers_a_surer_value_among_well_visited_children():
    from ai.ismcts import ActionStats, _lcb_choice

    params = SearchParams(final="lcb", final_z=1.0, final_min_share=0.25)
    stats = [
        ActionStats("most visited", 100, 0.50, 0.01),
        ActionStats("better", 60, 0.56, 0.02),
        ActionStats("noisy", 60, 0.58, 0.05),  # higher mean, lower bound 0.53 < 0.54
        ActionStats("barely tried", 10, 0.90, 0.01),  # under a quarter of the visits
    ]
    assert _lcb_choice(stats, params).action == "better"
    assert _lcb_choice(stats, replace(params, final_min_share=0.05)).action == "barely tried"
    assert _lcb_choice(stats, replace(params, final_z=0.0)).action == "noisy"


def test_lcb_search_reports_standard_errors_and_keeps_a_clear_win():
    params = SearchParams(final="lcb")
    result = search(ENGINE, winning_position(), 0, 300, params=params)
    assert result.action == ("bid", 7)
    assert all(s.error > 0 for s in result.stats if s.visits > 1)
    for state, seat in random_positions(4, players=3, seed=6):
        first = search(ENGINE, state, seat, 150, seed=3, params=params)
        assert first.action == search(ENGINE, state, seat, 150, seed=3, params=params).action
        assert first.action in ENGINE.legal_actions(state, seat)
    with pytest.raises(ValueError, match="final choice"):
        search(ENGINE, winning_position(), 0, 20, params=SearchParams(final="best"))


def test_a_game_knowledge_fills_the_search_fields_left_to_it():
    from ai.ismcts import _resolve
    from ai.knowledge import GenericKnowledge

    class Close(GenericKnowledge):
        exploration = 0.15
        final = "lcb"

    left = SearchParams(exploration=None, final=None)
    assert (_resolve(left, Close()).exploration, _resolve(left, Close()).final) == (0.15, "lcb")
    assert (_resolve(left, GenericKnowledge()).exploration,
            _resolve(left, GenericKnowledge()).final) == (0.7, "visits")
    explicit = SearchParams(exploration=0.5, final="visits")
    assert _resolve(explicit, Close()) == explicit
    for state, seat in random_positions(3, players=2, seed=8):
        by_game = search(ENGINE, state, seat, 120, seed=4, params=left, knowledge=Close())
        by_hand = search(ENGINE, state, seat, 120, seed=4, knowledge=Close(),
                         params=SearchParams(exploration=0.15, final="lcb"))
        assert [(s.action, s.visits) for s in by_game.stats] == [
            (s.action, s.visits) for s in by_hand.stats]
        assert by_game.action == by_hand.action
