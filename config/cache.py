"""The Redis cache backend with one connection pool per process, not one per request.

Django keeps a cache object per async context, and under ASGI every request is a context
of its own: with the stock ``RedisCache`` each request built a new client, so its first
throttle or rate-limit check opened a new TCP connection to Redis (and a ``HELLO``) and
dropped it at the end -- on every move.  Here every cache object of one configuration
shares one client, whose redis-py connection pool is thread-safe, reconnects after a
Redis restart and starts afresh in a forked child.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property

_clients: dict[str, RedisCacheClient] = {}
_lock = threading.Lock()


class SharedRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` sharing its client per process."""

    @cached_property
    def _cache(self) -> Any:
        key = repr((self._class, self._servers, sorted(self._options.items(), key=str)))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client


class NamespacedRedisCache(SharedRedisCache):
    """A shared-client Redis cache whose ``clear`` deletes only its own keys.

    The stock ``clear`` is a ``FLUSHDB``: with several test processes on one Redis (the
    workers of a parallel run, other people's runs) one test's ``cache.clear()`` would wipe
    the throttle counters of tests running elsewhere.  Here it deletes the keys under this
    cache's ``KEY_PREFIX`` (which must then be set: an empty prefix would match everything).
    """

    def clear(self) -> None:
        """Delete every key of this cache's prefix (every version), nothing else."""
        if not self.key_prefix:
            raise ValueError("NamespacedRedisCache needs a KEY_PREFIX")
        client = self._cache.get_client(None, write=True)
        batch: list[bytes] = []
        for key in client.scan_iter(match=f"{self.key_prefix}:*", count=1000):
            batch.append(key)
            if len(batch) >= 1000:
                client.delete(*batch)
                batch.clear()
        if batch:
            client.delete(*batch)
