"""Reads of one game: the record, its state, each viewer's view, its log and seats.

Hidden information leaves only through ``game_view`` (``engine.observe``); no selector
returns the seed or ``state_json``.  (Writes: ``games.core.services``.)
"""

from __future__ import annotations

from typing import Any

from django.db.models import F, Prefetch, QuerySet
from django.db.models.fields.json import KT
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from games.boards import PlayerInfo
from games.engines import State, get_engine
from games.models import Game, Move, Seat, SeatResult, VariantVersion

#: The largest id a row can have (a signed 64-bit integer): a URL may name a bigger one,
#: which the database would refuse with an error rather than find nothing.
MAX_ID = 2**63 - 1


def _is_id(value: int) -> bool:
    return isinstance(value, int) and 0 < value <= MAX_ID


def game_title(name: str) -> str:
    """The display name (``engine.title``) of the game ``name``; the name itself if unknown."""
    try:
        return get_engine(name).title
    except KeyError:
        return name


def rule_data(game_name: str, variant_data: dict) -> dict:
    """``engine.rule_data(variant)``: the variant's rules as every renderer reads them."""
    return get_engine(game_name).rule_data(variant_data)


# --- one game -------------------------------------------------------------------------------


def current_state(game: Game) -> State | None:
    """The engine state of ``game`` (``None`` before it starts)."""
    if game.state_json is None:
        return None
    return game.engine.state_from_json(game.state_json)


def replayed_state(game: Game, *, upto: int | None = None) -> State | None:
    """The fold of the first ``upto`` moves (all by default) over the deal.

    Equal to ``current_state`` for ``upto=None`` (tests check it); replays use it.  The
    first ``upto`` moves, not those numbered up to ``upto``: move numbers follow the
    version, which a takeover or an undo moves on without a move.
    """
    if game.status == Game.Status.OPEN or game.started_at is None:
        return None
    engine = game.engine
    state = engine.new_game(game.variant_data, game.num_players, game.seed)
    moves = game.moves.order_by("seq")
    if upto is not None:
        moves = moves[:max(0, upto)]
    for move in moves:
        state = engine.apply(state, move.seat, engine.action_from_json(move.action))
    return state


def seat_of(game: Game, user: Any) -> int | None:
    """The seat ``user`` holds at ``game``, ``None`` for spectators and anonymous users."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for seat in seats_of(game):
        if seat.user_id == user.pk:
            return seat.index
    return None


def played_seat(game: Game, user: Any) -> int | None:
    """The seat ``user`` holds or held at ``game`` (a seat they resigned, timed out of or
    handed to the AI counts); ``None`` for everyone else."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for seat in seats_of(game):
        if user.pk in (seat.user_id, seat.left_user_id):
            return seat.index
    return None


def seat_index(game_id: int, user: Any) -> int | None:
    """:func:`seat_of` without reading the game: one small query (a move's check)."""
    if user is None or not getattr(user, "is_authenticated", False) or not _is_id(game_id):
        return None
    return (Seat.objects.filter(game_id=game_id, user_id=user.pk)
            .order_by("index").values_list("index", flat=True).first())


def game_view(game: Game, seat: int | None) -> dict:
    """``engine.observe`` for ``seat`` (``None`` = spectator); ``{}`` before the start."""
    state = current_state(game)
    if state is None:
        return {}
    return game.engine.observe(state, seat)


def legal_actions_json(game: Game, seat: int | None) -> list:
    """``seat``'s legal actions as JSON; empty unless the game runs and ``seat`` may act."""
    if seat is None or game.status != Game.Status.RUNNING or seat not in game.to_move:
        return []
    engine = game.engine
    state = current_state(game)
    return [engine.action_to_json(action) for action in engine.legal_actions(state, seat)]


def seats_json(game: Game) -> list[dict]:
    """``[{index, type, username, level, clock, left}]`` for every seat (public)."""
    now = timezone.now()
    running = game.status == Game.Status.RUNNING and game.clock != Game.Clock.NONE
    rows = []
    for seat in seats_of(game):
        left = seat.seconds_left(now) if running else None
        rows.append({
            "index": seat.index,
            "type": "ai" if seat.is_ai else "human",
            "username": seat.user.get_username() if seat.user_id else None,
            "level": seat.ai_level or None,
            "clock": {"deadline": seat.deadline.isoformat() if seat.deadline else None,
                      "time_left": round(left, 1) if left is not None else None}
            if running and left is not None else None,
            "left": {"username": seat.left_user.get_username() if seat.left_user_id else None,
                     "reason": seat.left_reason} if seat.left_reason else None,
        })
    return rows


def seat_results_json(game: Game) -> list[dict]:
    """The result record of a finished game (``SeatResult``, written by ``games.results``
    when it ended), one row per seat; ``[]`` before the end."""
    if game.status != Game.Status.FINISHED:
        return []
    return [
        {"seat": r.seat, "username": r.user.get_username() if r.user_id else None,
         "level": r.ai_level or None, "place": r.place, "points": r.points,
         "ended": r.ended, "won": r.won, "rating_before": r.rating_before,
         "rating_after": r.rating_after}
        for r in SeatResult.objects.filter(game=game).select_related("user").order_by("seat")
    ]


