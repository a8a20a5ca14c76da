"""Thin HTML views of the games app: home, lobby, tables, the play page and its actions.

Reads go through ``games.selectors``, writes through ``games.services``.  The play page is
drawn only from ``game_view`` (``engine.observe`` for the viewer's seat) and offers only
``legal_actions_json``.  HTMX requests get the page's fragments as out-of-band swaps
(the same fragments the socket consumer pushes); plain requests get the whole page.
"""

from __future__ import annotations

import json
import logging
import re
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
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from accounts import ratelimit
from games import rendering
from games.errors import GameServiceError
from games.models import AI_LEVEL_CHOICES, Game, Seat
from games.selectors import (
    active_variants,
    game_summaries,
    game_view,
    games_of,
    get_game,
    get_game_by_invite,
    legal_actions_json,
    move_log,
    open_tables,
    seat_of,
)
from games.services import (
    MAX_ACTION_BYTES,
    create_game,
    join_game,
    leave_game,
    nudge_if_stalled,
    submit_action,
)

logger = logging.getLogger(__name__)

#: Games whose board the play page can draw; others show their status only (API play).
BROWSER_GAMES = frozenset({"newhaven"})

PHASE_LABELS = {
    "harvest": gettext_lazy("Harvest: place a harvest tile or the shipment"),
    "build": gettext_lazy("Build"),
    "share": gettext_lazy("Share: the others may build with what is left"),
    "draw": gettext_lazy("Draw buildings"),
    "over": gettext_lazy("Game over"),
}


def home(request: HttpRequest) -> HttpResponse:
    """The home page: every game and its variants."""
    return TemplateResponse(request, "games/home.html", {"games": game_summaries()})


# --- names and summaries --------------------------------------------------------------------


def seat_names(game: Game) -> dict[int, str]:
    return {seat.index: seat.display_name for seat in _seats(game)}


def _seats(game: Game) -> list[Seat]:
    return sorted(game.seats.all(), key=lambda s: s.index)


def game_label(game: Game) -> str:
    return {"newhaven": "New Haven", "nouvellefrance": "Nouvelle-France"}.get(
        game.game_name, game.game_name
    )


def summarize_game(game: Game, viewer: Any = None) -> dict:
    """A row of a game list (lobby, profile): players, status, whose turn, result."""
    seats = _seats(game)
    result = game.result or {}
    scores = result.get("scores") or []
    winners = result.get("winners") or []
    viewer_id = getattr(viewer, "pk", None)
    players = []
    for seat in seats:
        players.append(
            {
                "index": seat.index,
                "name": seat.display_name,
                "is_me": viewer_id is not None and seat.user_id == viewer_id,
                "score": scores[seat.index] if seat.index < len(scores) else None,
                "winner": seat.index in winners,
                "is_ai": seat.is_ai,
                "is_open": seat.is_open,
            }
        )
    my_seat = next((p["index"] for p in players if p["is_me"]), None)
    turn_label = ""
    my_turn = False
    if game.status == Game.Status.RUNNING and game.to_move:
        my_turn = my_seat in game.to_move
        if my_turn:
            turn_label = _("your turn")
        else:
            names = ", ".join(players[i]["name"] for i in game.to_move if i < len(players))
            turn_label = _("%(names)s to move") % {"names": names}
    result_label = ""
    if game.status == Game.Status.FINISHED:
        if my_seat is not None and my_seat in winners:
            result_label = _("won") if len(winners) == 1 else _("shared win")
        elif my_seat is not None:
            result_label = _("lost")
        else:
            result_label = ", ".join(players[i]["name"] for i in winners if i < len(players))
    return {
        "id": game.pk,
        "url": reverse("play", args=[game.pk]),
        "game_label": game_label(game),
        "variant": game.variant_name,
        "status": game.status,
        "status_label": game.get_status_display(),
        "players": players,
        "free": sum(1 for p in players if p["is_open"]),
        "num_players": game.num_players,
        "creator": game.created_by.get_username() if game.created_by_id else "",
        "my_seat": my_seat,
        "my_turn": my_turn,
        "turn_label": turn_label,
        "result_label": result_label,
        # The invite link is for the people at the table to pass on: never shown to others.
        "invite_url": reverse("invite", args=[game.invite_token]) if my_seat is not None else "",
    }


# --- lobby ----------------------------------------------------------------------------------

SEAT_CHOICES = [("open", gettext_lazy("Open seat (a person)"))] + [
    (f"ai-{level}", gettext_lazy("AI — %(level)s") % {"level": label})
    for level, label in AI_LEVEL_CHOICES
]


