"""Project-wide middleware: hygiene of input, degradation when a backend is down, gzip."""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.middleware.gzip import GZipMiddleware

from common.api.errors import backend_unavailable
from config import body_limits, limits
from config.error_views import (
    bad_request,
    request_timeout,
    request_too_large,
    service_unavailable,
)

logger = logging.getLogger(__name__)

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def has_nul(request: HttpRequest) -> bool:
    """True when the path, the query string or a form field holds a NUL character.

    PostgreSQL refuses NUL in text (a 500 where SQLite said nothing): no view ever needs
    one, so they are refused at the door.  JSON bodies are checked by the API's parser.
    """
    if "\x00" in request.path or "\x00" in request.path_info:
        return True
    if b"\x00" in unquote_to_bytes(request.META.get("QUERY_STRING", "")):
        return True
    if request.method == "POST" and request.content_type in FORM_TYPES:
        try:
            post = request.POST
        except RequestDataTooBig:
            # The body is consumed: a second read would find an empty form.  Say so, for
            # BoundedRequestMiddleware's 413.
            request.body_too_large = True
            return False
        except (OSError, ValueError):
            return False  # the view reports it (the usual 400)
        for key, values in post.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                return True
    return False


class RejectNulMiddleware:
    """400 for any request carrying a NUL character in its path, query or form fields."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if has_nul(request):
            return bad_request(request)
        return self.get_response(request)


class BoundedRequestMiddleware:
    """Bodies over the limits get a clear 413 (408 for one that stalled), before any view.

    A form or HTMX post over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (64 KiB) used to get the
    400 page (Django's ``RequestDataTooBig``, raised where the CSRF check reads the form)
    while the API answered a JSON 413: now all get a 413 in their own form -- the API's
    JSON, a fragment the page shows for HTMX, the error page otherwise.  Multipart bodies
    carry files, which that limit does not count: their text fields still raise, and the
    400 handler turns that into the same 413.  ``config.body_limits`` (the ASGI door) says
    in the scope when it stopped reading a body: too large, or stalled.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        reason = getattr(request, "scope", {}).get(body_limits.SCOPE_KEY)
        if reason == body_limits.TIMEOUT:
            return request_timeout(request)
        if reason == body_limits.TOO_LARGE:
            declared = body_limits.declared_length(request.scope) or 0
            return request_too_large(request, limits.REQUEST_BODY_MAX_BYTES
                                     if declared > limits.REQUEST_BODY_MAX_BYTES else None)
        if getattr(request, "body_too_large", False):  # found by RejectNulMiddleware
            return request_too_large(request)
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if (limit is not None and declared > limit
                and request.content_type != "multipart/form-data"):
            return request_too_large(request)
        return self.get_response(request)


class BackendUnavailableMiddleware:
    """A database or Redis that is down gives a 503 (JSON for the API and HTMX), not a 500."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not backend_unavailable(exception):
            return None
        logger.warning("%s %s: a backend is unavailable (%s: %s)", request.method,
                       request.path, exception.__class__.__name__, exception)
        return service_unavailable(request)


class SafeGZipMiddleware(GZipMiddleware):
    """Django's gzip, only where BREACH cannot read a secret out of the compressed size.

    BREACH needs a secret and attacker-chosen text in one compressed response that the
    victim's browser fetches with its cookies.  So responses to a signed-in session are
    not compressed (they carry private hands, invite links, CSRF tokens next to names
    anyone can pick); anonymous pages (Django masks each CSRF token afresh per response,
    and adds random-length gzip headers) and token-authenticated API calls (no cookie: a
    third-party page cannot make the browser send them) are.  Static files are compressed
    ahead of time by WhiteNoise.
    """

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        user = getattr(request, "user", None)
        try:
            signed_in = bool(user is not None and getattr(user, "is_authenticated", False))
        except Exception:  # the session store is down: do not compress, do not fail
            return response
        token_auth = request.headers.get("Authorization", "").startswith("Token ")
        if signed_in and not token_auth:
            return response
        return super().process_response(request, response)
