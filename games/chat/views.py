"""Thin views of the table chat: HTMX posts get the chat partials back (out of band),
plain posts (no JavaScript) are redirected to the play page's chat."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.chat import services
from games.chat.errors import ChatError, ChatNotAllowed
from games.chat.selectors import render_chat
from games.models import ChatMessage, Game


def _game(game_id: int) -> Game:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise Http404(_("No such game."))
    return game


def _back(game: Game) -> HttpResponse:
    return redirect(reverse("play", args=[game.pk]) + "#chat-panel")


def _answer(request: HttpRequest, game: Game, *, parts: tuple[str, ...], error: str = "",
            status: int = 200, text: str = "") -> HttpResponse:
    """The chat partials for HTMX (200 with the error inside, so HTMX swaps them); for a
    plain request, the error as a message and a redirect to the chat."""
    if request.htmx:
        html = render_chat(game, request.user, parts=parts, csrf_token=get_token(request),
                           error=error, text=text)
        response = HttpResponse(html)
        if error:
            response["X-Colonia-Error"] = str(status)
        return response
    if error:
        messages.error(request, error)
    return _back(game)


@require_GET
def chat_log(request: HttpRequest, game_id: int) -> HttpResponse:
    """The chat log (a page that reconnects its socket refetches it)."""
    game = _game(game_id)
    if not request.htmx:
        return _back(game)
    return _answer(request, game, parts=("log",))


@require_POST
def chat_post(request: HttpRequest, game_id: int) -> HttpResponse:
    """Post a message (players and signed-in spectators; anonymous visitors only read)."""
    game = _game(game_id)
    text = request.POST.get("text", "")
    if not request.user.is_authenticated and not request.htmx:
        return redirect_to_login(reverse("play", args=[game.pk]))
    try:
        services.post_message(game=game, user=request.user, text=text)
    except ChatError as exc:
        return _answer(request, game, parts=("log", "form"), error=str(exc),
                       status=exc.status_code, text=text[: 2 * settings.CHAT_MAX_LENGTH])
    return _answer(request, game, parts=("log", "form"))


@require_POST
def chat_remove(request: HttpRequest, game_id: int, message_id: int) -> HttpResponse:
    """Staff remove a message (403 for anyone else)."""
    game = _game(game_id)
    message = ChatMessage.objects.filter(pk=message_id, game=game).first()
    if message is None:
        raise Http404(_("No such message."))
    try:
        services.remove_message(message=message, by=request.user)
    except ChatError as exc:
        if request.htmx:
            return _answer(request, game, parts=("log",), error=str(exc), status=403)
        return HttpResponse(str(exc), status=403, content_type="text/plain; charset=utf-8")
    return _answer(request, game, parts=("log",))


@require_POST
def chat_mute(request: HttpRequest, game_id: int, user_id: int, *, muted: bool = True
              ) -> HttpResponse:
    """Mute (or unmute) someone's messages, for the viewer only, at every table."""
    game = _game(game_id)
    if not request.user.is_authenticated:
        if not request.htmx:
            return redirect_to_login(reverse("play", args=[game.pk]))
        refused = ChatNotAllowed(_("Log in to mute someone."))
        return _answer(request, game, parts=("log",), error=str(refused), status=403)
    try:
        if muted:
            services.mute(user=request.user, muted_id=user_id)
        else:
            services.unmute(user=request.user, muted_id=user_id)
    except ChatError as exc:
        return _answer(request, game, parts=("log", "muted"), error=str(exc),
                       status=exc.status_code)
    return _answer(request, game, parts=("log", "muted"))
