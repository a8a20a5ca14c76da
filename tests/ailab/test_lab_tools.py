"""Issue 13's tools: frozen v1 bots, equal-time arena games, ratings, the new search options.

These check behaviour (legality, never-peek, the rating model's numbers), never strength
or speed: the arena and ``ailab.bench`` measure those.
"""

from __future__ import annotations

import json
import random

import pytest

import ai
import ai.ratings
import ailab.learn
from ai.ismcts import search
from ai.knowledge import get_knowledge, search_knowledge
from ai.ratings import level_rating
from ailab import arena
from ailab.arena import main as arena_main
from ailab.arena import play_game
from ailab.ratings import rate


def load(name: str):
    from games.engines import get_engine

    return get_engine(name)


GAMES = ["newhaven", "nouvellefrance"]


def positions(engine, players, count, seed):
    rng = random.Random(seed)
    variant = engine.default_variants()["standard"]
    found = []
    game = 0
    while len(found) < count:
        state = engine.new_game(variant, players, seed + game)
        game += 1
        while not engine.is_over(state):
            seat = engine.to_move(state)[0]
            actions = engine.legal_actions(state, seat)
            if len(actions) > 1 and rng.random() < 0.08:
                found.append((state, seat))
            state = engine.apply(state, seat, rng.choice(actions))
    return found[:count]


@pytest.mark.parametrize("game", GAMES)
def test_frozen_v1_bots_play_legal_moves(game):
    engine = load(game)
    for index, (state, seat) in enumerate(positions(engine, 2, 4, seed=3)):
        for bot in arena.FROZEN_NAMES:
            action = arena.choose_action(engine, state, seat, bot, seed=index, seconds=0.01)
            assert action in engine.legal_actions(state, seat)


def test_greedy_keeps_the_base_knowledge():
    engine = load("newhaven")
    assert type(get_knowledge(engine)).__name__ == "NewHavenKnowledge"
    assert type(search_knowledge(engine)).__name__ == "StrongNewHavenKnowledge"


@pytest.mark.parametrize("game", GAMES)
def test_tuned_search_never_peeks(game):
    """Two states the seat cannot tell apart give the same tuned search, move and stats."""
    engine = load(game)
    compared = 0
    for index, (state, seat) in enumerate(positions(engine, 3, 6, seed=29)):
        one = engine.determinize(state, seat, random.Random(100 + index))
        two = engine.determinize(state, seat, random.Random(200 + index))
        if engine.state_to_json(one) == engine.state_to_json(two):
            continue
        compared += 1
        params = ai.LEVELS["hard"].params
        first = search(engine, one, seat, 30, seed=index, params=params)
        second = search(engine, two, seat, 30, seed=index, params=params)
        assert first.action == second.action
        assert [(s.action, s.visits) for s in first.stats] == [
            (s.action, s.visits) for s in second.stats
        ]
    assert compared >= 3


def test_public_keys_name_a_hidden_tile_by_its_squares():
    """Another seat's harvest is keyed by what it shows: swapping the hand order keeps keys."""
    engine = load("newhaven")
    knowledge = search_knowledge(engine)
    state = engine.new_game(engine.default_variants()["standard"], 2, 4)
    seat = engine.to_move(state)[0]
    legal = engine.legal_actions(state, seat)
    keys = knowledge.action_keys(engine, state, seat, legal)
    hand = engine.observe(state, seat)["hand"]["tiles"]
    by_index = {t["index"]: t["squares"] for t in hand}
    for action, key in zip(legal, keys, strict=True):
        if action[0] == "harvest":
            _, index, row, col, rot = action
            squares = by_index[index]
            turned = [squares[(i - rot) % len(squares)] for i in range(len(squares))]
            assert key == ("harvest", tuple(turned), row, col)
    # Many worlds: another seat's hidden tiles differ, yet a key is never an index.
    assert all(not isinstance(k[1], int) for k in keys if k[0] == "harvest")


def test_macro_followup_only_plays_builds():
    engine = load("newhaven")
    knowledge = search_knowledge(engine)
    rng = random.Random(1)
    seen_build = False
    for state, seat in positions(engine, 2, 30, seed=5):
        legal = engine.legal_actions(state, seat)
        step = knowledge.followup(engine, state, seat, legal, rng)
        if legal[0][0] in ("build", "end_build", "pass"):
            seen_build = True
            assert step in legal
            if any(a[0] == "build" for a in legal):
                assert step[0] == "build"
        else:
            assert step is None
    assert seen_build


def test_equal_time_arena_game_ends_with_v1_and_new_bots():
    engine = load("newhaven")
    record = play_game(
        engine, engine.default_variants()["standard"], ["easy", "easy-v1"], 3, think=0.002
    )
    assert sorted(record.bots) == ["easy", "easy-v1"]
    assert sum(record.shares) == pytest.approx(1.0)


