"""The Celery application: AI turns and replay analysis run here, off the request path."""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import after_setup_logger

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("colonia")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


#: The periodic tasks whose routine log lines are left out (task and schedule names).
_SWEEPS = ("sweep_stalled_ai", "sweep-stalled-ai", "sweep_clocks", "sweep-clocks",
           "expire_open_tables", "expire-open-tables")


class _QuietSweeps(logging.Filter):
    """The stalled-turn sweep runs every few seconds: its routine lines would bury the
    console of `make run`.  Its warnings (a turn re-enqueued, a failure) still show."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        text = record.getMessage()
        return not any(name in text for name in _SWEEPS)


@after_setup_logger.connect
def _quiet_sweeps(logger: logging.Logger, **_kwargs: object) -> None:
    for handler in logger.handlers:
        handler.addFilter(_QuietSweeps())
