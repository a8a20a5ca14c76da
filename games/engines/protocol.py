"""The protocol every game engine implements.

An engine is a stateless object (one per game) whose methods take and return
immutable-by-convention *states*.  A game is a fold of actions over
``new_game(variant, num_players, seed)``: the same variant, player count, seed
and actions always give the same game, on any machine.

This module is pure Python (standard library only): no Django, Channels or
Celery import may reach ``games.engines`` (an import-linter contract checks it).

Conventions shared by every engine
----------------------------------
* Seats are ``0 .. num_players-1`` in clockwise order.  ``None`` as a seat
  means a spectator.
* An *action* is a small, immutable, hashable value (a tuple or a frozen
  dataclass).  A turn is a sequence of small actions so a person and a search
  can act step by step.
* ``apply`` never mutates its input: it returns a new state.  Any action that
  is not legal for that seat now, garbage included, raises ``IllegalAction``
  with a message a player understands, and the input state is unchanged.
* ``observe(state, seat)`` is the *only* way hidden information leaves an
  engine: every output (HTML, API, socket, replay, log) is built from it.  It
  holds everything ``seat`` may know and nothing else; the seed and generator
  state never appear in it.
* ``determinize(state, seat, rng)`` returns a state that ``seat`` cannot tell
  apart from ``state`` (``observe`` is equal) with everything ``seat`` cannot
  see resampled from ``rng`` (a ``random.Random``).
* ``reveal(state)`` is ``observe`` with nothing hidden (every hand, the deck or
  bag order): for finished games and post-game study only.  Callers decide when
  it may be shown; the engine just computes it.

Rule data
---------
``rule_data(variant)`` is the one place where renderers, the AI and the rules
editor read a variant's rules: no rule number lives outside ``games.engines``.
It is JSON-able, static for the variant (the same for every state), cached, and
has one envelope for every game::

    {
      "game": "newhaven",            # the engine name
      "title": "New Haven",          # the game's display name (a proper name)
      "variant": "standard",         # the variant's name
      "description": "...",          # the variant's description ("" if none)
      "player_counts": [2, 3, 4],    # player counts this variant can be played with
      ...                            # game-specific keys, documented in the engine
    }

Events
------
``describe_action(state, action)`` returns an *event*: JSON data, never prose::

    {"type": "built", "seat": 0, "resource": "wheat", "number": 4,
     "space": [2, 1], "face_up": True}

``type`` names the event (each engine documents its types and fields), ``seat``
is the acting seat.  An event holds only what every seat may know once the action
is taken (it is shown to everyone and stored in the move log); a web layer turns
it into translatable text with the players' names.  An action that is not legal
raises ``IllegalAction``.

States
------
``state_to_json`` carries a ``"format"`` number; ``state_from_json`` validates
what it reads and raises ``EngineError`` for malformed data or an unknown format.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any, Protocol, TypeAlias, runtime_checkable

__all__ = [
    "Action",
    "Engine",
    "EngineError",
    "IllegalAction",
    "InvalidVariant",
    "Seat",
    "State",
]

#: An action: immutable and hashable (tuples of ints/strings, frozen dataclasses).
Action: TypeAlias = Hashable
#: A game state.  Opaque to callers; each engine picks its own compact layout.
State: TypeAlias = Any
#: A seat index, or ``None`` for a spectator.
Seat: TypeAlias = int | None


class EngineError(Exception):
    """Base class of every error an engine raises on purpose."""


class IllegalAction(EngineError, ValueError):
    """An action that is not legal for this seat in this state.

    The message is meant for the player ("That cell is already taken.").
    """


class InvalidVariant(EngineError, ValueError):
    """Variant data that is malformed or not playable.

    ``problems`` lists human-readable messages, each naming the field at fault.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems) or "invalid variant")


@runtime_checkable
class Engine(Protocol):
    """What the web app, the AI and the tests may call on an engine."""

    name: str
    #: The game's display name ("New Haven").
    title: str
    min_players: int
    max_players: int

    # -- variants ---------------------------------------------------------
    def default_variants(self) -> dict[str, dict]:
        """Variant name -> variant data (JSON-able), a fresh copy each call."""

    def variant_schema(self) -> dict:
        """The JSON Schema of this engine's variant data."""

    def validate_variant(self, variant: dict) -> list[str]:
        """Human-readable problems, each naming the field; ``[]`` when playable.

        Plain English lines (``"village.rows: must be ..."``), or better
        ``games.engines.problems.Problem``s: the same lines carrying path, template and
        parameters, which the rules editor shows in the reader's language (an engine that
        has them also offers ``problem_templates()``, its templates for the catalogues)."""

    def rule_data(self, variant: dict) -> dict:
        """The rule data of a valid variant (see "Rule data" above); ``InvalidVariant``."""

    # -- playing ----------------------------------------------------------
    def new_game(self, variant: dict, num_players: int, seed: int) -> State:
        """The initial state.  Raises ``InvalidVariant`` for unplayable data."""

    def to_move(self, state: State) -> list[int]:
        """Seats that may act now; ``[]`` when the game is over."""

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (``[]`` if it may not act)."""

    def apply(self, state: State, seat: int, action: Action) -> State:
        """A new state after ``seat`` takes ``action``; raises ``IllegalAction``."""

    def is_over(self, state: State) -> bool:
        """True once the game has ended."""

    def scores(self, state: State) -> list[int]:
        """Current (or final) score of every seat."""

    def winners(self, state: State) -> list[int]:
        """Seats that share the win after tie-breaks; ``[]`` while running."""

    # -- information ------------------------------------------------------
    def variant_key(self, state: State) -> str:
        """The variant ``state`` is played with, as canonical JSON text (public).

        Every state of one variant gives an equal string, so callers (the AI) cache
        what they derive from ``rule_data(json.loads(key))`` by it.
        """

    def observe(self, state: State, seat: Seat) -> dict:
        """JSON view of ``state`` for ``seat`` (``None`` = spectator)."""

    def determinize(self, state: State, seat: Seat, rng: random.Random) -> State:
        """A state ``seat`` cannot tell from ``state``, hidden parts resampled."""

    def reveal(self, state: State) -> dict:
        """``observe`` with nothing hidden: every hand, the deck/bag/pool order.

        The same keys as ``observe(state, None)`` plus ``"revealed"`` (the game's
        hidden parts).  Only for finished games and post-game study.
        """

    # -- serialisation ----------------------------------------------------
    def state_to_json(self, state: State) -> dict:
        """The full state (hidden parts included) as JSON-able data."""

    def state_from_json(self, data: dict) -> State:
        """Inverse of ``state_to_json``."""

    def action_to_json(self, action: Action) -> Any:
        """An action as JSON-able data."""

    def action_from_json(self, data: Any) -> Action:
        """Inverse of ``action_to_json``; raises ``IllegalAction`` on garbage."""

    def describe_action(self, state: State, action: Action) -> dict:
        """The event of ``action`` taken in ``state`` (see "Events" above).

        It holds nothing that is hidden from any seat; ``IllegalAction`` when the
        action is not legal in ``state``.
        """

    # -- simulation -------------------------------------------------------
    def figures(self, events: list[dict], state: State) -> dict[str, float]:
        """Game-specific figures of one finished game, for simulation reports.

        ``events`` are the events of every action in order, ``state`` the final
        state; e.g. ``{"turns": 40, "unplaceable_share": 0.03}``.  Names are
        snake_case; ``turns`` (the turns the game lasted, all seats together) is
        always there.
        """
