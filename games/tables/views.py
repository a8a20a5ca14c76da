"""Thin HTML views of the tables: home, rules, lobby, joining and leaving a table,
resigning, handing a seat over, rematches.

Reads go through ``games.tables.selectors``, writes through ``games.tables.services``.
No view names a game.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template import TemplateDoesNotExist
from django.template.loader import select_template
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.boards import get_board
from games.boards.lessons import lesson_names
from games.core.errors import GameServiceError
from games.core.selectors import get_game_or_404, seat_of
from games.engines import get_engine
from games.models import Game
from games.tables.forms import CreateTableForm, QuickPlayForm
from games.tables.page import lobby_context
from games.tables.selectors import (
    game_rows,
    get_game_by_invite,
    resign_outcome,
    summarize_game,
)
from games.tables.services import (
    create_game,
    decline_rematch,
    hand_over_seat,
    join_game,
    leave_game,
    rematch_game,
    resign_game,
)

logger = logging.getLogger(__name__)


@require_GET
def rules(request: HttpRequest, game: str) -> HttpResponse:
    """A game's rules summary, in the reader's language.

    The text lives with the game's board package: ``boards/<game>/rules/<lang>.html`` (one
    file per language, English as the fallback); the page around it is generic."""

    try:
        engine = get_engine(game)
    except (KeyError, TypeError):
        raise Http404(_("There is no such game.")) from None
    lang = (get_language() or settings.LANGUAGE_CODE).split("-")[0]
    try:
        template = select_template(
            [f"boards/{game}/rules/{lang}.html", f"boards/{game}/rules/en.html"]
        )
    except TemplateDoesNotExist:
        raise Http404(_("There is no such game.")) from None
    context = {"game_name": game, "title": engine.title, "rules_template": template.template,
               "in_browser": get_board(game) is not None,
               "has_lesson": game in lesson_names()}
    return TemplateResponse(request, "games/rules.html", context)


def home(request: HttpRequest, quick: QuickPlayForm | None = None) -> HttpResponse:
    """The home page: quick play, every game, its variants, and whether the browser can
    play it."""
    context = {"games": game_rows(browser_only=False),
               "quick": quick or QuickPlayForm.from_query(request.GET), "quick_from": "home"}
    return TemplateResponse(request, "games/home.html", context, status=400 if quick else 200)


#: The pages that show the quick play form (where its errors are shown, where a visitor
#: sent to log in comes back to).
QUICK_PAGES = ("home", "lobby")


@require_POST
def quick_play(request: HttpRequest) -> HttpResponse:
    """Quick play: an unrated table against the AI, started at once; the person lands on the
    play page (at their first move, or watching the AI make its own first).  A visitor is
    sent to log in (or sign up from there) and back to the page, their choices kept."""
    page = request.POST.get("quick-from")
    page = page if page in QUICK_PAGES else "home"
    form = QuickPlayForm(request.POST)
    if not request.user.is_authenticated:
        return redirect_to_login(f"{reverse(page)}?{form.query()}#quick-play")
    if not form.is_valid():
        return home(request, form) if page == "home" else lobby(request, quick=form)
    try:
        # The form's request key: a double click lands on the game the first click opened.
        game = create_game(creator=request.user, variant=form.chosen_variant(),
                           seats=form.seats(), rated=False, key=request.POST.get("key", ""))
    except GameServiceError as exc:
        form.add_error(None, str(exc))
        return home(request, form) if page == "home" else lobby(request, quick=form)
    return redirect("play", game_id=game.pk)


# --- lobby ----------------------------------------------------------------------------------


def lobby(request: HttpRequest, form: CreateTableForm | None = None, *,
          quick: QuickPlayForm | None = None, status: int | None = None) -> HttpResponse:
    """Open tables with Join buttons, my games, quick play and the create-table form."""
    context = lobby_context(request.user)
    if request.htmx and not form and not quick:
        return TemplateResponse(request, "games/lobby.html#open-tables", context)
    context["form"] = form or CreateTableForm()
    context["quick"] = quick or QuickPlayForm.from_query(request.GET)
    context["quick_from"] = "lobby"
    if status is None:
        status = 400 if form or quick else 200
    return TemplateResponse(request, "games/lobby.html", context, status=status)


@require_POST
@login_required
def lobby_create(request: HttpRequest) -> HttpResponse:
    if "update" in request.POST:
        # Without JavaScript: the form again, showing what applies to the choices made.
        return lobby(request, CreateTableForm(initial=request.POST.dict()), status=200)
    form = CreateTableForm(request.POST)
    if not form.is_valid():
        return lobby(request, form)
    try:
        game = create_game(creator=request.user, variant=form.chosen_variant(),
                           seats=form.seats(), key=request.POST.get("key", ""),
                           **form.table_options())
    except GameServiceError as exc:
        form.add_error(None, str(exc))
        return lobby(request, form)
    return redirect("play", game_id=game.pk)


@require_POST
@login_required
def table_join(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_game_or_404(game_id)
    try:
        join_game(game=game, user=request.user)
    except GameServiceError as exc:
        messages.error(request, str(exc))
        return redirect("lobby")
    return redirect("play", game_id=game.pk)


@require_POST
@login_required
def table_leave(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_game_or_404(game_id)
    try:
        leave_game(game=game, user=request.user)
    except GameServiceError as exc:
        messages.error(request, str(exc))
        return redirect("play", game_id=game.pk)
    messages.info(request, _("You left table #%(id)s.") % {"id": game.pk})
    return redirect("lobby")


@require_GET
def invite(request: HttpRequest, token: str) -> HttpResponse:
    """An invite link: the table with a Join button (a GET never takes a seat)."""
    try:
        game = get_game_by_invite(token)
    except Game.DoesNotExist:
        raise Http404(_("This invite link is not valid.")) from None
    if game.status != Game.Status.OPEN or seat_of(game, request.user) is not None:
        return redirect("play", game_id=game.pk)
    return TemplateResponse(
        request,
        "games/table.html",
        {"table": summarize_game(game, request.user), "game": game, "invited": True,
         "here": request.get_full_path()},
    )


# --- the play page --------------------------------------------------------------------------


@require_POST
@login_required
def rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    """Play a finished game again with the same seats (see ``services.rematch_game``)."""
    game = get_game_or_404(game_id)
    try:
        new = rematch_game(game=game, user=request.user)
    except GameServiceError as exc:
        messages.error(request, str(exc))
        return redirect("play", game_id=game.pk)
    return redirect("play", game_id=new.pk)


@require_GET
@login_required
def resign_confirm(request: HttpRequest, game_id: int) -> HttpResponse:
    """Ask before resigning: what follows, then "Yes, resign" (a POST to ``resign``) or
    Cancel.  A page of its own without JavaScript; with HTMX a dialog over the game."""
    game = get_game_or_404(game_id)
    seat = seat_of(game, request.user)
    if game.status != Game.Status.RUNNING or seat is None:
        messages.error(request, _("You can only resign a game you are playing."))
        return redirect("play", game_id=game.pk)
    context = {"game": game, "game_id": game.pk, "outcome": resign_outcome(game, seat),
               "dialog": bool(request.htmx)}
    template = "games/resign_confirm.html" + ("#dialog" if request.htmx else "")
    return TemplateResponse(request, template, context)


@require_POST
@login_required
def rematch_decline(request: HttpRequest, game_id: int) -> HttpResponse:
    """Decline the rematch offered after a finished game (see
    ``services.decline_rematch``); back to that game."""
    game = get_game_or_404(game_id)
    try:
        decline_rematch(game=game, user=request.user)
    except GameServiceError as exc:
        messages.error(request, str(exc))
    else:
        messages.info(request, _("You declined the rematch."))
    return redirect("play", game_id=game.pk)


@require_POST
@login_required
def resign(request: HttpRequest, game_id: int) -> HttpResponse:
    """Resign (see ``services.resign_game``); back to the game, which says what followed."""
    game = get_game_or_404(game_id)
    try:
        resign_game(game=game, user=request.user)
    except GameServiceError as exc:
        messages.error(request, str(exc))
    else:
        messages.info(request, _("You resigned."))
    return redirect("play", game_id=game.pk)


@require_POST
@login_required
def hand_over(request: HttpRequest, game_id: int) -> HttpResponse:
    """Leave a running game to the AI (see ``services.hand_over_seat``)."""
    game = get_game_or_404(game_id)
    try:
        hand_over_seat(game=game, user=request.user)
    except GameServiceError as exc:
        messages.error(request, str(exc))
        return redirect("play", game_id=game.pk)
    messages.info(request, _("The AI plays your seat now. You left table #%(id)s.")
                  % {"id": game.pk})
    return redirect("lobby")


