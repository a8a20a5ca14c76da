"""The chat panel as one viewer sees it (page, HTMX answers, socket pushes)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse

from games.chat.selectors import chat_messages, muted_people
from games.models import ChatMessage, Game

TEMPLATE = "games/chat.html"


def chat_rows(messages: list[ChatMessage], viewer: Any) -> list[dict]:
    """Rows of the chat log for ``viewer``: removed texts never leave the server."""
    signed_in = getattr(viewer, "is_authenticated", False)
    viewer_id = viewer.pk if signed_in else None
    staff = signed_in and getattr(viewer, "is_staff", False)
    return [
        {
            "id": m.pk,
            "author": m.author_name,
            "author_id": m.author_id,
            "text": "" if m.removed else m.text,
            "removed": m.removed,
            "created_at": m.created_at,
            "mine": viewer_id is not None and m.author_id == viewer_id,
            "can_mute": signed_in and m.author_id is not None and m.author_id != viewer_id,
            "can_remove": staff and not m.removed,
        }
        for m in messages
    ]


def chat_context(game: Game, viewer: Any, *, csrf_token: str = "", oob: bool = False,
                 error: str = "", text: str = "", readonly: bool = False) -> dict:
    """Everything the chat templates show to ``viewer``."""
    return {
        "game_id": game.pk,
        "play_url": reverse("play", args=[game.pk]),
        "chat_rows": chat_rows(chat_messages(game, viewer), viewer),
        "chat_muted": muted_people(viewer),
        "can_write": getattr(viewer, "is_authenticated", False)
        and game.status != Game.Status.ABORTED,
        "chat_closed": game.status == Game.Status.ABORTED,
        "chat_max_length": settings.CHAT_MAX_LENGTH,
        "chat_error": error,
        "chat_text": text,
        "csrf_token": csrf_token,
        "oob": oob,
        "readonly": readonly,
    }


def render_chat(game: Game, viewer: Any, *, parts: tuple[str, ...] = ("log",),
                **kwargs: Any) -> str:
    """The chat partials ``parts`` (``log``, ``form``, ``muted``) as out-of-band swaps."""
    context = chat_context(game, viewer, oob=True, **kwargs)
    return "".join(render_to_string(f"{TEMPLATE}#{part}", context) for part in parts)