def test_arena_refuses_an_unknown_bot(capsys):
    with pytest.raises(SystemExit):
        arena_main(["--game", "newhaven", "--bots", "hard,nonsense", "--games", "2"])
    assert "unknown bot" in capsys.readouterr().err


def test_plackett_luce_update_matches_openskill():
    """OpenSkill's PlackettLuce: a default 1v1 win gives 27.635 / 8.0655."""
    (w_mu, w_sigma), (l_mu, l_sigma) = rate([(25.0, 25 / 3), (25.0, 25 / 3)], [0, 1])
    assert w_mu == pytest.approx(27.63523, abs=1e-4)
    assert l_mu == pytest.approx(22.36477, abs=1e-4)
    assert w_sigma == pytest.approx(8.06551, abs=1e-4) and l_sigma == w_sigma
    (a, _), (b, _) = rate([(25.0, 25 / 3), (25.0, 25 / 3)], [0, 0])
    assert a == pytest.approx(25.0) and b == pytest.approx(25.0)


def test_level_rating_reads_the_stored_table():
    data = json.loads(ai.ratings.PATH.read_text())
    for game in GAMES:
        for level in ("random", "greedy", "easy", "normal", "hard"):
            mu, sigma = level_rating(game, level)
            assert (mu, sigma) == (
                data["games"][game][level]["mu"], data["games"][game][level]["sigma"]
            )
            assert sigma > 0
        mus = [level_rating(game, lv)[0] for lv in ("random", "easy", "normal", "hard")]
        assert mus == sorted(mus)
    assert ai.level_rating("some-new-game", "hard")[0] > 0
    with pytest.raises(KeyError, match="known"):
        level_rating("newhaven", "grandmaster")


def test_least_squares_fit_recovers_known_weights():
    from ailab.learn import fit, solve

    assert solve([[2.0, 1.0], [1.0, 3.0]], [5.0, 10.0]) == pytest.approx([1.0, 3.0])
    rng = random.Random(4)
    rows = [[1.0, rng.random(), rng.random()] for _ in range(200)]
    targets = [2.0 + 3.0 * x1 - 1.5 * x2 for _b, x1, x2 in rows]
    assert fit(rows, targets, ridge=1e-9) == pytest.approx([2.0, 3.0, -1.5], abs=1e-6)


@pytest.mark.parametrize("game", GAMES)
def test_learned_features_are_public_and_named(game):
    """Features come from public information: equal for worlds the seat cannot tell apart."""
    engine = load(game)
    knowledge = search_knowledge(engine)
    for index, (state, seat) in enumerate(positions(engine, 3, 5, seed=41)):
        feats = knowledge.features(engine, state)
        assert len(feats) == 3
        assert all(len(f) == len(knowledge.feature_names) for f in feats)
        world = engine.determinize(state, seat, random.Random(index))
        assert knowledge.features(engine, world) == feats


def test_nouvelle_france_followup_places_only_when_forced(monkeypatch):
    engine = load("nouvellefrance")
    knowledge = search_knowledge(engine)
    assert knowledge.followup(engine, None, 0, [("place", 0, 0, 0, 0)], random.Random(1)) is None
    monkeypatch.setattr(knowledge, "followup_sample", 12)
    rng = random.Random(2)
    forced = 0
    for state, seat in positions(engine, 2, 40, seed=8):
        legal = engine.legal_actions(state, seat)
        step = knowledge.followup(engine, state, seat, legal, rng)
        if all(a[0] in ("place", "bonus") for a in legal):
            forced += 1
            assert step in legal
        else:
            assert step is None
    assert forced >= 3


def test_the_versioned_weights_match_the_features_and_are_used(monkeypatch):
    engine = load("newhaven")
    knowledge = search_knowledge(engine)
    stored = json.loads((ailab.learn.WEIGHTS / "newhaven.json").read_text())
    assert stored["features"] == list(knowledge.feature_names)
    assert knowledge.learned and list(knowledge._weights()) == stored["weights"]
    states = [s for s, _seat in positions(engine, 2, 8, seed=43)]
    learned = [knowledge.evaluate(engine, s) for s in states]
    assert all(sum(v) == pytest.approx(1.0) for v in learned)
    monkeypatch.setattr(knowledge, "learned", False)
    assert [knowledge.evaluate(engine, s) for s in states] != learned


def test_arena_scale_applies_once_per_process(monkeypatch):
    # --scale with --jobs: each worker's initializer scales the budgets itself, once.
    import ailab.frozen_v1

    monkeypatch.setattr(ai, "LEVELS", dict(ai.LEVELS))
    monkeypatch.setattr(ailab.frozen_v1, "LEVELS_V1", dict(ailab.frozen_v1.LEVELS_V1))
    before = {name: lv.iterations for name, lv in ai.LEVELS.items()}
    hard_v1 = ailab.frozen_v1.LEVELS_V1["hard"][0]
    arena._configure("newhaven", "", 0.5)
    assert {name: lv.iterations for name, lv in ai.LEVELS.items()} == {
        name: max(1, round(it * 0.5)) for name, it in before.items()
    }
    assert ailab.frozen_v1.LEVELS_V1["hard"][0] == max(1, round(hard_v1 * 0.5))


