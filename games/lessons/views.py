"""The lesson pages: a step (or its fragments for HTMX), and a move posted from it.

No account and no database: the step is in the address, a move in the form; a plain post
is answered with a redirect to ``?move=<the move>``, which shows how it went (so a reload
or the back button never posts twice).  No view names a game."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.lessons.page import LESSON_TEMPLATE, lesson_context, render_fragments, step_url
from games.lessons.selectors import LessonStep, lesson_step, parse_move, try_move


def _step_or_404(game: str, number: int) -> LessonStep:
    current = lesson_step(game, number=number)
    if current is None:
        raise Http404(_("There is no such lesson step."))
    return current


def lesson(request: HttpRequest, game: str) -> HttpResponse:
    """A game's lesson starts at its first step."""
    _step_or_404(game, 1)
    return redirect("lesson_step", game=game, number=1)


def step(request: HttpRequest, game: str, number: int) -> HttpResponse:
    """One step: its position to play, or (``?move=``) how the reader's move went."""
    current = _step_or_404(game, number)
    move = parse_move(request.GET.get("move"))
    outcome = try_move(current, action=move) if move is not None else None
    kwargs = {"outcome": outcome, "move": move, "params": request.GET,
              "csrf_token": get_token(request)}
    if request.htmx:
        return HttpResponse(render_fragments(current, **kwargs))
    return TemplateResponse(request, LESSON_TEMPLATE, lesson_context(current, **kwargs))


@require_POST
def move(request: HttpRequest, game: str, number: int) -> HttpResponse:
    """The reader's move in a step, checked by the engine and against the step's goal."""
    current = _step_or_404(game, number)
    action = parse_move(request.POST.get("action"))
    if action is None:
        if request.htmx:
            response = HttpResponse(render_fragments(
                current, csrf_token=get_token(request), params={}))
            response["X-Colonia-Error"] = "400"
            return response
        return redirect(step_url(game, number))
    url = step_url(game, number, action)
    if not request.htmx:
        return redirect(url)
    outcome = try_move(current, action=action)
    response = HttpResponse(render_fragments(current, outcome=outcome, move=action, params={},
                                             csrf_token=get_token(request)))
    response["HX-Replace-Url"] = url
    return response
