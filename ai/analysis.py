"""Post-game analysis: every decision judged from the mover's information set.

``python -m tools.analysis newhaven --seed 3`` plays a game with the greedy bot and
analyses it at the default budget, printing the wall-clock and CPU time.

What a decision gets (:class:`Decision`), always from what the *mover* knew when
it acted -- the true state is read only through ``engine.determinize(state,
mover, rng)``, the mover's own ``legal_actions`` and ``observe(state, mover)``:

* an ISMCTS search (:func:`ai.ismcts.search`, the levels' options and the game's
  strong knowledge) ranks the mover's actions; the *best* move is the most visited
  one.  Then the best and the *played* move are measured alike by :func:`compare`:
  both played in the same ``samples`` sampled worlds, each followed by a playout
  from the same seed and the search's evaluator.  Their *values* are the mover's
  win chance after them (the chance of finishing first: every seat's values
  normalised to sum 1, so this holds at any table size).  Measuring the best move
  with the search's own statistics and the played one otherwise would let the
  search's lucky noise on the move it picked count against the player;
* the *loss* (:func:`chance_lost`) is the share of its win chance the mover gave
  away, in win chance of an even game: ``0.5 * (best - played) / best`` (chances
  floored at :data:`CHANCE_FLOOR`).  In plain points a player far behind would lose
  nothing whatever it played -- games between unequal players are decided early,
  and a random clicker who lost 3-21 got 95% (issue 20).  The loss gives the *mark*
  (:data:`MARKS`): ``inaccuracy`` from 0.05, ``mistake`` from 0.10, ``blunder``
  from 0.20.  A move the search ranks first, or a forced move (one legal action),
  gets no mark;
* accuracy (:func:`summarise`), as on lichess: a move scores
  :func:`move_accuracy`, ``103.17 * exp(-k * d) - 3.17`` in [0, 100] with ``d`` the
  loss in points and ``k`` = :data:`ACCURACY_K`; lichess's ``k`` is 0.0435, ours is
  steeper because a decision here is a fraction of a turn (a New Haven turn is three
  to six decisions): the same share of a game's chances is spread over more, smaller
  losses.  A player's accuracy (:func:`game_accuracy`) is the mean of two means of
  its moves' scores: weighted by the volatility of its win chance around each move
  (:func:`volatility_weights`: moves in a decided game weigh least) and harmonic (a
  few bad moves pull it down).  ``python -m ailab.accuracy`` calibrates ``k`` by
  self-play between the levels (see the README);
* ``win``: every seat's win chance once the move is made (flat estimate from the
  mover's information set, normalised to sum 1): the points of the graph;
* *luck*: a move is a *draw* when what the mover sees afterwards could not be
  foreseen: the mover's observation after the move differs between worlds the
  mover could not tell apart (a tile, a card, a rotation turned up).  Its luck is
  ``win after the draw`` (estimated from the mover's new information set) minus
  ``win expected before it`` (the same estimate of the move over the worlds the
  mover thought possible), per seat.  The last move of a game is never a draw
  (the end reveals every hand: that is no luck of the draw).

Worlds are sampled with seeds made from the step number and the caller's seed
only -- never the game's seed -- so two games the mover cannot tell apart at a
step get the same analysis there (``tests/ai/test_analysis.py`` checks it).
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .ismcts import SearchParams, playout, search
from .knowledge import GameKnowledge, get_knowledge, search_knowledge

Action = Any
State = Any

__all__ = [
    "ACCURACY_A",
    "ACCURACY_B",
    "ACCURACY_K",
    "CHANCE_FLOOR",
    "DEFAULT_BUDGET",
    "MARKS",
    "SEARCH_PARAMS",
    "WEIGHT_MAX",
    "WEIGHT_MIN",
    "Budget",
    "Decision",
    "analyse_decision",
    "analyse_moves",
    "chance_lost",
    "compare",
    "estimate",
    "game_accuracy",
    "mark_for",
    "move_accuracy",
    "summarise",
    "volatility_weights",
]

#: (mark, smallest loss of win probability), worst first.
MARKS: tuple[tuple[str, float], ...] = (
    ("blunder", 0.20),
    ("mistake", 0.10),
    ("inaccuracy", 0.05),
)
#: The analysis' search: the AI levels' options since issue 13 (shared worlds, macro
#: turns, public keys), with the game's strong knowledge (``search_knowledge``).
SEARCH_PARAMS = SearchParams(world_reuse=None, macro=True, public_keys=True)
#: Probability that a playout step is uniform (as in the search).
PLAYOUT_EPSILON = 0.1
#: A move's accuracy from the points of win chance it lost, ``d`` (lichess's curve):
#: ``ACCURACY_A * exp(-ACCURACY_K * d) - ACCURACY_B``, clamped to [0, 100].
ACCURACY_A = 103.1668
ACCURACY_K = 0.25
ACCURACY_B = 3.1669
#: Win chances below this count as this much in :func:`chance_lost` (0.5%): below it
#: the estimate is mostly noise.
CHANCE_FLOOR = 0.005
#: Volatility weights (:func:`volatility_weights`): bounds and the longest window.
WEIGHT_MIN = 0.5
WEIGHT_MAX = 12.0
WINDOW_MAX = 8


@dataclass(frozen=True)
class Budget:
    """How hard the analysis looks at each decision.

    ``iterations`` ISMCTS iterations per decision (scaled by the game knowledge's
    ``budget_scale``, as the play levels are), ``samples`` playouts per flat
    estimate, ``worlds`` sampled worlds to tell a draw.
    """

    iterations: int = 300
    samples: int = 16
    worlds: int = 3

    def scaled(self, engine: Any) -> int:
        """The ISMCTS iterations for this engine."""
        scale = getattr(get_knowledge(engine), "budget_scale", 1.0)
        return max(1, round(self.iterations * scale))


#: The default budget: about a minute for a 2-player game on one busy core (see README).
DEFAULT_BUDGET = Budget()


@dataclass
class Decision:
    """The analysis of one move (``step`` moves were made before it)."""

    step: int
    seat: int
    played: Action
    best: Action
    value_played: float
    value_best: float
    loss: float
    mark: str | None
    forced: bool
    chance: bool
    #: Every seat's win chance after the move (from the mover's information set).
    win: list[float] = field(default_factory=list)
    #: Every seat's change of win chance on what the move drew (zeros if no draw).
    luck: list[float] = field(default_factory=list)
    choices: int = 1

    def to_json(self, engine: Any) -> dict:
        """JSON data (actions in the engine's notation)."""
        return {
            "step": self.step,
            "seat": self.seat,
            "played": engine.action_to_json(self.played),
            "best": engine.action_to_json(self.best),
            "value_played": round(self.value_played, 4),
            "value_best": round(self.value_best, 4),
            "loss": round(self.loss, 4),
            "mark": self.mark,
            "forced": self.forced,
            "chance": self.chance,
            "win": [round(v, 4) for v in self.win],
            "luck": [round(v, 4) for v in self.luck],
            "choices": self.choices,
        }


def mark_for(loss: float) -> str | None:
    """The mark of a move that lost ``loss`` of win probability (``None``: fine)."""
    for name, threshold in MARKS:
        if loss >= threshold:
            return name
    return None


def step_seed(seed: int, step: int) -> int:
    """The seed of the worlds sampled at ``step``: the caller's seed and the step only."""
    return (seed * 1_000_003 + step * 7_919 + 17) & 0x7FFF_FFFF


def estimate(engine: Any, state: State, seat: int, samples: int, rng: random.Random,
             action: Action | None = None, knowledge: GameKnowledge | None = None) -> list[float]:
    """Mean value per seat of ``state`` (after ``seat`` plays ``action``, if given).

    Flat Monte Carlo from ``seat``'s information set: each sample is a world from
    ``determinize(state, seat)``, the action, a playout and the evaluator.
    """
    knowledge = knowledge or get_knowledge(engine)
    totals: list[float] = []
    count = 0
    for _ in range(max(1, samples)):
        world = engine.determinize(state, seat, rng)
        if action is not None:
            try:
                world = engine.apply(world, seat, action)
            except ValueError:  # IllegalAction: not legal in this world (should not happen)
                continue
        values = list(playout(engine, world, rng, knowledge, PLAYOUT_EPSILON,
                                      knowledge.rollout_depth))
        if not totals:
            totals = [0.0] * len(values)
        for i, v in enumerate(values):
            totals[i] += v
        count += 1
    if not count:
        raise ValueError(f"seat {seat} cannot play {action!r} in any world it imagines")
    return [t / count for t in totals]


def _normalised(values: Sequence[float]) -> list[float]:
    total = sum(values)
    if total <= 0:
        return [1.0 / len(values)] * len(values) if values else []
    return [v / total for v in values]


def _is_draw(engine: Any, state: State, seat: int, action: Action, after: State,
             rng: random.Random, worlds: int) -> bool:
    """Whether the mover could not foresee what it saw after ``action``."""
    if engine.is_over(after):
        return False
    seen = engine.observe(after, seat)
    for _ in range(max(1, worlds)):
        try:
            world = engine.apply(engine.determinize(state, seat, rng), seat, action)
        except ValueError:  # IllegalAction in that world: it cannot tell us anything
            continue
        if engine.observe(world, seat) != seen:
            return True
    return False


def compare(engine: Any, state: State, seat: int, actions: Sequence[Action], samples: int,
            rng: random.Random, knowledge: GameKnowledge) -> list[list[float]]:
    """Every seat's win chance after ``seat`` plays each of ``actions``, measured alike.

    Each of ``samples`` worlds is drawn once from ``seat``'s information set
    (``determinize``) and every action is played in that same world, followed by a
    playout from the same seed and the evaluator (the search's own playout and value):
    common random numbers, so the difference between two actions is not the luck of
    different worlds.  Values are normalised per sample to sum 1 (a chance of
    finishing first).  A world where an action is not legal (it cannot happen with a
    sound engine) is skipped for every action.
    """
    totals: list[list[float]] = [[] for _ in actions]
    count = 0
    for _ in range(max(1, samples)):
        world = engine.determinize(state, seat, rng)
        playout_seed = rng.randrange(2**31)
        rows = []
        try:
            for action in actions:
                after = engine.apply(world, seat, action)
                rows.append(_normalised(list(playout(
                    engine, after, random.Random(playout_seed), knowledge, PLAYOUT_EPSILON,
                    knowledge.rollout_depth))))
        except ValueError:  # IllegalAction in this world
            continue
        for i, row in enumerate(rows):
            totals[i] = row if not totals[i] else [a + b for a, b in zip(totals[i], row,
                                                                          strict=True)]
        count += 1
    if not count:
        raise ValueError(f"seat {seat} cannot play {list(actions)!r} in any world it imagines")
    return [[v / count for v in row] for row in totals]


def chance_lost(value_best: float, value_played: float) -> float:
    """The loss of a move (0 to 0.5): the share of the mover's win chance it gave away,
    counted in win chance of an even two-player game.

    ``0.5 * (best - played) / best``, both chances at least :data:`CHANCE_FLOOR`: a
    fair 50% that drops to 40% loses 0.10 (ten points), and so does a 10% that drops to
    8%, or a 25% (four players) that drops to 20%.  Measured in plain points, a player
    behind would lose nothing whatever they did (a 2% chance cannot drop by 10 points),
    and as games between unequal players are decided early, the weaker player's moves
    would look perfect (issue 20: a random clicker who lost 3-21 got 95%).  A relative
    share needs no scaling by the number of players either.
    """
    best = max(CHANCE_FLOOR, value_best)
    played = max(CHANCE_FLOOR, value_played)
    return max(0.0, 0.5 * (best - played) / best)


def analyse_decision(engine: Any, state: State, seat: int, played: Action, after: State,
                     *, step: int, budget: Budget = DEFAULT_BUDGET, seed: int = 0,
                     previous_win: Sequence[float] | None = None) -> Decision:
    """Judge ``seat`` playing ``played`` in ``state`` (``after`` is the state it led to).

    ``state`` and ``after`` are true states, read only through ``determinize``,
    ``legal_actions`` and ``observe`` for ``seat``.  ``previous_win`` (the curve's
    last point) is kept for a forced move that draws nothing, which costs no search.

    The best move is the one the search visits most; it and the move played are then
    measured alike by :func:`compare` (the same worlds, the same playouts), so the
    search's favourable noise on the move it picked does not count against the player.
    """
    rng = random.Random(step_seed(seed, step))
    knowledge = search_knowledge(engine)
    legal = engine.legal_actions(state, seat)
    chance = _is_draw(engine, state, seat, played, after, rng, budget.worlds)
    if len(legal) <= 1:
        value = 0.0
        win = list(previous_win) if previous_win is not None else []
        expected: list[float] | None = None
        if chance or not win:
            expected = _normalised(
                estimate(engine, state, seat, budget.samples, rng, played, knowledge))
            value = expected[seat]
            win = expected
        decision = Decision(step, seat, played, played, value, value, 0.0, None, True,
                            chance, win, [0.0] * len(win), len(legal))
    else:
        result = search(engine, state, seat, budget.scaled(engine), seed=rng.randrange(2**31),
                        knowledge=knowledge, params=SEARCH_PARAMS)
        best = result.action
        candidates = [best] if played == best else [best, played]
        chances = compare(engine, state, seat, candidates, budget.samples, rng, knowledge)
        expected = chances[-1]
        value_best, value_played = chances[0][seat], expected[seat]
        loss = chance_lost(value_best, value_played) if played != best else 0.0
        decision = Decision(step, seat, played, best, value_played, value_best, loss,
                            mark_for(loss), False, chance, list(expected),
                            [0.0] * len(expected), len(legal))
    if chance and expected is not None:
        now = _normalised(estimate(engine, after, seat, budget.samples, rng, None, knowledge))
        decision.luck = [a - b for a, b in zip(now, expected, strict=True)]
        decision.win = now
    return decision


def analyse_moves(engine: Any, state: State, moves: Sequence[tuple[int, Action]], *,
                  start: int = 0, budget: Budget = DEFAULT_BUDGET, seed: int = 0,
                  previous_win: Sequence[float] | None = None,
                  ) -> Iterator[Decision]:
    """Decisions ``start``, ``start + 1``, ... of the game whose state before move
    ``start`` is ``state`` and whose moves are ``moves`` (``(seat, action)``, all of them).
    """
    win = list(previous_win) if previous_win is not None else None
    for step in range(start, len(moves)):
        seat, action = moves[step]
        after = engine.apply(state, seat, action)
        decision = analyse_decision(engine, state, seat, action, after, step=step,
                                    budget=budget, seed=seed, previous_win=win)
        win = decision.win
        yield decision
        state = after


def volatility_weights(decisions: Sequence[dict], seat: int, num_players: int
                       ) -> list[float]:
    """The weight of each of ``decisions`` in ``seat``'s accuracy (lichess's volatility).

    The seat's win chance (in points) through the game -- a fair ``100 / num_players``
    at the start, then after every move -- is cut into windows of
    :func:`_window` points; a move weighs the standard deviation of the window that
    ends with it, clamped to ``[WEIGHT_MIN, WEIGHT_MAX]``.  Moves where the game swings
    count most; moves in a game long decided (every move as good) count least.
    """
    points = [100.0 / max(1, num_players)]
    for d in decisions:
        win = d.get("win") or []
        points.append(100.0 * float(win[seat]) if len(win) > seat else points[-1])
    size = _window(len(decisions))
    weights = []
    for i in range(len(decisions)):
        window = points[max(0, i + 2 - size):i + 2]
        m = sum(window) / len(window)
        sd = math.sqrt(sum((x - m) ** 2 for x in window) / len(window))
        weights.append(min(WEIGHT_MAX, max(WEIGHT_MIN, sd)))
    return weights


def _window(moves: int) -> int:
    """Points per volatility window: a tenth of the moves, from 2 to ``WINDOW_MAX``."""
    return max(2, min(WINDOW_MAX, moves // 10))


def game_accuracy(accuracies: Sequence[float], weights: Sequence[float] | None = None
                  ) -> float | None:
    """A player's accuracy (0-100) from its moves' :func:`move_accuracy` (lichess's):
    the mean of the volatility-weighted mean and the harmonic mean (each move's accuracy
    at least 1 there); ``None`` without a decision."""
    if not accuracies:
        return None
    weights = list(weights) if weights is not None else [1.0] * len(accuracies)
    weighted = sum(a * w for a, w in zip(accuracies, weights, strict=True)) / sum(weights)
    harmonic = len(accuracies) / sum(1.0 / max(1.0, a) for a in accuracies)
    return (weighted + harmonic) / 2


def summarise(decisions: Sequence[dict], num_players: int) -> list[dict]:
    """Per seat: decisions with a choice, accuracy (0-100), marks and luck.

    ``decisions`` are :meth:`Decision.to_json` dicts.  Accuracy is
    :func:`game_accuracy` over the seat's real choices; luck is the sum of the seat's
    luck over every draw of the game (anyone's draw).
    """
    rows = []
    for seat in range(num_players):
        weights = volatility_weights(decisions, seat, num_players)
        mine = [(d, w) for d, w in zip(decisions, weights, strict=True)
                if d["seat"] == seat and not d["forced"]]
        accuracy = game_accuracy([move_accuracy(float(d["loss"])) for d, _w in mine],
                                 [w for _d, w in mine])
        luck = sum(d["luck"][seat] for d in decisions
                   if d.get("chance") and len(d.get("luck") or []) > seat)
        row = {
            "seat": seat,
            "decisions": len(mine),
            "accuracy": round(accuracy, 1) if accuracy is not None else None,
            "luck": round(luck, 4),
            "draws": sum(1 for d in decisions if d["seat"] == seat and d.get("chance")),
        }
        for name, _threshold in MARKS:
            row[name] = sum(1 for d, _w in mine if d["mark"] == name)
        rows.append(row)
    return rows


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def timed_analysis(engine: Any, variant: dict, players: int, seed: int,
                   moves: Sequence[tuple[int, Action]], budget: Budget,
                   progress: Callable[[int, int], None] | None = None) -> tuple[list[Decision],
                                                                              float, float]:
    """Analyse a whole game; ``(decisions, wall seconds, CPU seconds)``."""
    wall, cpu = time.perf_counter(), _cpu()
    state = engine.new_game(variant, players, seed)
    out = []
    for decision in analyse_moves(engine, state, moves, budget=budget):
        out.append(decision)
        if progress is not None:
            progress(len(out), len(moves))
    return out, time.perf_counter() - wall, _cpu() - cpu


def play_game(engine: Any, variant: dict, players: int, seed: int,
              bot: str = "greedy") -> list[tuple[int, Action]]:
    """A whole game of ``bot`` against itself: its moves."""
    from . import choose_action

    state = engine.new_game(variant, players, seed)
    moves = []
    turn = 0
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        action = choose_action(engine, state, seat, level=bot, seed=seed * 7919 + turn)
        moves.append((seat, action))
        state = engine.apply(state, seat, action)
        turn += 1
    return moves


def move_accuracy(loss: float) -> float:
    """The accuracy (0-100) of a move that lost ``loss`` of win chance (see MODULE)."""
    lost = 100.0 * max(0.0, loss)
    return min(100.0, max(0.0, ACCURACY_A * math.exp(-ACCURACY_K * lost) - ACCURACY_B))
