"""Practice help on the play page: the hint panel (HTMX asks and polls it) and undo.

Undo is a plain form: the page comes back whole (the log lost rows), the refusal as a
message on it, as resigning does.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.core.errors import GameServiceError, StaleVersion
from games.core.selectors import get_game_or_404, seat_of
from games.practice.selectors import hint_panel
from games.practice.services import request_hint, undo_last_move

HINT_TEMPLATE = "games/partials/practice.html#hint-panel"


def _version(request: HttpRequest) -> int:
    try:
        return int(request.POST.get("version", ""))
    except (TypeError, ValueError):
        return -1


@require_POST
def hint(request: HttpRequest, game_id: int) -> HttpResponse:
    """Ask for (or poll) the hint at the posted ``version``: the hint panel (HTMX).

    A refusal is shown in the panel (HTMX: 200 so it is swapped in, the status in
    ``X-Colonia-Error``) or as a message on the page (a plain form).  A hint of a version
    the game has left is dropped: the panel says so and shows no move.
    """
    game = get_game_or_404(game_id)
    version = _version(request)
    error, status = "", 200
    try:
        request_hint(game=game, user=request.user, version=version)
    except StaleVersion:
        pass  # the game has moved on: that version's hint is dropped (an empty panel)
    except GameServiceError as exc:
        error, status = str(exc), exc.status_code
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect("play", game_id=game.pk)
    seat = seat_of(game, request.user)
    context = {"game": game, "version": game.version, "hint_error": error,
               "hint_version": version}
    if seat is not None:
        context |= hint_panel(game, seat, version=version, error=error)
    response = HttpResponse(render_to_string(HINT_TEMPLATE, context, request=request),
                            status=200)
    if error:
        response["X-Colonia-Error"] = str(status)
    return response


@require_POST
def undo(request: HttpRequest, game_id: int) -> HttpResponse:
    """Take back the viewer's last move (and the AI's answers) at the posted ``version``;
    back to the game, which shows the position again (or why it was refused)."""
    game = get_game_or_404(game_id)
    try:
        undo_last_move(game=game, user=request.user, version=_version(request),
                       key=request.POST.get("key", ""))
    except GameServiceError as exc:
        messages.error(request, str(exc))
        response = redirect("play", game_id=game.pk)
        response["X-Colonia-Error"] = str(exc.status_code)
        return response
    messages.info(request, _("Your last move was taken back."))
    return redirect("play", game_id=game.pk)
