"""Lessons ("Learn to play"): what a game's lesson is made of, and how a move is judged.

A game's lesson is data in the game's own package (its catalogue entry's ``lessons``
names a module defining ``LESSON``, a :class:`Lesson`).  Each :class:`Step` is a position
built with the engine -- a variant, a player count, a seed and a prefix of actions
(:func:`from_seed`), or any other function of the engine that returns a state -- and the
move the reader must make there: the expected actions (``expect``) or a predicate on the
move (``goal``, e.g. "completes a row").  A wrong move gets an explanation: the first
:class:`Hint` of the step that matches it, else a generic one with the step's rule text.

:func:`judge` checks a move: first the engine (parse, then ``apply``: an illegal move is
explained by the step's hint or its rule, the engine's own message only in English), then
the step's goal.  The generic lesson feature (``games.lessons``) draws the position with
the game's board and names no game.

>>> matches({"type": "ship"}, {"type": "ship", "row": 1, "col": 2, "resource": "wheat"})
True
>>> matches(["card"], ["copy", 0])
False
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games import catalogue
from games.engines import get_engine
from games.engines.protocol import EngineError

__all__ = [
    "Hint",
    "Lesson",
    "Outcome",
    "Step",
    "from_seed",
    "get_lesson",
    "judge",
    "lesson_names",
    "matches",
    "play_until",
]

#: A predicate on a move: ``goal(engine, before, seat, action, after) -> bool``.
Goal = Callable[[Any, Any, int, Any, Any], bool]


def matches(pattern: Any, action_json: Any) -> bool:
    """Whether ``action_json`` fits ``pattern``: a dict matches the actions holding all its
    items, a list the actions starting with it, a callable decides itself."""
    if callable(pattern):
        return bool(pattern(action_json))
    if isinstance(pattern, dict):
        return isinstance(action_json, dict) and all(
            action_json.get(k) == v for k, v in pattern.items())
    if isinstance(pattern, list | tuple):
        return isinstance(action_json, list | tuple) and \
            list(action_json[: len(pattern)]) == list(pattern)
    return pattern == action_json


@dataclass(frozen=True)
class Hint:
    """A specific explanation of a wrong move: ``text`` for the moves matching ``when``
    (a pattern for :func:`matches`).  ``legal=False`` hints explain moves the engine
    refuses (they are checked before the engine's own message)."""

    when: Any
    text: Any
    legal: bool = True


@dataclass(frozen=True)
class Step:
    """One position of a lesson and the move it asks for.

    ``position(engine)`` returns the state; the reader plays the seat to move.  A move is
    right when it is one of ``expect`` (action JSON) or when ``goal`` holds.  ``task`` says
    what to do, ``rule`` is the rule the step teaches (shown with a generic explanation of
    a wrong move), ``done`` what the reader learnt once the move is made.
    """

    key: str
    title: Any
    task: Any
    rule: Any
    done: Any
    position: Callable[[Any], Any]
    expect: Sequence[Any] = ()
    goal: Goal | None = None
    hints: Sequence[Hint] = ()

    def state(self, engine: Any) -> Any:
        """The step's position (built afresh: states are cheap and steps are few)."""
        return self.position(engine)

    def seat(self, engine: Any, state: Any) -> int:
        """The seat the reader plays: the first seat to move."""
        return engine.to_move(state)[0]

    def is_right(self, engine: Any, before: Any, seat: int, action: Any, after: Any) -> bool:
        """Whether a legal move reaches the step's goal."""
        action_json = engine.action_to_json(action)
        if any(_same(e, action_json) for e in self.expect):
            return True
        return self.goal is not None and bool(self.goal(engine, before, seat, action, after))

    def hint(self, action_json: Any, *, legal: bool) -> str:
        """The first specific explanation for this move ("" when none fits)."""
        for h in self.hints:
            if h.legal == legal and matches(h.when, action_json):
                return str(h.text)
        return ""


def _same(expected: Any, action_json: Any) -> bool:
    """An expected action (JSON, given in full) equals the move."""
    if isinstance(expected, list | tuple) and isinstance(action_json, list | tuple):
        return list(expected) == list(action_json)
    return expected == action_json


@dataclass(frozen=True)
class Lesson:
    """A game's lesson: a title, an introduction and its steps, in order."""

    game: str
    title: Any
    intro: Any
    steps: Sequence[Step] = field(default_factory=tuple)


@dataclass
class Outcome:
    """What :func:`judge` found: ``right`` (the goal is met), ``legal`` (the engine took
    the move), ``explanation`` (of a wrong move), ``event`` (the engine's event of a right
    move) and ``after`` (the state after a legal move)."""

    right: bool
    legal: bool
    explanation: str = ""
    event: dict | None = None
    after: Any = None


def from_seed(variant: str, players: int, seed: int, prefix: Sequence[Any] = ()
              ) -> Callable[[Any], Any]:
    """A position: the shipped variant ``variant`` for ``players`` and ``seed``, then the
    actions ``prefix`` (action JSON), each by the first seat to move."""

    def build(engine: Any) -> Any:
        state = engine.new_game(engine.default_variants()[variant], players, seed)
        for action in prefix:
            state = engine.apply(state, engine.to_move(state)[0], engine.action_from_json(action))
        return state

    return build


def play_until(variant: str, players: int, seed: int,
               choose: Callable[[Any, Any, int, list], Any],
               until: Callable[[Any, Any, int], bool], *, limit: int = 2000
               ) -> Callable[[Any], Any]:
    """A position reached by playing on: from ``variant``, ``players`` and ``seed`` the seat
    to move plays ``choose(engine, state, seat, legal_actions)`` until
    ``until(engine, state, seat)`` holds (deterministic: a fold of actions like any game).
    ``LookupError`` when the game ends (or ``limit`` actions pass) first."""

    def build(engine: Any) -> Any:
        state = engine.new_game(engine.default_variants()[variant], players, seed)
        for _turn in range(limit):
            if engine.is_over(state):
                break
            seat = engine.to_move(state)[0]
            if until(engine, state, seat):
                return state
            state = engine.apply(state, seat,
                                 choose(engine, state, seat, engine.legal_actions(state, seat)))
        raise LookupError("the lesson's position was never reached")

    return build


def _english() -> bool:
    """Whether the reader reads English (the engines' language)."""
    return (get_language() or "en").split("-")[0] == "en"


def judge(engine: Any, step: Step, state: Any, action_json: Any) -> Outcome:
    """Check the move ``action_json`` of the reader in ``step``'s position ``state``:
    the engine first (is it legal?), then the step's goal.

    An illegal move is explained by the step's own hint for it, else by a generic text
    with the step's rule; the engine's refusal (English text) is added only for a reader
    of English -- never English inside a translated page."""
    seat = step.seat(engine, state)
    try:
        action = engine.action_from_json(action_json)
        after = engine.apply(state, seat, action)
    except EngineError as exc:
        specific = step.hint(action_json, legal=False)
        if specific:
            return Outcome(right=False, legal=False, explanation=specific)
        if _english():  # the engine's refusal says why, but only in English
            explanation = _("The rules do not allow that move: %(reason)s %(rule)s") % {
                "reason": str(exc), "rule": step.rule}
        else:
            explanation = _("The rules do not allow that move. %(rule)s") % {
                "rule": step.rule}
        return Outcome(right=False, legal=False, explanation=explanation)
    if step.is_right(engine, state, seat, action, after):
        return Outcome(right=True, legal=True, event=engine.describe_action(state, action),
                       after=after)
    specific = step.hint(action_json, legal=True)
    return Outcome(right=False, legal=True, after=after, explanation=specific or _(
        "That move is allowed, but it is not what this step asks for. %(rule)s"
    ) % {"rule": step.rule})


def lesson_names() -> list[str]:
    """The games whose catalogue entry names a lesson (and that have a board), sorted."""
    return [name for name in catalogue.game_names()
            if getattr(catalogue.entry(name), "lessons", None) and catalogue.entry(name).board]


@cache
def get_lesson(name: str) -> Lesson | None:
    """The lesson of the game ``name``; ``None`` when it has none."""
    game = catalogue.entry(name)
    if game is None or not getattr(game, "lessons", None) or not game.board:
        return None
    get_engine(name)  # the lesson's positions need the engine: fail early if it is missing
    return import_module(game.lessons).LESSON


catalogue.on_change(get_lesson.cache_clear)
