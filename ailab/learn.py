"""Fit a small evaluator from self-play: ``python -m ailab.learn --game newhaven --games 300``.

Plays seeded games (the ``greedy`` bot with some random moves, so positions vary),
records each position's per-seat features (the knowledge's ``features``: rule-data
driven, public information only) and each seat's final score, fits a ridge
least-squares model ``final score ≈ w · features`` (pure Python normal
equations), and writes the weights as data (``ai/weights/<game>.json``) with the
command, the sample size and the fit's error.  The strong knowledge turns the
predicted final scores into values with a softmax.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import ai
from ai.bots import greedy_action
from ai.knowledge import get_knowledge, search_knowledge
from tools.engines import load_engine

__all__ = ["fit", "main", "solve"]

WEIGHTS = Path(ai.__file__).with_name("weights")


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            continue
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def fit(rows: list[list[float]], targets: list[float], ridge: float = 1.0) -> list[float]:
    """Ridge least squares: the weights minimising squared error + ridge·|w|² (bias too)."""
    k = len(rows[0])
    ata = [[0.0] * k for _ in range(k)]
    atb = [0.0] * k
    for x, y in zip(rows, targets, strict=True):
        for i in range(k):
            xi = x[i]
            if not xi:
                continue
            atb[i] += xi * y
            row = ata[i]
            for j in range(k):
                row[j] += xi * x[j]
    for i in range(k):
        ata[i][i] += ridge
    return solve(ata, atb)


def play_and_record(
    engine: Any, variant: dict, players: int, seed: int, explore: float, every: int
) -> tuple[list[list[float]], list[float]]:
    """One game's (features, final score) rows, a position every ``every`` plies."""
    knowledge = search_knowledge(engine)
    rng = random.Random(seed)
    state = engine.new_game(variant, players, seed)
    samples: list[tuple[int, list[list[float]]]] = []
    ply = 0
    while not engine.is_over(state):
        if ply % every == 0:
            samples.append((ply, knowledge.features(engine, state)))
        seat = engine.to_move(state)[0]
        legal = engine.legal_actions(state, seat)
        if len(legal) > 1 and rng.random() < explore:
            action = legal[rng.randrange(len(legal))]
        else:
            # The base evaluator, as when the weights were fitted: New Haven's greedy
            # bot now plays with the learned one, which would then fit on its own play.
            action = greedy_action(engine, state, seat, seed=rng.randrange(1 << 30),
                                   knowledge=get_knowledge(engine))
        state = engine.apply(state, seat, action)
        ply += 1
    final = engine.scores(state)
    rows, targets = [], []
    for _ply, per_seat in samples:
        for seat, feats in enumerate(per_seat):
            rows.append(feats)
            targets.append(float(final[seat]))
    return rows, targets


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, play, fit, print the error and write the weights."""
    parser = argparse.ArgumentParser(description="Fit the strong evaluator from self-play.")
    parser.add_argument("--game", required=True)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", default="2,3,4")
    parser.add_argument("--seed", type=int, default=10_000)
    parser.add_argument("--explore", type=float, default=0.15)
    parser.add_argument("--every", type=int, default=3, help="record every k-th ply")
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    engine = load_engine(args.game)
    variant = engine.default_variants()["standard"]
    counts = [int(n) for n in args.players.split(",")]
    rows: list[list[float]] = []
    targets: list[float] = []
    game_of: list[int] = []
    started = time.perf_counter()
    for g in range(args.games):
        r, t = play_and_record(
            engine, variant, counts[g % len(counts)], args.seed + g, args.explore, args.every
        )
        rows += r
        targets += t
        game_of += [g] * len(r)
        if (g + 1) % 25 == 0:
            print(f"{g + 1}/{args.games} games, {len(rows)} rows, "
                  f"{time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
    # Every fifth game is held out to measure the fit; the stored weights use all games.
    test = [i for i in range(len(rows)) if game_of[i] % 5 == 4]
    train = [i for i in range(len(rows)) if game_of[i] % 5 != 4]
    w = fit([rows[i] for i in train], [targets[i] for i in train], args.ridge)

    def rmse(idx: list[int], weights: list[float]) -> float:
        err = 0.0
        for i in idx:
            pred = sum(a * b for a, b in zip(weights, rows[i], strict=True))
            err += (pred - targets[i]) ** 2
        return (err / max(1, len(idx))) ** 0.5

    mean = sum(targets[i] for i in train) / len(train)
    baseline = (sum((targets[i] - mean) ** 2 for i in test) / len(test)) ** 0.5
    held = rmse(test, w)
    weights = fit(rows, targets, args.ridge)
    knowledge = search_knowledge(engine)
    out = {
        "game": args.game,
        "features": list(knowledge.feature_names),
        "weights": [round(x, 6) for x in weights],
        "rows": len(rows),
        "games": args.games,
        "held_out_rmse": round(held, 3),
        "constant_rmse": round(baseline, 3),
        "command": "python -m ailab.learn " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    path = Path(args.out) if args.out else WEIGHTS / f"{args.game}.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
