"""Project-wide middleware: hygiene of input, degradation when a backend is down, gzip."""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.middleware.gzip import GZipMiddleware

from common.api.errors import backend_unavailable
from config.error_views import bad_request, service_unavailable

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
        except (RequestDataTooBig, OSError, ValueError):
            return False  # the view reports it (a 413, or the usual 400)
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
