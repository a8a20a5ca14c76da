"""A frozen copy of the AI as it was before issue 13 (the arena's ``*-v1`` bots).

Search (:mod:`.ismcts`) and knowledge (:mod:`.newhaven`, :mod:`.nouvellefrance`)
are the code of commit 8f4357a (rule numbers already read from ``rule_data``),
kept unchanged so the arena can measure the new levels against them at the same
budget.  Do not improve this package: it is a yardstick.
"""

from __future__ import annotations

from typing import Any

from .ismcts import search

__all__ = ["LEVELS_V1", "choose_action_v1"]

#: (iterations, wall-clock guard in seconds) of the old levels.
LEVELS_V1: dict[str, tuple[int, float]] = {
    "easy": (150, 1.0),
    "normal": (800, 1.8),
    "hard": (3000, 5.5),
}


def choose_action_v1(
    engine: Any,
    state: Any,
    seat: int,
    level: str,
    seed: int = 0,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
) -> Any:
    """The old level's action (``iterations``/``time_limit`` override its budget)."""
    from .knowledge import get_knowledge

    actions = engine.legal_actions(state, seat)
    if len(actions) == 1:
        return actions[0]
    budget, guard = LEVELS_V1[level]
    if iterations is None:
        scale = getattr(get_knowledge(engine), "budget_scale", 1.0)
        iterations = max(1, round(budget * scale))
    return search(
        engine, state, seat, iterations,
        time_limit=guard if time_limit is None else time_limit, seed=seed,
    ).action
