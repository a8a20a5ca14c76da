"""The page of games waiting for me."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from games.summaries import summarize_game
from games.turns.selectors import waiting_games


@login_required
def waiting(request: HttpRequest) -> HttpResponse:
    """My running games where it is my turn, the longest waiting first."""
    rows = [summarize_game(listing.game, request.user) for listing in waiting_games(request.user)]
    return TemplateResponse(request, "games/waiting.html", {"rows": rows})
