"""The anchor's OpenSpiel side: the wrapped game behind pyspiel's state API, the
opponents' resampling and budgets, and ``python -m ailab.anchor``.  Skipped without the
``anchors`` extra."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip(
    "pyspiel", reason="the anchors extra is not installed (make anchors; CI installs it)")

from toygame import ENGINE

import ai
from ailab.anchor import Wrapped, win_shares
from ailab.anchor.__main__ import main
from ailab.anchor.openspiel import EngineGame, OpenSpielPlayer
from games.engines import get_engine

VARIANT = {"hand": 5}


def wrapped_games(players: int = 2):
    yield Wrapped(ENGINE, VARIANT, players)
    for name in ("newhaven", "nouvellefrance"):
        engine = get_engine(name)
        yield Wrapped(engine, engine.default_variants()["standard"], players)


@pytest.mark.parametrize("players", [2, 3])
def test_random_playthrough_of_the_openspiel_state_is_the_engine_fold(players):
    """pyspiel's API (legal actions, apply, clone, returns) follows the engine's fold."""
    import pyspiel

    for wrapped in wrapped_games(players):
        engine = wrapped.engine
        game = EngineGame(wrapped)
        assert game.num_players() == players
        rng = random.Random(5)
        state = game.new_initial_state(21)
        fold = engine.new_game(wrapped.variant, players, 21)
        plies = 0
        while not state.is_terminal():
            seat = state.current_player()
            assert seat == engine.to_move(fold)[0]
            legal = state.legal_actions()
            assert [wrapped.codec.decode(a) for a in legal] == engine.legal_actions(fold, seat)
            action = rng.choice(legal)
            if plies == 10:  # a clone goes its own way, the original is untouched
                twin = state.clone()
                twin.apply_action(action)
                assert state.engine_state == fold
            state.apply_action(action)
            fold = engine.apply(fold, seat, wrapped.codec.decode(action))
            plies += 1
        assert engine.is_over(fold)
        assert state.current_player() == pyspiel.PlayerId.TERMINAL
        assert state.returns() == win_shares(engine, fold)
        assert engine.scores(state.engine_state) == engine.scores(fold)
        assert len(state.history()) == plies


def mid_game(wrapped: Wrapped, seed: int, plies: int):
    """A random position after ``plies`` actions or more, with a choice to make."""
    rng = random.Random(seed)
    state = wrapped.new_game(seed)
    done = 0
    while done < plies or len(wrapped.legal_codes(state)) < 2:
        state = wrapped.apply(state, rng.choice(wrapped.legal_codes(state)))
        done += 1
    return state


def test_ismcts_samples_worlds_the_seat_cannot_tell_apart():
    """The resampler: observe(resampled, seat) == observe(true, seat), hidden parts vary."""
    for wrapped in wrapped_games():
        engine = wrapped.engine
        player = OpenSpielPlayer("openspiel-ismcts", wrapped, uct_c=2.0, iterations=5)
        true = mid_game(wrapped, 3, 5)
        seat = wrapped.current_player(true)
        bot = player.bot(seed=1)
        root = player.game.state_of(true)
        varied = False
        for _ in range(8):
            world = bot.resample_from_infostate(root)
            assert engine.observe(world.engine_state, seat) == engine.observe(true, seat)
            assert world.information_state_string(seat) == root.information_state_string(seat)
            varied |= world.engine_state != true
        assert varied, engine.name


@pytest.mark.parametrize(("kind", "options"), [
    ("openspiel-ismcts", {"iterations": 30}),
    ("openspiel-pimc", {"iterations": 24, "worlds": 4}),
])
def test_a_searching_opponent_never_peeks(kind, options):
    """States the seat cannot tell apart give the opponent (ISMCTS, PIMC) the same decision."""
    wrapped = Wrapped(ENGINE, VARIANT, 3)
    player = OpenSpielPlayer(kind, wrapped, uct_c=1.0, **options)
    checked = 0
    for index in range(12):
        state = mid_game(wrapped, index, index % 6)
        seat = wrapped.current_player(state)
        one = ENGINE.determinize(state, seat, random.Random(100 + index))
        two = ENGINE.determinize(state, seat, random.Random(200 + index))
        if one == two:
            continue
        checked += 1
        assert player(ENGINE, one, seat, index, None) == player(ENGINE, two, seat, index, None)
    assert checked >= 6


@pytest.mark.parametrize("kind", ["openspiel-ismcts", "openspiel-mcts-cheat", "openspiel-pimc"])
def test_opponents_play_legal_moves_within_their_budgets(kind):
    for wrapped in wrapped_games():
        state = mid_game(wrapped, 8, 4)
        seat = wrapped.current_player(state)
        player = OpenSpielPlayer(kind, wrapped, uct_c=2.0, iterations=6, worlds=3)
        action = player(wrapped.engine, state, seat, 3, None)
        assert action in wrapped.engine.legal_actions(state, seat)
        assert (player.searches, player.iterations_done) == (1, 6)
        timed = OpenSpielPlayer(kind, wrapped, uct_c=2.0, worlds=3)
        action = timed(wrapped.engine, state, seat, 3, 0.01)
        assert action in wrapped.engine.legal_actions(state, seat)
        assert 1 <= timed.iterations_done < 10**9




def test_command_gives_the_opponent_a_multiple_of_our_level_budget(tmp_path):
    out = tmp_path / "pimc.json"
    main(["--game", "toygame:ENGINE", "--opponent", "openspiel-pimc", "--games", "2",
          "--equal", "iterations", "--level", "easy", "--times", "0.2", "--worlds", "3",
          "--json", str(out)])
    saved = json.loads(out.read_text())
    (match,) = saved["matches"]
    assert (saved["times"], saved["worlds"], match["worlds"]) == (0.2, 3, 3)
    budget = ai.level_budget(ENGINE, ai.LEVELS["easy"])
    assert saved["iterations"] == budget
    assert match["bots"]["easy"]["iterations_per_search"] == budget
    # 30 simulations over 3 worlds; MCTS-Solver stops a world early once it is solved.
    assert 3 <= match["bots"]["openspiel-pimc"]["iterations_per_search"] <= round(budget * 0.2)


def test_unknown_opponent_is_refused():
    with pytest.raises(ValueError):
        OpenSpielPlayer("openspiel-cfr", Wrapped(ENGINE, VARIANT, 2), uct_c=1.0)
    with pytest.raises(ValueError):
        OpenSpielPlayer("openspiel-pimc", Wrapped(ENGINE, VARIANT, 2), uct_c=1.0, worlds=0)


def test_command_plays_seat_swapped_matches_and_saves_them(tmp_path, capsys):
    out = tmp_path / "anchor.json"
    main(["--game", "toygame:ENGINE", "--opponent", "openspiel-ismcts", "--games", "2",
          "--equal", "iterations", "--iterations", "8", "--level", "easy",
          "--uct-c", "1,4", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "sweep" in printed and "openspiel-ismcts" in printed
    saved = json.loads(out.read_text())
    assert [m["uct_c"] for m in saved["matches"]] == [1.0, 4.0]
    for match in saved["matches"]:
        assert match["games"] == 2
        assert [r["bots"] for r in match["records"]] == [
            ["easy", "openspiel-ismcts"], ["openspiel-ismcts", "easy"]]
        for row in match["bots"].values():
            assert row["seat_games"] == 2
            assert row["ci95"][0] <= row["win_rate"] <= row["ci95"][1]
            assert row["iterations_per_search"] == 8
        shares = sum(row["win_rate"] * row["seat_games"] for row in match["bots"].values())
        assert shares == pytest.approx(2.0)


def test_command_wants_the_budget_that_matches_equal():
    with pytest.raises(SystemExit):
        main(["--game", "toygame:ENGINE", "--opponent", "openspiel-ismcts",
              "--equal", "time", "--iterations", "5"])


def test_command_tunes_the_opponent_against_a_baseline(tmp_path):
    out = tmp_path / "sweep.json"
    main(["--game", "toygame:ENGINE", "--opponent", "openspiel-ismcts", "--games", "2",
          "--equal", "time", "--seconds", "0.005", "--level", "greedy", "--json", str(out)])
    (match,) = json.loads(out.read_text())["matches"]
    assert match["bots"]["greedy"]["iterations_per_search"] is None
    assert match["bots"]["openspiel-ismcts"]["iterations_per_search"] >= 2
    with pytest.raises(SystemExit):  # a baseline has no iteration budget
        main(["--game", "toygame:ENGINE", "--opponent", "openspiel-ismcts",
              "--equal", "iterations", "--iterations", "5", "--level", "greedy"])
