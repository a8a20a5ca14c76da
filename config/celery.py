"""The Celery application: AI turns and replay analysis run here, off the request path."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("colonia")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