def game_document(game: Game, user: Any) -> dict:
    """The API document of ``game`` as ``user`` may see it.

    ``{id, game, variant, status, version, rewinds, seats, to_move, my_seat, view,
    legal_actions, result, seat_results}`` (``seat_results``: the result record, what
    counts; ``rewinds``: how often the log was cut back, a client that follows it with
    ``since`` fetches it whole when this changes); ``view`` is ``observe`` for the user's
    seat (spectator view otherwise).
    """
    my_seat = seat_of(game, user)
    running = game.status == Game.Status.RUNNING
    return {
        "id": game.pk,
        "game": game.game_name,
        "variant": game.variant_name,
        "status": game.status,
        "version": game.version,
        "rewinds": game.rewinds,
        "seats": seats_json(game),
        "to_move": list(game.to_move) if running else [],
        "my_seat": my_seat,
        "view": game_view(game, my_seat),
        "legal_actions": legal_actions_json(game, my_seat),
        "result": game.result or None,
        "seat_results": seat_results_json(game),
        "rated": game.rated,
        "time_control": {"kind": game.clock, "reserve": game.clock_reserve,
                         "increment": game.clock_increment, "days": game.clock_days},
        "departure_rule": game.departure_rule,
        "takeover_level": game.takeover_level,
    }


def move_log(game: Game, viewer_seat: int | None, *, since: int = 0) -> list[dict]:
    """``[{seq, seat, event, description, created_at, action?}]`` in order, from ``since + 1``.

    The raw ``action`` (which may name hand positions) goes only to the seat that made
    it, or to everyone once the game is finished.
    """
    finished = game.status == Game.Status.FINISHED
    rows = []
    for move in Move.objects.filter(game=game, seq__gt=since).order_by("seq"):
        row: dict[str, Any] = {
            "seq": move.seq,
            "seat": move.seat,
            "description": move.description,
            "event": move.event,
            "created_at": move.created_at.isoformat(),
        }
        if finished or (viewer_seat is not None and move.seat == viewer_seat):
            row["action"] = move.action
        rows.append(row)
    return rows


# --- lists ----------------------------------------------------------------------------------


def with_seats(games: QuerySet[Game], *, light: bool = False) -> QuerySet[Game]:
    """Prefetch the seats (and users) and the creator; ``light`` leaves the big JSON
    columns unread.

    The seats come unordered: every reader sorts them (``_seats``, ``seats_of``), and an
    ``ORDER BY`` made Django hash each of the 45 selected columns on every read (a third
    of the query's CPU, on every move for every viewer kind and API read).
    """
    games = games.select_related("created_by").prefetch_related(
        Prefetch(
            "seats",
            queryset=Seat.objects.select_related("user", "reserved_for", "left_user")
            .order_by(),
        )
    ).annotate(  # the version's number, read by every page (a query per render otherwise)
        variant_version_number_data=F("variant_version__number"))
    if light:  # the variant's display name without its data (``Game.variant_title``)
        return games.defer("state_json", "variant_data").annotate(
            variant_title_data=KT("variant_data__title"))
    return games


def get_game(game_id: int) -> Game:
    """One game with its seats and creator; ``Game.DoesNotExist`` otherwise."""
    if not _is_id(game_id):
        raise Game.DoesNotExist(f"no game {game_id}")
    return with_seats(Game.objects.all()).get(pk=game_id)


def get_game_or_404(game_id: int) -> Game:
    """:func:`get_game`, or ``Http404`` for a game that does not exist (views)."""
    try:
        return get_game(game_id)
    except Game.DoesNotExist:
        raise Http404(_("No such game.")) from None


def seats_of(game: Game) -> list[Seat]:
    """The seats in order (uses the prefetch of the selectors)."""
    return sorted(game.seats.all(), key=lambda s: s.index)



def seat_names(game: Game) -> dict[int, str]:
    """Seat index -> display name."""
    return {seat.index: seat.display_name for seat in seats_of(game)}



def variant_version_number(game: Game) -> int | None:
    """The number of the variant version ``game`` was created with (``None``: a game
    from before versions, or a draft)."""
    if game.variant_version_id is None:
        return None
    if hasattr(game, "variant_version_number_data"):  # read with the game (``with_seats``)
        return game.variant_version_number_data
    return (VariantVersion.objects.filter(pk=game.variant_version_id)
            .values_list("number", flat=True).first())


def variant_label(game: Game) -> str:
    """The variant's name and version, as players see it: "standard, version 2"."""
    number = variant_version_number(game)
    if number is None:
        return game.variant_title
    return _("%(variant)s, version %(number)s") % {"variant": game.variant_title,
                                                   "number": number}


def game_label(game: Game) -> str:
    """The game's display name (the engine's title)."""
    return game_title(game.game_name)


def players_of(game: Game, viewer_seat: int | None) -> tuple[PlayerInfo, ...]:
    """The seats as boards know them: names, AI or not, the viewer's own."""
    return tuple(
        PlayerInfo(seat=s.index, name=s.display_name, is_ai=s.is_ai, is_me=s.index == viewer_seat)
        for s in seats_of(game)
    )
