"""Thin HTML views of the games app: home, lobby, tables, the play page and its actions.

Reads go through ``games.selectors``, writes through ``games.services``; the play page's
context and fragments come from ``games.play`` (through each game's board).  HTMX requests
get the page's fragments as out-of-band swaps (the same fragments the socket consumer
pushes); plain requests get the whole page.  No view names a game.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from accounts import ratelimit
from games import clocks
from games.boards import get_board
from games.data_texts import data_gettext
from games.engines import EngineError
from games.errors import GameServiceError
from games.models import AI_LEVEL_CHOICES, Game
from games.play import play_context, render_fragments
from games.selectors import (
    game_summaries,
    games_of,
    get_game,
    get_game_by_invite,
    open_tables,
    rule_data,
    seat_of,
)
from games.services import (
    MAX_ACTION_BYTES,
    apply_timeouts,
    create_game,
    hand_over_seat,
    join_game,
    leave_game,
    nudge_if_stalled,
    rematch_game,
    resign_game,
    submit_action,
)
from games.summaries import summarize_game

logger = logging.getLogger(__name__)


def _variant_rows(summary: Any) -> list[dict]:
    """The variants of one game with their descriptions (from the engine's rule data)."""
    rows = []
    # The engines' "standard" variant first, the others by name.
    for variant in sorted(summary.variants, key=lambda v: (v.name != "standard", v.name)):
        try:
            rules = rule_data(summary.name, variant.data)
        except (EngineError, ValueError, TypeError, KeyError):
            continue  # an unplayable variant is not offered
        rows.append(
            {
                "variant": variant,
                "pk": variant.pk,
                "name": variant.name,
                "description": data_gettext(rules.get("description", "")),
                "player_counts": rules.get("player_counts")
                or list(range(summary.min_players, summary.max_players + 1)),
            }
        )
    return rows


def _games(*, browser_only: bool) -> list[dict]:
    """Every registered game (or only those with a board) with its playable variants."""
    games = []
    for summary in game_summaries():
        in_browser = get_board(summary.name) is not None
        if browser_only and not in_browser:
            continue
        games.append(
            {
                "name": summary.name,
                "title": summary.title,
                "min_players": summary.min_players,
                "max_players": summary.max_players,
                "variants": _variant_rows(summary),
                "in_browser": in_browser,
            }
        )
    return games


def browser_games() -> list[dict]:
    """Every registered game that has a board, with its playable variants."""
    return _games(browser_only=True)


@require_GET
def rules(request: HttpRequest, game: str) -> HttpResponse:
    """A game's rules summary, in the reader's language.

    The text lives with the game's board package: ``boards/<game>/rules/<lang>.html`` (one
    file per language, English as the fallback); the page around it is generic."""
    from django.template import TemplateDoesNotExist
    from django.template.loader import select_template
    from django.utils.translation import get_language

    from games.engines import get_engine

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
               "in_browser": get_board(game) is not None}
    return TemplateResponse(request, "games/rules.html", context)


def home(request: HttpRequest) -> HttpResponse:
    """The home page: every game, its variants, and whether the browser can play it."""
    return TemplateResponse(request, "games/home.html", {"games": _games(browser_only=False)})


# --- lobby ----------------------------------------------------------------------------------

def _ai_seat_label(label: Any) -> str:
    return _("AI — %(level)s") % {"level": label}


# Lazy: the labels are translated when the form is shown, in the reader's language.
SEAT_CHOICES = [("open", gettext_lazy("Open seat (a person)"))] + [
    (f"ai-{level}", lazy(_ai_seat_label, str)(label)) for level, label in AI_LEVEL_CHOICES
]


