"""Read-only queries of the games app (writes live in services.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from games.engines import engine_names, get_engine
from games.models import Variant


@dataclass(frozen=True)
class GameSummary:
    """A game and the variants a player can pick for it."""

    name: str
    min_players: int
    max_players: int
    variants: list[Variant]


def active_variants(*, game: str | None = None) -> QuerySet[Variant]:
    """Active variants, optionally of one game, ordered by game then name."""
    variants = Variant.objects.filter(active=True)
    if game is not None:
        variants = variants.filter(game=game)
    return variants.order_by("game", "name")


def game_summaries() -> list[GameSummary]:
    """Every registered game with its active variants (one query)."""
    by_game: dict[str, list[Variant]] = {}
    for variant in active_variants():
        by_game.setdefault(variant.game, []).append(variant)
    summaries = []
    for name in engine_names():
        engine = get_engine(name)
        summaries.append(
            GameSummary(
                name=name,
                min_players=engine.min_players,
                max_players=engine.max_players,
                variants=by_game.get(name, []),
            )
        )
    return summaries
