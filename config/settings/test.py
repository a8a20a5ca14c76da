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
#
# Test processes run side by side on one Redis: pytest-xdist's workers (`make test` runs
# one per core) and other people's runs.  Each process keeps what it writes apart under a
# namespace of its own: the cache's key prefix (its ``clear`` deletes only those keys, where
# the stock backend flushed the whole database), the channel layer's prefix (two workers
# both have a game 1: a hint to one must not reach the other's sockets), the shared
# fragment renders (keyed by the cache prefix) and Celery's broker keys.  The databases are
# apart already: pytest-django gives each xdist worker a test database of its own.
TEST_NAMESPACE = f"colonia-test-{os.getpid()}"
if not os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {
        "default": {
            "BACKEND": "config.cache.NamespacedRedisCache",
            # A database of its own too, so even a stray FLUSHDB never wipes the broker or
            # channel layer sharing REDIS_URL.
            "LOCATION": os.environ.get(
                "TEST_CACHE_REDIS_URL", urlsplit(REDIS_URL)._replace(path="/15").geturl()
            ),
            "KEY_PREFIX": TEST_NAMESPACE,
        }
    }
    CHANNEL_LAYERS = {
        "default": {
            **CHANNEL_LAYERS["default"],
            "CONFIG": {**CHANNEL_LAYERS["default"]["CONFIG"], "prefix": TEST_NAMESPACE},
        }
    }
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **CELERY_BROKER_TRANSPORT_OPTIONS,  # noqa: F405
        "global_keyprefix": f"{TEST_NAMESPACE}:",
    }
CELERY_TASK_ALWAYS_EAGER = True
# A tiny analysis budget: tests check the plumbing, not the judgement.
ANALYSIS_ITERATIONS = int(os.environ.get("ANALYSIS_ITERATIONS", "8"))
ANALYSIS_SAMPLES = int(os.environ.get("ANALYSIS_SAMPLES", "2"))
ANALYSIS_WORLDS = int(os.environ.get("ANALYSIS_WORLDS", "1"))
# A small hint search: tests check the plumbing (three moves with chances), not the advice.
PRACTICE_HINT_ITERATIONS = int(os.environ.get("PRACTICE_HINT_ITERATIONS", "60"))
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
