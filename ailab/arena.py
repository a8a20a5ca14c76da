"""Bot-versus-bot arena: ``python -m ailab.arena --game newhaven --bots hard,greedy --games 400``.

Games are seat-swapped: for every seed the line-up is played in every rotation
of the seats, so each bot sits everywhere on the same deals.  With N bots
listed for N players each plays itself; with two bots listed for N > 2 players
the first plays against N−1 copies of the second.  Prints each bot's win rate
(shared wins split; per seat it occupies) with a 95% Wilson interval, its mean
score and its mean seconds per move.  Speed and strength are measured here,
never by timed tests.

Besides the site's levels (``ai.LEVEL_NAMES``) the arena seats the lab's own bots,
which the runtime AI does not know: the frozen pre-issue-13 levels
(:data:`FROZEN_NAMES`, :mod:`ailab.frozen_v1`).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import multiprocessing
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ai
from ai.knowledge import search_knowledge
from tools.engines import load_engine

from . import frozen_v1

__all__ = [
    "BOT_NAMES",
    "FROZEN_NAMES",
    "Chooser",
    "GameRecord",
    "choose_action",
    "choose_action_counted",
    "load_engine",
    "main",
    "play_game",
    "wilson",
]

#: Arena-only bots: the frozen pre-issue-13 levels (:mod:`ailab.frozen_v1`).
FROZEN_NAMES: tuple[str, ...] = tuple(f"{name}-v1" for name in ("easy", "normal", "hard"))
#: Every bot the arena can seat: the site's levels and the frozen ones.
BOT_NAMES: tuple[str, ...] = (*ai.LEVEL_NAMES, *FROZEN_NAMES)

#: A player other than our levels: ``(engine, state, seat, seed, seconds) -> action``
#: (``seconds`` is the equal thinking time per decision or ``None``), e.g. the
#: OpenSpiel opponents of :mod:`ailab.anchor`.
Chooser = Callable[[Any, Any, int, int, "float | None"], Any]


def choose_action_counted(
    engine: Any,
    state: Any,
    seat: int,
    bot: str,
    seed: int = 0,
    *,
    seconds: float | None = None,
) -> tuple[Any, int]:
    """``ai.choose_action_counted`` for any bot of :data:`BOT_NAMES`.

    A frozen ``*-v1`` level plays through :func:`ailab.frozen_v1.choose_action_v1`
    (``seconds``: that much thinking time per decision) and reports no iterations.
    """
    if bot in FROZEN_NAMES:
        actions = engine.legal_actions(state, seat)
        if not actions:
            raise ValueError(f"seat {seat} has no legal action")
        if len(actions) == 1:
            return actions[0], 0
        return frozen_v1.choose_action_v1(
            engine, state, seat, bot.removesuffix("-v1"), seed,
            iterations=None if seconds is None else 10**9, time_limit=seconds,
        ), 0
    return ai.choose_action_counted(engine, state, seat, bot, seed, seconds=seconds)


def choose_action(
    engine: Any, state: Any, seat: int, bot: str, seed: int = 0, *, seconds: float | None = None
) -> Any:
    """The action ``bot`` (any of :data:`BOT_NAMES`) takes for ``seat`` in ``state``."""
    return choose_action_counted(engine, state, seat, bot, seed, seconds=seconds)[0]


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``successes`` may be fractional)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class GameRecord:
    """The result of one game, seat by seat."""

    seed: int
    bots: list[str]
    shares: list[float]
    scores: list[int]
    seconds: list[float]
    moves: list[int]
    #: Search iterations and searched decisions per seat (0 for non-search and frozen bots).
    iterations: list[int] = field(default_factory=list)
    searches: list[int] = field(default_factory=list)


def decision_seed(game_seed: int, ply: int) -> int:
    """The seed of one decision: fixed by the game and the ply, so games replay."""
    return (game_seed * 1_000_003 + ply) & 0x7FFFFFFF


def play_game(
    engine: Any,
    variant: dict,
    bots: Sequence[str],
    seed: int,
    max_plies: int = 100_000,
    think: float | None = None,
    choosers: Mapping[str, Chooser] | None = None,
) -> GameRecord:
    """Play one game with ``bots[seat]`` in each seat; return its record.

    ``think`` gives every search bot that many seconds per decision (equal time).
    A bot named in ``choosers`` plays through its chooser instead of ``choose_action``.
    """
    n = len(bots)
    state = engine.new_game(variant, n, seed)
    seconds = [0.0] * n
    moves = [0] * n
    iterations = [0] * n
    searches = [0] * n
    ply = 0
    while not engine.is_over(state):
        if ply >= max_plies:
            raise RuntimeError(f"game seed {seed} did not end after {max_plies} actions")
        seat = engine.to_move(state)[0]
        chooser = choosers.get(bots[seat]) if choosers else None
        started = time.perf_counter()
        if chooser is not None:
            action = chooser(engine, state, seat, decision_seed(seed, ply), think)
            done = 0
        else:
            action, done = choose_action_counted(
                engine, state, seat, bots[seat], seed=decision_seed(seed, ply), seconds=think
            )
        seconds[seat] += time.perf_counter() - started
        iterations[seat] += done
        searches[seat] += done > 0
        moves[seat] += 1
        state = engine.apply(state, seat, action)
        ply += 1
    winners = engine.winners(state)
    shares = [1.0 / len(winners) if s in winners else 0.0 for s in range(n)]
    return GameRecord(
        seed, list(bots), shares, list(engine.scores(state)), seconds, moves, iterations, searches
    )


def seatings(lineup: Sequence[str]) -> list[list[str]]:
    """Every rotation of ``lineup`` (for two players: both seatings)."""
    n = len(lineup)
    return [[lineup[(i + r) % n] for i in range(n)] for r in range(n)]


@dataclass
class _Tally:
    seats: int = 0
    wins: float = 0.0
    score: float = 0.0
    seconds: float = 0.0
    moves: int = 0
    iterations: int = 0
    searches: int = 0


def tally(records: Iterable[GameRecord]) -> dict[str, _Tally]:
    """Aggregate records per bot name (a bot in k seats counts k seat-games)."""
    out: dict[str, _Tally] = {}
    for record in records:
        for seat, bot in enumerate(record.bots):
            t = out.setdefault(bot, _Tally())
            t.seats += 1
            t.wins += record.shares[seat]
            t.score += record.scores[seat]
            t.seconds += record.seconds[seat]
            t.moves += record.moves[seat]
            if record.searches:
                t.iterations += record.iterations[seat]
                t.searches += record.searches[seat]
    return out


def format_table(tallies: dict[str, _Tally], games: int, players: int) -> str:
    """The result table as text."""
    width = max([10, *map(len, tallies)])
    lines = [
        f"games={games} players={players} (expected share per seat {1 / players:.3f})",
        f"{'bot':<{width}} {'seat-games':>10} {'win rate':>9} {'95% CI':>15} {'mean score':>11}"
        f" {'s/move':>8} {'it/search':>9}",
    ]
    for bot, t in tallies.items():
        low, high = wilson(t.wins, t.seats)
        interval = f"[{low:.3f}, {high:.3f}]"
        lines.append(
            f"{bot:<{width}} {t.seats:>10} {t.wins / t.seats:>9.3f} {interval:>15}"
            f" {t.score / t.seats:>11.2f} {t.seconds / max(1, t.moves):>8.3f}"
            # "-": no search counted (a bot that does not search, or one whose chooser
            # -- the frozen v1 levels, the anchor's players -- does not report it).
            f" {f'{t.iterations / t.searches:.0f}' if t.searches else '-':>9}"
        )
    return "\n".join(lines)


def _run_task(task: tuple[str, str, dict, list[str], int, float | None]) -> GameRecord:
    spec, _variant_name, variant, bots, seed, seconds = task
    return play_game(load_engine(spec), variant, bots, seed, think=seconds)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, play the games and print the table."""
    parser = argparse.ArgumentParser(description="Seat-swapped bot-versus-bot games.")
    parser.add_argument("--game", help="engine name or module:ATTR")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--bots", help=f"comma list of {', '.join(BOT_NAMES)}")
    parser.add_argument("--games", type=int, default=100, help="total games (rounded up)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--seconds", type=float, default=None,
        help="equal thinking time per decision for every search bot (replaces level budgets)",
    )
    parser.add_argument(
        "--tune", default="",
        help="sweep settings for the new search levels: 'exploration=0.5,k.playout_sample=3' "
        "(SearchParams fields; k.NAME sets the game knowledge's attribute)",
    )
    parser.add_argument(
        "--scale", type=float, default=1.0,
        help="multiply every search level's iteration budget (ladders on a busy machine)",
    )
    parser.add_argument(
        "--no-guard", action="store_true",
        help="no wall-clock guard: every search level runs its whole iteration budget "
        "(budgets, not the machine's load, decide; use on a loaded machine)",
    )
    parser.add_argument(
        "--from-log", nargs="+", default=None, metavar="LOG",
        help="no games: the table of the games in these progress logs (stderr; also of a "
        "stopped run); s/move and it/search are then means of the games' own means",
    )
    args = parser.parse_args(argv)
    if args.from_log:
        records = [r for path in args.from_log for r in records_from_log(path)]
        players = max((len(r.bots) for r in records), default=0)
        print(f"python -m ailab.arena {' '.join(argv if argv is not None else sys.argv[1:])}")
        print(format_table(tally(records), len(records), players), flush=True)
        return
    if not args.game or not args.bots:
        parser.error("--game and --bots are required (unless --from-log)")
    engine = load_engine(args.game)
    if args.jobs == 1:  # with workers, each applies them (once) in its initializer
        _configure(args.game, args.tune, args.scale, args.no_guard)

    bots = args.bots.split(",")
    for bot in bots:
        if bot not in BOT_NAMES:
            parser.error(f"unknown bot {bot!r}; choose from {', '.join(BOT_NAMES)}")
    if len(bots) == args.players:
        lineup = bots
    elif len(bots) == 2:
        lineup = [bots[0]] + [bots[1]] * (args.players - 1)
    else:
        parser.error("list one bot per player, or two bots (one against N-1 copies)")
    variant = engine.default_variants()[args.variant]
    rotations = seatings(lineup)
    rounds = math.ceil(args.games / len(rotations))
    tasks = [
        (args.game, args.variant, variant, seating, args.seed + k, args.seconds)
        for k in range(rounds)
        for seating in rotations
    ]
    started = time.perf_counter()
    records: list[GameRecord] = []
    if args.jobs > 1:
        # Each worker applies --tune and --scale itself (whatever the start method).
        with multiprocessing.Pool(
            args.jobs, initializer=_configure,
            initargs=(args.game, args.tune, args.scale, args.no_guard),
        ) as pool:
            for record in pool.imap_unordered(_run_task, tasks):
                records.append(record)
                _progress(records, len(tasks), started)
    else:
        for task in tasks:
            records.append(_run_task(task))
            _progress(records, len(tasks), started)
    print(f"python -m ailab.arena {' '.join(argv if argv is not None else sys.argv[1:])}")
    print(f"game={args.game} variant={args.variant} lineup={','.join(lineup)} "
          f"seeds={args.seed}..{args.seed + rounds - 1} wall={time.perf_counter() - started:.0f}s")
    print(format_table(tally(records), len(records), args.players), flush=True)


