"""Nouvelle-France's lesson: what only this game needs (its rule data lists no actions:
they are in its rules module)."""

from __future__ import annotations

from lesson_support import taught

from games.engines.nouvellefrance.rules import ACTIONS


def test_the_lesson_covers_every_action_and_the_scoring():
    """Every action kind is a step's right move or an explained wrong one, and one step
    scores, as the issue asks."""
    kinds, scored = taught("nouvellefrance")
    missing = set(ACTIONS) - kinds
    assert not missing, missing
    assert scored
