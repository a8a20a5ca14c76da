"""Read-only queries of the games app (writes live in services.py).

Hidden information leaves only through ``game_view`` (``engine.observe``); no selector
returns the seed or ``state_json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.utils import timezone

from games.engines import State, engine_names, get_engine
from games.models import Game, Move, Seat, Variant, VariantVersion


@dataclass(frozen=True)
class GameSummary:
    """A game and the variants a player can pick for it."""

    name: str
    title: str
    min_players: int
    max_players: int
    variants: list[Variant]


@dataclass(frozen=True)
class GameListing:
    """One of a user's games with whose turn it is."""

    game: Game
    my_seat: int
    to_move: list[int]
    my_turn: bool


def active_variants(*, game: str | None = None) -> QuerySet[Variant]:
    """Variants a new table may use, optionally of one game, ordered by game then name.

    Active variants with a published version that is not retired (a variant made
    outside the editor, with no versions yet, gets its data as version 1 when used).
    """
    versions = VariantVersion.objects.filter(variant=OuterRef("pk"))
    playable = versions.filter(
        status=VariantVersion.Status.PUBLISHED, retired_at__isnull=True
    )
    variants = Variant.objects.filter(active=True).filter(Exists(playable) | ~Exists(versions))
    if game is not None:
        variants = variants.filter(game=game)
    return variants.order_by("game", "name")


def game_summaries() -> list[GameSummary]:
    """Every registered game with its active variants (one query)."""
    by_game: dict[str, list[Variant]] = {}
    for variant in active_variants():
        by_game.setdefault(variant.game, []).append(variant)
    summaries = []
    for name in engine_names():
        engine = get_engine(name)
        summaries.append(
            GameSummary(
                name=name,
                title=game_title(name),
                min_players=engine.min_players,
                max_players=engine.max_players,
                variants=by_game.get(name, []),
            )
        )
    return summaries


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


def _seats(game: Game) -> list[Seat]:
    """The seats of ``game`` in order (uses a prefetch when there is one)."""
    return sorted(game.seats.all(), key=lambda s: s.index)


def current_state(game: Game) -> State | None:
    """The engine state of ``game`` (``None`` before it starts)."""
    if game.state_json is None:
        return None
    return game.engine.state_from_json(game.state_json)


def replayed_state(game: Game, *, upto: int | None = None) -> State | None:
    """The fold of the first ``upto`` moves (all by default) over the deal.

    Equal to ``current_state`` for ``upto=None`` (tests check it); replays use it.
    """
    if game.status == Game.Status.OPEN or game.started_at is None:
        return None
    engine = game.engine
    state = engine.new_game(game.variant_data, game.num_players, game.seed)
    moves = game.moves.order_by("seq")
    if upto is not None:
        moves = moves.filter(seq__lte=upto)
    for move in moves:
        state = engine.apply(state, move.seat, engine.action_from_json(move.action))
    return state


def seat_of(game: Game, user: Any) -> int | None:
    """The seat ``user`` holds at ``game``, ``None`` for spectators and anonymous users."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for seat in _seats(game):
        if seat.user_id == user.pk:
            return seat.index
    return None


def seat_index(game_id: int, user: Any) -> int | None:
    """:func:`seat_of` without reading the game: one small query (a move's check)."""
    if user is None or not getattr(user, "is_authenticated", False):
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
    from games.clocks import remaining

    now = timezone.now()
    running = game.status == Game.Status.RUNNING and game.clock != Game.Clock.NONE
    rows = []
    for seat in _seats(game):
        left = remaining(seat, now) if running else None
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


def game_document(game: Game, user: Any) -> dict:
    """The API document of ``game`` as ``user`` may see it.

    ``{id, game, variant, status, version, seats, to_move, my_seat, view, legal_actions,
    result}``; ``view`` is ``observe`` for the user's seat (spectator view otherwise).
    """
    my_seat = seat_of(game, user)
    running = game.status == Game.Status.RUNNING
    return {
        "id": game.pk,
        "game": game.game_name,
        "variant": game.variant_name,
        "status": game.status,
        "version": game.version,
        "seats": seats_json(game),
        "to_move": list(game.to_move) if running else [],
        "my_seat": my_seat,
        "view": game_view(game, my_seat),
        "legal_actions": legal_actions_json(game, my_seat),
        "result": game.result or None,
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


def _with_seats(games: QuerySet[Game], *, light: bool = False) -> QuerySet[Game]:
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
    )
    return games.defer("state_json", "variant_data") if light else games


def get_game(game_id: int) -> Game:
    """One game with its seats and creator; ``Game.DoesNotExist`` otherwise."""
    return _with_seats(Game.objects.all()).get(pk=game_id)


def get_game_by_invite(token: str) -> Game:
    """The game of an invite link; ``Game.DoesNotExist`` otherwise."""
    return _with_seats(Game.objects.all()).get(invite_token=token)


def open_tables(*, game: str | None = None) -> QuerySet[Game]:
    """Tables waiting for players, newest first, seats prefetched."""
    tables = Game.objects.filter(status=Game.Status.OPEN)
    if game is not None:
        tables = tables.filter(game_name=game)
    return _with_seats(tables, light=True).order_by("-created_at")


def games_of(user: Any, *, limit: int = 100) -> list[GameListing]:
    """``user``'s running and finished games (running first, newest first)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    mine = Seat.objects.filter(Q(user=user) | Q(left_user=user)).values("game_id")
    games = _with_seats(
        Game.objects.filter(
            pk__in=mine, status__in=[Game.Status.RUNNING, Game.Status.FINISHED]
        ),
        light=True,
    ).order_by("-status", "-updated_at")[:limit]  # "running" > "finished": running first
    listings = []
    for game in games:
        seat = seat_of(game, user)
        if seat is None:  # a seat they left to the AI (resigned, timed out, handed over)
            seat = next((s.index for s in _seats(game) if s.left_user_id == user.pk), None)
        if seat is None:
            continue
        to_move = list(game.to_move) if game.status == Game.Status.RUNNING else []
        listings.append(GameListing(game, seat, to_move, seat in to_move))
    return listings


def stalled_ai_games(*, older_than: float, limit: int = 500) -> list[Game]:
    """Running games, unchanged for ``older_than`` seconds, where an AI seat is to move.

    ``to_move`` is a JSON list, so the AI check is done here rather than in SQL; the
    query reads only running games that have not changed for a while (a small set).
    """
    cutoff = timezone.now() - timedelta(seconds=older_than)
    games = (
        Game.objects.filter(status=Game.Status.RUNNING, updated_at__lte=cutoff)
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.exclude(ai_level="")))
        .only("id", "status", "version", "to_move", "updated_at", "started_at")
        .order_by("updated_at")[:limit]
    )
    return [
        game for game in games
        if any(seat.index in (game.to_move or []) for seat in game.seats.all())
    ]
