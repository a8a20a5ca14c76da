"""Bounded request bodies at the ASGI door: no request waits on a body that never comes.

uvicorn has neither a body-size limit nor a read timeout, and Django's ASGI handler reads
the whole body before it looks at the request: a request declaring ``Content-Length:
99999999999`` and sending ten bytes held a connection (and a spooled file) without an
answer for as long as the client liked.  :class:`BoundedBody` wraps the HTTP app:

* a declared length over ``REQUEST_BODY_MAX_BYTES`` is refused at once, before a byte of
  the body is read (so ``Expect: 100-continue`` clients never send it);
* a body that grows past the limit (chunked, no length) is cut there;
* a body whose next piece does not come within ``REQUEST_BODY_TIMEOUT`` seconds is
  given up.

It does not answer itself: Django does, with an empty body and the reason in
``scope["colonia.body"]`` (``"too_large"`` or ``"timeout"``), so the answer is the
site's own -- JSON for the API, a fragment for HTMX, the error page in the reader's
language (``config.middleware.BoundedRequestMiddleware``) -- with ``Connection: close``,
since the rest of the body is never read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from config import limits

#: The scope key that tells Django why the body was not read.
SCOPE_KEY = "colonia.body"
TOO_LARGE, TIMEOUT = "too_large", "timeout"

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def declared_length(scope: dict) -> int | None:
    """The request's ``Content-Length`` as an int, or ``None`` (absent or not a number)."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def read_body(receive: Receive, max_bytes: int, timeout: float
                    ) -> tuple[bytes | None, str | None]:
    """``(body, None)``; ``(None, reason)`` when it is too large or stalls; ``(None,
    None)`` when the client went away."""
    chunks, size = [], 0
    while True:
        try:
            message = await asyncio.wait_for(receive(), timeout)
        except TimeoutError:
            return None, TIMEOUT
        if message["type"] == "http.disconnect":
            return None, None
        body = message.get("body", b"")
        size += len(body)
        if size > max_bytes:
            return None, TOO_LARGE
        chunks.append(body)
        if not message.get("more_body", False):
            return b"".join(chunks), None


class BoundedBody:
    """ASGI middleware for the ``http`` scope: the body bounded in size and in time."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes, timeout = limits.REQUEST_BODY_MAX_BYTES, limits.REQUEST_BODY_TIMEOUT
        declared = declared_length(scope)
        if declared is not None and declared > max_bytes:
            body, reason = None, TOO_LARGE
        else:
            body, reason = await read_body(receive, max_bytes, timeout)
            if body is None and reason is None:
                return  # the client left before its body was in: nobody to answer
        if reason is not None:
            scope = {**scope, SCOPE_KEY: reason}
            send = _closing(send)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body or b"", "more_body": False}
            while True:  # after the body only a disconnect is news (Django listens for it)
                message = await receive()
                if message["type"] != "http.request":
                    return message

        await self.app(scope, replay, send)


def _closing(send: Send) -> Send:
    """``send`` with ``Connection: close`` on the response: the unread rest of the body
    must not be taken for the next request on this connection."""

    async def closing_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", ())
                       if k.lower() != b"connection"]
            message = {**message, "headers": [*headers, (b"connection", b"close")]}
        await send(message)

    return closing_send
