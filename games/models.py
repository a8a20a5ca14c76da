"""Database models of the games app."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from games.engines import engine_names

GAME_CHOICES = [(name, name) for name in engine_names()]


class Variant(models.Model):
    """A named set of rule data for one game, as edited in the rules editor.

    Games copy ``data`` when they are created, so later edits never change a game
    that is already running or finished.
    """

    game = models.CharField(_("game"), max_length=32, choices=GAME_CHOICES)
    name = models.SlugField(_("name"), max_length=64)
    data = models.JSONField(_("data"))
    schema_version = models.PositiveIntegerField(_("schema version"), default=1)
    active = models.BooleanField(_("active"), default=True)
    is_default = models.BooleanField(
        _("shipped default"), default=False, help_text=_("Loaded from the engine's defaults.")
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "name"]
        constraints = [
            models.UniqueConstraint(fields=["game", "name"], name="unique_variant_name_per_game")
        ]
        verbose_name = _("variant")
        verbose_name_plural = _("variants")

    def __str__(self) -> str:
        return f"{self.game}/{self.name}"
