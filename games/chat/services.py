"""Writes of the table chat: keyword-only, typed, atomic; hints go out after commit."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from common import ratelimit
from games.chat.errors import (
    ChatClosed,
    ChatError,
    ChatInvalid,
    ChatNotAllowed,
    ChatRateLimited,
    ChatTooLong,
)
from games.live import broadcast
from games.models import ChatMessage, ChatMute, Game

#: Characters kept of a message's line breaks and spaces; others control chars are dropped.
_KEPT_CONTROLS = {"\n", "\t"}


def clean_text(text: Any) -> str:
    """The text of a message as stored: control characters dropped (line breaks kept,
    at most two in a row), surrounding spaces stripped."""
    if not isinstance(text, str):
        return ""
    kept = "".join(ch for ch in text.replace("\r\n", "\n").replace("\r", "\n")
                   if ch in _KEPT_CONTROLS or (ord(ch) >= 32 and ord(ch) != 127))
    while "\n\n\n" in kept:
        kept = kept.replace("\n\n\n", "\n\n")
    return kept.strip()


def _chat_updated(game_id: int) -> None:
    transaction.on_commit(lambda: broadcast.chat_updated(game_id), robust=True)


@transaction.atomic
def post_message(*, game: Game, user: Any, text: str) -> ChatMessage:
    """Post ``text`` at ``game``'s table as ``user`` (a player or a signed-in spectator).

    Raises ``ChatNotAllowed`` (anonymous or inactive), ``ChatClosed`` (an aborted table),
    ``ChatInvalid`` (empty), ``ChatTooLong`` (over ``CHAT_MAX_LENGTH``),
    ``ChatRateLimited`` (over ``CHAT_RATE_LIMIT`` a minute; fails open without cache).
    The text is stored as typed (templates escape it on output).
    """
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        raise ChatNotAllowed()
    if game.status == Game.Status.ABORTED:
        raise ChatClosed()
    cleaned = clean_text(text)
    if not cleaned:
        raise ChatInvalid()
    limit = settings.CHAT_MAX_LENGTH
    if len(cleaned) > limit:
        raise ChatTooLong(
            _("A message has at most %(limit)d characters (this one has %(n)d).")
            % {"limit": limit, "n": len(cleaned)}
        )
    if not ratelimit.hit(f"chat:{user.pk}", limit=settings.CHAT_RATE_LIMIT, window=60):
        raise ChatRateLimited()
    message = ChatMessage.objects.create(
        game=game, author=user, author_name=user.get_username(), text=cleaned
    )
    _chat_updated(game.pk)
    return message


@transaction.atomic
def remove_message(*, message: ChatMessage, by: Any) -> ChatMessage:
    """Staff remove a message: its text is no longer shown to anyone (the row stays)."""
    if not getattr(by, "is_staff", False):
        raise ChatError(_("Only staff can remove chat messages."))
    if message.removed_at is None:
        message.removed_at = timezone.now()
        message.removed_by = by
        message.save(update_fields=["removed_at", "removed_by"])
        _chat_updated(message.game_id)
    return message


def _person(user_id: int) -> Any:
    person = get_user_model()._default_manager.filter(pk=user_id).first()
    if person is None:
        raise ChatInvalid(_("There is no such person."))
    return person


@transaction.atomic
def mute(*, user: Any, muted_id: int) -> ChatMute:
    """``user`` stops seeing the messages of ``muted_id`` (at every table); idempotent."""
    if not getattr(user, "is_authenticated", False):
        raise ChatNotAllowed(_("Log in to mute someone."))
    if muted_id == user.pk:
        raise ChatInvalid(_("You cannot mute yourself."))
    mute_row, _created = ChatMute.objects.get_or_create(user=user, muted=_person(muted_id))
    return mute_row


@transaction.atomic
def unmute(*, user: Any, muted_id: int) -> bool:
    """``user`` sees ``muted_id``'s messages again; False when they were not muted."""
    if not getattr(user, "is_authenticated", False):
        raise ChatNotAllowed(_("Log in to mute someone."))
    deleted, _rows = ChatMute.objects.filter(user=user, muted_id=muted_id).delete()
    return bool(deleted)
