"""The lesson page's context: a lesson step drawn by the game's board (names no game).

The position is the step's state (``engine.observe`` for the reader's seat) with the
reader's legal actions, so the board offers exactly what the play page would: its picks
link to the step's address, its forms post to the step's ``move`` address.  After a right
move the board shows the position after it, without choices, with the engine's event.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from games.boards import PlayerInfo, Scene, get_board
from games.boards.lessons import Outcome
from games.lessons.selectors import LessonStep

#: The template of the lesson page; its partials wrap the board's.
LESSON_TEMPLATE = "games/lesson.html"


def step_url(game: str, number: int, move: Any = None) -> str:
    """``/learn/<game>/<n>/`` (with ``?move=`` the page shows how that move went)."""
    url = reverse("lesson_step", args=[game, number])
    if move is None:
        return url
    return f"{url}?{urlencode({'move': json.dumps(move, separators=(',', ':'))})}"


#: The seats' names in a lesson (proper names read well in every sentence a board makes
#: of them: "Ann puts the cards back"; the reader's seat is marked "(you)").
NAMES = ("Ann", "Ben", "Cleo", "Dan", "Eve", "Finn")


def _players(current: LessonStep, count: int) -> tuple[PlayerInfo, ...]:
    return tuple(
        PlayerInfo(seat=s, name=(f"{NAMES[s % len(NAMES)]} ({_('you')})" if s == current.seat
                                 else NAMES[s % len(NAMES)]), is_me=s == current.seat)
        for s in range(count)
    )


def lesson_context(current: LessonStep, *, outcome: Outcome | None = None, move: Any = None,
                   params: Any = None, csrf_token: str = "", oob: bool = False) -> dict:
    """Everything ``games/lesson.html`` shows of one step, and of the reader's ``move``
    there when there is one (``outcome``: how it went)."""
    engine = current.engine
    game = current.game
    board = get_board(game)
    right = outcome is not None and outcome.right
    state = outcome.after if right else current.state
    view = engine.observe(state, current.seat)
    rules = engine.rule_data(json.loads(engine.variant_key(state)))
    count = len(view.get("scores") or []) or engine.max_players
    players = _players(current, count)
    names = {p.seat: p.name for p in players}
    legal = () if right else tuple(
        engine.action_to_json(a) for a in engine.legal_actions(state, current.seat))
    version = current.number * 2 + (1 if right else 0)
    scene = Scene(view=view, rules=rules, seat=current.seat, players=players, legal=legal,
                  selection={} if right or params is None else params, version=version,
                  interactive=not right)
    presented = board.present(scene)
    step = current.step
    log = []
    if right and outcome.event is not None:
        log.append({"seq": 1, "event": outcome.event,
                    "text": board.event_text(outcome.event, names, rules)})
    here = step_url(game, current.number)
    return {
        "game_name": game,
        "title": engine.title,
        "lesson": current.lesson,
        "number": current.number,
        "count": current.count,
        "step": step,
        "steps": [
            {"number": i, "title": s.title, "url": step_url(game, i),
             "current": i == current.number}
            for i, s in enumerate(current.lesson.steps, start=1)
        ],
        "outcome": outcome,
        "right": right,
        "wrong": outcome is not None and not outcome.right,
        "move": move,
        "event_text": log[0]["text"] if log else "",
        "next_url": step_url(game, current.number + 1) if not current.last else "",
        "prev_url": step_url(game, current.number - 1) if current.number > 1 else "",
        "rules_url": reverse("rules", args=[game]),
        "board": presented,
        "parts": board.parts(log=f"{LESSON_TEMPLATE}#log"),
        "version": version,
        "oob": oob,
        "csrf_token": csrf_token,
        "my_seat": current.seat,
        "names": names,
        "players": [{"seat": p.seat, "name": p.name, "is_me": p.is_me} for p in players],
        "me": NAMES[current.seat % len(NAMES)],
        "play_url": here,
        "act_url": reverse("lesson_move", args=[game, current.number]),
        "log": log,
        "log_append": False,
        "log_since": None,
    }


def render_fragments(current: LessonStep, **kwargs: Any) -> str:
    """The lesson panel and the board's fragments, as out-of-band swaps (HTMX)."""
    context = lesson_context(current, oob=True, **kwargs)
    return render_to_string(f"{LESSON_TEMPLATE}#fragments", context)
