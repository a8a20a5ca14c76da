"""Per-game knowledge behind one small interface, with a generic fallback.

A knowledge object tells the search three things about a game: a cheap move
ordering (for progressive widening), a rollout policy, and a static evaluator
that maps a (possibly sampled) state to a value in [0, 1] per seat.  It sees
the engine only through the protocol.  Knowledge is registered by engine name;
an engine without one gets :class:`GenericKnowledge` (uniform rollouts to the
end, true scores).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from importlib import import_module
from typing import Any, Protocol, runtime_checkable

Action = Any
State = Any

__all__ = [
    "GameKnowledge",
    "GenericKnowledge",
    "get_knowledge",
    "register_knowledge",
    "softmax_values",
    "terminal_values",
]


@runtime_checkable
class GameKnowledge(Protocol):
    """What the search needs to know about one game."""

    #: Plies a rollout may play before the evaluator scores it; ``None`` = to the end.
    rollout_depth: int | None
    # Optional: ``budget_scale`` (float) scales the level budgets for a slow engine.

    def order_actions(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action]
    ) -> list[Action]:
        """``actions`` best first (a cheap guess; used by progressive widening)."""

    def rollout_policy(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action], rng: random.Random
    ) -> Action:
        """The action a playout takes for ``seat`` (must be one of ``actions``)."""

    def evaluate(self, engine: Any, state: State) -> list[float]:
        """A value in [0, 1] per seat (about a win probability)."""


def terminal_values(engine: Any, state: State, margin_weight: float = 0.1,
                    margin_scale: float = 10.0) -> list[float]:
    """Values of a finished game: win share (ties split) plus a small score-margin term.

    The margin term keeps the search playing for points once the result is
    certain, and separates close losses from blow-outs.
    """
    scores = engine.scores(state)
    winners = engine.winners(state)
    n = len(scores)
    share = 1.0 / len(winners) if winners else 0.0
    values = []
    for seat in range(n):
        win = share if seat in winners else 0.0
        best_other = max((scores[o] for o in range(n) if o != seat), default=scores[seat])
        margin = 0.5 + 0.5 * math.tanh((scores[seat] - best_other) / margin_scale)
        values.append((1.0 - margin_weight) * win + margin_weight * margin)
    return values


def softmax_values(estimates: Sequence[float], temperature: float) -> list[float]:
    """Map score estimates to win-probability-like values that sum to 1."""
    top = max(estimates)
    weights = [math.exp((e - top) / temperature) for e in estimates]
    total = sum(weights)
    return [w / total for w in weights]


class GenericKnowledge:
    """Knowledge for any engine: no ordering, uniform rollouts to the end, true scores."""

    rollout_depth: int | None = None
    #: Temperature of the score softmax used when a rollout is cut off early.
    temperature: float = 5.0

    def order_actions(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action]
    ) -> list[Action]:
        """Keep the engine's order."""
        return list(actions)

    def rollout_policy(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action], rng: random.Random
    ) -> Action:
        """Uniformly random."""
        return actions[rng.randrange(len(actions))]

    def evaluate(self, engine: Any, state: State) -> list[float]:
        """True result when over, else a softmax of the current scores."""
        if engine.is_over(state):
            return terminal_values(engine, state)
        return softmax_values(engine.scores(state), self.temperature)


# engine name -> module defining ``KNOWLEDGE``; imported lazily like the engines.
_MODULES: dict[str, str] = {
    "newhaven": "ailab.frozen_v1.newhaven",
    "nouvellefrance": "ailab.frozen_v1.nouvellefrance",
}
_REGISTRY: dict[str, GameKnowledge] = {}
_GENERIC = GenericKnowledge()


def register_knowledge(name: str, knowledge: GameKnowledge) -> None:
    """Use ``knowledge`` for the engine called ``name`` (tests register toy games)."""
    _REGISTRY[name] = knowledge


def get_knowledge(engine: Any) -> GameKnowledge:
    """The knowledge registered for ``engine.name``, else the generic one."""
    name = getattr(engine, "name", None)
    if name in _REGISTRY:
        return _REGISTRY[name]
    module = _MODULES.get(name) if isinstance(name, str) else None
    if module is not None:
        knowledge = import_module(module).KNOWLEDGE
        _REGISTRY[name] = knowledge
        return knowledge
    return _GENERIC
