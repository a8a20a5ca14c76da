"""Render a game's live fragments once per hint and viewer kind, share them, send changes.

Every committed change sends one hint (``broadcast.game_updated``).  Without sharing,
each socket rendered its own viewer's fragments: 40 spectators made a move take 2.6 s to
arrive.  Here the fragments of one hint are rendered once per *viewer kind* and process,
and every socket of that kind gets the same text:

* ``anon``: every anonymous spectator (no session, nothing private: the common case);
* ``member-<csrf>``: a signed-in spectator (forms carry their CSRF token);
* ``seat<N>-<csrf>``: a seat (its own ``observe`` and forms).

Between web processes (``--workers N``) the render is shared through Redis as well
(``SharedRenders``): one process renders, the others wait for its HTML.

The key is the hint's id, not only the version: a table waiting for players changes
(people join) while its version stays 0.  Concurrent sockets of one kind wait for the
first render instead of rendering too (an asyncio future per key).

Each socket remembers a digest of every top-level fragment it sent and sends only the
ones that changed (the status fragment carries the version, so it always goes).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

#: Renders kept per process (a few per live game are in use at any moment).
CACHE_SIZE = 2048
#: Threads that render for sockets, per web process: off the one thread that runs the HTTP
#: views, but few, since each keeps a database connection (PostgreSQL has a limit).
RENDER_THREADS = 2
render_executor = ThreadPoolExecutor(max_workers=RENDER_THREADS,
                                     thread_name_prefix="colonia-render")

async def run_render[T](render: Callable[..., T], *args: Any) -> T:
    """``render(*args)`` (sync, reads the database) on one of the render threads.

    Each render thread keeps its SQLite connection from one render to the next: opening
    one (and its PRAGMAs, and the statement cache it starts without) cost ~1.3 of the
    ~5 CPU-ms a render's database reads took, on every move.  A render only reads, in
    autocommit, so a kept connection sees every commit; it is closed after an error.  Other
    databases give theirs back after each render, as before (PostgreSQL: to the pool).
    """
    return await asyncio.get_running_loop().run_in_executor(
        render_executor, functools.partial(_with_connection, render, *args))


def _with_connection[T](render: Callable[..., T], *args: Any) -> T:
    from django.db import close_old_connections, connection

    if connection.vendor != "sqlite":
        close_old_connections()
        try:
            return render(*args)
        finally:
            close_old_connections()
    try:
        return render(*args)
    except BaseException:
        connection.close()
        raise

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                  "meta", "source", "track", "wbr"})
VERSION_ATTR = re.compile(r'\sdata-version="\d+"')


@dataclass(frozen=True)
class Fragment:
    """One top-level element of a fragments message: its id, HTML and change digest."""

    id: str
    html: str
    digest: str


#: A comment, a declaration, a raw-text element, or a start/end tag (quoted attribute
#: values may hold ``>``).
_SKIP = r"""<!--.*?-->|<![^>]*>|<\?[^>]*>|<(?:script|style)\b.*?</(?:script|style)\s*>"""
_ATTRS = r"""((?:[^>"']|"[^"]*"|'[^']*')*)"""
TAG = re.compile(_SKIP + r"|<(/?)([A-Za-z][^\s/>]*)" + _ATTRS + ">", re.S | re.I)
ID_ATTR = re.compile(r"""(?:^|\s)id\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_SAME_NAME: dict[str, re.Pattern] = {}


def _same_name(tag: str) -> re.Pattern:
    """Start/end tags named ``tag`` only (comments and raw text skipped whole)."""
    pattern = _SAME_NAME.get(tag)
    if pattern is None:
        pattern = re.compile(_SKIP + rf"|<(/?){re.escape(tag)}(?=[\s/>])" + _ATTRS + ">",
                             re.S | re.I)
        _SAME_NAME[tag] = pattern
    return pattern


def _top_level_spans(html: str) -> list[tuple[str, int, int]] | None:
    """``(id, start, end)`` of each top-level element, or ``None`` if unbalanced.

    The split runs once per render, on the event loop, and ``html.parser`` cost more than
    the render itself for a board's SVG.  So: find a top-level start tag, then only the
    tags *of the same name* decide where it ends (in well-formed HTML no other tag can
    close it), and the regular expression skips everything else at C speed.  Void and
    self-closing (SVG) elements do not nest; comments and ``<script>``/``<style>``
    bodies are skipped whole.
    """
    spans: list[tuple[str, int, int]] = []
    pos, length = 0, len(html)
    while pos < length:
        match = TAG.search(html, pos)
        if match is None:
            break
        pos = match.end()
        name = match.group(2)
        if name is None:  # a comment or a declaration: skipped; a top-level script: no split
            if match.group(0)[1:2].lower() == "s":
                return None
            continue
        if match.group(1):  # an end tag with nothing open
            return None
        start, attrs = match.start(), match.group(3)
        found = ID_ATTR.search(attrs)
        ident = next((g for g in found.groups() if g is not None), "") if found else ""
        tag = name.lower()
        if tag not in VOID and not attrs.rstrip().endswith("/"):
            depth, search = 1, _same_name(tag).search
            while depth:
                inner = search(html, pos)
                if inner is None:
                    return None
                pos = inner.end()
                slash, inner_attrs = inner.group(1), inner.group(2)
                if slash is None or (not slash and inner_attrs.rstrip().endswith("/")):
                    continue  # a comment, raw text, or a self-closing element
                depth += -1 if slash else 1
        spans.append((ident, start, pos))
    return spans


def split_fragments(html: str) -> list[Fragment]:
    """The top-level elements of ``html`` as fragments; one fragment if it cannot split."""
    spans = _top_level_spans(html) or []
    ids = [span[0] for span in spans]
    if not spans or "" in ids or len(set(ids)) != len(ids):
        return [Fragment("", html, _digest(html))]  # sent whole, always
    return [Fragment(ident, html[start:end], _digest(html[start:end]))
            for ident, start, end in spans]


def _digest(html: str) -> str:
    """What a fragment shows, minus its version stamp (so "same content" is detected)."""
    return hashlib.blake2b(VERSION_ATTR.sub("", html).encode(), digest_size=12).hexdigest()


def token_digest(token: str) -> str:
    """A short, non-reversible tag of a CSRF secret (part of a viewer kind)."""
    return hashlib.blake2b(token.encode(), digest_size=6).hexdigest()


class SharedRenders:
    """The same renders shared between web processes through Redis (``REDIS_URL``).

    The first process to see a hint for a kind renders it (it wins ``SET NX`` on a lock)
    and stores the HTML for a minute; the others wait for that HTML instead of rendering
    it too -- ``--workers N`` then costs one render per hint and kind, not N.  Without
    Redis (tests, or Redis down) every process renders for itself.

    The lock and a first read go in one round trip, so a process that sees the hint after
    the HTML was stored takes it at once.  Otherwise it sleeps most of the time its recent
    waits for that kind of render took (board and chat renders differ; a render takes
    about as long each move), then polls: one or two reads per hint instead of one every
    ``POLL_SECONDS`` of the render (each Redis command costs the event loop ~0.3 ms).
    """

    LOCK_SECONDS = 5
    KEEP_SECONDS = 60
    WAIT_SECONDS = 2.0
    POLL_SECONDS = 0.005
    #: The first sleep is this share of the recent waits (an average of them).
    FIRST_SLEEP_SHARE = 0.75
    FIRST_SLEEP_MAX = 0.05

    def __init__(self) -> None:
        self.clients: dict[int, Any] = {}
        # Seconds, per kind of render ("board", "chat"): a moving average of the waits
        # that succeeded.
        self.recent_waits: dict[str, float] = {}

    def _client(self) -> Any | None:
        from django.conf import settings

        layer = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
        if "redis" not in layer.lower():
            return None
        loop = asyncio.get_running_loop()
        owner, client = self.clients.get(id(loop), (None, None))
        if client is None or owner is not loop:  # (an id can be reused by a later loop)
            import redis.asyncio as aioredis

            client = aioredis.Redis.from_url(
                settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=2
            )
            self.clients[id(loop)] = (loop, client)
        return client

    async def get(self, key: tuple, render: Callable[[], Awaitable[str | None]],
                  kind: str = "board") -> str | None:
        """The HTML for ``key``: rendered here if this process wins the lock, else the
        other process's (rendered here after all when Redis fails or is too slow).
        ``kind``: renders of one kind take about as long (its waits are learnt apart)."""
        client = self._client()
        if client is None:
            return await render()
        from django.conf import settings

        # Under the cache's key prefix ("colonia"): test processes sharing a Redis each
        # have their own, so one's game 1 never answers for another's.
        prefix = settings.CACHES.get("default", {}).get("KEY_PREFIX") or "colonia"
        name = f"{prefix}:fragments:" + hashlib.blake2b(repr(key).encode(),
                                                        digest_size=16).hexdigest()
        try:
            async with client.pipeline(transaction=False) as pipe:
                won, value = await pipe.set(name + ":lock", b"1", nx=True,
                                            ex=self.LOCK_SECONDS).get(name).execute()
            if won:
                html = await render()
                await client.set(name, b"\0" if html is None else html.encode(),
                                 ex=self.KEEP_SECONDS)
                return html
            if value is not None:  # stored before this process saw the hint
                return None if value == b"\0" else value.decode()
            recent = self.recent_waits.get(kind, 0.0)
            started = time.monotonic()
            deadline = started + self.WAIT_SECONDS
            await asyncio.sleep(min(recent * self.FIRST_SLEEP_SHARE, self.FIRST_SLEEP_MAX))
            while time.monotonic() < deadline:
                value = await client.get(name)
                if value is not None:
                    waited = time.monotonic() - started
                    self.recent_waits[kind] = recent + (waited - recent) / 8
                    return None if value == b"\0" else value.decode()
                await asyncio.sleep(self.POLL_SECONDS)
        except Exception:  # Redis down or slow: render here (the sockets close soon anyway)
            pass
        return await render()


shared = SharedRenders()


class FragmentCache:
    """Per-process LRU of rendered fragments with one in-flight render per key."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self.entries: OrderedDict[tuple, list[Fragment] | None] = OrderedDict()
        self.inflight: dict[tuple, asyncio.Future] = {}
        self.renders = 0  # for tests and the load command: how many real renders

    async def get(self, key: tuple, render: Callable[[], Awaitable[str | None]],
                  kind: str = "board") -> list[Fragment] | None:
        """The fragments for ``key``; ``render()`` runs once however many sockets ask
        (``kind``: "board" or "chat", see :meth:`SharedRenders.get`)."""
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        pending = self.inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future = asyncio.get_running_loop().create_future()
        self.inflight[key] = future
        try:
            html = await shared.get(key, self._counted(render), kind)
            fragments = None if html is None else split_fragments(html)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning if nobody waits
            raise
        finally:
            self.inflight.pop(key, None)
        future.set_result(fragments)
        self.entries[key] = fragments
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)
        return fragments

    def _counted(self, render: Callable[[], Awaitable[str | None]]
                 ) -> Callable[[], Awaitable[str | None]]:
        async def counted() -> str | None:
            self.renders += 1
            return await render()

        return counted


#: The process's cache (one event loop per web process).
cache = FragmentCache()


def changed_only(fragments: list[Fragment], sent: dict[str, str]) -> str:
    """The HTML of the fragments whose digest differs from ``sent`` (updated in place)."""
    out = []
    for fragment in fragments:
        if not fragment.id or sent.get(fragment.id) != fragment.digest:
            out.append(fragment.html)
            if fragment.id:
                sent[fragment.id] = fragment.digest
    return "".join(out)
