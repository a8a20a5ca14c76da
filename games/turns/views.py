"""The page of games waiting for me."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from accounts.models import set_turn_emails
from games.tables.selectors import summarize_game
from games.turns.selectors import render_nav_turns, waiting_games
from games.turns.unsubscribe import user_of_token


@login_required
def waiting(request: HttpRequest) -> HttpResponse:
    """My running games where it is my turn, the longest waiting first."""
    rows = [summarize_game(listing.game, request.user) for listing in waiting_games(request.user)]
    return TemplateResponse(request, "games/waiting.html", {"rows": rows})


@require_GET
def waiting_nav(request: HttpRequest) -> HttpResponse:
    """The nav's count again (the page refetches it when its window gets the focus, and
    every minute where no socket pushes it: one query); 204 once signed out, so nothing
    is swapped in."""
    if not request.user.is_authenticated:
        return HttpResponse(status=204)
    response = HttpResponse(render_nav_turns(request.user, live=request.GET.get("live") == "1"))
    response["Cache-Control"] = "no-store"
    return response


@csrf_exempt  # the signed token is the credential; mail clients POST without a CSRF token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The unsubscribe link of turn mails: GET asks, POST unsubscribes.

    POST is RFC 8058's one-click unsubscribe too (``List-Unsubscribe-Post``): a mail
    client posts ``List-Unsubscribe=One-Click`` here without the person's session.
    """
    user_id = user_of_token(token)
    person = (get_user_model()._default_manager.filter(pk=user_id).first()
              if user_id is not None else None)
    if person is None:
        return TemplateResponse(request, "accounts/unsubscribe.html", {"invalid": True},
                                status=404)
    done = False
    if request.method == "POST":
        set_turn_emails(user=person, enabled=False)
        done = True
    return TemplateResponse(request, "accounts/unsubscribe.html",
                            {"person": person, "done": done})
