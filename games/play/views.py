"""The play page (or its fragments for HTMX requests) and the action of the viewer's seat.

HTMX requests get the page's fragments as out-of-band swaps (the same fragments the socket
consumer pushes); plain requests get the whole page.  No view names a game."""

from __future__ import annotations

import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common import ratelimit
from games.ai_turns.services import nudge_if_stalled
from games.chat.selectors import chat_context, chat_mark
from games.core.errors import GameServiceError, StaleVersion
from games.core.selectors import get_game_or_404, seat_of
from games.core.services import MAX_ACTION_BYTES, submit_action
from games.models import Game
from games.play.page import play_context, render_fragments
from games.tables.services import apply_timeouts


def _shown_version(request: HttpRequest, game: Game) -> int | None:
    """The version the page shows (HTMX picks send it): the log is then only appended."""
    try:
        shown = int(request.GET.get("version", ""))
    except (TypeError, ValueError):
        return None
    return shown if 0 <= shown <= game.version else None



def _base_url(request: HttpRequest) -> str:
    """``https://host`` of this request (invite links are absolute)."""
    return request.build_absolute_uri("/").rstrip("/")



def play(request: HttpRequest, game_id: int) -> HttpResponse:
    """The play page (or its fragments for HTMX requests).

    The query string holds what the player has picked but not played (see the board).
    """
    game = get_game_or_404(game_id)
    if game.clock != Game.Clock.NONE and game.status == Game.Status.RUNNING \
            and apply_timeouts(game=game):
        game = get_game_or_404(game_id)  # a seat ran out of time: the table's rule applied
    nudge_if_stalled(game=game)
    if request.htmx:
        html = render_fragments(game, request.user, params=request.GET,
                                csrf_token=get_token(request), base_url=_base_url(request),
                                log_since=_shown_version(request, game))
        return HttpResponse(html)
    context = play_context(game, request.user, params=request.GET, csrf_token=get_token(request),
                           base_url=_base_url(request))
    return TemplateResponse(request, "games/play.html", _with_chat(context, game, request))



def _with_chat(context: dict, game: Game, request: HttpRequest) -> dict:
    """The whole page's context plus the table chat's (see games.chat); the socket's
    address gets the chat's mark beside the version (see games.play.consumers).

    The mark is read before the messages: a message posted in between makes the socket
    send the log again (harmless), never miss it.
    """
    mark = chat_mark(game)
    chat = chat_context(game, request.user, csrf_token=get_token(request))
    return context | {k: v for k, v in chat.items() if k not in context} | {
        "ws_url": f"{context['ws_url']}&chat={mark}"}




@require_POST
def act(request: HttpRequest, game_id: int) -> HttpResponse:
    """One action of the viewer's seat, from a form (or ``hx-post``) on the play page."""
    game = get_game_or_404(game_id)
    seat = seat_of(game, request.user)
    error = ""
    status = 200
    raw_action = request.POST.get("action", "")
    # Real actions are tiny: big JSON is refused before it is parsed (deep nesting too).
    too_large = len(raw_action) > MAX_ACTION_BYTES
    try:
        action = None if too_large else json.loads(raw_action)
    except (TypeError, ValueError, RecursionError):
        action = None
    try:
        version = int(request.POST.get("version", ""))
    except (TypeError, ValueError):
        version = -1
    key = request.POST.get("key", "")
    if seat is None:
        error = _("You are not seated at this table: you can only watch.")
        status = 403
    elif too_large:
        error = _("This action is too large.")
        status = 413
    elif action is None:
        error = _("That is not a valid action.")
        status = 400
    elif not ratelimit.hit(
        f"moves:{request.user.pk}", limit=settings.MOVE_RATE_LIMIT_PER_MINUTE, window=60
    ):
        error = _("Too many moves in a minute: wait a moment and try again.")
        status = 429
    else:
        try:
            game = submit_action(
                game=game, user=request.user, seat=seat, action=action, version=version, key=key
            )
        except StaleVersion as exc:
            # The answer below is the current position: the page has refreshed already.
            error = str(exc.page_message)
            status = exc.status_code
        except GameServiceError as exc:
            error = str(exc)
            status = exc.status_code
    game = get_game_or_404(game_id)  # fresh: the AI may have moved (eager tasks)
    if request.htmx:
        # 200 so HTMX swaps the fragments; the error is in the status fragment.  The log
        # gets the moves after the version the page posted from.
        html = render_fragments(game, request.user, error=error, csrf_token=get_token(request),
                                base_url=_base_url(request),
                                log_since=version if 0 <= version <= game.version else None)
        response = HttpResponse(html)
        if error:
            response["X-Colonia-Error"] = str(status)
        else:
            # The move is made: what was picked for it is gone from the address too.
            response["HX-Replace-Url"] = reverse("play", args=[game.pk])
        return response
    if not error:
        return redirect("play", game_id=game.pk)
    context = play_context(game, request.user, error=error, csrf_token=get_token(request),
                           base_url=_base_url(request))
    return TemplateResponse(request, "games/play.html", _with_chat(context, game, request),
                            status=status)
