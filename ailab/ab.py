"""Two tunings of one search level head to head: ``python -m ailab.ab --game G --a SPEC --b SPEC``.

The arena's ``--tune`` changes every new level at once, so it can only pit a tuning
against another bot (e.g. the frozen ``hard-v1``); once a change beats that bot nearly
always, the next change must be judged against the current search itself.  Here bot
``A`` searches with ``--a`` and bot ``B`` with ``--b`` (the arena's ``--tune`` syntax:
``SearchParams`` fields, ``k.NAME`` for the game's search-knowledge attributes; empty =
the level as it is), in seat-swapped games at equal time per decision, and the arena's
table is printed.  The knowledge object is shared, so its attributes are set before
every decision of each bot.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from typing import Any

import ai
from ai.ismcts import search
from ai.knowledge import search_knowledge

from .arena import (
    GameRecord,
    _progress,
    format_table,
    load_engine,
    parse_tuning,
    play_game,
    seatings,
    tally,
)

__all__ = ["main"]


def main(argv: list[str] | None = None) -> list[GameRecord]:
    """Parse the command line, play the games, print the table; return the records."""
    parser = argparse.ArgumentParser(description="Two tunings of a level, head to head.")
    parser.add_argument("--game", required=True, help="engine name or module:ATTR")
    parser.add_argument("--level", default="hard", choices=sorted(ai.LEVELS))
    parser.add_argument("--a", default="", help="tuning of bot A (arena --tune syntax)")
    parser.add_argument("--b", default="", help="tuning of bot B (empty: the level as is)")
    parser.add_argument("--games", type=int, default=20, help="total games (rounded up)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=0.1, help="time per decision")
    parser.add_argument(
        "--iterations", type=int, default=None,
        help="equal iterations per decision instead of equal time (no clock: a loaded "
        "machine does not change the games)",
    )
    parser.add_argument("--variant", default="standard")
    args = parser.parse_args(argv)
    engine = load_engine(args.game)
    knowledge = search_knowledge(engine)
    level = ai.LEVELS[args.level]
    specs = {"A": parse_tuning(args.a), "B": parse_tuning(args.b)}
    defaults = {
        name: getattr(knowledge, name) for _, attrs in specs.values() for name in attrs
    }

    def chooser(bot: str):
        fields, attrs = specs[bot]
        params = dataclasses.replace(level.params, **fields)

        def choose(engine: Any, state: Any, seat: int, seed: int, seconds: float | None):
            actions = engine.legal_actions(state, seat)
            if len(actions) == 1:
                return actions[0]
            for name, value in {**defaults, **attrs}.items():
                setattr(knowledge, name, value)
            if args.iterations is not None:
                return search(
                    engine, state, seat, args.iterations, seed=seed, params=params
                ).action
            return search(
                engine, state, seat, 10**9, time_limit=seconds, seed=seed, params=params
            ).action

        return choose

    choosers = {"A": chooser("A"), "B": chooser("B")}
    variant = engine.default_variants()[args.variant]
    records: list[GameRecord] = []
    started = time.perf_counter()
    try:
        for k in range((args.games + 1) // 2):
            for seating in seatings(["A", "B"]):
                record = play_game(
                    engine, variant, seating, args.seed + k,
                    think=args.seconds if args.iterations is None else None,
                    choosers=choosers,
                )
                records.append(record)
                _progress(records, 2 * ((args.games + 1) // 2), started)
    finally:
        for name, value in defaults.items():
            setattr(knowledge, name, value)
    print(f"python -m ailab.ab {' '.join(argv if argv is not None else sys.argv[1:])}")
    budget = (f"{args.iterations} iterations" if args.iterations is not None
              else f"{args.seconds} s")
    print(f"A: {args.a or '(as is)'}  B: {args.b or '(as is)'}  level={args.level} "
          f"budget={budget}/decision seeds={args.seed}..{args.seed + (args.games + 1) // 2 - 1}")
    print(format_table(tally(records), len(records), 2), flush=True)
    return records


if __name__ == "__main__":
    main()