def test_ab_plays_two_tunings_seat_swapped_and_restores_the_knowledge(capsys):
    from ailab.ab import main as ab_main

    engine = load("nouvellefrance")
    knowledge = search_knowledge(engine)
    before = knowledge.value_order
    records = ab_main([
        "--game", "nouvellefrance", "--a", "k.value_order=False,exploration=0.5",
        "--games", "2", "--seconds", "0.002", "--seed", "7",
    ])
    assert [r.bots for r in records] == [["A", "B"], ["B", "A"]]
    assert knowledge.value_order == before
    out = capsys.readouterr().out
    assert "A " in out and "B " in out and "win rate" in out


def test_arena_tabulates_a_progress_log(tmp_path, capsys):
    log = tmp_path / "run.log"
    log.write_text(
        "  1/2 games, 5s: seed 7 bots normal,hard shares [0.0, 1.0] scores [10, 11]"
        " s/move [0.5, 2.0] it/search [700, 2300]\n"
        "noise\n"
        "  2/2 games, 9s: seed 7 bots hard,normal shares [0.5, 0.5] scores [12, 12]\n"
    )
    arena_main(["--from-log", str(log)])
    out = capsys.readouterr().out
    hard = next(line for line in out.splitlines() if line.startswith("hard"))
    assert hard.split()[1:3] == ["2", "0.750"]
    assert hard.split()[-1] == "2300"  # one game reported iterations


def test_batch_fit_is_order_free_and_keeps_the_ladder_order():
    from ailab.ratings import fit, monotone

    games = [(["a", "b"], [0, 1])] * 6 + [(["b", "a"], [0, 1])] * 2 + [(["b", "c"], [0, 1])] * 4
    forward, backward = fit(games), fit(games[::-1])
    for p in "abc":
        assert forward[p] == pytest.approx(backward[p])
    assert forward["a"][0] > forward["b"][0] > forward["c"][0]
    assert fit([(["a", "b"], [0, 1]), (["b", "a"], [0, 1])])["a"][0] == pytest.approx(25.0)
    # 1 vs 3 copies: the copies share one mu
    assert set(fit([(["x", "y", "y", "y"], [0, 1, 2, 3])])) == {"x", "y"}
    table = monotone({"random": (10.0, 5.0), "easy": (20.0, 4.0),
                      "normal": (30.0, 3.0), "hard": (28.0, 6.0), "greedy": (25.0, 5.0)})
    pooled = (30 / 9 + 28 / 36) / (1 / 9 + 1 / 36)  # weighted by 1/sigma^2
    assert table["normal"][0] == table["hard"][0] == pytest.approx(pooled)
    assert table["hard"][1] == 6.0 and table["random"] == (10.0, 5.0)
    # greedy sits below easy on the ladder: an inverted fit pools the two
    pooled = (25 / 25 + 20 / 16) / (1 / 25 + 1 / 16)
    assert table["greedy"] == (pytest.approx(pooled), 5.0)
    assert table["easy"] == (pytest.approx(pooled), 4.0)


def test_tuning_specs_take_words_and_ab_plays_at_equal_iterations(capsys):
    from ailab.ab import main as ab_main
    from ailab.arena import parse_tuning

    assert parse_tuning("final=lcb,exploration=0.15,rollout_depth=None,k.learned=False") == (
        {"final": "lcb", "exploration": 0.15, "rollout_depth": None}, {"learned": False})
    records = ab_main([
        "--game", "toygame:ENGINE", "--a", "final=lcb", "--games", "2", "--iterations", "30",
        "--seed", "3",
    ])
    assert [r.bots for r in records] == [["A", "B"], ["B", "A"]]
    assert "budget=30 iterations/decision" in capsys.readouterr().out


def test_arena_no_guard_lifts_every_wall_clock_guard_and_keeps_the_budgets(monkeypatch):
    import ailab.frozen_v1

    monkeypatch.setattr(ai, "LEVELS", dict(ai.LEVELS))
    monkeypatch.setattr(ailab.frozen_v1, "LEVELS_V1", dict(ailab.frozen_v1.LEVELS_V1))
    before = {name: lv.iterations for name, lv in ai.LEVELS.items()}
    assert all(lv.time_limit < 10 for lv in ai.LEVELS.values())
    arena._configure("newhaven", "", 1.0, True)
    assert {name: lv.iterations for name, lv in ai.LEVELS.items()} == before
    assert all(lv.time_limit == arena.NO_GUARD for lv in ai.LEVELS.values())
    assert all(guard == arena.NO_GUARD for _it, guard in ailab.frozen_v1.LEVELS_V1.values())
