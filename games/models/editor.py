"""The rules editor's self-play checks of a variant version."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models.jobs import Job
from games.models.variants import VariantVersion


class Simulation(Job):
    """A self-play check of one version's data (``tools.simulate``), run on Celery.

    ``data`` is the data simulated (a draft may change while it runs: ``digest`` tells
    which state of the draft a report belongs to).  The task plays the games in short
    chunks so AI turns queued on the same worker are not held up; ``partial`` keeps the
    merged reports so far, ``report`` the final one.
    """

    version = models.ForeignKey(
        VariantVersion, on_delete=models.CASCADE, related_name="simulations"
    )
    digest = models.CharField(max_length=64)
    data = models.JSONField()
    games = models.PositiveIntegerField(_("games"))
    players = models.JSONField(_("player counts"))
    bots = models.JSONField(_("bots"))
    seed = models.BigIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    #: Chunks run so far: the compare-and-set counter that makes a redelivered task a no-op.
    step = models.PositiveIntegerField(default=0)
    partial = models.JSONField(default=dict, blank=True)
    report = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("simulation")
        verbose_name_plural = _("simulations")

    def __str__(self) -> str:
        return f"simulation {self.pk} of {self.version} ({self.status})"

    @property
    def passed(self) -> bool:
        """Done, every game played to its end, no error."""
        return bool(
            self.status == self.Status.DONE
            and self.report
            and not self.report.get("errors")
            and self.report.get("completed") == self.games
        )

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.games) if self.games else 0
