"""The replay page (thin): ``/games/<id>/replay/?step=K&seat=S``.

Access is decided by ``games.replay.selectors`` (the one selector shared with the API and the
export); the context comes from ``games.replay.page``.  HTMX requests get the
``replay-fragments`` partial (out-of-band swaps), plain requests the whole page.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.chat.selectors import chat_context
from games.core.errors import GameServiceError
from games.core.selectors import game_label, get_game
from games.models import Game
from games.replay.errors import PerspectiveForbidden
from games.replay.page import REPLAY_TEMPLATE, replay_context, replay_url
from games.replay.selectors import replay_step


@require_GET
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """One step of a game's replay, seen from one perspective."""
    try:
        game = get_game(game_id)
    except Game.DoesNotExist:
        raise Http404(_("No such game.")) from None
    try:
        step = replay_step(game, request.user, step=request.GET.get("step"),
                           seat=request.GET.get("seat"))
    except GameServiceError as exc:
        context = {
            "game": game,
            "game_id": game.pk,
            "game_label": game_label(game),
            "error": str(exc),
            "play_url": reverse("play", args=[game.pk]),
            "retry_url": replay_url(game.pk) if isinstance(exc, PerspectiveForbidden) else "",
        }
        return TemplateResponse(request, REPLAY_TEMPLATE, context, status=exc.status_code)
    # A history restore wants a whole page (replay.js reloads instead; this is the fallback).
    htmx = bool(request.htmx and not request.htmx.boosted
                and not request.htmx.history_restore_request)
    context = replay_context(step, request.user, csrf_token=get_token(request), oob=htmx,
                             shown=request.GET.get("shown"))
    if htmx:
        response = TemplateResponse(request, f"{REPLAY_TEMPLATE}#replay-fragments", context)
        # The address bar gets the step's shareable address (without the page's `shown`).
        response["HX-Push-Url"] = replay_url(game.pk, step=step.step, seat=step.perspective.param)
        return response
    # The table chat, read-only (games.chat): written on the play page only.
    chat = chat_context(game, request.user, readonly=True)
    context |= {k: v for k, v in chat.items() if k not in context}
    return TemplateResponse(request, REPLAY_TEMPLATE, context)
