"""The OpenSpiel side of the anchor: a wrapped engine as a ``pyspiel`` game, and its bots.

Needs the ``anchors`` extra (``pip install -e .[anchors]``).  OpenSpiel's C++ bots
cannot drive a Python game, so the opponents are its Python searches:

* ``openspiel-ismcts``: ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with
  random-rollout evaluation, its resampler wired to the engine's ``determinize``
  for the acting seat (it sees only what that seat sees);
* ``openspiel-mcts-cheat``: ``open_spiel.python.algorithms.mcts.MCTSBot`` on the true
  state: it sees everything, the future draws included (a game is deterministic
  given its seed);
* ``openspiel-pimc``: determinized perfect-information MCTS, ``MCTSBot`` on
  ``worlds`` worlds that ``determinize`` samples from the acting seat's view, the
  decision's budget split evenly over them and the root visit counts summed
  (:func:`ailab.anchor.pimc_choice`).

Both stop on an iteration count or a wall-clock budget per decision, whichever
comes first (the bots themselves only count iterations).
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from . import Wrapped, pimc_choice

__all__ = ["OPPONENTS", "EngineGame", "EngineState", "OpenSpielPlayer"]

#: The opponents the command offers.
OPPONENTS = ("openspiel-ismcts", "openspiel-mcts-cheat", "openspiel-pimc")
#: A bound on the distinct actions of a game (OpenSpiel wants one up front).
MAX_ACTIONS = 1 << 24


def _game_type(name: str, players: int) -> Any:
    return pyspiel.GameType(
        short_name=f"colonia_{name}",
        long_name=f"Colonia {name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players,
        min_num_players=players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification={},
    )


class EngineGame(pyspiel.Game):
    """An engine, variant and player count as an OpenSpiel game (not registered)."""

    def __init__(self, wrapped: Wrapped) -> None:
        info = pyspiel.GameInfo(
            num_distinct_actions=MAX_ACTIONS,
            max_chance_outcomes=0,
            num_players=wrapped.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=100_000,
        )
        super().__init__(_game_type(wrapped.engine.name, wrapped.players), info, {})
        self.wrapped = wrapped

    def new_initial_state(self, seed: int = 0) -> EngineState:
        """The game dealt with ``seed`` (dealt when first read: OpenSpiel's clone
        builds a new initial state and then overwrites it)."""
        return EngineState(self, None, seed)

    def state_of(self, engine_state: Any) -> EngineState:
        """An OpenSpiel state holding ``engine_state`` (no history: searches need none)."""
        return EngineState(self, engine_state)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """Strings only: a seat's ``observe`` view (the same for both kinds of key)."""
        return _Observer(self.wrapped)


class EngineState(pyspiel.State):
    """An engine state behind OpenSpiel's state API (engine states are immutable)."""

    def __init__(self, game: EngineGame, engine_state: Any, seed: int = 0) -> None:
        super().__init__(game)
        self.wrapped = game.wrapped
        self._held = _Held(self.wrapped, engine_state) if engine_state is not None else None
        self._seed = seed

    @property
    def held(self) -> _Held:
        """The engine state and its acting seat (the game is dealt on first use)."""
        if self._held is None:
            self._held = _Held(self.wrapped, self.wrapped.new_game(self._seed))
        return self._held

    @property
    def engine_state(self) -> Any:
        """The engine state this OpenSpiel state stands for."""
        return self.held.state

    def current_player(self) -> int:
        """The acting seat, or ``pyspiel.PlayerId.TERMINAL``."""
        seat = self.held.seat
        return pyspiel.PlayerId.TERMINAL if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        held = self.held
        if held.seat is None or player != held.seat:
            return []
        return self.wrapped.legal_codes(held.state, held.seat)

    def _apply_action(self, action: int) -> None:
        held = self.held
        self._held = _Held(self.wrapped, self.wrapped.apply(held.state, action, held.seat))

    def _action_to_string(self, player: int, action: int) -> str:
        return repr(self.wrapped.codec.decode(action))

    def is_terminal(self) -> bool:
        """True once the engine says the game is over."""
        return self.held.seat is None

    def returns(self) -> list[float]:
        """Win shares (0 while the game runs)."""
        return self.wrapped.returns(self.engine_state)

    def __str__(self) -> str:
        return self.wrapped.info_key(self.engine_state, None)


class _Held:
    """An immutable engine state: OpenSpiel's clone (a deep copy) shares it."""

    __slots__ = ("seat", "state")

    def __init__(self, wrapped: Wrapped, state: Any) -> None:
        self.state = state
        self.seat = wrapped.current_player(state)

    def __deepcopy__(self, memo: dict) -> _Held:
        return self


class _Observer:
    """OpenSpiel's PyObserver: no tensor, the seat's view as the string."""

    def __init__(self, wrapped: Wrapped) -> None:
        self.wrapped = wrapped
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, Any] = {}

    def set_from(self, state: EngineState, player: int) -> None:
        pass

    def string_from(self, state: EngineState, player: int) -> str:
        return self.wrapped.info_key(state.engine_state, player)


class _TimeUp(Exception):
    pass


