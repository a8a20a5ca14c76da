"""Fitting the OpenSkill ratings of the AI levels that ``ai/ratings.json`` stores.

The runtime lookup, ``ai.level_rating(game, level) -> (mu, sigma)``, lives in
:mod:`ai.ratings`; this module measures the numbers.  They come from arena games and
the Weng–Lin Plackett–Luce model that OpenSkill implements (default mu 25, sigma 25/3):
either a fresh seat-swapped round robin rated game by game (``python -m ailab.ratings
--game newhaven --games 40 --scale 0.1``) or the progress logs of arena runs already
played, fitted all at once (order-free, :func:`fit`) and kept in ladder order
(:func:`monotone`): ``python -m ailab.ratings --game newhaven --from-logs run1.err
run2.err --write``.  The file records the command, the budgets and whether the numbers
are provisional.  Pure standard library: the update is the model's few lines, not a
dependency.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import re
import sys
import time
from pathlib import Path

import ai
from ai.ratings import PATH

from .arena import load_engine, play_game

__all__ = ["MU", "SIGMA", "fit", "main", "monotone", "rate"]

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
KAPPA = 0.0001


def rate(
    current: list[tuple[float, float]], ranks: list[int]
) -> list[tuple[float, float]]:
    """One game's Plackett–Luce update of one-player teams (lower rank = better)."""
    c = math.sqrt(sum(s * s + BETA * BETA for _m, s in current))
    exps = [math.exp(m / c) for m, _s in current]
    sum_q = [sum(exps[i] for i in range(len(current)) if ranks[i] >= ranks[q])
             for q in range(len(current))]
    a = [sum(1 for r in ranks if r == ranks[q]) for q in range(len(current))]
    out = []
    for i, (mu, sigma) in enumerate(current):
        omega = delta = 0.0
        for q in range(len(current)):
            if ranks[q] <= ranks[i]:
                quotient = exps[i] / sum_q[q]
                omega += (1 - quotient if q == i else -quotient) / a[q]
                delta += quotient * (1 - quotient) / a[q]
        var = sigma * sigma
        gamma = sigma / c
        omega *= var / c
        delta *= gamma * var / (c * c)
        out.append((mu + omega, sigma * math.sqrt(max(1 - delta, KAPPA))))
    return out


