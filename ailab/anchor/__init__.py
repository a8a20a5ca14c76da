"""An independent anchor for our AI: any engine wrapped as an OpenSpiel game.

``python -m ailab.anchor --game newhaven --opponent openspiel-ismcts --games 40 --equal time``
plays one of our levels against OpenSpiel's own Python searches through the arena
(:mod:`ailab.arena`: seat-swapped games, Wilson intervals, mean scores, s/move).
OpenSpiel is an optional extra (``pip install -e .[anchors]``); only
:mod:`ailab.anchor.openspiel` and the command import it.

This module is the pure part, the protocol bookkeeping of the wrapping, with no
OpenSpiel import:

* OpenSpiel actions are integers: :class:`ActionCodec` gives each engine action a
  number the first time it is seen (the number is only an identity: legal actions
  keep the engine's order, so a seed replays whatever was numbered before);
* a game is deterministic given its seed (``new_game(variant, players, seed)``), so
  the wrapped game has no chance nodes: OpenSpiel's ISMCTS samples the hidden
  parts through the engine's ``determinize``;
* returns are win shares (1, or 1/k for a k-way shared win, else 0): constant sum 1;
* a seat's information key is its ``observe`` view as canonical JSON;
* PIMC (determinized perfect-information MCTS, :func:`pimc_choice`): the budget is
  split over worlds sampled by ``determinize`` from the acting seat's view, one
  perfect-information search runs in each, and the root visit counts of the seat's
  actions are summed into votes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import ai
from ai.ismcts import search

__all__ = [
    "ActionCodec", "LevelPlayer", "PimcResult", "Wrapped", "pimc_choice", "split_budget",
    "win_shares",
]

State = Any


class ActionCodec:
    """Engine actions <-> OpenSpiel's integer actions, numbered as first seen."""

    def __init__(self) -> None:
        self._codes: dict[Hashable, int] = {}
        self._actions: list[Hashable] = []

    def __len__(self) -> int:
        return len(self._actions)

    def encode(self, action: Hashable) -> int:
        """The number of ``action`` (a new one the first time)."""
        code = self._codes.get(action)
        if code is None:
            code = self._codes[action] = len(self._actions)
            self._actions.append(action)
        return code

    def decode(self, code: int) -> Hashable:
        """The engine action numbered ``code``; ``KeyError`` for a number never given."""
        if not 0 <= code < len(self._actions):
            raise KeyError(f"no action is numbered {code}")
        return self._actions[code]


def win_shares(engine: Any, state: State) -> list[float]:
    """Each seat's share of the win of a finished game (zeros while it runs)."""
    n = len(engine.scores(state))
    if not engine.is_over(state):
        return [0.0] * n
    winners = engine.winners(state)
    return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(n)]


class Wrapped:
    """One engine, variant and player count seen the way OpenSpiel sees a game."""

    def __init__(self, engine: Any, variant: dict, players: int) -> None:
        self.engine = engine
        self.variant = variant
        self.players = players
        self.codec = ActionCodec()

    def __deepcopy__(self, memo: dict) -> Wrapped:
        # A shared context, never copied (OpenSpiel clones a Python state by deep copy).
        return self

    def new_game(self, seed: int) -> State:
        """The engine's initial state for ``seed`` (the whole of the game's chance)."""
        return self.engine.new_game(self.variant, self.players, seed)

    def current_player(self, state: State) -> int | None:
        """The seat to act, ``None`` once the game is over.

        Like the arena, the first of the seats that may act (the engines are sequential).
        """
        seats = self.engine.to_move(state)
        return seats[0] if seats and not self.engine.is_over(state) else None

    def legal_codes(self, state: State, seat: int | None = None) -> list[int]:
        """The numbers of the acting seat's legal actions, in the engine's order.

        ``seat`` may pass the acting seat when the caller knows it already.
        """
        if seat is None:
            seat = self.current_player(state)
            if seat is None:
                return []
        encode = self.codec.encode
        return [encode(a) for a in self.engine.legal_actions(state, seat)]

    def apply(self, state: State, code: int, seat: int | None = None) -> State:
        """The state after the acting seat (``seat`` if known) takes action ``code``."""
        if seat is None:
            seat = self.current_player(state)
            if seat is None:
                raise ValueError("the game is over")
        return self.engine.apply(state, seat, self.codec.decode(code))

    def returns(self, state: State) -> list[float]:
        """Win shares (see :func:`win_shares`)."""
        return win_shares(self.engine, state)

    def info_key(self, state: State, seat: int) -> str:
        """What ``seat`` knows of ``state``: its ``observe`` view as canonical JSON."""
        view = self.engine.observe(state, seat)
        return json.dumps(view, sort_keys=True, separators=(",", ":"), default=str)

    def resample(self, state: State, seat: int, rng: random.Random) -> State:
        """A state ``seat`` cannot tell from ``state`` (``determinize``)."""
        return self.engine.determinize(state, seat, rng)