class _Clock:
    """A deadline checked before each simulation of a bot.

    A bot stops only after two simulations: the first evaluates the root and visits
    no child, and a policy needs a visited child.
    """

    def __init__(self, seconds: float | None) -> None:
        self.deadline = None if seconds is None else time.perf_counter() + seconds
        self.done = 0

    def tick(self) -> None:
        """Count a simulation about to start; ``_TimeUp`` once the time is spent."""
        if self.done >= 2 and self.deadline is not None and time.perf_counter() >= self.deadline:
            raise _TimeUp
        self.done += 1


class _TimedISMCTS(ismcts.ISMCTSBot):
    """ISMCTS that also stops at a deadline."""

    clock = _Clock(None)

    def sample_root_state(self, state: Any) -> Any:
        self.clock.tick()
        return super().sample_root_state(state)

    def timed_step(self, state: Any, seconds: float | None) -> int:
        self.clock = _Clock(seconds)
        try:
            policy = self.run_search(state)
        except _TimeUp:
            policy = self.get_final_policy(state, self._root_node)
        actions, probs = zip(*policy, strict=True)
        return int(self._random_state.choice(actions, p=probs))


class _TimedMCTS(mcts.MCTSBot):
    """MCTS that also stops at a deadline."""

    clock = _Clock(None)
    root: Any = None

    def _apply_tree_policy(self, root: Any, state: Any) -> Any:
        self.root = root
        self.clock.tick()
        return super()._apply_tree_policy(root, state)

    def timed_search(self, state: Any, seconds: float | None) -> Any:
        """The root after the search (stopped at the budget or the deadline)."""
        self.clock = _Clock(seconds)
        try:
            return self.mcts_search(state)
        except _TimeUp:
            return self.root

    def timed_step(self, state: Any, seconds: float | None) -> int:
        return int(self.timed_search(state, seconds).best_child().action)


class OpenSpielPlayer:
    """An arena chooser: ``(engine, state, seat, seed, seconds) -> engine action``.

    Each decision wraps the true state, builds a fresh bot seeded by the arena's
    decision seed and searches ``iterations`` simulations or ``seconds`` of time.
    ``searches`` and ``iterations_done`` count for iterations/s.
    """

    def __init__(
        self, kind: str, wrapped: Wrapped, *, uct_c: float, iterations: int | None = None,
        worlds: int = 8,
    ) -> None:
        if kind not in OPPONENTS:
            raise ValueError(f"unknown opponent {kind!r}; choose from {', '.join(OPPONENTS)}")
        if worlds < 1:
            raise ValueError("PIMC needs at least one world")
        self.kind = kind
        #: Worlds a PIMC decision samples (the budget is split over them).
        self.worlds = worlds
        self.wrapped = wrapped
        self.game = EngineGame(wrapped)
        self.uct_c = uct_c
        self.iterations = iterations
        self.searches = 0
        self.iterations_done = 0

    def bot(self, seed: int) -> _TimedISMCTS | _TimedMCTS:
        """A fresh bot whose every random choice follows ``seed``."""
        np_rng = np.random.RandomState(seed)
        budget = self.iterations if self.iterations is not None else 10**9
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np_rng)
        if self.kind in ("openspiel-mcts-cheat", "openspiel-pimc"):
            return _TimedMCTS(
                self.game, self.uct_c, budget, evaluator, solve=True, random_state=np_rng
            )
        bot = _TimedISMCTS(
            self.game, evaluator, self.uct_c, budget, random_state=np_rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        rng = random.Random(seed)

        def resample(state: EngineState, player: int) -> EngineState:
            world = self.wrapped.resample(state.engine_state, player, rng)
            return self.game.state_of(world)

        bot.set_resampler(resample)
        return bot

    def __call__(
        self, engine: Any, state: Any, seat: int, seed: int, seconds: float | None
    ) -> Any:
        if self.wrapped.current_player(state) != seat:
            raise ValueError(f"seat {seat} is not to act")
        legal = self.wrapped.legal_codes(state)
        if len(legal) == 1:
            return self.wrapped.codec.decode(legal[0])
        if self.kind == "openspiel-pimc":
            result = pimc_choice(
                engine, state, seat, seed, self.worlds, self._search_world,
                iterations=self.iterations,
                seconds=seconds if self.iterations is None else None,
            )
            self.searches += 1
            self.iterations_done += result.iterations
            return result.action
        bot = self.bot(seed)
        code = bot.timed_step(self.game.state_of(state), seconds)
        self.searches += 1
        self.iterations_done += bot.clock.done
        return self.wrapped.codec.decode(code)

    def _search_world(
        self, world: Any, iterations: int | None, seconds: float | None, seed: int
    ) -> tuple[dict[Any, int], int]:
        """One perfect-information MCTS on ``world``: root visits per engine action."""
        bot = self.bot(seed)
        if iterations is not None:
            bot.max_simulations = iterations
        root = bot.timed_search(self.game.state_of(world), seconds)
        decode = self.wrapped.codec.decode
        return {decode(child.action): child.explore_count for child in root.children}, (
            bot.clock.done
        )
