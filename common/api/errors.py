"""One error shape for the whole API: ``{"detail", "code", "errors"?, "version"?}``.

Every API error -- validation (400, with ``errors`` by field), authentication (401),
permission (403), not found (404), body too large (413), throttled (429), the services'
refusals (403/409/422 with the game's ``version``), a backend that is down (503) and even
an unexpected crash (500) -- answers JSON of this shape, which the OpenAPI schema
documents for every operation (``ErrorOutput``, and ``default``).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from common.errors import ServiceError

logger = logging.getLogger(__name__)

#: Seconds a client should wait after a 503 (a backend restart takes about this long).
RETRY_AFTER = 5


def backend_unavailable(exc: BaseException) -> bool:
    """True for errors that mean a backend (database, Redis) is down, not a bug."""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError
    except ImportError:  # pragma: no cover - redis is a dependency
        return False
    return isinstance(exc, RedisConnectionError | RedisTimeoutError | ConnectionRefusedError)


def error_body(detail: Any, code: str, **extra: Any) -> dict[str, Any]:
    """``{"detail", "code", ...extra}`` with ``detail`` as plain text."""
    return {"detail": str(detail), "code": str(code), **extra}


def _flatten_codes(detail: Any) -> str:
    if isinstance(detail, exceptions.ErrorDetail):
        return detail.code or "error"
    return "error"


def _field_errors(detail: Any) -> dict[str, Any]:
    """DRF's nested validation detail as ``{field: [messages]}`` (plain strings)."""
    if isinstance(detail, dict):
        return {str(k): _messages(v) for k, v in detail.items()}
    return {"non_field_errors": _messages(detail)}


def _messages(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _messages(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_messages(v) for v in value]
    return str(value)


def _first_message(errors: Any) -> str:
    while isinstance(errors, dict | list) and errors:
        errors = next(iter(errors.values())) if isinstance(errors, dict) else errors[0]
    return str(errors) if errors else ""


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's ``EXCEPTION_HANDLER``: every error in the one shape."""
    if isinstance(exc, ServiceError):
        body = error_body(exc, exc.code)
        if getattr(exc, "errors", None):
            body["errors"] = exc.errors
        if exc.version is not None:
            body["version"] = exc.version
        return Response(body, status=exc.status_code)
    if isinstance(exc, RequestDataTooBig):
        return Response(
            error_body(_("The request body is too large."), "request_too_large"),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if backend_unavailable(exc):
        logger.warning("API: a backend is unavailable (%s: %s)", exc.__class__.__name__, exc)
        return Response(
            error_body(_("The service is temporarily unavailable; try again shortly."),
                       "unavailable"),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(RETRY_AFTER)},
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) if str(exc) else None)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        errors = _field_errors(exc.detail)
        response.data = error_body(
            _first_message(errors) or _("Invalid input."), "invalid", errors=errors
        )
    elif isinstance(exc, exceptions.APIException):
        response.data = error_body(exc.detail if not isinstance(exc.detail, dict | list)
                                   else exc.default_detail, _flatten_codes(exc.detail)
                                   if isinstance(exc.detail, exceptions.ErrorDetail)
                                   else exc.default_code)
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            response.data["retry_after"] = int(exc.wait)
    return response


# --- Django-level handlers: errors raised before or outside DRF views -----------------------


def wants_json(request: HttpRequest) -> bool:
    """API paths answer JSON whatever went wrong."""
    return request.path.startswith("/api/")


def json_error(request: HttpRequest, status_code: int, detail: str, code: str) -> JsonResponse:
    response = JsonResponse(error_body(detail, code), status=status_code)
    if status_code == 503:
        response["Retry-After"] = str(RETRY_AFTER)
    return response
