"""How long the post-game analysis takes: ``python -m tools.analysis GAME [--seed N]``.

Plays one game with a bot (greedy by default), analyses it at the site's default budget
(:mod:`ai.analysis`) and prints the wall-clock and CPU time with each seat's summary.
"""

from __future__ import annotations

import argparse

from ai.analysis import DEFAULT_BUDGET, Budget, play_game, summarise, timed_analysis

from .engines import load_engine

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """``python -m tools.analysis GAME``: analyse one bot game and print how long it took."""
    parser = argparse.ArgumentParser(description="Time the analysis of one finished game.")
    parser.add_argument("game", help="engine name or module:ATTR")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot", default="greedy", help="the level that plays the game")
    parser.add_argument("--iterations", type=int, default=DEFAULT_BUDGET.iterations)
    parser.add_argument("--samples", type=int, default=DEFAULT_BUDGET.samples)
    args = parser.parse_args(argv)
    engine = load_engine(args.game)
    variant = engine.default_variants()[args.variant]
    moves = play_game(engine, variant, args.players, args.seed, args.bot)
    budget = Budget(iterations=args.iterations, samples=args.samples)
    decisions, wall, cpu = timed_analysis(engine, variant, args.players, args.seed, moves,
                                          budget)
    rows = summarise([d.to_json(engine) for d in decisions], args.players)
    choices = sum(1 for d in decisions if not d.forced)
    draws = sum(1 for d in decisions if d.chance)
    print(f"{args.game} {args.variant} players={args.players} seed={args.seed}: "
          f"{len(moves)} moves, {choices} with a choice, {draws} draws; "
          f"budget iterations={budget.scaled(engine)} samples={budget.samples}: "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    for row in rows:
        print(f"  seat {row['seat']}: accuracy {row['accuracy']}, "
              f"{row['inaccuracy']} inaccuracies, {row['mistake']} mistakes, "
              f"{row['blunder']} blunders, luck {row['luck']:+.3f} ({row['draws']} draws)")


if __name__ == "__main__":
    main()