class CreateTableForm(forms.Form):
    """Variant, player count and what sits in seats 2-4 (seat 1 is the creator)."""

    variant = forms.ChoiceField(label=gettext_lazy("Variant"))
    num_players = forms.TypedChoiceField(
        label=gettext_lazy("Players"),
        choices=[(n, str(n)) for n in (2, 3, 4)],
        coerce=int,
        initial=2,
    )
    seat_1 = forms.ChoiceField(label=gettext_lazy("Seat 2"), choices=SEAT_CHOICES)
    seat_2 = forms.ChoiceField(label=gettext_lazy("Seat 3"), choices=SEAT_CHOICES)
    seat_3 = forms.ChoiceField(label=gettext_lazy("Seat 4"), choices=SEAT_CHOICES)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.variants = {str(v.pk): v for v in active_variants(game="newhaven")}
        self.fields["variant"].choices = [
            (pk, v.name) for pk, v in self.variants.items()
        ]
        default = next((pk for pk, v in self.variants.items() if v.name == "standard"), None)
        if default:
            self.fields["variant"].initial = default

    def seats(self) -> list[dict]:
        seats: list[dict] = [{"type": "human"}]
        for i in range(1, self.cleaned_data["num_players"]):
            choice = self.cleaned_data[f"seat_{i}"]
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
    variant = form.variants[form.cleaned_data["variant"]]
    try:
        game = create_game(creator=request.user, variant=variant, seats=form.seats())
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
        request, "games/table.html", {"table": summarize_game(game, request.user),
                                      "game": game, "invited": True}
    )


# --- the play page --------------------------------------------------------------------------

SEAT_WORD = re.compile(r"\bSeat (\d+)\b")


def _log_rows(game: Game, viewer_seat: int | None, names: dict[int, str]) -> list[dict]:
    rows = move_log(game, viewer_seat)
    for row in rows:
        if row["event"] is not None:
            row["text"] = _event_text(row["event"], names)
            continue
        row["text"] = SEAT_WORD.sub(
            lambda m: names.get(int(m.group(1)), m.group(0)), row["description"]
        )
    return rows


def _event_text(event: dict, names: dict[int, str]) -> str:
    """A plain rendering of an event until the game's board layer formats it."""
    seat = event.get("seat")
    who = names.get(seat, "") if isinstance(seat, int) else ""
    details = ", ".join(f"{k} {v}" for k, v in event.items() if k not in ("type", "seat"))
    return " ".join(part for part in (who, str(event.get("type", "")), details) if part)


