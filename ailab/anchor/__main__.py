"""``python -m ailab.anchor``: one of our levels against an OpenSpiel search, seat-swapped.

    python -m ailab.anchor --game newhaven --opponent openspiel-ismcts --games 40 \\
        --equal time --seconds 0.2 --level hard --uct-c 2

    python -m ailab.anchor --game newhaven --opponent openspiel-pimc --worlds 8 \
        --equal iterations --times 10 --level hard --games 40

``--uct-c`` takes a comma list: each value is one match of ``--games`` games (the
opponent's tuning sweep).  ``--times K`` gives the opponent K times our budget
(``--equal iterations`` without ``--iterations``: our level's own budget).
``--json PATH`` saves every match (tables and games).  Needs the ``anchors`` extra
(OpenSpiel).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import ai

from ..arena import GameRecord, _progress, format_table, load_engine, play_game, seatings, tally
from ..arena import wilson as wilson_interval
from . import LevelPlayer, Wrapped


def run_match(
    engine: Any,
    variant: dict,
    players: int,
    level: str,
    opponent: str,
    uct_c: float,
    games: int,
    seed: int,
    seconds: float | None,
    iterations: int | None,
    times: float = 1.0,
    worlds: int = 8,
) -> dict:
    """Play the seat-swapped games of one match; its summary (JSON-able) and table."""
    from .openspiel import OpenSpielPlayer  # late: OpenSpiel is an optional extra

    # A baseline (greedy, random) plays through the arena's choose_action: no budget.
    ours = LevelPlayer(level, iterations) if level in ai.LEVELS else None
    theirs = OpenSpielPlayer(
        opponent, Wrapped(engine, variant, players), uct_c=uct_c,
        iterations=None if iterations is None else max(1, round(iterations * times)),
        worlds=worlds,
    )

    def their_move(engine: Any, state: Any, seat: int, seed: int, think: float | None) -> Any:
        return theirs(engine, state, seat, seed, None if think is None else think * times)

    lineup = [level] + [opponent] * (players - 1)
    rotations = seatings(lineup)
    rounds = math.ceil(games / len(rotations))
    started = time.perf_counter()
    records: list[GameRecord] = []
    for k in range(rounds):
        for seating in rotations:
            records.append(play_game(
                engine, variant, seating, seed + k, think=seconds,
                choosers=(
                    {opponent: their_move} if ours is None
                    else {level: ours, opponent: their_move}
                ),
            ))
            _progress(records, rounds * len(rotations), started)
    tallies = tally(records)
    counters = {level: ours, opponent: theirs}
    bots = {}
    for bot, t in tallies.items():
        low, high = wilson_interval(t.wins, t.seats)
        player = counters[bot]
        searched = None if player is None else player.iterations_done / max(1, player.searches)
        bots[bot] = {
            "seat_games": t.seats,
            "win_rate": t.wins / t.seats,
            "ci95": [low, high],
            "mean_score": t.score / t.seats,
            "s_per_move": t.seconds / max(1, t.moves),
            "iterations_per_search": searched,
        }
    return {
        "uct_c": uct_c,
        "times": times,
        "worlds": worlds if opponent == "openspiel-pimc" else None,
        "games": len(records),
        "seeds": [seed, seed + rounds - 1],
        "wall_seconds": round(time.perf_counter() - started, 1),
        "bots": bots,
        "table": format_table(tallies, len(records), players),
        "records": [dataclasses.asdict(r) for r in records],
    }


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, play the match(es), print and optionally save them."""
    parser = argparse.ArgumentParser(description="Our AI against OpenSpiel's searches.")
    parser.add_argument("--game", required=True, help="engine name or module:ATTR")
    parser.add_argument(
        "--opponent", required=True,
        choices=("openspiel-ismcts", "openspiel-mcts-cheat", "openspiel-pimc"),
    )
    parser.add_argument("--games", type=int, default=40, help="games per match (rounded up)")
    parser.add_argument("--equal", required=True, choices=("time", "iterations"))
    parser.add_argument("--seconds", type=float, default=None, help="per decision (--equal time)")
    parser.add_argument(
        "--iterations", type=int, default=None,
        help="per decision (--equal iterations; default: our level's own budget)",
    )
    parser.add_argument(
        "--times", type=float, default=1.0,
        help="the opponent's budget (iterations or seconds) is this many times ours",
    )
    parser.add_argument(
        "--worlds", type=int, default=8,
        help="openspiel-pimc: sampled worlds per decision (the budget is split over them)",
    )
    parser.add_argument(
        "--level", default="hard", choices=ai.LEVEL_NAMES,
        help="our side: a search level, or a baseline (random, greedy) to tune the opponent on",
    )
    parser.add_argument(
        "--uct-c", default="2", help="the opponent's exploration constant; a comma list sweeps"
    )
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--json", type=Path, default=None, help="save the results here")
    args = parser.parse_args(argv)
    if args.equal == "time":
        if args.seconds is None or args.iterations is not None:
            parser.error("--equal time needs --seconds (and no --iterations)")
    elif args.seconds is not None:
        parser.error("--equal iterations takes no --seconds")
    elif args.level not in ai.LEVELS:
        parser.error("--equal iterations needs a search level")
    if args.times <= 0 or args.worlds < 1:
        parser.error("--times must be positive and --worlds at least 1")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        parser.exit(2, "OpenSpiel is not installed: pip install -e '.[anchors]'\n")
    engine = load_engine(args.game)
    variant = engine.default_variants()[args.variant]
    if args.equal == "iterations" and args.iterations is None:
        args.iterations = ai.level_budget(engine, ai.LEVELS[args.level])
    command = "python -m ailab.anchor " + shlex.join(argv if argv is not None else sys.argv[1:])
    print(command)
    budget = (
        f"{args.seconds} s/decision" if args.equal == "time"
        else f"{args.iterations} iterations/decision"
    ) + (f", opponent x{args.times:g}" if args.times != 1 else "") + (
        f", {args.worlds} worlds" if args.opponent == "openspiel-pimc" else ""
    )
    matches = []
    for raw in args.uct_c.split(","):
        match = run_match(
            engine, variant, args.players, args.level, args.opponent, float(raw),
            args.games, args.seed, args.seconds, args.iterations, args.times, args.worlds,
        )
        matches.append(match)
        print(f"game={args.game} variant={args.variant} {args.level} vs {args.opponent} "
              f"uct_c={match['uct_c']} equal {budget} seeds={match['seeds'][0]}.."
              f"{match['seeds'][1]} wall={match['wall_seconds']:.0f}s")
        print(match["table"])
        for bot, row in match["bots"].items():
            if row["iterations_per_search"] is not None:
                print(f"  {bot}: {row['iterations_per_search']:.1f} iterations per search")
        sys.stdout.flush()
    if len(matches) > 1:
        print("sweep (uct_c: opponent win rate [95% CI], mean scores ours/theirs)")
        for m in matches:
            o, us = m["bots"][args.opponent], m["bots"][args.level]
            print(f"  {m['uct_c']:>5}: {o['win_rate']:.3f} [{o['ci95'][0]:.3f}, "
                  f"{o['ci95'][1]:.3f}]  {us['mean_score']:.2f}/{o['mean_score']:.2f}")
    if args.json:
        summary = {
            "command": command, "game": args.game, "variant": args.variant,
            "players": args.players, "level": args.level, "opponent": args.opponent,
            "equal": args.equal, "seconds": args.seconds, "iterations": args.iterations,
            "times": args.times, "worlds": args.worlds,
            "matches": matches,
        }
        args.json.write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
