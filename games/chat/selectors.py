"""Reads of the table chat."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Count, Max, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext

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


def chat_mark(game: Game | int) -> str:
    """What a table's chat holds, in short: its newest message and how many were removed
    (``"<id>-<removed>"``).  A page puts the mark it rendered on its socket's address; the
    socket sends the log when the mark has changed since (see games.play.consumers)."""
    game_id = game if isinstance(game, int) else game.pk
    marks = ChatMessage.objects.filter(game_id=game_id).aggregate(
        newest=Max("id"), removed=Count("id", filter=Q(removed_at__isnull=False)))
    return f"{marks['newest'] or 0}-{marks['removed']}"


def muted_people(user: Any) -> list[dict]:
    """The people ``user`` muted, for the unmute buttons: ``[{"id", "name"}]``."""
    if not getattr(user, "is_authenticated", False):
        return []
    return [
        {"id": mute.muted_id, "name": mute.muted.get_username()}
        for mute in ChatMute.objects.filter(user=user).select_related("muted")
        .order_by("muted__username")
    ]


TEMPLATE = "games/chat.html"



def chat_rows(messages: list[ChatMessage], viewer: Any, *, game_id: int) -> list[dict]:
    """Rows of the chat log for ``viewer``: removed texts never leave the server.

    Addresses, labels and times are made here, not by template tags: a push renders up
    to ``CHAT_SHOWN`` rows per signed-in viewer.
    """
    signed_in = getattr(viewer, "is_authenticated", False)
    viewer_id = viewer.pk if signed_in else None
    staff = signed_in and getattr(viewer, "is_staff", False)
    mute_base = reverse("chat_mute", args=[game_id, 0]).removesuffix("0/")
    remove_base = reverse("chat_remove", args=[game_id, 0]).removesuffix("0/remove/")
    mute_label = gettext("Mute %(name)s")
    rows = []
    for m in messages:
        local = timezone.localtime(m.created_at)
        can_mute = signed_in and m.author_id is not None and m.author_id != viewer_id
        rows.append({
            "id": m.pk,
            "author": m.author_name,
            "author_id": m.author_id,
            "text": "" if m.removed else m.text,
            "removed": m.removed,
            "iso": local.isoformat(timespec="seconds"),
            "time": local.strftime("%H:%M"),
            "mine": viewer_id is not None and m.author_id == viewer_id,
            "can_mute": can_mute,
            "mute_url": f"{mute_base}{m.author_id}/" if can_mute else "",
            "mute_label": mute_label % {"name": m.author_name} if can_mute else "",
            "can_remove": staff and not m.removed,
            "remove_url": f"{remove_base}{m.pk}/remove/" if staff else "",
        })
    return rows



def chat_context(game: Game, viewer: Any, *, csrf_token: str = "", oob: bool = False,
                 error: str = "", text: str = "", readonly: bool = False) -> dict:
    """Everything the chat templates show to ``viewer``."""
    return {
        "game_id": game.pk,
        "play_url": reverse("play", args=[game.pk]),
        "chat_rows": chat_rows(chat_messages(game, viewer), viewer, game_id=game.pk),
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
