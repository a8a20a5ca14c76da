"""Per-game knowledge behind one small interface, with a generic fallback.

A knowledge object tells the search three things about a game: a cheap move
ordering (for progressive widening), a rollout policy, and a static evaluator
that maps a (possibly sampled) state to a value in [0, 1] per seat.  It sees
the engine only through the protocol.  A game's knowledge is named by its
catalogue entry (``games.catalogue``; tests register toy games there too); a
game without one gets :class:`GenericKnowledge` (uniform rollouts to the end,
true scores).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from games import catalogue

Action = Any
State = Any

__all__ = [
    "GameKnowledge",
    "GenericKnowledge",
    "get_knowledge",
    "greedy_knowledge",
    "learned_weights",
    "search_knowledge",
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


@cache
def learned_weights(game: str, feature_names: tuple[str, ...]) -> tuple[float, ...] | None:
    """The weights ``python -m ailab.learn`` fitted for ``game`` (``ai/weights/<game>.json``),
    or ``None`` when there are none or they were fitted on other features."""
    path = Path(__file__).with_name("weights") / f"{game}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    if data.get("features") != list(feature_names):
        return None
    return tuple(data["weights"]) or None


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


def _module(name: Any) -> str | None:
    """The module defining the ``KNOWLEDGE`` of the game ``name`` (``games.catalogue``)."""
    entry = catalogue.entry(name)
    return entry.knowledge if entry is not None else None


#: Knowledge already imported, by game name (cleared when the catalogue changes).
_REGISTRY: dict[str, GameKnowledge] = {}
_GENERIC = GenericKnowledge()
catalogue.on_change(_REGISTRY.clear)


def get_knowledge(engine: Any) -> GameKnowledge:
    """The knowledge the catalogue names for ``engine.name``, else the generic one."""
    name = getattr(engine, "name", None)
    if name in _REGISTRY:
        return _REGISTRY[name]
    module = _module(name)
    if module is not None:
        knowledge = import_module(module).KNOWLEDGE
        _REGISTRY[name] = knowledge
        return knowledge
    return _GENERIC


def _named_knowledge(engine: Any, attribute: str) -> GameKnowledge:
    """The knowledge the game's module names ``attribute``, else the base knowledge."""
    module = _module(getattr(engine, "name", None))
    named = getattr(import_module(module), attribute, None) if module is not None else None
    return named or get_knowledge(engine)


def greedy_knowledge(engine: Any) -> GameKnowledge:
    """The knowledge whose evaluator the ``greedy`` bot maximises one ply ahead.

    The module's ``GREEDY`` if it names one, else the base knowledge
    (:func:`get_knowledge`).  New Haven's names its strong evaluator: with the base
    one the greedy bot was barely better than random, in the analysis' eyes too
    (issue 20, ``ailab/tuning/README.md``).
    """
    return _named_knowledge(engine, "GREEDY")


def search_knowledge(engine: Any) -> GameKnowledge:
    """The knowledge the search uses: the module's ``STRONG`` if it has one.

    ``get_knowledge`` stays the base knowledge (the frozen ``*-v1`` levels'; the
    ``greedy`` bot's unless the module names a ``GREEDY``, :func:`greedy_knowledge`).
    """
    return _named_knowledge(engine, "STRONG")
