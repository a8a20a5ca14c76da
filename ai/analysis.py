"""Post-game analysis: every decision judged from the mover's information set.

``python -m tools.analysis newhaven --seed 3`` plays a game with the greedy bot and
analyses it at the default budget, printing the wall-clock and CPU time.

What a decision gets (:class:`Decision`), always from what the *mover* knew when
it acted -- the true state is read only through ``engine.determinize(state,
mover, rng)``, the mover's own ``legal_actions`` and ``observe(state, mover)``:

* an ISMCTS search (:func:`ai.ismcts.search`) ranks the mover's actions; the
  *best* move is the most visited one, its *value* its mean value for the mover
  (about a win probability, in [0, 1]); the *played* move's value is its own
  mean when the search tried it at least :data:`MIN_VISITS` times, otherwise
  both moves are re-estimated with the same flat Monte-Carlo estimate
  (determinize, play the move, a playout, the game's evaluator), so the two
  values are always measured alike;
* the *loss* is ``value_best - value_played`` (never below 0) and gives the
  *mark* (:data:`MARKS`): ``inaccuracy`` from 0.05, ``mistake`` from 0.10,
  ``blunder`` from 0.20 of win probability lost.  A move the search ranks first,
  or a forced move (one legal action), gets no mark;
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

import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .ismcts import playout, search
from .knowledge import GameKnowledge, get_knowledge

Action = Any
State = Any

__all__ = [
    "DEFAULT_BUDGET",
    "MARKS",
    "MIN_VISITS",
    "Budget",
    "Decision",
    "analyse_decision",
    "analyse_moves",
    "estimate",
    "mark_for",
    "summarise",
]

#: (mark, smallest loss of win probability), worst first.
MARKS: tuple[tuple[str, float], ...] = (
    ("blunder", 0.20),
    ("mistake", 0.10),
    ("inaccuracy", 0.05),
)
#: A played move the search tried fewer times than this is re-estimated (with the best).
MIN_VISITS = 8
#: Probability that a playout step is uniform (as in the search).
PLAYOUT_EPSILON = 0.1
#: Loss at which a move's accuracy reaches 0 (accuracy = 100 * (1 - loss / this)).
ACCURACY_ZERO = 0.25


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


def analyse_decision(engine: Any, state: State, seat: int, played: Action, after: State,
                     *, step: int, budget: Budget = DEFAULT_BUDGET, seed: int = 0,
                     previous_win: Sequence[float] | None = None) -> Decision:
    """Judge ``seat`` playing ``played`` in ``state`` (``after`` is the state it led to).

    ``state`` and ``after`` are true states, read only through ``determinize``,
    ``legal_actions`` and ``observe`` for ``seat``.  ``previous_win`` (the curve's
    last point) is kept for a forced move that draws nothing, which costs no search.
    """
    rng = random.Random(step_seed(seed, step))
    knowledge = get_knowledge(engine)
    legal = engine.legal_actions(state, seat)
    chance = _is_draw(engine, state, seat, played, after, rng, budget.worlds)
    if len(legal) <= 1:
        value = 0.0
        win = list(previous_win) if previous_win is not None else []
        expected: list[float] | None = None
        if chance or not win:
            expected = estimate(engine, state, seat, budget.samples, rng, played, knowledge)
            value = expected[seat]
            win = _normalised(expected)
        decision = Decision(step, seat, played, played, value, value, 0.0, None, True,
                            chance, win, [0.0] * len(win), len(legal))
    else:
        result = search(engine, state, seat, budget.scaled(engine), seed=rng.randrange(2**31),
                        knowledge=knowledge)
        stats = {s.action: s for s in result.stats}
        best = result.action
        value_best = stats[best].value if best in stats else 0.0
        expected = estimate(engine, state, seat, budget.samples, rng, played, knowledge)
        mine = stats.get(played)
        if played == best:
            value_played = value_best
        elif mine is not None and mine.visits >= MIN_VISITS:
            value_played = mine.value
        else:
            # Too few visits to trust: measure both moves the same (flat) way.
            value_played = expected[seat]
            value_best = estimate(engine, state, seat, budget.samples, rng, best, knowledge)[seat]
        loss = max(0.0, value_best - value_played) if played != best else 0.0
        win = _normalised(expected)
        decision = Decision(step, seat, played, best, value_played, value_best, loss,
                            mark_for(loss), False, chance, win, [0.0] * len(win), len(legal))
    if chance and expected is not None:
        now = _normalised(estimate(engine, after, seat, budget.samples, rng, None, knowledge))
        before = _normalised(expected)
        decision.luck = [a - b for a, b in zip(now, before, strict=True)]
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


def summarise(decisions: Sequence[dict], num_players: int) -> list[dict]:
    """Per seat: decisions with a choice, accuracy (0-100), marks and luck.

    ``decisions`` are :meth:`Decision.to_json` dicts.  Accuracy is the mean of
    ``100 * max(0, 1 - loss / ACCURACY_ZERO)`` over the seat's real choices; luck
    is the sum of the seat's luck over every draw of the game (anyone's draw).
    """
    rows = []
    for seat in range(num_players):
        mine = [d for d in decisions if d["seat"] == seat and not d["forced"]]
        scores = [100.0 * max(0.0, 1.0 - d["loss"] / ACCURACY_ZERO) for d in mine]
        luck = sum(d["luck"][seat] for d in decisions
                   if d.get("chance") and len(d.get("luck") or []) > seat)
        row = {
            "seat": seat,
            "decisions": len(mine),
            "accuracy": round(sum(scores) / len(scores), 1) if scores else None,
            "luck": round(luck, 4),
            "draws": sum(1 for d in decisions if d["seat"] == seat and d.get("chance")),
        }
        for name, _threshold in MARKS:
            row[name] = sum(1 for d in mine if d["mark"] == name)
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
