"""The replay page's context, for every game: a replay step drawn by the game's board.

Generic (names no game): :func:`replay_context` turns a :class:`games.replay.selectors.ReplayStep`
into the context of ``games/replay.html``; the board draws the step with its ``layout``
(``Scene.interactive=False``, no picks, no forms).

The analysis slot
-----------------
The page has an empty region ``<section id="analysis-panel">`` (the ``analysis`` partial of
``games/replay.html``).  A feature fills it by listening to
``games.replay.signals.replay_shown``: its receiver is called for every rendered step
(page and HTMX swap) with ``replay`` (the :class:`~games.replay.selectors.ReplayStep`,
already access-checked: it holds only what the viewer may see at that step) and
``viewer``.  A dict it returns must hold ``template`` (an include name) and may hold
anything else; the template is included inside ``#analysis-panel`` with the dict as
``panel`` (and the whole replay context around it).  Returning ``None`` shows nothing for
that step.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games.boards import Board, Scene, default_event_text, get_board
from games.core.selectors import (
    game_label,
    players_of,
    rule_data,
    seat_of,
    seats_of,
    variant_label,
)
from games.models import Game
from games.replay.selectors import (
    Perspective,
    ReplayStep,
    cache_get_many,
    cache_key,
    cache_set_many,
)
from games.replay.signals import replay_shown
from games.results.selectors import results_of_game

#: The template of the replay page; its partials wrap the board's.
REPLAY_TEMPLATE = "games/replay.html"

def replay_url(game_id: int, *, step: int | None = None, seat: str | None = None) -> str:
    """``/games/<id>/replay/?step=K&seat=S`` (the shareable address of one step)."""
    params = {}
    if step is not None:
        params["step"] = step
    if seat is not None:
        params["seat"] = seat
    base = reverse("replay", args=[game_id])
    return f"{base}?{urlencode(params)}" if params else base


def perspective_label(perspective: Perspective, names: dict[int, str]) -> str:
    """What a perspective is called on the page."""
    if perspective.revealed:
        return _("Everything revealed")
    if perspective.seat is None:
        return _("Spectator")
    seat_word = _("Seat %(n)s") % {"n": perspective.seat + 1}
    name = names.get(perspective.seat)
    if name is None:
        return seat_word
    # Two seats of the same name (two AIs of one level) are told apart by their number.
    return f"{name} · {seat_word}" if list(names.values()).count(name) > 1 else name


def _event_text(board: Board | None, event: dict, names: dict[int, str], rules: dict) -> str:
    if board is not None:
        return board.event_text(event, names, rules)
    return default_event_text(event, names)


def event_texts(replay: ReplayStep, board: Board | None, names: dict[int, str],
                rules: dict) -> list[str]:
    """The log line of every move (``board.event_text``), cached per game, language and
    number of moves: a move's event never changes once made."""
    game = replay.game
    key = cache_key(game, "texts", get_language() or "", len(replay.moves))
    cached = cache_get_many([key]).get(key)
    if isinstance(cached, list) and len(cached) == len(replay.moves):
        return cached
    texts = [_event_text(board, move.event, names, rules)
             for move in replay.moves]
    cache_set_many({key: texts})
    return texts


def event_rows_html(events: list[dict], *, oob: bool = False) -> str:
    """The ``<li>`` rows of the event list (a long game has hundreds: built here, escaped by
    ``format_html``, rather than looped in the template); ``oob`` marks each row as an
    out-of-band swap of its own."""
    current = mark_safe(' class="current" aria-current="step"')
    swap = mark_safe(' hx-swap-oob="true"') if oob else ""
    return format_html_join(
        "",
        '<li id="ev-{0}" data-step="{0}"{1}{2}><span class="seq">{0}</span> '
        '<a class="text" href="{3}" hx-get="{3}" data-focus="ev-{0}">{4}</a></li>',
        ((str(e["step"]), current if e["current"] else "", swap, e["url"], e["text"])
         for e in events),
    )


def parse_shown(raw: Any) -> tuple[int, str, int] | None:
    """``step:seat:steps`` of the page an HTMX request comes from (``#replay-shown``)."""
    parts = str(raw or "").split(":")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() and len(p) < 10
                                  for p in (parts[0], parts[2])):
        return None
    return int(parts[0]), parts[1], int(parts[2])


