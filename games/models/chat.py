"""A table's chat: messages and mutes."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models.core import Game


class ChatMessage(models.Model):
    """A line of a table's chat, written by a signed-in player or spectator.

    Removed by staff: the row stays (who removed it and when) and everyone sees that a
    message was removed, never its text.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_messages")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="chat_messages",
    )
    #: The name at the time of writing (the account may be gone later).
    author_name = models.CharField(_("author"), max_length=150)
    text = models.TextField(_("text"))
    created_at = models.DateTimeField(auto_now_add=True)
    removed_at = models.DateTimeField(_("removed at"), null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["game", "id"]
        indexes = [models.Index(fields=["game", "-id"], name="chat_game_newest")]
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")

    def __str__(self) -> str:
        return f"{self.game_id}: {self.author_name}: {self.text[:40]}"

    @property
    def removed(self) -> bool:
        return self.removed_at is not None



class ChatMute(models.Model):
    """``user`` does not see the chat messages of ``muted`` (at every table)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes"
    )
    muted = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="unique_chat_mute"),
        ]
        verbose_name = _("chat mute")
        verbose_name_plural = _("chat mutes")

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"
