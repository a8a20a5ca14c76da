"""How often two searches pick the same move: ``python ailab/tuning/agree.py newhaven 30``.

Positions come from greedy 2-player games (seeds 900..., every decision with a
choice kept with probability 0.06).  At each, the ``hard`` search options run
with ``normal``'s and ``hard``'s iteration budgets (no clock) and two seeds, and
the script prints the share of positions where each pair chose the same move:
``n1=n2`` (normal, seed 1 vs seed 2: the noise of one level), ``n1=h1`` (the
same seed, 800 vs 3000 iterations: what the extra budget changes).  A third
argument is a tuning in the arena's ``--tune`` syntax (``SearchParams`` fields),
e.g. ``exploration=0.15,final=lcb`` (issue 24).
"""

from __future__ import annotations

import dataclasses
import random
import sys

import ai
from ai.ismcts import search
from ailab.arena import parse_tuning
from tools.engines import load_engine


def main() -> None:
    game, count = sys.argv[1], int(sys.argv[2])
    engine = load_engine(game)
    variant = engine.default_variants()["standard"]
    normal = ai.level_budget(engine, ai.LEVELS["normal"])
    hard = ai.level_budget(engine, ai.LEVELS["hard"])
    params = ai.LEVELS["hard"].params
    if len(sys.argv) > 3:
        params = dataclasses.replace(params, **parse_tuning(sys.argv[3])[0])
    rng = random.Random(5)
    found = []
    g = 0
    while len(found) < count:
        state = engine.new_game(variant, 2, 900 + g)
        g += 1
        ply = 0
        while not engine.is_over(state):
            seat = engine.to_move(state)[0]
            if len(engine.legal_actions(state, seat)) > 1 and rng.random() < 0.06:
                found.append((state, seat))
            action = ai.choose_action(engine, state, seat, "greedy", seed=ply)
            state = engine.apply(state, seat, action)
            ply += 1
    same = {"n1=n2": 0, "n1=h1": 0, "h1=h2": 0, "n2=h1": 0}
    for state, seat in found[:count]:
        n1, n2, h1, h2 = (
            search(engine, state, seat, budget, seed=seed, params=params).action
            for budget, seed in ((normal, 1), (normal, 2), (hard, 1), (hard, 2))
        )
        same["n1=n2"] += n1 == n2
        same["n1=h1"] += n1 == h1
        same["h1=h2"] += h1 == h2
        same["n2=h1"] += n2 == h1
    print(game, params, f"positions {count}, budgets normal {normal} hard {hard}:",
          {k: round(v / count, 2) for k, v in same.items()})


if __name__ == "__main__":
    main()
