"""The post-game analysis of a finished game."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models.core import Game
from games.models.jobs import Job


class Analysis(Job):
    """The post-game analysis of one finished game (``ai.analysis``), run on Celery.

    One per game; a re-run on request starts it over.  The task analyses the moves in
    chunks; ``done`` (decisions stored so far) is the compare-and-set counter that makes a
    redelivered chunk a no-op.  ``moves`` holds one JSON object per move
    (``ai.analysis.Decision.to_json``), ``summary`` the per-seat lines once done.
    """

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    #: ``{"iterations", "samples", "worlds"}``: the ``ai.analysis.Budget`` used.
    budget = models.JSONField(default=dict)
    #: Bumped by every (re)start: a chunk of an earlier run never stores its results.
    run = models.PositiveIntegerField(default=1)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    moves = models.JSONField(default=list, blank=True)
    summary = models.JSONField(null=True, blank=True)
    #: Times a chunk was taken up since the last progress (a chunk that kills its
    #: worker every time ends as ``failed`` instead of looping).
    attempts = models.PositiveSmallIntegerField(default=0)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("analysis")
        verbose_name_plural = _("analyses")

    def __str__(self) -> str:
        return f"analysis of game {self.game_id} ({self.status})"

    @property
    def progress(self) -> float:
        """From 0 to 1."""
        if self.status == self.Status.DONE:
            return 1.0
        return min(1.0, self.done / self.total) if self.total else 0.0
