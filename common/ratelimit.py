"""A tiny cache-based rate limiter (fixed window per key) that fails open.

The cache is Redis in production: when it is down, a limit must not turn every request
into a 500.  Limits then fail *open* (the request passes) with a warning in the log,
at most one a minute per process -- a moment without limits beats an outage.
"""

from __future__ import annotations

import logging
import time

from django.core.cache import cache

logger = logging.getLogger(__name__)

_last_warning = 0.0


def cache_failed(what: str, exc: BaseException) -> None:
    """Log that the cache failed (rate-limited to one line a minute per process)."""
    global _last_warning
    now = time.monotonic()
    if now - _last_warning >= 60:
        _last_warning = now
        logger.warning("cache unavailable (%s: %s): %s fails open", exc.__class__.__name__,
                       exc, what)


def hit(key: str, *, limit: int, window: int) -> bool:
    """Count one hit on ``key``; False when ``limit`` hits in ``window`` seconds are exceeded.

    True (fail open, logged) when the cache itself fails.
    """
    cache_key = f"ratelimit:{key}"
    try:
        added = cache.add(cache_key, 1, timeout=window)
        if added:
            return limit >= 1
        try:
            count = cache.incr(cache_key)
        except ValueError:  # expired between add and incr
            cache.set(cache_key, 1, timeout=window)
            count = 1
    except Exception as exc:
        cache_failed("a rate limit", exc)
        return True
    return count <= limit


def first_in_window(key: str, *, window: int) -> bool:
    """True the first time ``key`` is seen in ``window`` seconds (and when the cache fails)."""
    try:
        return bool(cache.add(f"once:{key}", 1, timeout=window))
    except Exception as exc:
        cache_failed("a once-per-window guard", exc)
        return True


def peek(key: str) -> int:
    """How many hits ``key`` has in its current window (0 when the cache fails)."""
    try:
        return int(cache.get(f"ratelimit:{key}", 0))
    except Exception as exc:
        cache_failed("a rate-limit read", exc)
        return 0