def _configure(game: str, tune: str, scale: float, no_guard: bool = False) -> None:
    """Apply ``--tune``, ``--scale`` and ``--no-guard`` in this process (main or worker)."""
    if tune:
        apply_tuning(load_engine(game), tune)
    if scale != 1.0:
        scale_levels(scale)
    if no_guard:
        unguard_levels()


#: The guard of :func:`unguard_levels`: a budget always ends the search first.
NO_GUARD = 1e9


def unguard_levels() -> None:
    """Lift the wall-clock guard of every level, new and frozen: only budgets count."""
    ai.LEVELS = {
        key: dataclasses.replace(lv, time_limit=NO_GUARD) for key, lv in ai.LEVELS.items()
    }
    levels_v1 = frozen_v1.LEVELS_V1
    for key, (iterations, _guard) in list(levels_v1.items()):
        levels_v1[key] = (iterations, NO_GUARD)


def scale_levels(scale: float) -> None:
    """Multiply the iteration budget of every level, new and frozen, by ``scale``."""
    ai.LEVELS = {
        key: dataclasses.replace(lv, iterations=max(1, round(lv.iterations * scale)))
        for key, lv in ai.LEVELS.items()
    }
    levels_v1 = frozen_v1.LEVELS_V1
    for key, (iterations, guard) in list(levels_v1.items()):
        levels_v1[key] = (max(1, round(iterations * scale)), guard)


