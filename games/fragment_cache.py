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
import hashlib
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

#: Renders kept per process (a few per live game are in use at any moment).
CACHE_SIZE = 2048
#: Threads that render for sockets, per web process: off the one thread that runs the HTTP
#: views, but few, since each keeps a database connection (PostgreSQL has a limit).
RENDER_THREADS = 2
render_executor = ThreadPoolExecutor(max_workers=RENDER_THREADS,
                                     thread_name_prefix="colonia-render")

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                  "meta", "source", "track", "wbr"})
VERSION_ATTR = re.compile(r'\sdata-version="\d+"')


@dataclass(frozen=True)
class Fragment:
    """One top-level element of a fragments message: its id, HTML and change digest."""

    id: str
    html: str
    digest: str


class _TopLevel(HTMLParser):
    """Finds the (start, end) offsets of the top-level elements of an HTML string."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.text = text
        self.line_starts = [0]
        for match in re.finditer("\n", text):
            self.line_starts.append(match.end())
        self.depth = 0
        self.start = 0
        self.current_id = ""
        self.spans: list[tuple[str, int, int]] = []

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if self.depth == 0:
            self.start = self._offset()
            self.current_id = dict(attrs).get("id") or ""
        if tag not in VOID:
            self.depth += 1
        elif self.depth == 0:
            end = self.text.index(">", self._offset()) + 1
            self.spans.append((self.current_id, self.start, end))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        self.depth -= 1
        if self.depth == 0:
            end = self.text.index(">", self._offset()) + 1
            self.spans.append((self.current_id, self.start, end))


def split_fragments(html: str) -> list[Fragment]:
    """The top-level elements of ``html`` as fragments; one fragment if it cannot split."""
    parser = _TopLevel(html)
    try:
        parser.feed(html)
        parser.close()
    except (ValueError, IndexError):
        parser.spans = []
    spans = parser.spans
    ids = [span[0] for span in spans]
    if not spans or parser.depth != 0 or "" in ids or len(set(ids)) != len(ids):
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
    """

    LOCK_SECONDS = 5
    KEEP_SECONDS = 60
    WAIT_SECONDS = 2.0
    POLL_SECONDS = 0.005

    def __init__(self) -> None:
        self.clients: dict[int, Any] = {}

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

    async def get(self, key: tuple, render: Callable[[], Awaitable[str | None]]) -> str | None:
        client = self._client()
        if client is None:
            return await render()
        name = "colonia:fragments:" + hashlib.blake2b(repr(key).encode(),
                                                      digest_size=16).hexdigest()
        try:
            if await client.set(name + ":lock", b"1", nx=True, ex=self.LOCK_SECONDS):
                html = await render()
                await client.set(name, b"\0" if html is None else html.encode(),
                                 ex=self.KEEP_SECONDS)
                return html
            deadline = time.monotonic() + self.WAIT_SECONDS
            while time.monotonic() < deadline:
                value = await client.get(name)
                if value is not None:
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

    async def get(self, key: tuple,
                  render: Callable[[], Awaitable[str | None]]) -> list[Fragment] | None:
        """The fragments for ``key``; ``render()`` runs once however many sockets ask."""
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        pending = self.inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future = asyncio.get_running_loop().create_future()
        self.inflight[key] = future
        try:
            html = await shared.get(key, self._counted(render))
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
