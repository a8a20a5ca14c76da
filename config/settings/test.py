"""Test settings: fast hashing, in-memory layers unless a real Redis is given."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from .base import *  # noqa: F403
from .base import REDIS_URL

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ALLOWED_HOSTS = ["*"]

# Tests that need Redis (channel layer, Celery worker) use REDIS_URL when it is set
# (CI sets it); everything else runs on in-memory backends so a bare `pytest` works.
if not os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {
        "default": {
            "BACKEND": "config.cache.SharedRedisCache",
            # Tests clear the cache (a FLUSHDB on Redis): give it a database of its own
            # so that never wipes the broker or channel layer sharing REDIS_URL.
            "LOCATION": os.environ.get(
                "TEST_CACHE_REDIS_URL", urlsplit(REDIS_URL)._replace(path="/15").geturl()
            ),
            # One prefix per run: throttle counters never leak between runs or engineers.
            "KEY_PREFIX": f"colonia-test-{os.getpid()}",
        }
    }
CELERY_TASK_ALWAYS_EAGER = True
# A tiny analysis budget: tests check the plumbing, not the judgement.
ANALYSIS_ITERATIONS = int(os.environ.get("ANALYSIS_ITERATIONS", "8"))
ANALYSIS_SAMPLES = int(os.environ.get("ANALYSIS_SAMPLES", "2"))
ANALYSIS_WORLDS = int(os.environ.get("ANALYSIS_WORLDS", "1"))
CELERY_TASK_EAGER_PROPAGATES = True
AXES_ENABLED = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Serve static files through the finders (no collectstatic before tests), without the
# start-up scan of a STATIC_ROOT that does not exist.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