def parse_tuning(spec: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``SearchParams`` fields and the knowledge attributes (``k.NAME``) of a
    ``--tune`` spec such as ``rollout_depth=8,k.learned=True``."""
    fields: dict[str, Any] = {}
    attrs: dict[str, Any] = {}
    for item in filter(None, spec.split(",")):
        name, _, raw = item.partition("=")
        value: Any = None if raw == "None" else (
            raw == "True" if raw in ("True", "False") else _number(raw)
        )
        if name.startswith("k."):
            attrs[name[2:]] = value
        else:
            fields[name] = value
    return fields, attrs


def _number(raw: str) -> Any:
    """``raw`` as an int or a float, else the string itself (e.g. ``final=lcb``)."""
    try:
        return float(raw) if "." in raw else int(raw)
    except ValueError:
        return raw


def apply_tuning(engine: Any, spec: str) -> None:
    """Set sweep values on every new level's params and on the game's search knowledge."""
    fields, attrs = parse_tuning(spec)
    knowledge = search_knowledge(engine)
    for name, value in attrs.items():
        setattr(knowledge, name, value)
    if fields:
        ai.LEVELS = {
            key: dataclasses.replace(lv, params=dataclasses.replace(lv.params, **fields))
            for key, lv in ai.LEVELS.items()
        }


_LOG_LINE = re.compile(
    r"seed (?P<seed>\d+) bots (?P<bots>\S+) shares \[(?P<shares>[^\]]*)\] "
    r"scores \[(?P<scores>[^\]]*)\]"
    r"(?: s/move \[(?P<seconds>[^\]]*)\] it/search \[(?P<iterations>[^\]]*)\])?"
)


def records_from_log(path: str) -> list[GameRecord]:
    """The games of an arena progress log, one record per line (one move per seat).

    A line's ``s/move`` and ``it/search`` are the game's own means, so each seat
    gets one move of that many seconds (one search of that many iterations):
    tallied, they give the mean over games.  Older lines without them give 0.
    """
    records = []
    with open(path) as handle:
        for line in handle:
            match = _LOG_LINE.search(line)
            if not match:
                continue
            bots = match["bots"].split(",")
            n = len(bots)
            seconds = [float(x) for x in match["seconds"].split(",")] if match["seconds"] else []
            iterations = (
                [int(x) for x in match["iterations"].split(",")] if match["iterations"] else []
            )
            records.append(GameRecord(
                int(match["seed"]), bots,
                [float(x) for x in match["shares"].split(",")],
                [int(float(x)) for x in match["scores"].split(",")],
                seconds or [0.0] * n, [1 if seconds else 0] * n,
                iterations or [0] * n, [1 if it else 0 for it in iterations] or [0] * n,
            ))
    return records


def _progress(records: list[GameRecord], total: int, started: float) -> None:
    # One line per finished game on stderr, so a long run can be read before it ends.
    r = records[-1]
    print(
        f"  {len(records)}/{total} games, {time.perf_counter() - started:.0f}s: seed {r.seed} "
        f"bots {','.join(r.bots)} shares {r.shares} scores {r.scores} "
        f"s/move {[round(s / max(1, m), 3) for s, m in zip(r.seconds, r.moves, strict=True)]} "
        f"it/search {[i // max(1, k) for i, k in zip(r.iterations, r.searches, strict=True)]}",
        file=sys.stderr,
        flush=True,
    )


if __name__ == "__main__":
    main()
