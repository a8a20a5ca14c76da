"""Self-play simulation of a variant: ``python -m tools.simulate GAME ...``.

The rules editor's check and the tuning tool for reconstructed component data::

    python -m tools.simulate nouvellefrance --variant standard --players 4 \\
        --games 200 --bots greedy

plays ``--games`` seeded games and prints game length, the score distribution, each
seat's share of wins with a 95 % Wilson interval, ties, errors (each with the seed that
reproduces it) and the engine's own figures (``Engine.figures``).  ``run`` is the same
as a function returning the report as a dict, with a progress callback.

Bots are named: ``random`` (uniform over the legal actions) is built in; any other
name (``greedy``, ``easy``, ``normal``, ``hard``...) is an AI level
(``ai.choose_action``).  A caller may also pass its own callables
``bot(engine, state, seat, seed) -> action``.

Game ``i`` of a run uses seed ``seed + i``; a bot's seed for a decision is derived from
the game seed and the step, so a run is reproducible, and so is every failure.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import ai
from games.engines import get_engine
from games.engines.protocol import Engine

__all__ = ["Bot", "play_one", "resolve_bot", "run", "wilson_interval"]

#: A bot: ``(engine, state, seat, seed) -> action``.
Bot = Callable[[Engine, Any, int, int], Any]

#: A game that has not ended after this many actions is reported as an error.
MAX_STEPS = 100_000


def random_bot(engine: Engine, state: Any, seat: int, seed: int) -> Any:
    """A uniformly random legal action."""
    actions = engine.legal_actions(state, seat)
    return actions[random.Random(seed).randrange(len(actions))]


def resolve_bot(bot: str | Bot) -> Bot:
    """A callable bot for a name (``random`` or an AI level) or a callable."""
    if callable(bot):
        return bot
    if bot == "random":
        return random_bot
    known = ai.LEVEL_NAMES
    if bot not in known:
        raise ValueError(f"unknown bot {bot!r}; known bots: {', '.join(known)}")

    def ai_bot(engine: Engine, state: Any, seat: int, seed: int) -> Any:
        return ai.choose_action(engine, state, seat, level=bot, seed=seed)

    ai_bot.__name__ = f"ai_{bot}"
    return ai_bot


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion (``(0, 1)`` for ``n == 0``)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _stats(values: Sequence[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.pstdev(values) if len(values) > 1 else 0.0,
        "min": min(values),
        "max": max(values),
    }


def _decision_seed(game_seed: int, step: int) -> int:
    return (game_seed * 1_000_003 + step * 7919) & 0x7FFF_FFFF_FFFF_FFFF


def play_one(
    engine: Engine, variant: dict, players: int, seed: int, bots: Sequence[Bot]
) -> dict[str, Any]:
    """Play one game; its record (scores, winners, actions, figures) or its error."""
    step = 0
    try:
        state = engine.new_game(variant, players, seed)
        events: list[dict] = []
        while not engine.is_over(state):
            if step >= MAX_STEPS:
                raise RuntimeError(f"the game did not end within {MAX_STEPS} actions")
            seats = engine.to_move(state)
            if not seats:
                raise RuntimeError("a running game has no seat to move")
            seat = seats[0]
            action = bots[seat](engine, state, seat, _decision_seed(seed, step))
            events.append(engine.describe_action(state, action))
            state = engine.apply(state, seat, action)
            step += 1
        return {
            "seed": seed,
            "actions": step,
            "scores": list(engine.scores(state)),
            "winners": list(engine.winners(state)),
            "figures": dict(engine.figures(events, state)),
        }
    except Exception as exc:  # every failure is a finding, with the seed that reproduces it
        return {
            "seed": seed,
            "step": step,
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(limit=8),
        }


def _play_job(args: tuple) -> dict[str, Any]:
    game, variant, players, seed, bot_names = args
    engine = get_engine(game)
    return play_one(engine, variant, players, seed, [resolve_bot(b) for b in bot_names])


def run(
    game: str,
    *,
    variant: dict | str = "standard",
    players: int,
    games: int,
    bots: Sequence[str | Bot] = ("random",),
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
) -> dict[str, Any]:
    """Play ``games`` self-play games and return the report (see the module docstring).

    ``variant`` is variant data or the name of a default variant; ``bots`` has one
    entry for every seat, or a single one for all seats.  ``progress(done, total)`` is
    called after every game.  ``jobs > 1`` plays games in worker processes (named bots
    only).  Invalid variants raise ``InvalidVariant`` before any game is played.
    """
    engine = get_engine(game)
    if isinstance(variant, str):
        try:
            variant = engine.default_variants()[variant]
        except KeyError:
            known = ", ".join(sorted(engine.default_variants()))
            raise ValueError(f"unknown variant {variant!r}; known variants: {known}") from None
    engine.rule_data(variant)  # raises InvalidVariant for unplayable data
    if not engine.min_players <= players <= engine.max_players:
        raise ValueError(
            f"players must be within {engine.min_players}..{engine.max_players}, not {players}"
        )
    bot_list = list(bots)
    if len(bot_list) == 1:
        bot_list *= players
    if len(bot_list) != players:
        raise ValueError(f"give one bot, or one bot per seat ({players}), not {len(bot_list)}")
    names = [b if isinstance(b, str) else getattr(b, "__name__", "custom") for b in bot_list]
    started = time.perf_counter()
    records: list[dict[str, Any]] = []
    seeds = [seed + i for i in range(games)]
    if jobs > 1 and all(isinstance(b, str) for b in bot_list):
        # Not fork: forking a process that runs threads (a test runner, a web worker) can
        # deadlock the child; a fork server starts clean workers.
        context = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            work = [(game, variant, players, s, bot_list) for s in seeds]
            for record in pool.map(_play_job, work):
                records.append(record)
                if progress:
                    progress(len(records), games)
    else:
        resolved = [resolve_bot(b) for b in bot_list]
        for s in seeds:
            records.append(play_one(engine, variant, players, s, resolved))
            if progress:
                progress(len(records), games)
    return _report(engine, variant, players, names, records, time.perf_counter() - started)


def _report(
    engine: Engine,
    variant: dict,
    players: int,
    bots: list[str],
    records: list[dict[str, Any]],
    seconds: float,
) -> dict[str, Any]:
    done = [r for r in records if "error" not in r]
    errors = [
        {k: r[k] for k in ("seed", "step", "error", "traceback")}
        for r in records
        if "error" in r
    ]
    n = len(done)
    seats = []
    for seat in range(players):
        wins = sum(1 / len(r["winners"]) for r in done if seat in r["winners"])
        low, high = wilson_interval(wins, n)
        seats.append(
            {
                "seat": seat,
                "bot": bots[seat],
                "wins": wins,
                "share": wins / n if n else 0.0,
                "low": low,
                "high": high,
                "score": _stats([r["scores"][seat] for r in done]),
            }
        )
    figure_names = sorted({k for r in done for k in r["figures"]})
    return {
        "game": engine.name,
        "variant": variant.get("name", ""),
        "players": players,
        "bots": bots,
        "games": len(records),
        "completed": n,
        "seconds": seconds,
        "actions": _stats([r["actions"] for r in done]),
        "turns": _stats([r["figures"]["turns"] for r in done if "turns" in r["figures"]]),
        "scores": _stats([x for r in done for x in r["scores"]]),
        "score_values": [x for r in done for x in r["scores"]],
        "seats": seats,
        "ties": sum(1 for r in done if len(r["winners"]) > 1),
        "errors": errors,
        "figures": {
            name: _stats([r["figures"][name] for r in done if name in r["figures"]])
            for name in figure_names
        },
    }


def format_report(report: dict[str, Any]) -> str:
    """The report as the text the command prints."""

    def fmt(stats: dict[str, float] | None, digits: int = 1) -> str:
        if not stats:
            return "-"
        return (
            f"mean {stats['mean']:.{digits}f}  sd {stats['sd']:.{digits}f}  "
            f"min {stats['min']:g}  max {stats['max']:g}"
        )

    lines = [
        f"{report['game']} / {report['variant']}: {report['players']} players, "
        f"bots {', '.join(report['bots'])}",
        f"games          {report['completed']} completed of {report['games']} "
        f"in {report['seconds']:.1f} s",
        f"actions/game   {fmt(report['actions'])}",
        f"turns/game     {fmt(report['turns'])}",
        f"score          {fmt(report['scores'])}",
        f"ties           {report['ties']}",
        "winner share per seat (95 % Wilson interval):",
    ]
    for s in report["seats"]:
        lines.append(
            f"  seat {s['seat']} ({s['bot']}): {s['share']:.3f} "
            f"[{s['low']:.3f}, {s['high']:.3f}]  score {fmt(s['score'])}"
        )
    if report["figures"]:
        lines.append("figures:")
        width = max(len(k) for k in report["figures"])
        for name, stats in report["figures"].items():
            lines.append(f"  {name:<{width}}  {fmt(stats, 3)}")
    lines.append(f"errors         {len(report['errors'])}")
    for err in report["errors"]:
        lines.append(f"  seed {err['seed']} at action {err['step']}: {err['error']}")
    return "\n".join(lines)


def _progress_bar(stream=None) -> Callable[[int, int], None]:
    # Looked up at call time, not import time, so a redirected stderr is honoured.
    stream = stream if stream is not None else sys.stderr
    started = time.perf_counter()

    def show(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / max(total, 1))
        rate = done / max(time.perf_counter() - started, 1e-9)
        stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games "
            f"({rate:.1f}/s)"
        )
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show


def main(argv: list[str] | None = None) -> int:
    """The command line; exit status 1 when any game failed."""
    parser = argparse.ArgumentParser(description="Self-play simulation of a game variant.")
    parser.add_argument("game", help="engine name, e.g. newhaven or nouvellefrance")
    parser.add_argument("--variant", default="standard", help="a default variant's name")
    parser.add_argument("--variant-file", type=Path, help="variant data as a JSON file")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument(
        "--bots",
        default="greedy",
        help="one bot for every seat or a comma-separated bot per seat: random, greedy, "
        "easy, normal, hard",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    variant: dict | str = args.variant
    if args.variant_file:
        variant = json.loads(args.variant_file.read_text(encoding="utf-8"))
    report = run(
        args.game,
        variant=variant,
        players=args.players,
        games=args.games,
        bots=args.bots.split(","),
        seed=args.seed,
        progress=_progress_bar(),
        jobs=args.jobs,
    )
    if args.json:
        print(json.dumps({k: v for k, v in report.items() if k != "score_values"}, indent=1))
    else:
        print(format_report(report))
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