def play_context(
    game: Game,
    viewer: Any,
    *,
    selection: rendering.Selection | None = None,
    error: str = "",
    oob: bool = False,
    csrf_token: str = "",
) -> dict:
    """Everything the play page and its fragments show to ``viewer``.

    Built from ``game_view`` (observe for the viewer's seat, the spectator view for
    everyone else) and ``legal_actions_json`` only.
    """
    seat = seat_of(game, viewer)
    seats = _seats(game)
    names = {s.index: s.display_name for s in seats}
    context: dict[str, Any] = {
        "game": game,
        "game_id": game.pk,
        "version": game.version,
        "my_seat": seat,
        "viewer": viewer,
        "seats": seats,
        "names": names,
        "error": error,
        "oob": oob,
        "csrf_token": csrf_token,
        "game_label": game_label(game),
        "table": summarize_game(game, viewer),
        "ws_url": f"/ws/games/{game.pk}/",
    }
    if game.status == Game.Status.OPEN or game.state_json is None:
        context["waiting"] = True
        return context
    if game.game_name not in BROWSER_GAMES:
        # No board for this game in the browser yet: the status card, never a 500.
        context["waiting"] = True
        context["unsupported"] = True
        return context
    selection = selection or rendering.Selection()
    view = game_view(game, seat)
    legal = legal_actions_json(game, seat)
    village = game.variant_data.get("village", {})
    row_costs = village.get("row_costs", [6, 5, 4, 3, 2, 1])
    col_values = village.get("col_values", [5, 4, 3, 4, 5])
    vrows, vcols = village.get("rows", 6), village.get("cols", 5)
    choices = rendering.plan_choices(view, legal, selection, (vrows, vcols))
    over = view.get("is_over", False)
    to_move = view.get("to_move", [])
    breakdowns = view.get("breakdown") or []

    players = []
    for p in view["players"]:
        i = p["seat"]
        bd = breakdowns[i] if i < len(breakdowns) else None
        seat_obj = next((s for s in seats if s.index == i), None)
        players.append(
            {
                **p,
                "name": names.get(i, str(i + 1)),
                "is_me": i == seat,
                "is_ai": bool(seat_obj and seat_obj.is_ai),
                "to_move": i in to_move,
                "thinking": bool(seat_obj and seat_obj.is_ai and i in to_move and not over),
                "winner": i in view.get("winners", []),
                "breakdown": bd,
                # At the end the engine reveals every hand; draw its tiles like ours.
                "revealed_tiles": [
                    rendering.tile_svg(squares, label=_("Harvest tile"))
                    for squares in (p.get("revealed_hand") or {}).get("tiles", [])
                ],
                "svg": rendering.village_svg(
                    p["village"],
                    row_costs=row_costs,
                    col_values=col_values,
                    completed_rows={x["row"] for x in bd["rows"]} if bd else set(),
                    completed_cols={x["col"] for x in bd["cols"]} if bd else set(),
                    label=_("Village of %(name)s") % {"name": names.get(i, "")},
                ),
            }
        )
    me = players[seat] if seat is not None else None
    hand = view.get("hand")
    hand_tiles = []
    if hand:
        for t in hand["tiles"]:
            idx = t["index"]
            rots = choices["rotations"].get(idx, [])
            selected = selection.tile == idx
            rot = selection.rot if selected else (rots[0] if rots else 0)
            next_rot = rots[(rots.index(rot) + 1) % len(rots)] if rot in rots else rot
            hand_tiles.append(
                {
                    "index": idx,
                    "squares": t["squares"],
                    "marker": ",".join(t["squares"]),
                    "selected": selected,
                    "playable": bool(rots),
                    "rot": rot,
                    "next_rot": next_rot,
                    "can_rotate": len(rots) > 1,
                    "svg": rendering.tile_svg(
                        rendering.rotate_squares(t["squares"], rot),
                        label=_("Harvest tile: %(squares)s")
                        % {"squares": ", ".join(rendering.res_label(s) for s in t["squares"])},
                    ),
                }
            )
    hand_buildings = []
    if hand:
        buildable = set(choices["buildable"])
        public = [(b, False) for b in hand.get("public_buildings", [])]
        private = [(b, True) for b in hand.get("private_buildings", [])]
        for b, blind in public + private:
            pair = (b["resource"], b["number"])
            hand_buildings.append(
                {
                    **b,
                    "blind": blind,
                    "buildable": pair in buildable,
                    "selected": selection.building == pair,
                    "code": f"{b['resource']}-{b['number']}",
                }
            )
    markers = [
        {"resource": r, "label": rendering.res_label(r), "value": v}
        for r, v in view.get("markers", {}).items()
    ]
    active = view.get("active")
    sharing = view.get("sharing")
    phase = view.get("phase", "")
    phase_label = str(PHASE_LABELS.get(phase, phase))
    if phase == "draw":
        phase_label += f" ({view.get('draws_done', 0)}/{view.get('draws_owed', 0)})"
    standings = sorted(
        players,
        key=lambda p: (-p["score"], p["empty_spaces"], p["buildings_in_hand"]),
    )
    context.update(
        {
            "waiting": False,
            "view": view,
            "over": over,
            "board_svg": rendering.board_svg(view),
            "choices": choices,
            "selection": selection,
            "players": players,
            "others": [p for p in players if not p["is_me"]],
            "me": me,
            "hand": hand,
            "hand_tiles": hand_tiles,
            "hand_buildings": hand_buildings,
            "markers": markers,
            "market": view.get("market", []),
            "phase": phase,
            "phase_label": phase_label,
            "active_name": names.get(active, "") if active is not None else "",
            "sharing_name": names.get(sharing, "") if sharing is not None else "",
            "my_turn": seat is not None and seat in to_move and not over,
            "log": _log_rows(game, seat, names),
            "standings": standings,
            "ship_options": [
                {"resource": r, "label": rendering.res_label(r), "selected": selection.ship == r}
                for r in choices["ship_resources"]
            ],
        }
    )
    return context


def render_fragments(game: Game, viewer: Any, **kwargs) -> str:
    """The play page's fragments as out-of-band swaps (HTMX responses and the socket)."""
    context = play_context(game, viewer, oob=True, **kwargs)
    return render_to_string("games/play.html#fragments", context)


def play(request: HttpRequest, game_id: int) -> HttpResponse:
    """The play page (or its fragments for HTMX requests)."""
    game = _game_or_404(game_id)
    nudge_if_stalled(game=game)
    selection = rendering.Selection.parse(request.GET)
    if request.htmx:
        html = render_fragments(game, request.user, selection=selection,
                                csrf_token=_csrf(request))
        return HttpResponse(html)
    context = play_context(game, request.user, selection=selection, csrf_token=_csrf(request))
    return TemplateResponse(request, "games/play.html", context)


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
        # 200 so HTMX swaps the fragments; the error is in the status fragment.
        html = render_fragments(game, request.user, error=error, csrf_token=_csrf(request))
        response = HttpResponse(html)
        if error:
            response["X-Colonia-Error"] = str(status)
        return response
    if not error:
        return redirect("play", game_id=game.pk)
    context = play_context(game, request.user, error=error, csrf_token=_csrf(request))
    return TemplateResponse(request, "games/play.html", context, status=status)
