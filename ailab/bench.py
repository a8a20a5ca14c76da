"""Search speed: ``python -m ailab.bench --game newhaven --level normal``.

Samples positions from seeded random games (only positions where the seat to
move has a real choice), runs the level's search on each and prints ISMCTS
iterations per second and seconds per move.  Never a timed test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from ai import LEVELS, level_budget
from ai.ismcts import search
from tools.engines import load_engine

from .frozen_v1.ismcts import search as search_v1

__all__ = ["main", "sample_positions"]


def sample_positions(
    engine: Any, variant: dict, players: int, count: int, seed: int
) -> list[tuple[Any, int]]:
    """``count`` (state, seat) pairs with ≥ 2 legal actions, from random games."""
    rng = random.Random(seed)
    positions: list[tuple[Any, int]] = []
    game = 0
    while len(positions) < count:
        state = engine.new_game(variant, players, seed + game)
        game += 1
        candidates = []
        while not engine.is_over(state):
            seat = engine.to_move(state)[0]
            actions = engine.legal_actions(state, seat)
            if len(actions) > 1:
                candidates.append((state, seat))
            state = engine.apply(state, seat, actions[rng.randrange(len(actions))])
        take = min(len(candidates), max(1, count // 4), count - len(positions))
        positions.extend(rng.sample(candidates, take))
    return positions


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and print the numbers."""
    parser = argparse.ArgumentParser(description="ISMCTS speed on positions from random games.")
    parser.add_argument("--game", required=True, help="engine name or module:ATTR")
    parser.add_argument("--level", default="normal", choices=sorted(LEVELS))
    parser.add_argument("--iterations", type=int, help="override the level's budget")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--frozen", action="store_true", help="time the frozen v1 search")
    args = parser.parse_args(argv)

    engine = load_engine(args.game)
    variant = engine.default_variants()[args.variant]
    level = LEVELS[args.level]
    budget = args.iterations or level_budget(engine, level)
    positions = sample_positions(engine, variant, args.players, args.positions, args.seed)
    rates: list[float] = []
    times: list[float] = []
    guarded = 0
    for index, (state, seat) in enumerate(positions):
        started = time.perf_counter()
        if args.frozen:
            result = search_v1(engine, state, seat, budget, time_limit=level.time_limit,
                               seed=index)
        else:
            result = search(
                engine, state, seat, budget, time_limit=level.time_limit, seed=index,
                params=level.params,
            )
        elapsed = time.perf_counter() - started
        times.append(elapsed)
        rates.append(result.iterations / elapsed)
        guarded += result.iterations < budget
    print(
        f"{args.game} {args.variant} players={args.players} level={args.level}"
        f"{' (frozen v1 search)' if args.frozen else ''} "
        f"budget={budget} guard={level.time_limit}s positions={len(positions)}: "
        f"{statistics.mean(rates):.0f} iterations/s (median {statistics.median(rates):.0f}), "
        f"{statistics.mean(times):.3f} s/move (max {max(times):.3f}), "
        f"time guard hit {guarded}/{len(positions)}",
        flush=True,
    )


if __name__ == "__main__":
    main()
