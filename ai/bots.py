"""Baseline bots for any engine: ``random`` and ``greedy``."""

from __future__ import annotations

import random
from typing import Any

from .knowledge import GameKnowledge, greedy_knowledge

Action = Any
State = Any

__all__ = ["greedy_action", "random_action"]


def random_action(engine: Any, state: State, seat: int, seed: int = 0) -> Action:
    """A uniformly random legal action."""
    actions = engine.legal_actions(state, seat)
    return actions[random.Random(seed).randrange(len(actions))]


def greedy_action(
    engine: Any,
    state: State,
    seat: int,
    seed: int = 0,
    knowledge: GameKnowledge | None = None,
) -> Action:
    """The action whose immediate result evaluates best for ``seat``.

    It judges on one determinization (a world consistent with what the seat
    knows), never on the true state; ties go to a random one of the best.  The
    evaluator is the game's :func:`~ai.knowledge.greedy_knowledge` unless
    ``knowledge`` is given: one ply, no search, whichever evaluator.
    """
    knowledge = knowledge or greedy_knowledge(engine)
    rng = random.Random(seed)
    actions = engine.legal_actions(state, seat)
    if len(actions) == 1:
        return actions[0]
    world = engine.determinize(state, seat, rng)
    legal_here = set(engine.legal_actions(world, seat))
    best: list[Action] = []
    best_value = -1.0
    for action in actions:
        if action not in legal_here:  # cannot happen for a sound engine; stay legal anyway
            continue
        value = knowledge.evaluate(engine, engine.apply(world, seat, action))[seat]
        if value > best_value + 1e-12:
            best_value = value
            best = [action]
        elif value > best_value - 1e-12:
            best.append(action)
    if not best:
        return actions[rng.randrange(len(actions))]
    return best[rng.randrange(len(best))]
