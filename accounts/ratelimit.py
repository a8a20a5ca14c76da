"""A tiny cache-based rate limiter (fixed window per key)."""

from __future__ import annotations

from django.core.cache import cache


def hit(key: str, *, limit: int, window: int) -> bool:
    """Count one hit on ``key``; False when ``limit`` hits in ``window`` seconds are exceeded."""
    cache_key = f"ratelimit:{key}"
    added = cache.add(cache_key, 1, timeout=window)
    if added:
        return limit >= 1
    try:
        count = cache.incr(cache_key)
    except ValueError:  # expired between add and incr
        cache.set(cache_key, 1, timeout=window)
        count = 1
    return count <= limit


def peek(key: str) -> int:
    """How many hits ``key`` has in its current window."""
    return int(cache.get(f"ratelimit:{key}", 0))
