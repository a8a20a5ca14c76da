"""The lobby's context and its open-tables fragment (the page and the lobby socket share it)."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string

from games.tables.selectors import games_of, open_tables, summarize_game


def lobby_context(user: Any) -> dict:
    tables = [summarize_game(g, user) for g in open_tables()]
    mine = []
    if getattr(user, "is_authenticated", False):
        mine = [summarize_game(listing.game, user) for listing in games_of(user)]
    return {
        "tables": tables,
        "my_games": mine,
        "viewer": user,
        "is_authenticated": getattr(user, "is_authenticated", False),
    }



def render_open_tables(user: Any, *, csrf_token: str = "", oob: bool = True) -> str:
    """The open-tables fragment for ``user`` (the lobby consumer pushes it)."""
    context = lobby_context(user) | {"oob": oob, "csrf_token": csrf_token}
    return render_to_string("games/lobby.html#open-tables", context)
