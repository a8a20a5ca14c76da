"""The page of games waiting for me."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from games.summaries import summarize_game
from games.turns.selectors import waiting_count, waiting_games


@login_required
def waiting(request: HttpRequest) -> HttpResponse:
    """My running games where it is my turn, the longest waiting first."""
    rows = [summarize_game(listing.game, request.user) for listing in waiting_games(request.user)]
    return TemplateResponse(request, "games/waiting.html", {"rows": rows})


def render_nav_turns(user: Any, *, oob: bool = False) -> str:
    """The nav's "Your turn" link with ``user``'s count (``oob``: as a socket's swap)."""
    return render_to_string("partials/nav_turns.html",
                            {"turn_count": waiting_count(user), "oob": oob, "user": user})


@require_GET
def waiting_nav(request: HttpRequest) -> HttpResponse:
    """The nav's count again (the page refetches it when its window gets the focus);
    204 once signed out, so nothing is swapped in."""
    if not request.user.is_authenticated:
        return HttpResponse(status=204)
    response = HttpResponse(render_nav_turns(request.user))
    response["Cache-Control"] = "no-store"
    return response
