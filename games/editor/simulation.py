"""Simulation checks in chunks: ``tools.simulate.run`` a few games at a time.

One Celery worker plays the AI turns of every live table, so a 200-game check may not
hold it for minutes: the task plays a chunk of about ``CHUNK_SECONDS``, stores the merged
report so far and queues itself again behind whatever arrived meanwhile.  Game ``i`` of
a check always uses seed ``seed + i`` and the same player count, so the merged report is
the report of one long run (up to float rounding), and every error names the seed and
player count that reproduce it with the simulation command.

Nothing here touches the database: ``games.editor.services`` stores what these return.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from games.engines import Engine, InvalidVariant
from tools.simulate import run, wilson_interval

#: Wall-clock budget of one chunk (seconds); the first chunk plays one game to measure.
CHUNK_SECONDS = 2.0


def player_counts(engine: Engine, data: dict) -> list[int]:
    """The player counts ``data`` can be played with.

    From the engine's rule data when it has it; otherwise every count whose
    ``new_game`` the engine accepts.
    """
    try:
        counts = engine.rule_data(data).get("player_counts")
        if counts:
            return sorted(int(n) for n in counts)
    except InvalidVariant:
        return []
    except Exception:  # an engine without rule data yet: ask new_game
        pass
    playable = []
    for n in range(engine.min_players, engine.max_players + 1):
        try:
            engine.new_game(data, n, 0)
        except Exception:
            continue
        playable.append(n)
    return playable


def plan(games: int, counts: Sequence[int]) -> list[tuple[int, int, int]]:
    """``[(players, games, first game index)]``: ``games`` spread evenly over ``counts``."""
    if not counts:
        return []
    share, extra = divmod(games, len(counts))
    out, start = [], 0
    for i, players in enumerate(counts):
        n = share + (1 if i < extra else 0)
        if n:
            out.append((players, n, start))
            start += n
    return out


def next_chunk(
    games: int, counts: Sequence[int], done: int, seconds_per_game: float | None,
    budget: float = CHUNK_SECONDS,
) -> tuple[int, int, int] | None:
    """``(players, games, first index)`` of the next chunk after ``done`` games, or None."""
    for players, n, start in plan(games, counts):
        if done < start + n:
            size = 1 if not seconds_per_game else max(1, int(budget / seconds_per_game))
            first = max(done, start)
            return players, min(size, start + n - first), first
    return None


def run_chunk(
    game: str, data: dict, players: int, games: int, first: int, *, bots: Sequence[str],
    seed: int, progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Games ``first .. first + games - 1`` of a check (seeds ``seed + index``)."""
    return run(game, variant=data, players=players, games=games, bots=list(bots),
               seed=seed + first, progress=progress)


# --- merging reports -----------------------------------------------------------------------------


def merge_stats(a: dict | None, na: int, b: dict | None, nb: int) -> dict | None:
    """The mean / population sd / min / max of two samples of sizes ``na`` and ``nb``."""
    if not a or na <= 0:
        return b
    if not b or nb <= 0:
        return a
    n = na + nb
    mean = (na * a["mean"] + nb * b["mean"]) / n
    square = (na * (a["sd"] ** 2 + a["mean"] ** 2) + nb * (b["sd"] ** 2 + b["mean"] ** 2)) / n
    return {
        "mean": mean,
        "sd": math.sqrt(max(0.0, square - mean * mean)),
        "min": min(a["min"], b["min"]),
        "max": max(a["max"], b["max"]),
    }


def merge_reports(a: dict | None, b: dict) -> dict:
    """Two reports of the same variant, player count and bots as one."""
    if a is None:
        return b
    na, nb = a["completed"], b["completed"]
    n = na + nb
    seats = []
    for sa, sb in zip(a["seats"], b["seats"], strict=True):
        wins = sa["wins"] + sb["wins"]
        low, high = wilson_interval(wins, n)
        seats.append({
            **sb,
            "wins": wins,
            "share": wins / n if n else 0.0,
            "low": low,
            "high": high,
            "score": merge_stats(sa["score"], na, sb["score"], nb),
        })
    names = sorted({*a["figures"], *b["figures"]})
    values_a, values_b = a.get("score_values", []), b.get("score_values", [])
    return {
        **b,
        "games": a["games"] + b["games"],
        "completed": n,
        "seconds": a["seconds"] + b["seconds"],
        "actions": merge_stats(a["actions"], na, b["actions"], nb),
        "turns": merge_stats(a["turns"], na, b["turns"], nb),
        "scores": merge_stats(a["scores"], len(values_a), b["scores"], len(values_b)),
        "score_values": [*values_a, *values_b],
        "seats": seats,
        "ties": a["ties"] + b["ties"],
        "errors": [*a["errors"], *b["errors"]],
        "figures": {
            name: merge_stats(a["figures"].get(name), na, b["figures"].get(name), nb)
            for name in names
        },
    }


def final_report(by_players: dict[str, dict], *, games: int, bots: Sequence[str],
                 seed: int) -> dict[str, Any]:
    """The stored report of a whole check: one report per player count plus totals."""
    errors = []
    for players, report in sorted(by_players.items(), key=lambda kv: int(kv[0])):
        for error in report["errors"]:
            errors.append({**error, "players": int(players)})
    return {
        "games": games,
        "completed": sum(r["completed"] for r in by_players.values()),
        "seconds": sum(r["seconds"] for r in by_players.values()),
        "bots": list(bots),
        "seed": seed,
        "errors": errors,
        "by_players": by_players,
    }