def main(argv: list[str] | None = None) -> None:
    """Play the round robin, rate it and write (or print) the game's table."""
    parser = argparse.ArgumentParser(description="OpenSkill ratings of the AI levels.")
    parser.add_argument("--game", required=True)
    parser.add_argument("--games", type=int, default=20, help="games per pair (even)")
    parser.add_argument("--scale", type=float, default=1.0, help="level budgets x this")
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--levels", default=",".join(ai.LEVEL_NAMES))
    parser.add_argument("--write", action="store_true", help="store in ai/ratings.json")
    parser.add_argument("--from-logs", nargs="*", default=None,
                        help="rate the games in these arena progress logs (stderr) instead")
    parser.add_argument("--note", default="", help="budgets etc., stored with the table")
    args = parser.parse_args(argv)
    if args.from_logs is not None:
        _write(args, _rate_logs(args.from_logs), argv)
        return

    levels = args.levels.split(",")
    ai.LEVELS = {
        name: dataclasses.replace(lv, iterations=max(1, round(lv.iterations * args.scale)))
        for name, lv in ai.LEVELS.items()
    }
    engine = load_engine(args.game)
    variant = engine.default_variants()["standard"]
    table = dict.fromkeys(levels, (MU, SIGMA))
    wins: dict[str, list[float]] = {lv: [0.0, 0] for lv in levels}
    started = time.perf_counter()
    pairs = list(itertools.combinations(levels, 2))
    for k in range(args.games // 2):
        for one, two in pairs:
            for bots in ((one, two), (two, one)):
                record = play_game(engine, variant, list(bots), args.seed + k)
                scores = record.shares
                ranks = [0 if s == max(scores) else 1 for s in scores]
                new = rate([table[b] for b in bots], ranks)
                for b, r, share in zip(bots, new, scores, strict=True):
                    table[b] = r
                    wins[b][0] += share
                    wins[b][1] += 1
        print(f"round {k + 1}/{args.games // 2}, {time.perf_counter() - started:.0f}s: "
              + ", ".join(f"{lv} {m:.1f}±{s:.1f}" for lv, (m, s) in table.items()), flush=True)
    result = {
        lv: {"mu": round(m, 2), "sigma": round(s, 2), "games": int(wins[lv][1]),
             "win_rate": round(wins[lv][0] / max(1, wins[lv][1]), 3)}
        for lv, (m, s) in table.items()
    }
    _write(args, result, argv)


def _write(args: argparse.Namespace, result: dict, argv: list[str] | None) -> None:
    command = "python -m ailab.ratings " + " ".join(argv if argv is not None else _argv())
    print(json.dumps(result, indent=2))
    if args.write:
        data = json.loads(PATH.read_text())
        data["games"][args.game] = result
        data.setdefault("commands", {})[args.game] = command
        data.setdefault("provisional", {})[args.game] = False
        data.setdefault("budget_scale", {})[args.game] = args.scale
        if args.note:
            data.setdefault("notes", {})[args.game] = args.note
        PATH.write_text(json.dumps(data, indent=2) + "\n")


_LINE = re.compile(
    r"bots (?P<bots>\S+) shares \[(?P<shares>[^\]]*)\] scores \[(?P<scores>[^\]]*)\]"
)


def _rate_logs(paths: list[str]) -> dict:
    """Fit every game of the arena logs at once; winners first, then by score."""
    games: list[tuple[list[str], list[int]]] = []
    wins: dict[str, list[float]] = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            match = _LINE.search(line)
            if not match:
                continue
            bots = match["bots"].split(",")
            shares = [float(x) for x in match["shares"].split(",")]
            scores = [float(x) for x in match["scores"].split(",")]
            order = sorted({(-sh, -sc) for sh, sc in zip(shares, scores, strict=True)})
            games.append((bots, [order.index((-sh, -sc))
                                 for sh, sc in zip(shares, scores, strict=True)]))
            for b, share in zip(bots, shares, strict=True):
                w = wins.setdefault(b, [0.0, 0])
                w[0] += share
                w[1] += 1
    table = monotone(fit(games))
    return {
        lv: {"mu": round(m, 2), "sigma": round(s, 2), "games": int(wins[lv][1]),
             "win_rate": round(wins[lv][0] / max(1, wins[lv][1]), 3)}
        for lv, (m, s) in sorted(
            table.items(), key=lambda kv: (kv[1][0], kv[0] in LADDER and LADDER.index(kv[0]))
        )
    }


def fit(
    games: list[tuple[list[str], list[int]]], sweeps: int = 200
) -> dict[str, tuple[float, float]]:
    """(mu, sigma) per player from all games at once: the same Plackett–Luce model.

    Rating game by game (:func:`rate`) depends on the order: a level whose games
    come last starts at mu 25 and has not climbed far when the log ends.  This is
    the order-free fit: the most probable mus given every game and the prior
    N(25, (25/3)^2) (each game's scale ``c`` as :func:`rate` takes it for
    players at the prior), by Newton steps one player at a time; sigma is the
    curvature's (Laplace) width.  A player in several seats of one game (1 vs
    N-1 copies) is the same mu in each.
    """
    players = sorted({b for bots, _r in games for b in bots})
    mu = dict.fromkeys(players, MU)
    prepared = [(bots, ranks, math.sqrt(len(bots) * (SIGMA * SIGMA + BETA * BETA)))
                for bots, ranks in games]

    def derivatives(player: str) -> tuple[float, float]:
        grad = -(mu[player] - MU) / (SIGMA * SIGMA)
        curv = 1 / (SIGMA * SIGMA)
        for bots, ranks, c in prepared:
            if player not in bots:
                continue
            exps = [math.exp(mu[b] / c) for b in bots]
            for i in range(len(bots)):
                pool = [j for j in range(len(bots)) if ranks[j] >= ranks[i]]
                total = sum(exps[j] for j in pool)
                share = sum(exps[j] for j in pool if bots[j] == player) / total
                grad += ((bots[i] == player) - share) / c
                curv += share * (1 - share) / (c * c)
        return grad, curv

    for _ in range(sweeps):
        largest = 0.0
        for player in players:
            grad, curv = derivatives(player)
            step = max(-5.0, min(5.0, grad / curv))
            mu[player] += step
            largest = max(largest, abs(step))
        if largest < 1e-6:
            break
    return {p: (mu[p], 1 / math.sqrt(derivatives(p)[1])) for p in players}


#: The site's levels, weakest first: their ratings may not invert (see :func:`monotone`).
#: ``greedy`` sits below ``easy``, which beats it in the arena in both games.
LADDER = ("random", "greedy", "easy", "normal", "hard")


def monotone(table: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """The fit with the ladder's order kept: inverted neighbours share their mean.

    Where the arena cannot separate two levels (say ``hard`` wins half its games
    against ``normal``), the prior pulls the level with fewer games towards 25
    and may rank it below the other.  Pooling adjacent violators (weighted by
    1/sigma², the isotonic fit) gives such levels one mu; sigmas stay their own.
    """
    chain = [lv for lv in LADDER if lv in table]
    blocks: list[list[str]] = []
    for lv in chain:
        blocks.append([lv])
        while len(blocks) > 1 and _pooled(table, blocks[-2]) > _pooled(table, blocks[-1]):
            last = blocks.pop()
            blocks[-1].extend(last)
    out = dict(table)
    for block in blocks:
        mean = _pooled(table, block)
        for lv in block:
            out[lv] = (mean, table[lv][1])
    return out


def _pooled(table: dict[str, tuple[float, float]], block: list[str]) -> float:
    weights = [1 / table[lv][1] ** 2 for lv in block]
    return sum(w * table[lv][0] for w, lv in zip(weights, block, strict=True)) / sum(weights)


def _argv() -> list[str]:
    return sys.argv[1:]


if __name__ == "__main__":
    main()
