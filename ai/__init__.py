"""AI opponents: pure search over the engine protocol (no Django import).

Entry points::

    choose_action(engine, state, seat, level="normal", seed=0) -> Action
    analyse(engine, state, seat, budget) -> [(action, win probability, visits), ...]
    suggest(engine, state, seat, count=3) -> [(action, win probability, visits), ...]
    level_rating(game, level) -> (mu, sigma)   # OpenSkill, from ai/ratings.json

Levels (see :data:`LEVELS`): ``random`` and ``greedy`` baselines (``greedy``: the
best move one ply ahead by the game's :func:`~ai.knowledge.greedy_knowledge`
evaluator, New Haven's strong one since issue 20), and ISMCTS at
``easy``, ``normal`` and ``hard``: an iteration budget with a wall-clock guard.
When the budget ends the search a seed replays the same decisions; on a slow
or busy machine the guard ends it first.

=======  ==========  =====================  =========  ==========
level    iterations  nouvellefrance (×0.5)  guard (s)  error rate
=======  ==========  =====================  =========  ==========
easy     150         75                     0.5        0.5
normal   800         400                    0.85       0.3
hard     3000        1500                   2.7        0
=======  ==========  =====================  =========  ==========

The error rate is the level's skill (``SearchParams.error_rate``): that share of
its decisions takes another move the search found nearly as good (within 0.1 of
a win) instead of the best.  New Haven's search settles its move within a few
hundred iterations, so budgets alone did not separate the levels.

The guards keep the answer-time promise (normal <= 1 s, hard <= 3 s per
decision on one core, ``python -m ailab.bench``); on a slow or busy machine they,
not the budget, end the search.  Every level searches with :data:`TUNED`
(issue 13: shared worlds, macro turns, public keys, the strong knowledge).  Lab
players (the frozen pre-issue-13 ``*-v1`` levels, the anchor's OpenSpiel searches)
are not known here: the arena (:mod:`ailab.arena`) seats them itself.

(A game's knowledge may scale the budgets: Nouvelle-France's engine steps cost
~150 µs, New Haven's ~10 µs.)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .bots import greedy_action, random_action
from .ismcts import SearchParams, SearchResult, search
from .knowledge import GameKnowledge, GenericKnowledge, get_knowledge
from .ratings import level_rating

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
    "choose_action_counted",
    "get_knowledge",
    "greedy_action",
    "level_budget",
    "level_rating",
    "random_action",
    "search",
    "suggest",
]


@dataclass(frozen=True)
class Level:
    """A search level: an iteration budget, a wall-clock guard (seconds), search options."""

    name: str
    iterations: int
    time_limit: float
    params: SearchParams = field(default_factory=SearchParams)


#: ISMCTS levels.  The guard is below the answer-time promise (normal 1 s, hard 3 s).
#: Search options of every level since issue 13 (see ``ailab/tuning/``).
TUNED = SearchParams(world_reuse=None, macro=True, public_keys=True)

LEVELS: dict[str, Level] = {
    "easy": Level("easy", 150, 0.5, replace(TUNED, error_rate=0.5)),
    "normal": Level("normal", 800, 0.85, replace(TUNED, error_rate=0.3)),
    "hard": Level("hard", 3000, 2.7, TUNED),
}
#: Every level name ``choose_action`` accepts.
LEVEL_NAMES: tuple[str, ...] = ("random", "greedy", *LEVELS)


def choose_action(
    engine: Any,
    state: State,
    seat: int,
    level: str = "normal",
    seed: int = 0,
    *,
    seconds: float | None = None,
) -> Action:
    """The action the AI at ``level`` takes for ``seat`` in ``state``.

    ``state`` is the true state; the AI reads it only through ``determinize``
    for ``seat`` (and the seat's own ``legal_actions``), so it never peeks.
    ``seconds`` (the arena's equal-time matches) replaces a search level's
    budget by that much thinking time per decision.
    """
    return choose_action_counted(engine, state, seat, level, seed, seconds=seconds)[0]


def choose_action_counted(
    engine: Any,
    state: State,
    seat: int,
    level: str = "normal",
    seed: int = 0,
    *,
    seconds: float | None = None,
) -> tuple[Action, int]:
    """:func:`choose_action` and the search iterations it ran (0: no search).

    The arena reports the iterations a level really got: on a busy machine the
    wall-clock guard, not the budget, ends the search.
    """
    actions = engine.legal_actions(state, seat)
    if not actions:
        raise ValueError(f"seat {seat} has no legal action")
    if len(actions) == 1:
        return actions[0], 0
    if level == "random":
        return random_action(engine, state, seat, seed), 0
    if level == "greedy":
        return greedy_action(engine, state, seat, seed), 0
    try:
        spec = LEVELS[level]
    except KeyError:
        raise ValueError(
            f"unknown level {level!r}; known levels: {', '.join(LEVEL_NAMES)}"
        ) from None
    iterations = level_budget(engine, spec) if seconds is None else 10**9
    result = search(
        engine, state, seat, iterations,
        time_limit=spec.time_limit if seconds is None else seconds,
        seed=seed, params=spec.params,
    )
    return result.action, result.iterations


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


def suggest(
    engine: Any,
    state: State,
    seat: int,
    *,
    count: int = 3,
    iterations: int | None = None,
    time_limit: float | None = None,
    seed: int = 0,
) -> list[tuple[Action, float, int]]:
    """The search's best ``count`` actions for ``seat`` (a practice game's hint) as
    (action, win probability, visits), most visited first.

    Searches as the ``hard`` level does (its options, its budget for this game unless
    ``iterations`` is given, ``time_limit`` seconds at most), from ``seat``'s information
    set only: the true state is read through ``determinize`` for ``seat``.  Actions the
    search never tried come last (a budget cut short by the clock).
    """
    if not engine.legal_actions(state, seat):
        raise ValueError(f"seat {seat} has no legal action")
    spec = LEVELS["hard"]
    budget = level_budget(engine, spec) if iterations is None else max(1, iterations)
    result = search(engine, state, seat, budget, time_limit=time_limit, seed=seed,
                    params=spec.params)
    return [(s.action, s.value, s.visits) for s in result.stats[:max(0, count)]]
