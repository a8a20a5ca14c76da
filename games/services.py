"""Write operations of the games app: keyword-only, typed, atomic."""

from __future__ import annotations

from django.db import transaction

from games.engines import InvalidVariant, engine_names, get_engine
from games.models import Variant


@transaction.atomic
def save_variant(*, game: str, name: str, data: dict, is_default: bool = False) -> Variant:
    """Create or update a variant after the engine has validated its data.

    Raises ``InvalidVariant`` (listing every problem) and changes nothing when the
    data is not playable; ``KeyError`` for an unknown game.
    """
    engine = get_engine(game)
    problems = engine.validate_variant(data)
    if problems:
        raise InvalidVariant(problems)
    variant, _created = Variant.objects.update_or_create(
        game=game,
        name=name,
        defaults={"data": data, "is_default": is_default, "active": True},
    )
    return variant


def load_default_variants(*, games: list[str] | None = None) -> list[Variant]:
    """Store (or refresh) every engine's default variants; idempotent."""
    loaded = []
    for game in games or engine_names():
        engine = get_engine(game)
        for name, data in engine.default_variants().items():
            loaded.append(save_variant(game=game, name=name, data=data, is_default=True))
    return loaded
