"""Thin HTML views of the games app."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from games.selectors import game_summaries


def home(request: HttpRequest) -> HttpResponse:
    """The home page: every game and its variants."""
    return TemplateResponse(request, "games/home.html", {"games": game_summaries()})
