"""Error pages: real 400/403/404/500 pages for people, the API's JSON shape under /api/.

Django calls these (``handler404`` ... in ``config.urls``) with ``DEBUG`` off.  The 500 and
503 pages render without the request context: whatever broke (the database, a template)
must not break the error page too.
"""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from common.api.errors import backend_unavailable, json_error, wants_json


def _page(request: HttpRequest, status: int, template: str) -> HttpResponse:
    return TemplateResponse(request, template, {"status": status}, status=status).render()


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
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
