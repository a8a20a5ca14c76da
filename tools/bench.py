"""Benchmark an engine through the protocol: ``python -m tools.bench GAME``.

Plays random full games (uniform choice among ``legal_actions``) and prints games
per second and the median microseconds of one ``legal_actions`` + ``apply`` step.
Speed is measured here, never by timed tests.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import tracemalloc

from games.engines import engine_names, get_engine


def play_random_game(engine, variant: dict, players: int, seed: int, step_times=None) -> int:
    """Play one random game to the end; return the number of actions taken."""
    rng = random.Random(seed)
    state = engine.new_game(variant, players, seed)
    steps = 0
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        if step_times is not None:
            started = time.perf_counter_ns()
            actions = engine.legal_actions(state, seat)
            state = engine.apply(state, seat, rng.choice(actions))
            step_times.append(time.perf_counter_ns() - started)
        else:
            actions = engine.legal_actions(state, seat)
            state = engine.apply(state, seat, rng.choice(actions))
        steps += 1
    return steps


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and print the numbers."""
    parser = argparse.ArgumentParser(description="Random-play benchmark of a game engine.")
    parser.add_argument("game", choices=engine_names())
    parser.add_argument("--players", type=int, nargs="+", default=[2])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memory", action="store_true", help="also report peak memory per game")
    args = parser.parse_args(argv)

    engine = get_engine(args.game)
    variant = engine.default_variants()[args.variant]
    for players in args.players:
        play_random_game(engine, variant, players, args.seed - 1)  # warm caches
        started = time.perf_counter()
        total_steps = 0
        for index in range(args.games):
            total_steps += play_random_game(engine, variant, players, args.seed + index)
        elapsed = time.perf_counter() - started
        step_times: list[int] = []
        for index in range(max(1, args.games // 10)):
            play_random_game(engine, variant, players, args.seed + index, step_times)
        median_us = statistics.median(step_times) / 1000
        line = (
            f"{args.game} {args.variant} players={players}: "
            f"{args.games / elapsed:.1f} games/s, {total_steps / args.games:.0f} actions/game, "
            f"median legal_actions+apply {median_us:.1f} us"
        )
        if args.memory:
            tracemalloc.start()
            play_random_game(engine, variant, players, args.seed)
            _current, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            line += f", peak memory/game {peak / 1024:.0f} KiB"
        print(line, flush=True)


if __name__ == "__main__":
    main()
