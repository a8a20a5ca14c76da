"""Error pages: real 400/403/404/500 pages for people, the API's JSON shape under /api/.

Django calls these (``handler404`` ... in ``config.urls``) with ``DEBUG`` off.  The 500 and
503 pages render without the request context: whatever broke (the database, a template)
must not break the error page too.
"""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import REASON_NO_CSRF_COOKIE
from django.template import loader
from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from common.api.errors import backend_unavailable, json_error, wants_json


def _page(request: HttpRequest, status: int, template: str) -> HttpResponse:
    return TemplateResponse(request, template, {"status": status}, status=status).render()


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):  # e.g. a long text field of a file form
        return request_too_large(request)
    if wants_json(request):
        return json_error(request, 400, _("Bad request."), "bad_request")
    return _page(request, 400, "400.html")


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if wants_json(request):
        return json_error(request, 403, _("You do not have permission to do this."),
                          "permission_denied")
    return _page(request, 403, "403.html")


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if wants_json(request):
        return json_error(request, 404, _("Not found."), "not_found")
    return _page(request, 404, "404.html")


def server_error(request: HttpRequest) -> HttpResponse:
    if backend_unavailable(sys.exc_info()[1]):  # e.g. the session store is down
        return service_unavailable(request)
    if wants_json(request):
        return json_error(request, 500, _("Server error: we have been told."), "server_error")
    return HttpResponse(loader.get_template("500.html").render(), status=500)


def service_unavailable(request: HttpRequest) -> HttpResponse:
    """A backend (database, Redis) is down: JSON for the API and HTMX, else a page."""
    if wants_json(request) or request.headers.get("HX-Request"):
        return json_error(request, 503, _("The service is temporarily unavailable; "
                                          "try again shortly."), "unavailable")
    response = HttpResponse(loader.get_template("503.html").render(), status=503)
    response["Retry-After"] = "5"
    return response


def _refused(request: HttpRequest, status: int, *, detail: str, code: str, message: str,
             template: str, context: dict) -> HttpResponse:
    """A refused request: the API's JSON, a fragment for HTMX (``X-Colonia-Error``: the
    page shows its text, static/js/colonia.js), else the error page in the site's layout."""
    if wants_json(request):
        return json_error(request, status, detail, code)
    if request.headers.get("HX-Request"):
        html = render_to_string("partials/request_error.html",
                                {"status": status, "message": message}, request=request)
        response = HttpResponse(html, status=status)
        response["X-Colonia-Error"] = str(status)
        return response
    return TemplateResponse(request, template, {"status": status, **context},
                            status=status).render()


def request_too_large(request: HttpRequest, limit: int | None = None) -> HttpResponse:
    """413: the body is over ``limit`` bytes (Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``)."""
    size = filesizeformat(limit or settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    return _refused(
        request, 413, detail=_("The request body is too large."), code="request_too_large",
        message=_("What you sent is too large (more than %(limit)s): shorten it and try "
                  "again.") % {"limit": size},
        template="413.html", context={"limit": size},
    )


def request_timeout(request: HttpRequest) -> HttpResponse:
    """408: the body stopped arriving (``config.body_limits``)."""
    return _refused(
        request, 408, detail=_("The request body did not arrive in time."),
        code="request_timeout",
        message=_("What you sent did not arrive in time: please try again."),
        template="408.html", context={},
    )


def _page_sent_from(request: HttpRequest) -> str:
    """The page of this site the request was sent from (its ``Referer``), else ``""``."""
    referer = request.META.get("HTTP_REFERER", "")
    if referer and url_has_allowed_host_and_scheme(
            referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return referer
    return ""


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """403 for a form whose CSRF token no longer matches (``CSRF_FAILURE_VIEW``, with or
    without ``DEBUG``): usually the session changed since the page was loaded (a log-out
    and log-in in another tab gives a new token). In the site's layout and the reader's
    language, it says so and offers the way back to the page the form was on, to do it
    again there with a fresh form; the posted data is never sent again from here (that
    would let a forged cross-site post through with one click). HTMX gets the message as
    a fragment, the API its JSON error."""
    no_cookie = reason == REASON_NO_CSRF_COOKIE
    if no_cookie:
        message = _("Your browser did not send this site's cookie, so nothing was done: "
                    "allow cookies for this site, reload the page and try again.")
    else:
        message = _("Your session changed since this page was loaded (for example, you "
                    "logged out and in again in another tab), so nothing was done: reload "
                    "the page and do it again.")
    return _refused(
        request, 403, detail=_("The form was out of date (CSRF check failed): reload the "
                               "page and try again."),
        code="csrf_failed", message=message, template="403_csrf.html",
        context={"back_url": _page_sent_from(request), "no_cookie": no_cookie},
    )
