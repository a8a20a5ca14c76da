"""``tools.simulate``: the self-play report, on every engine, with random bots."""

from __future__ import annotations

import json
import math

import pytest

from games.engines import InvalidVariant, engine_names, get_engine
from tools import simulate
from tools.simulate import play_one, resolve_bot, run, wilson_interval

GAMES = engine_names()


def _strip(report: dict) -> dict:
    """The report without its wall-clock time (and tracebacks, which name files)."""
    out = {k: v for k, v in report.items() if k != "seconds"}
    out["errors"] = [{k: v for k, v in e.items() if k != "traceback"} for e in out["errors"]]
    return out


@pytest.mark.parametrize("game", GAMES)
def test_report_shape(game: str) -> None:
    engine = get_engine(game)
    players = engine.min_players
    calls = []
    report = run(
        game,
        players=players,
        games=4,
        bots=["random"],
        seed=11,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert report["game"] == game and report["variant"] == "standard"
    assert report["players"] == players and report["bots"] == ["random"] * players
    assert report["games"] == 4 and report["completed"] == 4 and report["errors"] == []
    for key in ("actions", "turns", "scores"):
        stats = report[key]
        assert set(stats) == {"mean", "sd", "min", "max"}
        assert stats["min"] <= stats["mean"] <= stats["max"] and stats["sd"] >= 0
    assert len(report["score_values"]) == 4 * players
    assert [s["seat"] for s in report["seats"]] == list(range(players))
    for seat in report["seats"]:
        assert 0 <= seat["low"] <= seat["share"] <= seat["high"] <= 1
        assert set(seat["score"]) == {"mean", "sd", "min", "max"}
    shares = sum(s["wins"] for s in report["seats"])
    assert shares == pytest.approx(4)  # a shared win is split between the winners
    assert "turns" in report["figures"]
    assert all(set(stats) == {"mean", "sd", "min", "max"} for stats in report["figures"].values())
    text = simulate.format_report(report)
    assert "winner share per seat" in text and "errors         0" in text
    json.dumps(report)


def test_nouvellefrance_reports_its_tuning_figures() -> None:
    report = run("nouvellefrance", players=4, games=2, bots=["random"], seed=3)
    for name in ("turns", "unplaceable_share", "level1_fill_at_first_storm", "sites_completed"):
        assert name in report["figures"], name


@pytest.mark.parametrize("game", GAMES)
def test_a_seed_gives_the_same_report(game: str) -> None:
    players = get_engine(game).max_players
    first = run(game, players=players, games=3, bots=["random"], seed=5)
    again = run(game, players=players, games=3, bots=["random"], seed=5)
    other = run(game, players=players, games=3, bots=["random"], seed=6)
    assert _strip(first) == _strip(again)
    assert _strip(first) != _strip(other)


def test_worker_processes_give_the_same_report() -> None:
    alone = run("nouvellefrance", players=2, games=2, bots=["random"], seed=8)
    pooled = run("nouvellefrance", players=2, games=2, bots=["random"], seed=8, jobs=2)
    assert _strip(alone) == _strip(pooled)


def _breaks_at(step_limit: int):
    """A bot that plays randomly, then raises on its ``step_limit``-th decision."""
    state = {"calls": 0}

    def broken(engine, game_state, seat, seed):
        state["calls"] += 1
        if state["calls"] == step_limit:
            raise RuntimeError("the bot broke")
        return simulate.random_bot(engine, game_state, seat, seed)

    return broken


@pytest.mark.parametrize("game", GAMES)
def test_errors_carry_the_seed_that_reproduces_them(game: str) -> None:
    engine = get_engine(game)
    players = engine.min_players
    report = run(game, players=players, games=3, bots=[_breaks_at(40)], seed=100)
    assert report["games"] == 3 and report["completed"] == 2
    (error,) = report["errors"]
    assert error["seed"] == 100 and error["step"] == 39
    assert "RuntimeError: the bot broke" in error["error"] and "Traceback" in error["traceback"]
    assert "seed 100 at action 39: RuntimeError" in simulate.format_report(report)
    # The seed replays the failure on its own.
    variant = engine.default_variants()["standard"]
    again = play_one(engine, variant, players, error["seed"], [_breaks_at(40)] * players)
    assert again["error"] == error["error"] and again["step"] == error["step"]


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_is_an_error_not_a_crash(game: str) -> None:
    def cheat(engine, state, seat, seed):
        return ("not", "an", "action")

    report = run(game, players=get_engine(game).min_players, games=2, bots=[cheat], seed=1)
    assert report["completed"] == 0
    assert [e["seed"] for e in report["errors"]] == [1, 2]
    assert all("IllegalAction" in e["error"] for e in report["errors"])


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [(5, 10, 0.2366, 0.7634), (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (1, 10, 0.0179, 0.4042)],
)
def test_wilson_interval_matches_published_values(successes, n, low, high) -> None:
    got = wilson_interval(successes, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_edges_and_symmetry() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for k in range(0, 21):
        lo, hi = wilson_interval(k, 20)
        assert 0 <= lo <= k / 20 <= hi <= 1
        mirror_lo, mirror_hi = wilson_interval(20 - k, 20)
        assert (lo, hi) == pytest.approx((1 - mirror_hi, 1 - mirror_lo))
    narrow = wilson_interval(50, 100)
    wide = wilson_interval(5, 10)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
    assert not math.isnan(wilson_interval(0.5, 1)[0])  # a shared win counts as a half


@pytest.mark.parametrize("game", GAMES)
def test_one_bot_per_seat(game: str) -> None:
    engine = get_engine(game)
    seats_seen = set()

    def watcher(engine_, state, seat, seed):
        seats_seen.add(seat)
        return simulate.random_bot(engine_, state, seat, seed)

    watcher.__name__ = "watcher"
    report = run(game, players=2, games=2, bots=["random", watcher], seed=4)
    assert report["bots"] == ["random", "watcher"]
    assert [s["bot"] for s in report["seats"]] == ["random", "watcher"]
    assert seats_seen == {1}
    with pytest.raises(ValueError, match="one bot per seat"):
        run(game, players=engine.max_players, games=1, bots=["random", "random"])


def test_named_bots_resolve_and_unknown_ones_are_refused() -> None:
    assert resolve_bot("random") is simulate.random_bot
    greedy = resolve_bot("greedy")
    engine = get_engine("nouvellefrance")
    state = engine.new_game(engine.default_variants()["standard"], 2, 1)
    seat = engine.to_move(state)[0]
    assert greedy(engine, state, seat, 3) in engine.legal_actions(state, seat)
    with pytest.raises(ValueError, match="unknown bot 'genius'"):
        resolve_bot("genius")


@pytest.mark.parametrize("game", GAMES)
def test_an_invalid_variant_is_refused_before_any_game(game: str) -> None:
    engine = get_engine(game)
    calls = []

    def bot(engine_, state, seat, seed):
        calls.append(seat)
        return simulate.random_bot(engine_, state, seat, seed)

    broken = engine.default_variants()["standard"]
    broken.pop(next(iter(k for k in broken if k not in ("name", "title", "description"))))
    with pytest.raises(InvalidVariant):
        run(game, variant=broken, players=engine.min_players, games=3, bots=[bot])
    with pytest.raises(ValueError, match="unknown variant 'nope'"):
        run(game, variant="nope", players=engine.min_players, games=3, bots=[bot])
    with pytest.raises(ValueError, match="players must be within"):
        run(game, players=engine.max_players + 1, games=3, bots=[bot])
    assert calls == []


def test_the_command_prints_the_report(capsys) -> None:
    status = simulate.main(
        ["nouvellefrance", "--players", "2", "--games", "2", "--bots", "random", "--json"]
    )
    assert status == 0
    report = json.loads(capsys.readouterr().out)
    assert report["completed"] == 2 and "score_values" not in report
    status = simulate.main(["nouvellefrance", "--players", "3", "--games", "1", "--bots", "random"])
    out = capsys.readouterr()
    assert status == 0 and "nouvellefrance / standard: 3 players" in out.out
    assert "1/1 games" in out.err  # the progress bar
