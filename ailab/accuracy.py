"""Calibration of the analysis' accuracy: ``python -m ailab.accuracy``.

Plays self-play games between the AI's player types (``random``, ``greedy``, ``normal``,
``hard``: 2 players, the six pairings in turn, seats swapped every other game), analyses
every game with :mod:`ai.analysis` and prints, per game and per player type, the mean
accuracy with a 95% interval (Student's t over the games), the mean marks per game and
the share of games won.  The ordering the analysis must show (issue 20): random clearly
below greedy, greedy below normal, normal not above hard, random's mean below 50%.

Cost: the search levels play at ``--level-scale`` of their iteration budgets (their
error rates unchanged, no wall-clock guard, so a run gives the same numbers on a busy
machine) and the analysis at ``--iterations``/``--samples`` (40 and 10: the site's 300
iterations gave the same gaps on the same games, ``ailab/tuning/README.md``).  The
committed table (issue 20; ``ailab/tuning/README.md``, "Issue 20: accuracy calibration",
and the main README) is ``--game newhaven --seed 2711 --level-scale 0.1`` and ``--game
nouvellefrance --seed 2712 --level-scale 0.25``, 30 games each: 6 and 8 CPU
minutes.  ``--save FILE`` keeps every
analysed decision (JSON); ``--load FILE`` prints the table again from them with the
current formula (the stored win chances of the best and the played move re-judged by
:func:`ai.analysis.chance_lost`, then :func:`ai.analysis.summarise`) without playing or
analysing anything.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import random
import sys
import time
from collections.abc import Sequence
from itertools import combinations
from statistics import mean, stdev
from typing import Any

import ai
from ai.analysis import Budget, analyse_moves, chance_lost, mark_for, summarise
from ai.ismcts import search
from tools.engines import load_engine

__all__ = ["PLAYERS", "calibrate", "interval", "main", "open_text", "pairings", "play", "table"]

#: The player types, weakest first.
PLAYERS: tuple[str, ...] = ("random", "greedy", "normal", "hard")
#: Student's t (two-sided 95%) by degrees of freedom; 2.0 beyond the table.
_T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26,
        10: 2.23, 12: 2.18, 15: 2.13, 20: 2.09, 25: 2.06, 30: 2.04, 40: 2.02, 60: 2.0}


def _t95(df: int) -> float:
    keys = [k for k in sorted(_T95) if k <= df]
    return _T95[keys[-1]] if keys else _T95[1]


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean and its 95% interval (Student's t)."""
    m = mean(values)
    if len(values) < 2:
        return m, m, m
    half = _t95(len(values) - 1) * stdev(values) / math.sqrt(len(values))
    return m, m - half, m + half


