"""TEMPORARY shim for engines without wave 2's ``title`` and ``rule_data`` (issue 8).

Derives the same data from the variant so the board layer can be built while the engines
add them.  Delete this module, and use ``engine.title`` / ``engine.rule_data(variant)``
directly in ``games.selectors``, once both engines on main provide them.
"""

from __future__ import annotations

from typing import Any

_TITLES = {"newhaven": "New Haven", "nouvellefrance": "Nouvelle-France"}


def title(engine: Any) -> str:
    """``engine.title`` when there is one."""
    return getattr(engine, "title", None) or _TITLES.get(engine.name, engine.name)


def rule_data(engine: Any, variant: dict) -> dict:
    """``engine.rule_data(variant)`` when there is one; else the envelope + the variant."""
    if hasattr(engine, "rule_data"):
        return engine.rule_data(variant)
    counts = list(range(engine.min_players, engine.max_players + 1))
    play_area = (variant.get("board") or {}).get("play_area") if isinstance(variant, dict) else None
    if isinstance(play_area, dict):
        counts = sorted(int(k) for k in play_area)
    data = dict(variant) if isinstance(variant, dict) else {}
    data.update(
        game=engine.name,
        title=title(engine),
        variant=data.get("name", ""),
        description=data.get("description", ""),
        player_counts=counts,
    )
    return data
