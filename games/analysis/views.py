"""The analysis panel of the replay page (HTMX partials) and its start button.

``GET /games/<id>/analysis/?step=K&seat=S`` renders the panel (graph, per-seat summary,
the judged move that led to step ``K``); ``part=progress`` only its progress bar (the
polling fallback of the socket).  ``POST /games/<id>/analysis/start/`` asks for the
analysis (``games.analysis.request_analysis``).  Plain requests get the replay page.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from games.analysis.page import (
    PANEL,
    int_or_none,
    panel_context,
    perspective_param,
    render_panel,
    replay_url,
)
from games.analysis.services import request_analysis
from games.core.errors import GameServiceError
from games.core.selectors import get_game_or_404


@require_GET
def analysis_panel(request: HttpRequest, game_id: int) -> HttpResponse:
    """The panel for HTMX; the replay page for a plain request."""
    game = get_game_or_404(game_id)
    step, seat = int_or_none(request.GET.get("step")), perspective_param(request.GET.get("seat"))
    if not request.htmx:
        query = urlencode({k: v for k, v in (("step", step), ("seat", seat)) if v is not None})
        return redirect(replay_url(game.pk) + (f"?{query}" if query else ""))
    part = "progress" if request.GET.get("part") == "progress" else "panel"
    return HttpResponse(render_panel(game, request.user, step=step, seat=seat, part=part,
                                     request=request))


@require_POST
def analysis_start(request: HttpRequest, game_id: int) -> HttpResponse:
    """Ask for the analysis (``rerun=1`` starts it over); the panel, or back to the page."""
    game = get_game_or_404(game_id)
    step, seat = int_or_none(request.POST.get("step")), perspective_param(request.POST.get("seat"))
    status = 200
    error = ""
    try:
        request_analysis(game=game, user=request.user,
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
