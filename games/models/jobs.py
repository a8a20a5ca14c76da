"""What every background job (a simulation, an analysis) stores about where it stands."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class JobStatus(models.TextChoices):
    """Where a background job (a simulation, an analysis) stands."""

    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    DONE = "done", _("done")
    FAILED = "failed", _("failed")



class Job(models.Model):
    """What every background job model (a simulation, an analysis) shares: where it
    stands, its error and its timestamps.  Who asked for it stays on each model
    (``created_by``, ``requested_by``: one name would need a migration)."""

    Status = JobStatus

    status = models.CharField(
        _("status"), max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED,
        db_index=True,
    )
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True

    @property
    def finished(self) -> bool:
        """Done or failed: nothing more will happen without a new start."""
        return self.status in (JobStatus.DONE, JobStatus.FAILED)