def pairings(players: Sequence[str], games: int) -> list[tuple[str, ...]]:
    """The line-up of each of ``games`` 2-player games: every pairing in turn, seats
    swapped on every other pass through the pairings."""
    pairs = list(combinations(players, 2))
    out = []
    for g in range(games):
        pair = pairs[g % len(pairs)]
        out.append(pair if (g // len(pairs)) % 2 == 0 else pair[::-1])
    return out


def choose(engine: Any, state: Any, seat: int, level: str, seed: int, scale: float) -> Any:
    """``level``'s action; a search level at ``scale`` of its iterations, no clock."""
    if level not in ai.LEVELS:
        return ai.choose_action(engine, state, seat, level=level, seed=seed)
    actions = engine.legal_actions(state, seat)
    if len(actions) == 1:
        return actions[0]
    spec = ai.LEVELS[level]
    iterations = max(1, round(ai.level_budget(engine, spec) * scale))
    return search(engine, state, seat, iterations, seed=seed, params=spec.params).action


def play(engine: Any, variant: dict, lineup: Sequence[str], seed: int,
         scale: float) -> tuple[list[tuple[int, Any]], list[float]]:
    """One game of ``lineup`` (a level per seat): its moves and final scores."""
    state = engine.new_game(variant, len(lineup), seed)
    moves = []
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        action = choose(engine, state, seat, lineup[seat], seed * 7919 + len(moves), scale)
        moves.append((seat, action))
        state = engine.apply(state, seat, action)
    return moves, list(engine.scores(state))


def calibrate(game: str, games: int, *, budget: Budget, scale: float, seed: int = 1,
              players: Sequence[str] = PLAYERS, variant_name: str = "standard",
              log: Any = None, each: Any = None, skip: int = 0) -> list[dict]:
    """Play and analyse ``games`` games of ``game``: one record per game
    (``lineup``, ``scores``, ``winners``, ``decisions`` as :meth:`Decision.to_json`);
    ``each(record)`` is called after every game; the first ``skip`` games are left out
    (a resumed run)."""
    engine = load_engine(game)
    variant = engine.default_variants()[variant_name]
    records = []
    for g, lineup in enumerate(pairings(players, games)):
        if g < skip:
            continue
        started = time.process_time()
        game_seed = seed + g
        moves, scores = play(engine, variant, lineup, game_seed, scale)
        played = time.process_time() - started
        state = engine.new_game(variant, len(lineup), game_seed)
        decisions = [d.to_json(engine) for d in analyse_moves(engine, state, moves,
                                                              budget=budget, seed=game_seed)]
        top = max(scores)
        records.append({"game": game, "seed": game_seed, "lineup": list(lineup),
                        "scores": scores, "winners": [i for i, s in enumerate(scores)
                                                      if s == top],
                        "decisions": decisions})
        if each is not None:
            each(records[-1])
        if log is not None:
            rows = summarise(decisions, len(lineup))
            print(f"{game} #{g + 1} seed {game_seed}: "
                  + " vs ".join(f"{lv} {s} ({r['accuracy']}%)"
                                for lv, s, r in zip(lineup, scores, rows, strict=True))
                  + f"  [{played:.1f} s play, {time.process_time() - started - played:.1f}"
                    " s analysis CPU]", file=log, flush=True)
    return records


def rejudge(decisions: Sequence[dict]) -> list[dict]:
    """The decisions with their loss and mark from the current formula
    (:func:`ai.analysis.chance_lost` of the stored chances), so that ``--load`` shows a
    changed formula on the same games."""
    out = []
    for d in decisions:
        loss = 0.0
        if not d["forced"] and d["played"] != d["best"]:
            loss = chance_lost(float(d["value_best"]), float(d["value_played"]))
        out.append({**d, "loss": loss, "mark": mark_for(loss) if not d["forced"] else None})
    return out


def table(records: Sequence[dict], players: Sequence[str] = PLAYERS) -> list[dict]:
    """Per game and player type: games, accuracy (mean, 95% interval), marks per game,
    win share."""
    out = []
    for game in dict.fromkeys(r["game"] for r in records):
        for level in players:
            acc, inacc, mist, blund, wins = [], [], [], [], []
            for r in records:
                if r["game"] != game:
                    continue
                rows = summarise(rejudge(r["decisions"]), len(r["lineup"]))
                for seat, lv in enumerate(r["lineup"]):
                    if lv != level or rows[seat]["accuracy"] is None:
                        continue
                    acc.append(rows[seat]["accuracy"])
                    inacc.append(rows[seat]["inaccuracy"])
                    mist.append(rows[seat]["mistake"])
                    blund.append(rows[seat]["blunder"])
                    wins.append(1 / len(r["winners"]) if seat in r["winners"] else 0.0)
            if not acc:
                continue
            m, low, high = interval(acc)
            out.append({"game": game, "player": level, "games": len(acc), "accuracy": m,
                        "low": low, "high": high, "inaccuracies": mean(inacc),
                        "mistakes": mean(mist), "blunders": mean(blund), "wins": mean(wins)})
    return out


def check(rows: Sequence[dict]) -> list[str]:
    """What the table breaks of the required ordering (empty: it holds)."""
    problems = []
    for game in dict.fromkeys(r["game"] for r in rows):
        by = {r["player"]: r for r in rows if r["game"] == game}
        if "random" in by and by["random"]["accuracy"] >= 50:
            problems.append(f"{game}: random's mean is not below 50%")
        for weak, strong, strict in (("random", "greedy", True), ("greedy", "normal", True),
                                     ("normal", "hard", False)):
            if weak in by and strong in by:
                a, b = by[weak]["accuracy"], by[strong]["accuracy"]
                if (a >= b) if strict else (a > b):
                    problems.append(f"{game}: {weak} {a:.1f} not below {strong} {b:.1f}")
    return problems


def print_table(rows: Sequence[dict], out: Any = None) -> None:
    """The table as Markdown (on ``sys.stdout`` as it is at the call, unless ``out``)."""
    out = out or sys.stdout
    print("| game | player | games | accuracy | 95% interval | inaccuracies | mistakes "
          "| blunders | won |", file=out)
    print("|---|---|---:|---:|---|---:|---:|---:|---:|", file=out)
    for r in rows:
        print(f"| {r['game']} | {r['player']} | {r['games']} | {r['accuracy']:.1f} "
              f"| [{r['low']:.1f}, {r['high']:.1f}] | {r['inaccuracies']:.1f} "
              f"| {r['mistakes']:.1f} | {r['blunders']:.1f} | {r['wins']:.2f} |", file=out)


def open_text(path: str, mode: str = "r") -> Any:
    """``path`` opened as text; gzip-compressed when it ends with ``.gz`` (the committed
    runs: every analysed decision of 30 games is over a megabyte of JSON)."""
    if path.endswith(".gz"):
        return gzip.open(path, mode + "t", encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Play, analyse, print the table; exit status 1 when the ordering breaks."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", nargs="+", default=["newhaven", "nouvellefrance"])
    parser.add_argument("--games", type=int, default=30, help="games per game")
    parser.add_argument("--players", default=",".join(PLAYERS),
                        help="player types (levels), weakest first")
    parser.add_argument("--level-scale", type=float, default=0.05,
                        help="share of the search levels' iterations they play with")
    parser.add_argument("--iterations", type=int, default=40,
                        help="analysis: ISMCTS iterations per decision")
    parser.add_argument("--samples", type=int, default=10,
                        help="analysis: paired playouts per compared move")
    parser.add_argument("--worlds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save", help="write every game's analysed decisions here (JSON; "
                        "gzip-compressed if the name ends with .gz)")
    parser.add_argument("--load", help="print the table from a --save file instead")
    parser.add_argument("--resume", action="store_true",
                        help="keep the games already in the --save file, play the rest")
    args = parser.parse_args(argv)
    players = tuple(p.strip() for p in args.players.split(",") if p.strip())
    if args.load:
        with open_text(args.load) as f:
            data = json.load(f)
        records, settings = data["records"], data.get("settings", {})
    else:
        budget = Budget(iterations=args.iterations, samples=args.samples, worlds=args.worlds)
        settings = {**vars(args), "budget": budget.__dict__}
        records: list[dict] = []
        if args.resume and args.save:
            try:
                with open_text(args.save) as f:
                    records = json.load(f)["records"]
            except FileNotFoundError:
                pass

        def save(record: dict) -> None:  # after every game: a long run keeps what it did
            records.append(record)
            if args.save:  # whole or not at all: a reader (--load) never sees half a file
                part = f"{args.save}.part" + (".gz" if args.save.endswith(".gz") else "")
                with open_text(part, "w") as f:
                    json.dump({"settings": settings, "records": records}, f)
                os.replace(part, args.save)

        rng = random.Random(args.seed)
        for game in args.game:
            done = sum(1 for r in records if r["game"] == game)
            calibrate(game, args.games, budget=budget, scale=args.level_scale,
                      seed=rng.randrange(10**6), players=players, log=sys.stderr, each=save,
                      skip=done)
    print(f"settings: {json.dumps({k: v for k, v in settings.items() if k != 'load'})}")
    rows = table(records, players)
    print_table(rows)
    problems = check(rows)
    for problem in problems:
        print(f"ordering broken: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
