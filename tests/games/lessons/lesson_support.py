"""Shared by the lesson tests: what a game's lesson teaches (no game named here)."""

from __future__ import annotations

from typing import Any

from games.boards.lessons import get_lesson, judge
from games.engines import get_engine


def kind(action_json: Any) -> str:
    """An action's kind: its ``type`` (an object) or its first item (a list)."""
    return action_json["type"] if isinstance(action_json, dict) else action_json[0]


def taught(game: str) -> tuple[set[str], bool]:
    """The action kinds ``game``'s lesson teaches (a step's right move, an explained wrong
    one) and whether one of its steps scores (the reader's score goes up)."""
    engine = get_engine(game)
    kinds, scored = set(), False
    for step in get_lesson(game).steps:
        state = step.state(engine)
        seat = step.seat(engine, state)
        for action in engine.legal_actions(state, seat):
            move = engine.action_to_json(action)
            outcome = judge(engine, step, state, move)
            if outcome.right:
                kinds.add(kind(move))
                scored = scored or engine.scores(outcome.after)[seat] > engine.scores(state)[seat]
            elif step.hint(move, legal=True):
                kinds.add(kind(move))
        kinds.update(kind(h.when) for h in step.hints if not h.legal)
    return kinds, scored