class LevelPlayer:
    """An arena chooser for one of our search levels with a fixed budget per decision.

    ``iterations`` (equal iterations) or the arena's ``seconds`` (equal time) end
    each search; ``searches`` and ``iterations_done`` count for iterations/s.
    """

    def __init__(self, level: str, iterations: int | None = None) -> None:
        if level not in ai.LEVELS:
            raise ValueError(
                f"unknown search level {level!r}; choose from {', '.join(ai.LEVELS)}"
            )
        self.params = ai.LEVELS[level].params
        self.iterations = iterations
        self.searches = 0
        self.iterations_done = 0

    def __call__(
        self, engine: Any, state: State, seat: int, seed: int, seconds: float | None
    ) -> Any:
        actions = engine.legal_actions(state, seat)
        if len(actions) == 1:
            return actions[0]
        if self.iterations is None and seconds is None:
            raise ValueError("give an iteration budget or seconds per decision")
        result = search(
            engine, state, seat, self.iterations if self.iterations is not None else 10**9,
            time_limit=seconds if self.iterations is None else None,
            seed=seed, params=self.params,
        )
        self.searches += 1
        self.iterations_done += result.iterations
        return result.action


def split_budget(total: int, parts: int) -> list[int]:
    """``total`` spread over ``parts`` as evenly as possible, each part at least 1."""
    if parts < 1:
        raise ValueError("at least one part")
    base, extra = divmod(max(total, parts), parts)
    return [base + (k < extra) for k in range(parts)]


#: One perfect-information search: ``(world, iterations, seconds, seed) -> (root visits
#: per engine action, iterations done)``; ``iterations`` or ``seconds`` may be ``None``.
WorldSearch = Callable[
    [State, "int | None", "float | None", int], "tuple[Mapping[Hashable, int], int]"
]


@dataclass
class PimcResult:
    """A PIMC decision: the action, the summed votes and the work done."""

    action: Hashable
    votes: dict[Hashable, int] = field(default_factory=dict)
    worlds: int = 0
    iterations: int = 0


def pimc_choice(
    engine: Any,
    state: State,
    seat: int,
    seed: int,
    worlds: int,
    search_world: WorldSearch,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
) -> PimcResult:
    """Determinized perfect-information search for ``seat``: sum the root votes of
    ``search_world`` over ``worlds`` worlds ``engine.determinize`` samples from the
    seat's view (the true state is read only through it), and take the most voted of
    the seat's legal actions (ties: the engine's order).

    ``iterations`` (split evenly over the worlds) or ``seconds`` (likewise) is the
    whole decision's budget.
    """
    if (iterations is None) == (seconds is None):
        raise ValueError("give an iteration budget or seconds, not both")
    legal = engine.legal_actions(state, seat)
    budgets: list[int | None] = (
        list(split_budget(iterations, worlds)) if iterations is not None else [None] * worlds
    )
    rng = random.Random(seed)
    votes = dict.fromkeys(legal, 0)
    done = 0
    for k, budget in enumerate(budgets):
        world = engine.determinize(state, seat, rng)
        world_votes, used = search_world(
            world, budget, None if seconds is None else seconds / worlds,
            (seed * 7919 + k) & 0x7FFFFFFF,
        )
        done += used
        for action, count in world_votes.items():
            if action in votes:
                votes[action] += count
    best = max(legal, key=lambda a: votes[a])  # the first of the most voted
    return PimcResult(best, votes, len(budgets), done)
