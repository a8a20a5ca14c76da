"""Reading a lesson step and judging a reader's move in it: selectors, since nothing is
written (a lesson lives in the address).  Names no game: the lesson, the engine and the
goal come from the catalogue."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from games.boards.lessons import Lesson, Outcome, Step, get_lesson, judge
from games.engines import get_engine

__all__ = ["MAX_MOVE_BYTES", "LessonStep", "lesson_step", "parse_move", "try_move"]

#: A lesson's moves are tiny: longer text is refused before it is parsed.
MAX_MOVE_BYTES = 2048


@dataclass
class LessonStep:
    """Step ``number`` (1-based) of ``game``'s lesson, with its position and reader's seat."""

    game: str
    lesson: Lesson
    number: int
    step: Step
    engine: Any
    state: Any
    seat: int

    @property
    def count(self) -> int:
        """How many steps the lesson has."""
        return len(self.lesson.steps)

    @property
    def last(self) -> bool:
        """Whether this is the lesson's last step."""
        return self.number >= self.count


def lesson_step(game: str, *, number: int) -> LessonStep | None:
    """The step, its position built with the engine; ``None`` when there is no such step."""
    lesson = get_lesson(game) if isinstance(game, str) else None
    if lesson is None or not 1 <= number <= len(lesson.steps):
        return None
    engine = get_engine(game)
    step = lesson.steps[number - 1]
    state = step.state(engine)
    return LessonStep(game=game, lesson=lesson, number=number, step=step, engine=engine,
                      state=state, seat=step.seat(engine, state))


def parse_move(raw: Any) -> Any:
    """The posted action JSON, or ``None`` for anything that is not small JSON."""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_MOVE_BYTES:
        return None
    try:
        return json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        return None


def try_move(current: LessonStep, *, action: Any) -> Outcome:
    """Judge the reader's move (its action JSON) in the step (see
    ``games.boards.lessons.judge``)."""
    return judge(current.engine, current.step, current.state, action)