class CreateTableForm(forms.Form):
    """A variant of any game the browser can play, the player count, and what sits in the
    other seats (seat 1 is the creator)."""

    variant = forms.ChoiceField(label=gettext_lazy("Game and variant"), widget=forms.RadioSelect)
    num_players = forms.TypedChoiceField(label=gettext_lazy("Players"), coerce=int)
    rated = forms.BooleanField(
        label=gettext_lazy("Rated game"), required=False,
        help_text=gettext_lazy("The result changes the players' ratings (AI seats count too)."),
    )
    clock = forms.ChoiceField(label=gettext_lazy("Clock"), choices=Game.Clock.choices,
                              initial=Game.Clock.NONE, required=False)
    reserve_minutes = forms.FloatField(
        label=gettext_lazy("Reserve (minutes)"), required=False, initial=10,
        min_value=0.05, max_value=clocks.MAX_RESERVE / 60,
        widget=forms.NumberInput(attrs={"step": "any"}),
        help_text=gettext_lazy("Live clock: each player's time for the whole game."),
    )
    increment = forms.IntegerField(
        label=gettext_lazy("Seconds added per move"), required=False, initial=5,
        min_value=0, max_value=clocks.MAX_INCREMENT,
    )
    days = forms.IntegerField(
        label=gettext_lazy("Days per move"), required=False, initial=3,
        min_value=clocks.MIN_DAYS, max_value=clocks.MAX_DAYS,
        help_text=gettext_lazy("Correspondence clock."),
    )
    departure_rule = forms.ChoiceField(
        label=gettext_lazy("When a player runs out of time or resigns"),
        choices=Game.DepartureRule.choices, initial=Game.DepartureRule.AI, required=False,
    )
    takeover_level = forms.ChoiceField(
        label=gettext_lazy("AI level that takes over a seat"), choices=AI_LEVEL_CHOICES,
        initial="normal", required=False,
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.games = [game for game in browser_games() if game["variants"]]
        self.variants = {
            str(row["pk"]): (game, row) for game in self.games for row in game["variants"]
        }
        self.fields["variant"].choices = [
            (game["title"], [(str(row["pk"]), row["name"]) for row in game["variants"]])
            for game in self.games
        ]
        default = next(
            (pk for pk, (_game, row) in self.variants.items() if row["name"] == "standard"),
            next(iter(self.variants), None),
        )
        if default:
            self.fields["variant"].initial = default
        counts = sorted({n for _game, row in self.variants.values() for n in row["player_counts"]})
        counts = counts or [2]
        self.fields["num_players"].choices = [(n, str(n)) for n in counts]
        self.fields["num_players"].initial = min(counts)
        self.max_seats = max(counts)
        for i in range(1, self.max_seats):
            self.fields[f"seat_{i}"] = forms.ChoiceField(
                label=_("Seat %(n)s") % {"n": i + 1}, choices=SEAT_CHOICES, required=False
            )

    def variant_groups(self) -> list[dict]:
        """The variants grouped by game, with descriptions, for the template."""
        chosen = str(self["variant"].value() or "")
        return [
            {
                **game,
                "variants": [
                    {**row, "checked": str(row["pk"]) == chosen} for row in game["variants"]
                ],
            }
            for game in self.games
        ]

    def clock_fields(self) -> list:
        """The time control and departure fields, in order, for the template."""
        return [self[name] for name in ("clock", "reserve_minutes", "increment", "days",
                                        "departure_rule", "takeover_level")]

    def seat_fields(self) -> list:
        return [self[f"seat_{i}"] for i in range(1, self.max_seats)]

    def clean(self) -> dict:
        data = super().clean()
        chosen = self.variants.get(str(data.get("variant")))
        count = data.get("num_players")
        if chosen and count is not None and count not in chosen[1]["player_counts"]:
            counts = ", ".join(str(n) for n in chosen[1]["player_counts"])
            self.add_error(
                "num_players",
                _("%(game)s %(variant)s is played by %(counts)s players.")
                % {"game": chosen[0]["title"], "variant": chosen[1]["name"], "counts": counts},
            )
        return data

    def chosen_variant(self) -> Any:
        return self.variants[self.cleaned_data["variant"]][1]["variant"]

    def table_options(self) -> dict:
        """The table's rules beyond its seats, as ``create_game`` keywords."""
        data = self.cleaned_data
        control: dict[str, Any] = {"kind": data.get("clock") or Game.Clock.NONE}
        if control["kind"] == Game.Clock.LIVE:
            minutes = data.get("reserve_minutes") or 10
            control.update(reserve=max(clocks.MIN_RESERVE, round(minutes * 60)),
                           increment=data.get("increment") or 0)
        elif control["kind"] == Game.Clock.CORRESPONDENCE:
            control["days"] = data.get("days") or 3
        return {
            "rated": bool(data.get("rated")),
            "time_control": control,
            "departure_rule": data.get("departure_rule") or Game.DepartureRule.AI,
            "takeover_level": data.get("takeover_level") or "normal",
        }

    def seats(self) -> list[dict]:
        seats: list[dict] = [{"type": "human"}]
        for i in range(1, self.cleaned_data["num_players"]):
            choice = self.cleaned_data.get(f"seat_{i}") or "open"
            if choice == "open":
                seats.append({"type": "human"})
            else:
                seats.append({"type": "ai", "level": choice.removeprefix("ai-")})
        return seats


def lobby_context(user: Any) -> dict:
    tables = [summarize_game(g, user) for g in open_tables()]
    mine = []
    if getattr(user, "is_authenticated", False):
        mine = [summarize_game(listing.game, user) for listing in games_of(user)]
    return {
        "tables": tables,
        "my_games": mine,
        "viewer": user,
        "is_authenticated": getattr(user, "is_authenticated", False),
    }


def render_open_tables(user: Any, *, csrf_token: str = "", oob: bool = True) -> str:
    """The open-tables fragment for ``user`` (the lobby consumer pushes it)."""
    context = lobby_context(user) | {"oob": oob, "csrf_token": csrf_token}
    return render_to_string("games/lobby.html#open-tables", context)


def lobby(request: HttpRequest, form: CreateTableForm | None = None) -> HttpResponse:
    """Open tables with Join buttons, my games, and the create-table form."""
    context = lobby_context(request.user)
    if request.htmx and not form:
        return TemplateResponse(request, "games/lobby.html#open-tables", context)
    context["form"] = form or CreateTableForm()
    return TemplateResponse(request, "games/lobby.html", context, status=400 if form else 200)


@require_POST
@login_required
def lobby_create(request: HttpRequest) -> HttpResponse:
    form = CreateTableForm(request.POST)
    if not form.is_valid():
        return lobby(request, form)
    try:
        game = create_game(creator=request.user, variant=form.chosen_variant(),
                           seats=form.seats(), **form.table_options())
    except GameServiceError as exc:
        form.add_error(None, str(exc))
        return lobby(request, form)
    return redirect("play", game_id=game.pk)


def _game_or_404(game_id: int) -> Game:
    try:
        return get_game(game_id)
    except Game.DoesNotExist:
        raise Http404(_("No such game.")) from None


@require_POST
@login_required
def table_join(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_or_404(game_id)
    try:
        join_game(game=game, user=request.user)
    except GameServiceError as exc:
        messages.error(request, str(exc))
        return redirect("lobby")
    return redirect("play", game_id=game.pk)


@require_POST
@login_required
def table_leave(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_or_404(game_id)
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
    game = _game_or_404(game_id)
    if game.clock != Game.Clock.NONE and game.status == Game.Status.RUNNING \
            and apply_timeouts(game=game):
        game = _game_or_404(game_id)  # a seat ran out of time: the table's rule applied
    nudge_if_stalled(game=game)
    if request.htmx:
        html = render_fragments(game, request.user, params=request.GET,
                                csrf_token=_csrf(request), base_url=_base_url(request),
                                log_since=_shown_version(request, game))
        return HttpResponse(html)
    context = play_context(game, request.user, params=request.GET, csrf_token=_csrf(request),
                           base_url=_base_url(request))
    return TemplateResponse(request, "games/play.html", _with_chat(context, game, request))


@require_POST
@login_required
def rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    """Play a finished game again with the same seats (see ``services.rematch_game``)."""
    game = _game_or_404(game_id)
    try:
        new = rematch_game(game=game, user=request.user)
    except GameServiceError as exc:
        messages.error(request, str(exc))
        return redirect("play", game_id=game.pk)
    return redirect("play", game_id=new.pk)


def _with_chat(context: dict, game: Game, request: HttpRequest) -> dict:
    """The whole page's context plus the table chat's (see games.chat)."""
    from games.chat.render import chat_context

    chat = chat_context(game, request.user, csrf_token=_csrf(request))
    return context | {k: v for k, v in chat.items() if k not in context}


@require_POST
@login_required
def resign(request: HttpRequest, game_id: int) -> HttpResponse:
    """Resign (see ``services.resign_game``); back to the game, which says what followed."""
    game = _game_or_404(game_id)
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
    game = _game_or_404(game_id)
    try:
        hand_over_seat(game=game, user=request.user)
    except GameServiceError as exc:
        messages.error(request, str(exc))
        return redirect("play", game_id=game.pk)
    messages.info(request, _("The AI plays your seat now. You left table #%(id)s.")
                  % {"id": game.pk})
    return redirect("lobby")


def _csrf(request: HttpRequest) -> str:
    from django.middleware.csrf import get_token

    return get_token(request)


@require_POST
def act(request: HttpRequest, game_id: int) -> HttpResponse:
    """One action of the viewer's seat, from a form (or ``hx-post``) on the play page."""
    game = _game_or_404(game_id)
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
        except GameServiceError as exc:
            error = str(exc)
            status = exc.status_code
    game = _game_or_404(game_id)  # fresh: the AI may have moved (eager tasks)
    if request.htmx:
        # 200 so HTMX swaps the fragments; the error is in the status fragment.  The log
        # gets the moves after the version the page posted from.
        html = render_fragments(game, request.user, error=error, csrf_token=_csrf(request),
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
    context = play_context(game, request.user, error=error, csrf_token=_csrf(request),
                           base_url=_base_url(request))
    return TemplateResponse(request, "games/play.html", _with_chat(context, game, request),
                            status=status)
