"""OpenSkill ratings of the AI levels, measured in the arena and stored as data.

``level_rating(game, level) -> (mu, sigma)`` reads ``ai/ratings.json``; the site's
ratings use it to place AI seats on the players' scale.  The numbers are fitted by
the lab (``python -m ailab.ratings``, see :mod:`ailab.ratings`); the file records the
command, the budgets and whether the numbers are provisional.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

__all__ = ["PATH", "level_rating", "ratings"]

#: The stored ratings (written by ``python -m ailab.ratings --write``).
PATH = Path(__file__).with_name("ratings.json")


@cache
def ratings() -> dict:
    """The stored ratings file (``ai/ratings.json``)."""
    return json.loads(PATH.read_text())


def level_rating(game: str, level: str) -> tuple[float, float]:
    """(mu, sigma) of an AI level in a game; a game without data gets the levels' mean.

    ``KeyError`` names the known levels when ``level`` is not one.
    """
    data = ratings()
    games = data["games"]
    table = games.get(game)
    if table is None:  # a game not measured yet: the average over measured games
        tables = list(games.values())
        if level not in tables[0]:
            raise KeyError(f"unknown AI level {level!r}; known: {', '.join(tables[0])}")
        mus = [t[level]["mu"] for t in tables]
        sigmas = [t[level]["sigma"] for t in tables]
        return (sum(mus) / len(mus), max(sigmas))
    if level not in table:
        raise KeyError(f"unknown AI level {level!r}; known: {', '.join(table)}")
    return (table[level]["mu"], table[level]["sigma"])
