"""Single-observer Information Set MCTS (Cowling, Powley & Whitehouse 2012).

Every iteration samples a world the searching seat cannot tell from the real
state (``engine.determinize``), walks the one shared tree with UCB restricted
to the actions legal in that world (availability counts), expands one node,
plays an ε-greedy playout cut off after a few plies, and backs up a value in
[0, 1] per seat.  Each node's statistics are from the point of view of the seat
that chose its action, so the same code plays 2–4 players.  Where a node has
many actions, progressive widening admits them in the knowledge's order (its
prior) as the node's visits grow.

Three options (see :class:`SearchParams`) came with issue 13:

* ``world_reuse``: consecutive iterations share one sampled world (a
  determinization can cost more than the rest of an iteration);
* ``macro``: below the root, the knowledge's ``followup`` plays the micro-steps
  that finish a turn (e.g. the builds after a harvest), so the tree branches on
  the decisions that matter instead of splitting its budget over micro-steps;
* ``public_keys``: the knowledge's ``action_keys`` names another seat's actions
  by what the searching seat can tell apart (the tile, not its hand index), so
  one node means one thing in every world.

The true state is read only through ``determinize`` (and ``legal_actions`` for
the root seat, which is public to that seat): the search never peeks.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .knowledge import GameKnowledge, search_knowledge

Action = Any
State = Any

__all__ = ["ActionStats", "SearchParams", "SearchResult", "search"]


@dataclass(frozen=True)
class SearchParams:
    """Tuning of the search (values are on the [0, 1] scale)."""

    #: UCB exploration constant (``None``: the knowledge's ``exploration``, else 0.7;
    #: a game whose values lie close together wants a smaller one).
    exploration: float | None = 0.7
    #: Nodes with more legal actions than this use progressive widening.
    widen_threshold: int = 12
    #: At most ``ceil(widen_c * (visits + 1) ** widen_alpha)`` children are candidates.
    widen_c: float = 2.0
    widen_alpha: float = 0.5
    #: Probability that a playout step is uniform instead of the knowledge's policy.
    epsilon: float = 0.1
    #: Overrides the knowledge's rollout depth when not ``None``.
    rollout_depth: int | None = None
    #: Consecutive iterations that share one determinization (1: a new world each time;
    #: ``None``: the knowledge's ``world_reuse``, else 1).
    world_reuse: int | None = 1
    #: Below the root, let the knowledge's ``followup`` play a turn's closing micro-steps.
    macro: bool = False
    #: Key other seats' tree actions by the knowledge's ``action_keys`` (what is visible).
    public_keys: bool = False
    #: A weaker level's skill: with this probability the final choice is not the most
    #: visited root action but one of the other searched ones whose value is within
    #: ``error_margin`` of it, drawn in proportion to their visits: it errs towards
    #: moves the search found nearly as good, never throws away a clear win.
    error_rate: float = 0.0
    error_margin: float = 0.1
    #: How the final move is chosen among the root's searched actions (issue 24):
    #: ``"visits"``, the most visited (ties by value); ``"lcb"``, the highest lower
    #: confidence bound ``value - final_z * standard error`` (max-LCB / secure child)
    #: among children with at least ``final_min_share`` of the most visited one's visits.
    #: With values as close as New Haven's, UCB's visits stay nearly uniform over the
    #: admitted children, so the most visited one is the first admitted, not the best.
    #: ``None``: the knowledge's ``final``, else ``"visits"``.
    final: str | None = "visits"
    final_z: float = 1.0
    final_min_share: float = 0.25
    #: Prior variance (pseudo-observation) that keeps a child seen a few times from
    #: looking certain in the lower bound.
    final_prior_var: float = 0.01


@dataclass
class ActionStats:
    """Root statistics of one action."""

    action: Action
    visits: int
    value: float  # mean value for the searching seat, in [0, 1]
    #: Standard error of ``value`` (0 when unvisited).
    error: float = 0.0


@dataclass
class SearchResult:
    """What a search found: the chosen action and the root statistics."""

    action: Action
    stats: list[ActionStats] = field(default_factory=list)
    iterations: int = 0
    seconds: float = 0.0


class _Node:
    __slots__ = ("avail", "children", "rank", "seat", "sumsq", "total", "visits")

    def __init__(self, seat: int | None) -> None:
        self.seat = seat  # the seat whose action led here; None at the root
        self.children: dict[tuple[int, Any], _Node] = {}  # (actor, action key) -> node
        self.visits = 0
        self.total = 0.0  # sum of values for ``seat``
        self.sumsq = 0.0  # sum of squared values (the final choice's standard error)
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
    real state, or with ``params.final == "lcb"`` the one with the best lower
    confidence bound (a level with an ``error_rate`` sometimes takes another
    searched one).  The same seed and an iteration budget (not the clock) ending the
    search give the same result.
    """
    knowledge = knowledge or search_knowledge(engine)
    params = _resolve(params or SearchParams(), knowledge)
    rng = random.Random(seed)
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    real_actions = engine.legal_actions(state, seat)
    root = _Node(None)
    depth_limit = params.rollout_depth if params.rollout_depth is not None else (
        knowledge.rollout_depth
    )
    done = 0
    reuse = params.world_reuse
    if reuse is None:
        reuse = getattr(knowledge, "world_reuse", 1)
    reuse = max(1, reuse)
    world = None
    while done < iterations:
        if deadline is not None and done and time.perf_counter() >= deadline:
            break
        if done % reuse == 0:
            world = engine.determinize(state, seat, rng)
        _iterate(engine, world, seat, root, rng, knowledge, params, depth_limit)
        done += 1

    real = set(real_actions)
    stats = [
        _stats(action, child, params.final_prior_var)
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
    if params.final == "lcb" and stats and stats[0].visits:
        best = _lcb_choice(stats, params).action
    elif params.final != "visits":
        raise ValueError(f"unknown final choice {params.final!r}")
    if params.error_rate > 0 and stats and stats[0].visits:
        chosen = next(s for s in stats if s.action == best)
        floor = chosen.value - params.error_margin
        close = [s for s in stats if s is not chosen and s.visits and s.value >= floor]
        if close and rng.random() < params.error_rate:
            best = _sample_by_visits(close, rng)
    return SearchResult(best, stats, done, time.perf_counter() - started)


def _resolve(params: SearchParams, knowledge: GameKnowledge) -> SearchParams:
    """``params`` with the fields left to the game (``None``) filled from its knowledge."""
    changes: dict[str, Any] = {}
    if params.exploration is None:
        changes["exploration"] = getattr(knowledge, "exploration", 0.7)
    if params.final is None:
        changes["final"] = getattr(knowledge, "final", "visits")
    return replace(params, **changes) if changes else params


def _stats(action: Action, node: _Node, prior_var: float) -> ActionStats:
    """Root statistics of one child: mean value and its standard error."""
    n = node.visits
    if not n:
        return ActionStats(action, 0, 0.0)
    mean = node.total / n
    var = max(0.0, node.sumsq / n - mean * mean)
    # The prior variance counts as one pseudo-observation.
    error = math.sqrt((var * n + prior_var) / (n + 1) / n)
    return ActionStats(action, n, mean, error)


def _lcb_choice(stats: Sequence[ActionStats], params: SearchParams) -> ActionStats:
    """The child with the highest lower confidence bound among the well-visited ones."""
    floor = params.final_min_share * stats[0].visits
    pool = [s for s in stats if s.visits and s.visits >= floor]
    return max(pool, key=lambda s: s.value - params.final_z * s.error)


def _sample_by_visits(stats: Sequence[ActionStats], rng: random.Random) -> Action:
    """One of ``stats``' actions, drawn in proportion to their visits."""
    return rng.choices([s.action for s in stats], weights=[s.visits for s in stats])[0]


def _candidates(
    node: _Node,
    engine: Any,
    world: State,
    actor: int,
    legal: Sequence[Action],
    keyed: dict[Any, Action],
    knowledge: GameKnowledge,
    params: SearchParams,
) -> Sequence[Any]:
    """The action keys that progressive widening admits at ``node`` now."""
    if len(keyed) <= params.widen_threshold:
        return list(keyed)
    limit = math.ceil(params.widen_c * (node.visits + 1) ** params.widen_alpha)
    rank = node.rank
    if rank is None:
        rank = node.rank = {}
    missing = [a for k, a in keyed.items() if k not in rank]
    if missing:
        # Worlds differ, so new actions can show up later: rank them after the known ones.
        key_of = {a: k for k, a in keyed.items()}
        base = len(rank)
        order = knowledge.order_actions
        if node.seat is None and not base:  # the root's first ranking: the real prior
            order = getattr(knowledge, "prior_order", order)
        for index, action in enumerate(order(engine, world, actor, missing)):
            rank[key_of[action]] = base + index
    ordered = sorted(keyed, key=rank.__getitem__)
    return ordered if len(ordered) <= limit else ordered[:limit]


def _iterate(
    engine: Any,
    world: State,
    seat: int,
    root: _Node,
    rng: random.Random,
    knowledge: GameKnowledge,
    params: SearchParams,
    depth_limit: int | None,
) -> None:
    """One ISMCTS iteration in a sampled ``world``: select/expand, play out, back up."""
    node = root
    path = [root]
    log = math.log
    sqrt = math.sqrt
    c = params.exploration
    followup = getattr(knowledge, "followup", None) if params.macro else None
    action_keys = getattr(knowledge, "action_keys", None) if params.public_keys else None
    while True:
        movers = engine.to_move(world)
        if not movers:
            break
        actor = seat if node is root and seat in movers else movers[0]
        legal = engine.legal_actions(world, actor)
        if not legal:
            break
        if node is not root and followup is not None:
            step = followup(engine, world, actor, legal, rng)
            if step is not None:
                world = engine.apply(world, actor, step)
                continue
        keys = None
        if action_keys is not None and actor != seat:
            keys = action_keys(engine, world, actor, legal)
        if keys is None:
            keyed = dict(zip(legal, legal, strict=True))
        else:
            keyed = {}
            for key, action in zip(keys, legal, strict=True):
                keyed.setdefault(key, action)
        cands = _candidates(node, engine, world, actor, legal, keyed, knowledge, params)
        children = node.children
        unexpanded = [k for k in cands if (actor, k) not in children]
        for key in cands:
            child = children.get((actor, key))
            if child is not None:
                child.avail += 1
        if unexpanded:
            # Widened nodes expand in the knowledge's order, others at random.
            key = unexpanded[0] if node.rank is not None else rng.choice(unexpanded)
            child = _Node(actor)
            child.avail = 1
            children[(actor, key)] = child
            world = engine.apply(world, actor, keyed[key])
            path.append(child)
            break
        best = None
        best_score = -1.0
        for key in cands:
            child = children[(actor, key)]
            score = child.total / child.visits + c * sqrt(log(child.avail) / child.visits)
            if score > best_score:
                best_score = score
                best = (key, child)
        key, node = best  # type: ignore[misc]
        world = engine.apply(world, actor, keyed[key])
        path.append(node)

    values = playout(engine, world, rng, knowledge, params.epsilon, depth_limit)
    for visited in path:
        visited.visits += 1
        if visited.seat is not None:
            value = values[visited.seat]
            visited.total += value
            visited.sumsq += value * value


def playout(
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
