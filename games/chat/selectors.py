"""Reads of the table chat."""

from __future__ import annotations

from typing import Any

from games.models import ChatMessage, ChatMute, Game

#: Messages shown (and pushed) at most: the newest ones.
CHAT_SHOWN = 100


def muted_ids(user: Any) -> set[int]:
    """The ids of the people ``user`` has muted (none for an anonymous visitor)."""
    if not getattr(user, "is_authenticated", False):
        return set()
    return set(ChatMute.objects.filter(user=user).values_list("muted_id", flat=True))


def chat_messages(game: Game | int, viewer: Any, *, limit: int = CHAT_SHOWN) -> list[ChatMessage]:
    """The newest ``limit`` messages of a table (oldest first) as ``viewer`` sees them:
    without the messages of people the viewer muted."""
    game_id = game if isinstance(game, int) else game.pk
    rows = ChatMessage.objects.filter(game_id=game_id)
    muted = muted_ids(viewer)
    if muted:
        rows = rows.exclude(author_id__in=muted)
    newest = list(rows.order_by("-id")[:limit])
    newest.reverse()
    return newest


def muted_people(user: Any) -> list[dict]:
    """The people ``user`` muted, for the unmute buttons: ``[{"id", "name"}]``."""
    if not getattr(user, "is_authenticated", False):
        return []
    return [
        {"id": mute.muted_id, "name": mute.muted.get_username()}
        for mute in ChatMute.objects.filter(user=user).select_related("muted")
        .order_by("muted__username")
    ]
