"""The analysis panel of the replay page (HTMX partials) and its start button.

``GET /games/<id>/analysis/?step=K&seat=S`` renders the panel (graph, per-seat summary,
the judged move that led to step ``K``); ``part=progress`` only its progress bar (the
polling fallback of the socket).  ``POST /games/<id>/analysis/start/`` asks for the
analysis (``games.analysis.request_analysis``).  Plain requests get the replay page.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games import analysis
from games.analysis_graph import SEAT_COLOURS, win_graph
from games.boards import default_event_text, get_board
from games.errors import GameServiceError
from games.models import Analysis, Game

PANEL = "games/partials/analysis_panel.html"


SLOT = "games/partials/analysis_slot.html"


def replay_url(game_id: int) -> str:
    """The replay page of a game."""
    return reverse("replay", args=[game_id])


def replay_panel(replay: Any, viewer: Any) -> dict | None:
    """The replay page's analysis slot (``games.replay_page.register_replay_panel``):
    the panel at ``replay.step``, for finished games only."""
    game = replay.game
    if game.status != Game.Status.FINISHED:
        return None
    context = panel_context(game, viewer, step=replay.step, seat=replay.perspective.param)
    return {"template": SLOT, "context": context}


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _param(value: Any) -> str | None:
    """The replay's perspective parameter (a seat number or a word), passed through."""
    text = str(value) if value is not None else ""
    return text if re.fullmatch(r"[A-Za-z0-9_-]{1,16}", text) else None


def _names(game: Game) -> list[str]:
    seats = sorted(game.seats.all(), key=lambda s: s.index)
    return [s.display_name for s in seats]


def _move_text(game: Game, decision: dict, names: list[str]) -> dict:
    """The played and best moves of ``decision`` as log lines (the board's wording)."""
    engine = game.engine
    board = get_board(game.game_name)
    names_by_seat = dict(enumerate(names))
    try:
        from games.selectors import replayed_state, rule_data

        state = replayed_state(game, upto=int(decision["step"]))
        rules = rule_data(game.game_name, game.variant_data)
        out = {}
        for key in ("played", "best"):
            event = engine.describe_action(state, engine.action_from_json(decision[key]))
            if not isinstance(event, dict):
                out[key] = str(event)
            elif board is not None:
                out[key] = board.event_text(event, names_by_seat, rules)
            else:
                out[key] = default_event_text(event, names_by_seat)
        return out
    except Exception:  # an old analysis of a game the rules no longer replay
        return {"played": "", "best": ""}


def panel_context(game: Game, user: Any, *, step: int | None = None,
                  seat: str | None = None) -> dict:
    """The template context of the analysis panel for ``user`` at replay ``step``."""
    found = analysis.get_analysis(game)
    analysis.nudge_if_stalled(found)
    names = _names(game)
    base = replay_url(game.pk)

    def link(k: int) -> str:
        params = {"step": k}
        if seat is not None:
            params["seat"] = seat
        return f"{base}?{urlencode(params)}"

    context: dict[str, Any] = {
        "game": game,
        "analysis": found,
        "finished_game": game.status == Game.Status.FINISHED,
        "may_request": analysis.may_request(game, user),
        "panel_url": reverse("analysis_panel", args=[game.pk]),
        "start_url": reverse("analysis_start", args=[game.pk]),
        "ws_url": f"/ws/games/{game.pk}/analysis/",
        "step": step,
        "seat": seat,
        "query": urlencode({k: v for k, v in (("step", step), ("seat", seat))
                            if v is not None}),
    }
    if found is None:
        return context
    context.update(status=found.status, done=found.done, total=found.total,
                   percent=int(100 * found.progress))
    if found.status == Analysis.Status.DONE:
        moves = found.moves or []
        context["graph"] = win_graph(moves, num_players=game.num_players, total=found.total,
                                     names=names, link=link, current=step)
        rows = []
        for row in found.summary or []:
            index = int(row["seat"])
            rows.append({**row, "name": names[index] if index < len(names) else index,
                         "colour": SEAT_COLOURS[index % len(SEAT_COLOURS)],
                         "luck_percent": f"{100 * float(row['luck']):+.0f}"})
        context["rows"] = rows
        if step is not None:
            decision = next((m for m in moves if int(m["step"]) == step - 1), None)
            if decision is not None:
                index = int(decision["seat"])
                context["decision"] = {
                    **decision, "name": names[index] if index < len(names) else index,
                    "number": step,
                    "value_played_percent": round(100 * float(decision["value_played"])),
                    "value_best_percent": round(100 * float(decision["value_best"])),
                    "luck_percent": f"{100 * float(decision['luck'][index]):+.0f}"
                    if decision.get("chance") else "",
                    **_move_text(game, decision, names),
                }
    return context


def render_panel(game: Game, user: Any, *, step: int | None = None,
                 seat: str | None = None, part: str = "panel", request: Any = None) -> str:
    """The panel (``part="panel"``) or only its progress bar (``part="progress"``)."""
    context = panel_context(game, user, step=step, seat=seat)
    name = f"{PANEL}#progress" if part == "progress" else PANEL
    return render_to_string(name, {"p": context}, request=request)


def _game(game_id: int) -> Game:
    from django.http import Http404

    from games.selectors import get_game

    try:
        return get_game(game_id)
    except Game.DoesNotExist:
        raise Http404(_("No such game.")) from None


@require_GET
def analysis_panel(request: HttpRequest, game_id: int) -> HttpResponse:
    """The panel for HTMX; the replay page for a plain request."""
    game = _game(game_id)
    step, seat = _int(request.GET.get("step")), _param(request.GET.get("seat"))
    if not request.htmx:
        query = urlencode({k: v for k, v in (("step", step), ("seat", seat)) if v is not None})
        return redirect(replay_url(game.pk) + (f"?{query}" if query else ""))
    part = "progress" if request.GET.get("part") == "progress" else "panel"
    return HttpResponse(render_panel(game, request.user, step=step, seat=seat, part=part,
                                     request=request))


@require_POST
def analysis_start(request: HttpRequest, game_id: int) -> HttpResponse:
    """Ask for the analysis (``rerun=1`` starts it over); the panel, or back to the page."""
    game = _game(game_id)
    step, seat = _int(request.POST.get("step")), _param(request.POST.get("seat"))
    status = 200
    error = ""
    try:
        analysis.request_analysis(game=game, user=request.user,
                                  rerun=request.POST.get("rerun") == "1")
    except GameServiceError as exc:
        error, status = str(exc), exc.status_code
    if not request.htmx:
        if error:
            messages.error(request, error)
        query = urlencode({k: v for k, v in (("step", step), ("seat", seat)) if v is not None})
        return redirect(replay_url(game.pk) + (f"?{query}" if query else ""))
    context = panel_context(game, request.user, step=step, seat=seat)
    context["error"] = error
    response = HttpResponse(render_to_string(PANEL, {"p": context}, request=request))
    if error:
        response["X-Colonia-Error"] = str(status)
    return response
