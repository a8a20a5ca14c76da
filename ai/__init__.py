"""AI opponents: pure search over the engine protocol (no Django import).

Entry points::

    choose_action(engine, state, seat, level="normal", seed=0) -> Action
    analyse(engine, state, seat, budget) -> [(action, win probability, visits), ...]

Levels (see :data:`LEVELS`): ``random`` and ``greedy`` baselines, and ISMCTS at
``easy``, ``normal`` and ``hard``: an iteration budget with a wall-clock guard.
The budget normally ends the search, so a seed replays the same decisions.

=======  ==========  =====================  =========
level    iterations  nouvellefrance (×0.5)  guard (s)
=======  ==========  =====================  =========
easy     150         75                     1.0
normal   800         400                    1.8
hard     3000        1500                   5.5
=======  ==========  =====================  =========

(A game's knowledge may scale the budgets: Nouvelle-France's engine steps cost
~150 µs, New Haven's ~10 µs.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .bots import greedy_action, random_action
from .ismcts import SearchParams, SearchResult, search
from .knowledge import GameKnowledge, GenericKnowledge, get_knowledge, register_knowledge

Action = Any
State = Any

__all__ = [
    "LEVELS",
    "GameKnowledge",
    "GenericKnowledge",
    "Level",
    "SearchParams",
    "SearchResult",
    "analyse",
    "choose_action",
    "get_knowledge",
    "greedy_action",
    "level_budget",
    "random_action",
    "register_knowledge",
    "search",
]


@dataclass(frozen=True)
class Level:
    """A search level: an iteration budget and a wall-clock guard (seconds)."""

    name: str
    iterations: int
    time_limit: float


#: ISMCTS levels.  The guard is below the answer-time promise (normal 2 s, hard 6 s)
#: and should rarely trigger: the iteration budget ends the search.
LEVELS: dict[str, Level] = {
    "easy": Level("easy", 150, 1.0),
    "normal": Level("normal", 800, 1.8),
    "hard": Level("hard", 3000, 5.5),
}
#: Every level name ``choose_action`` accepts.
LEVEL_NAMES: tuple[str, ...] = ("random", "greedy", *LEVELS)


def choose_action(
    engine: Any, state: State, seat: int, level: str = "normal", seed: int = 0
) -> Action:
    """The action the AI at ``level`` takes for ``seat`` in ``state``.

    ``state`` is the true state; the AI reads it only through ``determinize``
    for ``seat`` (and the seat's own ``legal_actions``), so it never peeks.
    """
    actions = engine.legal_actions(state, seat)
    if not actions:
        raise ValueError(f"seat {seat} has no legal action")
    if len(actions) == 1:
        return actions[0]
    if level == "random":
        return random_action(engine, state, seat, seed)
    if level == "greedy":
        return greedy_action(engine, state, seat, seed)
    try:
        spec = LEVELS[level]
    except KeyError:
        raise ValueError(
            f"unknown level {level!r}; known levels: {', '.join(LEVEL_NAMES)}"
        ) from None
    return search(
        engine, state, seat, level_budget(engine, spec), time_limit=spec.time_limit, seed=seed
    ).action


def level_budget(engine: Any, level: Level) -> int:
    """The level's iterations for this game (slow engines get a scaled budget)."""
    scale = getattr(get_knowledge(engine), "budget_scale", 1.0)
    return max(1, round(level.iterations * scale))


def analyse(
    engine: Any, state: State, seat: int, budget: int, seed: int = 0
) -> list[tuple[Action, float, int]]:
    """Every legal action of ``seat`` as (action, win probability, visits), best first.

    ``budget`` is the number of ISMCTS iterations (no clock: analysis is offline).
    """
    result = search(engine, state, seat, budget, seed=seed)
    return [(s.action, s.value, s.visits) for s in result.stats]
