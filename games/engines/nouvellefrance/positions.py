"""Constructed positions: a state a short game does not reach, built by the rules' own
moves of pieces and checked like a stored state (lessons, tests).

A lesson that teaches a rare situation (no face-up card can be played) needs its position
now, not after a whole game's play; building it here keeps what makes that situation --
which pieces leave the game and how -- with the rules, and the result is refused
(``EngineError``) unless it is a state the engine accepts.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..protocol import EngineError
from .rules import card_candidates
from .state import State, state_from_json, state_to_json

__all__ = ["nothing_playable", "without_copies"]


def without_copies(state: State, shapes: Iterable[int]) -> State:
    """``state`` with every copy of ``shapes`` still in the supply gone from the game
    unplayed (``removed_pieces``, as a discard sends a copy back to the box).

    ``EngineError`` for a shape the variant does not have.  The result is read back as a
    stored state is (``state_from_json``: every field checked) and keeps every piece in
    exactly one place: the supply, a site, or out of the game.
    """
    t = state.copy()
    count = len(t.compiled.shapes)
    supply = list(t.supply)
    removed = list(t.removed_pieces)
    for shape in dict.fromkeys(shapes):  # each once, in the order given
        if type(shape) is not int or not 0 <= shape < count:
            raise EngineError(f"Nouvelle-France position: there is no shape {shape!r}")
        removed += [(shape, k) for k, left in enumerate(supply[shape]) if left]
        supply[shape] = (False,) * len(supply[shape])
    t.supply, t.removed_pieces = tuple(supply), tuple(removed)
    built = state_from_json(state_to_json(t))
    _check_pieces(built)
    return built


def nothing_playable(state: State) -> State:
    """The card choice of ``state`` (phase ``card``) with no face-up card playable: every
    copy of the shapes the player may choose from gone from the supply, so the player
    must discard one (``("discard", i)``) and draw again.

    ``EngineError`` unless ``state`` is at a card choice.
    """
    if state.phase != "card":
        raise EngineError(
            f"Nouvelle-France position: a card choice is needed, not phase {state.phase!r}")
    # A card whose shape has no copy left is never playable (rules.shape_playable).
    return without_copies(state, (state.display[i] for i in card_candidates(state)))


def _check_pieces(s: State) -> None:
    """Every copy of every shape is in exactly one place: supply, placed or removed."""
    out = [(shape, k) for shape, k, _site in s.placed] + list(s.removed_pieces)
    if len(out) != len(set(out)):
        raise EngineError("Nouvelle-France position: a piece is out of the game twice")
    for shape, k in out:
        if s.supply[shape][k]:
            raise EngineError(
                f"Nouvelle-France position: piece {shape}/{k} is both in the supply and out")
