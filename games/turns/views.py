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


def render_nav_turns(user: Any, *, oob: bool = False, live: bool = False) -> str:
    """The nav's "Your turn" link with ``user``'s count (``oob``: as a socket's swap).

    ``live``: for a page whose socket pushes the count (a socket's swap always is); other
    pages poll for it.
    """
    return render_to_string("partials/nav_turns.html",
                            {"turn_count": waiting_count(user), "oob": oob,
                             "live": live or oob, "user": user})


@require_GET
def waiting_nav(request: HttpRequest) -> HttpResponse:
    """The nav's count again (the page refetches it when its window gets the focus, and
    every minute where no socket pushes it: one query); 204 once signed out, so nothing
    is swapped in."""
    if not request.user.is_authenticated:
        return HttpResponse(status=204)
    response = HttpResponse(render_nav_turns(request.user, live=request.GET.get("live") == "1"))
    response["Cache-Control"] = "no-store"
    return response
