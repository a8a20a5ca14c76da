"""The play page's context and fragments, for every game: the generic part around a board.

:func:`render_fragments` is the one entry point that renders the fragments pushed to one
viewer of a game (HTMX responses and the socket consumer both call it); wrap it to cache.

The page is drawn from ``game_view`` (``engine.observe`` for the viewer's seat),
``rule_data`` and ``legal_actions_json`` only, through the game's board
(``games.boards.get_board``); this module names no game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from games.boards import Board, Scene, default_event_text, get_board
from games.core.selectors import (
    game_label,
    game_view,
    legal_actions_json,
    move_log,
    played_seat,
    players_of,
    rule_data,
    seat_of,
    seats_of,
    variant_label,
)
from games.models import Game
from games.practice.selectors import practice_panel
from games.results.selectors import results_of_game
from games.tables.selectors import clock_row, describe_clock, resign_outcome, summarize_game

#: The template of the generic page; its partials wrap the board's.
PLAY_TEMPLATE = "games/play.html"


def log_rows(game: Game, seat: int | None, board: Board | None, names: Mapping[int, str],
             *, since: int = 0, rules: Mapping | None = None) -> list[dict]:
    """The log from move ``since + 1`` on, each row with its text (newest last).

    Events become text through the board.
    """
    rows = move_log(game, seat, since=since)
    for row in rows:
        event = row["event"]
        row["text"] = (board.event_text(event, names, rules) if board is not None
                       else default_event_text(event, names))
    return rows


def play_context(
    game: Game,
    viewer: Any,
    *,
    params: Mapping[str, str] | None = None,
    error: str = "",
    oob: bool = False,
    csrf_token: str = "",
    log_since: int | None = None,
    base_url: str = "",
) -> dict:
    """Everything the play page and its fragments show to ``viewer``.

    ``params`` are the query parameters of the viewer's selection (see the board),
    ``log_since`` makes the log an append of the moves after that version (pushes and
    HTMX responses) instead of the whole log, ``base_url`` (``https://host``) makes the
    invite link absolute.
    """
    seat = seat_of(game, viewer)
    seats = seats_of(game)
    names = {s.index: s.display_name for s in seats}
    table = summarize_game(game, viewer)
    board = get_board(game.game_name)
    context: dict[str, Any] = {
        "game": game,
        "game_id": game.pk,
        "version": game.version,
        "my_seat": seat,
        "viewer": viewer,
        "seats": seats,
        "names": names,
        "error": error,
        "oob": oob,
        "csrf_token": csrf_token,
        "game_label": game_label(game),
        "variant_label": variant_label(game),
        "table": table,
        "invite_url": base_url + table["invite_url"] if table["invite_url"] else "",
        "ws_url": f"/ws/games/{game.pk}/?v={game.version}",
        "log_since": log_since,
        "play_url": reverse("play", args=[game.pk]),
        "act_url": reverse("act", args=[game.pk]),
        "parts": board.parts(log=f"{PLAY_TEMPLATE}#log") if board is not None else None,
        "time_control": describe_clock(game),
    }
    context["seating"] = seating_note(game, names)
    if game.status == Game.Status.OPEN or game.state_json is None:
        context["waiting"] = True
        # A rematch waiting for the viewer's answer (or which they accepted).
        context["rematch_for_me"] = bool(
            game.status == Game.Status.OPEN and game.rematch_of_id and table["players"]
            and getattr(viewer, "is_authenticated", False) and any(
                viewer.pk in (s.user_id, s.reserved_for_id) for s in seats))
        return context
    if board is None:
        # No board for this game in the browser: the status card, never a 500.
        context["waiting"] = True
        context["unsupported"] = True
        return context
    view = game_view(game, seat)
    rules = rule_data(game.game_name, game.variant_data)
    players = players_of(game, seat)
    over = game.status == Game.Status.FINISHED
    # Who won is the result record's (games.results): a leaver never wins, whatever the
    # AI that took the seat over then scored -- on the board's final table too.
    record = {r.seat: r for r in results_of_game(game)} if over else {}
    winners = [index for index, r in record.items() if r.won]
    scene = Scene(
        view=view,
        rules=rules,
        seat=seat,
        players=players,
        legal=tuple(legal_actions_json(game, seat)),
        selection=params or {},
        version=game.version,
        winners=tuple(winners) if over else None,
    )
    presented = board.present(scene)
    to_move = [] if over else list(game.to_move)
    scores = presented.get("scores") or (game.result or {}).get("scores") or []
    now = timezone.now()
    by_index = {s.index: s for s in seats}
    seat_rows = [
        {
            "seat": p.seat,
            "name": p.name,
            "is_me": p.is_me,
            "is_ai": p.is_ai,
            "to_move": p.seat in to_move,
            "thinking": p.is_ai and p.seat in to_move,
            "score": scores[p.seat] if p.seat < len(scores) else None,
            "winner": p.seat in winners,
            "place": record[p.seat].place if p.seat in record else None,
            "clock": clock_row(game, by_index[p.seat], now),
            "left": by_index[p.seat].get_left_reason_display()
            if by_index[p.seat].left_user_id else "",
        }
        for p in players
    ]
    log = log_rows(game, seat, board, names, since=log_since or 0, rules=rules)
    log.reverse()  # newest first
    context.update(
        {
            "waiting": False,
            "board": presented,
            "over": over,
            "my_turn": seat is not None and seat in to_move,
            "players": seat_rows,
            "standings": sorted(seat_rows, key=lambda p: (
                p["place"] or 0, not p["winner"], -(p["score"] or 0))),
            "winner_names": [p["name"] for p in seat_rows if p["winner"]],
            "log": log,
            "log_append": log_since is not None,
            "end": end_actions(game, viewer, seat) if over else None,
            "can_leave": not over and seat is not None,
            "resign_outcome": resign_outcome(game, seat)
            if not over and seat is not None else "",
            "resigned_name": names.get((game.result or {}).get("resigned"), "")
            if over else "",
            "ended_by": (game.result or {}).get("ended_by", "") if over else "",
            # Hint and undo: practice games only (unrated, every other seat the AI).
            "practice": None if over else practice_panel(game, seat, seats),
        }
    )
    return context


def seating_note(game: Game, names: Mapping[int, str]) -> dict[str, str]:
    """How the seats were (or will be) ordered, and before the first move who starts:
    ``{"how": ..., "order": ..., "starts": ...}`` (``order``/``starts`` once dealt)."""
    if game.rematch_of_id and game.seats_as_listed:
        how = _("Rematch: the seats moved on by one from the last game.")
    elif game.seats_as_listed:
        how = _("Seat order as listed by the table's creator.")
    elif game.status == Game.Status.OPEN:
        how = _("The seat order, and so who starts, is drawn at random when the game "
                "starts.")
    else:
        how = _("The seat order was drawn at random.")
    note = {"how": how, "order": "", "starts": ""}
    if game.status == Game.Status.RUNNING and game.version == 0:
        note["order"] = ", ".join(names[i] for i in sorted(names))
        note["starts"] = ", ".join(names[i] for i in game.to_move if i in names)
    return note


def end_actions(game: Game, viewer: Any, seat: int | None = None) -> dict:
    """What the end of a game offers ``viewer``: a rematch (to everyone who played it,
    leavers included) or its offer to accept or decline, the replay and the lobby.

    ``offered_by``: who offered the rematch waiting for the viewer's answer;
    ``declined_by``: who declined the last one (a new one may be offered).
    """
    played = played_seat(game, viewer)
    latest = game.rematches.order_by("-created_at").first()
    offer: dict[str, Any] = {"rematch": None, "can_rematch": False, "joined": False,
                             "offered_by": "", "declined_by": "",
                             "played": played is not None}
    rematch = latest
    if latest is not None and latest.status == Game.Status.ABORTED:
        offer["declined_by"] = (latest.result or {}).get("declined_by", "")
        rematch = None
    if rematch is not None:
        mine = seat_of(rematch, viewer)
        kept = viewer is not None and getattr(viewer, "is_authenticated", False) and any(
            s.reserved_for_id == viewer.pk and s.user_id is None for s in rematch.seats.all())
        offer.update(
            rematch={"id": rematch.pk, "url": reverse("play", args=[rematch.pk]),
                     "status": rematch.status},
            joined=mine is not None,
            offered_by=rematch.created_by.get_username()
            if kept and rematch.status == Game.Status.OPEN and rematch.created_by_id else "",
        )
    offer["can_rematch"] = played is not None and not offer["joined"] and (
        rematch is None or rematch.status == Game.Status.OPEN
    )
    offer["can_decline"] = bool(rematch is not None and rematch.status == Game.Status.OPEN
                                and played is not None)
    return offer


def render_fragments(game: Game, viewer: Any, **kwargs: Any) -> str:
    """The play page's fragments for ``viewer`` as out-of-band swaps.

    The one renderer of pushed and HTMX-returned fragments (keyword arguments as
    :func:`play_context`); it depends only on the game's version, the viewer's seat, the
    language and the keyword arguments, so it can be cached per version and perspective.
    """
    context = play_context(game, viewer, oob=True, **kwargs)
    return render_to_string(f"{PLAY_TEMPLATE}#fragments", context)


def render_end_actions(game: Game, viewer: Any, *, csrf_token: str = "") -> str:
    """Only the end-of-game actions (pushed when someone asks for a rematch)."""
    seat = seat_of(game, viewer)
    context = {
        "game": game,
        "game_id": game.pk,
        "end": end_actions(game, viewer, seat),
        "my_seat": seat,
        "oob": True,
        "csrf_token": csrf_token,
    }
    return render_to_string(f"{PLAY_TEMPLATE}#end-actions", context)
