"""Play K random games of one engine, silently: a fixed workload for instruction counts.

Wall-clock benchmarks (``python -m tools.bench``) are noisy on a shared machine;
instructions are not.  Compare two checkouts by their instructions per game::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python scripts/play_random_games.py newhaven 2 40     # minus the same with 0 games

(run with ``PYTHONPATH`` set to the checkout being measured; divide the difference by 40).
"""

from __future__ import annotations

import sys

from games.engines import get_engine
from tools.bench import play_random_game


def main(argv: list[str]) -> None:
    """``GAME PLAYERS GAMES [VARIANT]``: play seeds 0..GAMES-1 of the variant."""
    game, players, games = argv[0], int(argv[1]), int(argv[2])
    variant_name = argv[3] if len(argv) > 3 else "standard"
    engine = get_engine(game)
    variant = engine.default_variants()[variant_name]
    for seed in range(games):
        play_random_game(engine, variant, players, seed)


if __name__ == "__main__":
    main(sys.argv[1:])
