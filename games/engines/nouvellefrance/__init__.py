"""Nouvelle-France rules engine (pure Python): see ``rules`` for the turn structure.

Modules: ``variant`` (data, validation, compilation), ``geometry`` (pieces, rotations,
placement by lowering), ``state`` (the state and its JSON), ``rules`` (set-up, legal
actions, apply, scoring), ``events`` (what an action did, as data), ``engine`` (the
protocol object), ``positions`` (constructed positions for lessons and tests).

Where the German rulebook and ``/work/shared/rules/nouvelle-france.md`` disagree, the
rules file is followed:

* the Huron is offered in a window before each draw, to every player with a ready
  Huron, the active player first (German: "before or after another player's turn");
* when no face-up card can be played, the player discards one, chooses which copy of
  its shape leaves the game, and draws again (German: the chosen piece is first
  offered to the other players in turn; whoever places it scores and the active
  player's turn is lost);
* the Coureur des bois is offered clockwise from the active player's left (German:
  whoever calls first).
"""

from __future__ import annotations

from .engine import NouvelleFranceEngine

ENGINE = NouvelleFranceEngine()

__all__ = ["ENGINE", "NouvelleFranceEngine"]
