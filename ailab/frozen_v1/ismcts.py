"""Single-observer Information Set MCTS (Cowling, Powley & Whitehouse 2012).

Every iteration samples a world the searching seat cannot tell from the real
state (``engine.determinize``), walks the one shared tree with UCB restricted
to the actions legal in that world (availability counts), expands one node,
plays an ε-greedy playout cut off after a few plies, and backs up a value in
[0, 1] per seat.  Each node's statistics are from the point of view of the seat
that chose its action, so the same code plays 2–4 players.  Micro-actions are
ordinary tree nodes.  Where a node has many actions, progressive widening
admits them in the knowledge's cheap order as the node's visits grow.

The true state is read only through ``determinize`` (and ``legal_actions`` for
the root seat, which is public to that seat): the search never peeks.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .knowledge import GameKnowledge, get_knowledge

Action = Any
State = Any

__all__ = ["ActionStats", "SearchParams", "SearchResult", "search"]


@dataclass(frozen=True)
class SearchParams:
    """Tuning of the search (values are on the [0, 1] scale)."""

    #: UCB exploration constant.
    exploration: float = 0.7
    #: Nodes with more legal actions than this use progressive widening.
    widen_threshold: int = 12
    #: At most ``ceil(widen_c * (visits + 1) ** widen_alpha)`` children are candidates.
    widen_c: float = 2.0
    widen_alpha: float = 0.5
    #: Probability that a playout step is uniform instead of the knowledge's policy.
    epsilon: float = 0.1
    #: Overrides the knowledge's rollout depth when not ``None``.
    rollout_depth: int | None = None


@dataclass
class ActionStats:
    """Root statistics of one action."""

    action: Action
    visits: int
    value: float  # mean value for the searching seat, in [0, 1]


@dataclass
class SearchResult:
    """What a search found: the chosen action and the root statistics."""

    action: Action
    stats: list[ActionStats] = field(default_factory=list)
    iterations: int = 0
    seconds: float = 0.0


class _Node:
    __slots__ = ("avail", "children", "rank", "seat", "total", "visits")

    def __init__(self, seat: int | None) -> None:
        self.seat = seat  # the seat whose action led here; None at the root
        self.children: dict[tuple[int, Action], _Node] = {}
        self.visits = 0
        self.total = 0.0  # sum of values for ``seat``
        self.avail = 0  # iterations in which this node's action was a candidate
        self.rank: dict[Action, int] | None = None  # move order, for widening


def search(
    engine: Any,
    state: State,
    seat: int,
    iterations: int,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    knowledge: GameKnowledge | None = None,
    params: SearchParams | None = None,
) -> SearchResult:
    """Search ``iterations`` times (or until ``time_limit`` seconds) and pick a move.

    The chosen move is the most visited root action among those legal in the
    real state.  The same seed and an iteration budget (not the clock) ending
    the search give the same result.
    """
    knowledge = knowledge or get_knowledge(engine)
    params = params or SearchParams()
    rng = random.Random(seed)
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    real_actions = engine.legal_actions(state, seat)
    root = _Node(None)
    depth_limit = params.rollout_depth if params.rollout_depth is not None else (
        knowledge.rollout_depth
    )
    done = 0
    while done < iterations:
        if deadline is not None and done and time.perf_counter() >= deadline:
            break
        _iterate(engine, state, seat, root, rng, knowledge, params, depth_limit)
        done += 1

    real = set(real_actions)
    stats = [
        ActionStats(action, child.visits, child.total / child.visits if child.visits else 0.0)
        for (actor, action), child in root.children.items()
        if actor == seat and action in real
    ]
    seen = {s.action for s in stats}
    stats.extend(ActionStats(a, 0, 0.0) for a in real_actions if a not in seen)
    # Most visits first; ties by value, then the engine's order (stable sort).
    stats.sort(key=lambda s: (-s.visits, -s.value))
    best = stats[0].action if stats and stats[0].visits else (
        knowledge.order_actions(engine, state, seat, real_actions)[0]
    )
    return SearchResult(best, stats, done, time.perf_counter() - started)


def _candidates(
    node: _Node,
    engine: Any,
    world: State,
    actor: int,
    legal: Sequence[Action],
    knowledge: GameKnowledge,
    params: SearchParams,
) -> Sequence[Action]:
    """The actions of ``legal`` that progressive widening admits at ``node`` now."""
    if len(legal) <= params.widen_threshold:
        return legal
    limit = math.ceil(params.widen_c * (node.visits + 1) ** params.widen_alpha)
    rank = node.rank
    if rank is None:
        rank = node.rank = {}
    missing = [a for a in legal if a not in rank]
    if missing:
        # Worlds differ, so new actions can show up later: rank them after the known ones.
        base = len(rank)
        for index, action in enumerate(knowledge.order_actions(engine, world, actor, missing)):
            rank[action] = base + index
    if len(legal) <= limit:
        return sorted(legal, key=rank.__getitem__)
    return sorted(legal, key=rank.__getitem__)[:limit]


def _iterate(
    engine: Any,
    state: State,
    seat: int,
    root: _Node,
    rng: random.Random,
    knowledge: GameKnowledge,
    params: SearchParams,
    depth_limit: int | None,
) -> None:
    """One ISMCTS iteration: determinize, select/expand, play out, back up."""
    world = engine.determinize(state, seat, rng)
    node = root
    path = [root]
    log = math.log
    sqrt = math.sqrt
    c = params.exploration
    while True:
        movers = engine.to_move(world)
        if not movers:
            break
        actor = seat if node is root and seat in movers else movers[0]
        legal = engine.legal_actions(world, actor)
        if not legal:
            break
        cands = _candidates(node, engine, world, actor, legal, knowledge, params)
        children = node.children
        unexpanded = [a for a in cands if (actor, a) not in children]
        for action in cands:
            child = children.get((actor, action))
            if child is not None:
                child.avail += 1
        if unexpanded:
            # Widened nodes expand in the knowledge's order, others at random.
            action = unexpanded[0] if node.rank is not None else rng.choice(unexpanded)
            child = _Node(actor)
            child.avail = 1
            children[(actor, action)] = child
            world = engine.apply(world, actor, action)
            path.append(child)
            break
        best = None
        best_score = -1.0
        for action in cands:
            child = children[(actor, action)]
            score = child.total / child.visits + c * sqrt(log(child.avail) / child.visits)
            if score > best_score:
                best_score = score
                best = (action, child)
        action, node = best  # type: ignore[misc]
        world = engine.apply(world, actor, action)
        path.append(node)

    values = _playout(engine, world, rng, knowledge, params.epsilon, depth_limit)
    for visited in path:
        visited.visits += 1
        if visited.seat is not None:
            visited.total += values[visited.seat]


def _playout(
    engine: Any,
    world: State,
    rng: random.Random,
    knowledge: GameKnowledge,
    epsilon: float,
    depth_limit: int | None,
) -> list[float]:
    """ε-greedy playout for ``depth_limit`` plies, then the static evaluator."""
    depth = 0
    policy = knowledge.rollout_policy
    while depth_limit is None or depth < depth_limit:
        movers = engine.to_move(world)
        if not movers:
            break
        actor = movers[0]
        legal = engine.legal_actions(world, actor)
        if not legal:
            break
        if len(legal) == 1:
            action = legal[0]
        elif rng.random() < epsilon:
            action = legal[rng.randrange(len(legal))]
        else:
            action = policy(engine, world, actor, legal, rng)
        world = engine.apply(world, actor, action)
        depth += 1
    return knowledge.evaluate(engine, world)
