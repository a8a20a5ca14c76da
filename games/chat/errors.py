"""Errors the chat services raise (user-facing messages, HTTP statuses)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.core.errors import GameServiceError


class ChatError(GameServiceError):
    """A chat request refused."""

    code = "chat_error"
    default_message = _("This message cannot be posted.")


class ChatNotAllowed(ChatError):
    status_code = 403
    code = "chat_not_allowed"
    default_message = _("Log in to write in the chat.")


class ChatInvalid(ChatError):
    status_code = 400
    code = "chat_invalid"
    default_message = _("Write a message first.")


class ChatTooLong(ChatError):
    status_code = 400
    code = "chat_too_long"
    default_message = _("This message is too long.")


class ChatRateLimited(ChatError):
    status_code = 429
    code = "chat_rate_limited"
    default_message = _("You are writing too fast: wait a moment and try again.")


class ChatClosed(ChatError):
    status_code = 409
    code = "chat_closed"
    default_message = _("The chat of this table is closed.")