def replay_context(replay: ReplayStep, viewer: Any, *, csrf_token: str = "",
                   oob: bool = False, shown: Any = None) -> dict:
    """Everything ``games/replay.html`` shows of one replay step to ``viewer``.

    ``oob`` marks the fragments as out-of-band swaps (HTMX responses); ``shown`` is what the
    requesting page shows (``step:seat:steps``): when only the step differs, the event list
    is sent as the two rows whose highlight changes instead of every row.
    """
    game = replay.game
    board = get_board(game.game_name)
    seats = seats_of(game)
    names = {s.index: s.display_name for s in seats}
    rules = rule_data(game.game_name, game.variant_data)
    perspective = replay.perspective
    param = perspective.param
    step, steps = replay.step, replay.steps
    my_seat = seat_of(game, viewer)

    base_url = reverse("replay", args=[game.pk])

    def url(k: int, seat: str = param) -> str:
        # ``seat`` is a number, "spectator" or "all": nothing to escape.
        return f"{base_url}?step={k}&seat={seat}"

    texts = event_texts(replay, board, names, rules)
    events = [{"step": 0, "seat": None, "text": _("The deal"), "url": url(0),
               "current": step == 0}] + [
        {
            "step": index + 1,
            "seat": move.seat,
            "text": texts[index],
            "url": url(index + 1),
            "current": index + 1 == step,
        }
        for index, move in enumerate(replay.moves)
    ]
    parts = None
    presented: dict = {}
    # The revealed panel (None: hidden): only in the revealed perspective, which the
    # selector allows for finished games only; the board draws what was hidden.
    revealed: dict | None = {} if perspective.revealed else None
    if board is not None:
        parts = board.parts(log=f"{REPLAY_TEMPLATE}#events")
        players = players_of(game, perspective.seat)
        # The end of a finished game: who won is the result record's (games.results), as
        # on the play page -- a seat someone left never wins, whatever the AI then scored.
        winners = (tuple(r.seat for r in results_of_game(game) if r.won)
                   if game.status == Game.Status.FINISHED and step == steps else None)
        scene = Scene(view=replay.view, rules=rules, seat=perspective.seat, players=players,
                      legal=(), selection={}, version=step, interactive=False,
                      winners=winners)
        presented = board.present(scene)
        if perspective.revealed and board.revealed:
            revealed = board.present_revealed(scene)
    scores = presented.get("scores") or replay.view.get("scores") or []
    to_move = [] if replay.view.get("is_over") else list(replay.view.get("to_move") or [])
    players_rows = [
        {
            "seat": s.index,
            "name": s.display_name,
            "is_ai": s.is_ai,
            "is_me": s.index == my_seat,
            "is_viewed": s.index == perspective.seat,
            "to_move": s.index in to_move,
            "score": scores[s.index] if s.index < len(scores) else None,
        }
        for s in seats
    ]
    switch = [
        {
            "param": p.param,
            "label": perspective_label(p, names),
            "url": url(step, p.param),
            "current": p == perspective,
        }
        for p in replay.perspectives
    ]
    context: dict[str, Any] = {
        "game": game,
        "game_id": game.pk,
        "game_label": game_label(game),
        "variant_label": variant_label(game),
        "version": step,
        "oob": oob,
        "csrf_token": csrf_token,
        "my_seat": my_seat,
        "viewer": viewer,
        "names": names,
        "parts": parts,
        "board": presented,
        "replay": replay,
        "step": step,
        "steps": steps,
        "seat_param": param,
        "perspective": perspective,
        "perspective_label": perspective_label(perspective, names),
        "perspectives": switch,
        "over": game.status == "finished",
        "players": players_rows,
        "events": events,
        "current_event": events[step]["text"] if step > 0 else "",
        "nav": {
            "first": url(0) if step > 0 else "",
            "prev": url(step - 1) if step > 0 else "",
            "next": url(step + 1) if step < steps else "",
            "last": url(steps) if step < steps else "",
        },
        "deal_url": url(0),
        "base_url": base_url,
        "play_url": reverse("play", args=[game.pk]),
        "export_url": reverse("api-game-export", args=[game.pk]),
        "revealed": revealed,
        "seed": replay.seed,
    }
    before = parse_shown(shown) if oob else None
    if before and before[1:] == (param, steps) and before[0] != step and before[0] <= steps:
        context["events_rows_only"] = event_rows_html(
            [events[before[0]], events[step]], oob=True)
    else:
        context["events_html"] = event_rows_html(events)
    context["analysis"] = [
        result for _receiver, result in replay_shown.send(sender=None, replay=replay,
                                                          viewer=viewer)
        if result is not None
    ]
    return context
