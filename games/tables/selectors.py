"""Reads of the tables: open tables, a person's games, the games and variants on offer,
and the row that lists a table (lobby, profile, invite page).

Generic: a game is named by its engine's title, never by a name known here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.boards import get_board
from games.boards.lessons import lesson_names
from games.core.selectors import game_label, game_title, rule_data, seat_of, seats_of, with_seats
from games.data_texts import data_gettext, is_data_text, variant_title
from games.engines import EngineError, engine_names, get_engine
from games.models import Game, Seat, SeatResult, Variant
from games.results.selectors import result_of, results_of_game, with_results
from games.variants.selectors import active_variants


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



def get_game_by_invite(token: str) -> Game:
    """The game of an invite link; ``Game.DoesNotExist`` otherwise."""
    return with_seats(Game.objects.all()).get(invite_token=token)



def open_tables(*, game: str | None = None) -> QuerySet[Game]:
    """Tables waiting for players, newest first, seats prefetched."""
    tables = Game.objects.filter(status=Game.Status.OPEN)
    if game is not None:
        tables = tables.filter(game_name=game)
    return with_seats(tables, light=True).order_by("-created_at")



def games_of(user: Any, *, limit: int = 100) -> list[GameListing]:
    """``user``'s running and finished games (running first, newest first)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    mine = Seat.objects.filter(Q(user=user) | Q(left_user=user)).values("game_id")
    games = with_results(with_seats(
        Game.objects.filter(
            pk__in=mine, status__in=[Game.Status.RUNNING, Game.Status.FINISHED]
        ),
        light=True,
    )).order_by("-status", "-updated_at")[:limit]  # "running" > "finished": running first
    listings = []
    for game in games:
        seat = seat_of(game, user)
        if seat is None:  # a seat they left to the AI (resigned, timed out, handed over)
            seat = next((s.index for s in seats_of(game) if s.left_user_id == user.pk), None)
        if seat is None:
            continue
        to_move = list(game.to_move) if game.status == Game.Status.RUNNING else []
        listings.append(GameListing(game, seat, to_move, seat in to_move))
    return listings


def _variant_rows(summary: Any) -> list[dict]:
    """The variants of one game with their descriptions (from the engine's rule data)."""
    rows = []
    # The engines' "standard" variant first, the others by name.
    for variant in sorted(summary.variants, key=lambda v: (v.name != "standard", v.name)):
        try:
            rules = rule_data(summary.name, variant.data)
        except (EngineError, ValueError, TypeError, KeyError):
            continue  # an unplayable variant is not offered
        description = rules.get("description", "")
        rows.append(
            {
                "variant": variant,
                "pk": variant.pk,
                "name": variant.name,
                "title": variant_title(variant.data, variant.name, variant.game),
                "description": data_gettext(description),
                # Typed by an admin: shown as typed, in whatever language they wrote.
                "description_typed": not is_data_text(description),
                "player_counts": rules.get("player_counts")
                or list(range(summary.min_players, summary.max_players + 1)),
            }
        )
    return rows



def game_rows(*, browser_only: bool) -> list[dict]:
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
                "has_lesson": in_browser and summary.name in lesson_names(),
            }
        )
    return games



def browser_games() -> list[dict]:
    """Every registered game that has a board, with its playable variants."""
    return game_rows(browser_only=True)


def summarize_game(game: Game, viewer: Any = None, *, subject: Any = None) -> dict:
    """A row of a game list as ``viewer`` sees it.

    ``subject`` is the person whose list it is (a profile's owner; the viewer by
    default): the result ("won", "lost") is theirs, and "your turn" is said only when the
    subject is the viewer, so another player's profile never says "your turn".
    """
    subject = viewer if subject is None else subject
    seats = seats_of(game)
    # A finished game's result is its record (games.results), nothing else.
    record = {r.seat: r for r in results_of_game(game)}
    winners = [seat for seat, r in record.items() if r.won]
    viewer_id = getattr(viewer, "pk", None) if getattr(viewer, "is_authenticated", False) else None
    subject_id = getattr(subject, "pk", None)
    players = []
    for seat in seats:
        players.append(
            {
                "index": seat.index,
                "name": seat.display_name,
                "is_me": viewer_id is not None and seat.user_id == viewer_id,
                "is_subject": subject_id is not None
                and subject_id in (seat.user_id, seat.left_user_id),
                "left": subject_id is not None and seat.left_user_id == subject_id,
                "score": record[seat.index].points if seat.index in record else None,
                "place": record[seat.index].place if seat.index in record else None,
                "winner": seat.index in winners,
                "is_ai": seat.is_ai,
                "is_open": seat.is_open,
                "reserved_for": (
                    seat.reserved_for.get_username()
                    if seat.is_open and seat.reserved_for_id else ""
                ),
            }
        )
    my_seat = next((p["index"] for p in players if p["is_me"]), None)
    subject_seat = next((p["index"] for p in players if p["is_subject"]), None)
    subject_left = next((p["left"] for p in players if p["is_subject"]), False)
    own_list = subject_id is not None and subject_id == viewer_id
    turn_label = ""
    my_turn = False
    if game.status == Game.Status.RUNNING and game.to_move:
        if own_list and subject_seat in game.to_move and not subject_left:
            my_turn = True
            turn_label = _("your turn")
        else:
            names = ", ".join(players[i]["name"] for i in game.to_move if i < len(players))
            turn_label = _("%(names)s to move") % {"names": names}
    result_label = ""
    if game.status == Game.Status.FINISHED and record:
        mine = result_of(game, subject)
        result_label = result_text(mine, shared=len(winners) > 1) if mine else (
            ", ".join(players[i]["name"] for i in winners if i < len(players))
            or _("no winner"))
    return {
        "id": game.pk,
        "url": reverse("play", args=[game.pk]),
        # Finished games have a replay anyone may watch (games.replay).
        "replay_url": (reverse("replay", args=[game.pk])
                       if game.status == Game.Status.FINISHED else ""),
        "game": game.game_name,
        "game_label": game_label(game),
        "variant": game.variant_name,  # the slug (addresses, the API)
        "variant_title": game.variant_title,
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
        "rated": game.rated,
        "clock": describe_clock(game),
    }


def result_text(row: SeatResult, *, shared: bool = False) -> str:
    """A person's result in a list: "won", "shared win", "lost", or how they left."""
    if row.ended == SeatResult.Ended.RESIGNED:
        return _("lost (resigned)")
    if row.ended == SeatResult.Ended.TIMED_OUT:
        return _("lost (ran out of time)")
    if row.left:
        return _("lost (left the game)")
    if row.won:
        return _("shared win") if shared else _("won")
    return _("lost")


def format_seconds(seconds: float) -> str:
    """``4:05``, ``1:04:05``, or ``2 d 3 h`` for long correspondence times."""
    total = max(0, int(seconds + 0.999))  # a clock shows 0:00 only when time is up
    if total >= 2 * 86400:
        days, hours = divmod(total // 3600, 24)
        return _("%(d)s d %(h)s h") % {"d": days, "h": hours}
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"



def describe_clock(game: Game) -> str:
    """The table's time control in words (lobby, status bar)."""
    if game.clock == Game.Clock.LIVE:
        minutes = game.clock_reserve / 60
        reserve = (_("%(n)s min") % {"n": f"{minutes:g}"} if game.clock_reserve >= 60
                   else _("%(n)s s") % {"n": game.clock_reserve})
        return _("%(reserve)s + %(inc)s s per move") % {"reserve": reserve,
                                                       "inc": game.clock_increment}
    if game.clock == Game.Clock.CORRESPONDENCE:
        return ngettext("%(n)s day per move", "%(n)s days per move",
                        game.clock_days) % {"n": game.clock_days}
    return _("no clock")



def clock_row(game: Game, seat: Seat, now: datetime) -> dict[str, Any] | None:
    """What a page shows of one seat's clock: ``{running, seconds, text, deadline}``."""
    if game.clock == Game.Clock.NONE or game.status != Game.Status.RUNNING:
        return None
    left = seat.seconds_left(now)
    if left is None:
        return None
    return {
        "running": seat.deadline is not None,
        "seconds": round(left, 1),
        "text": format_seconds(left),
        "deadline": seat.deadline,
        "low": left < 30 and game.clock == Game.Clock.LIVE,
    }


def departure_ends_game(game: Game, seats: list[Seat], index: int, reason: str) -> bool:
    """Whether seat ``index`` leaving for ``reason`` (resigned, timeout, handover) ends
    ``game`` at once: a resignation at a two-seat table (people and AIs counted), or
    under the rule "lose" a resignation or timeout that leaves at most one person."""
    if reason == "resigned" and len(seats) == 2:
        return True
    people = [s for s in seats if s.user_id is not None and s.index != index]
    return (reason != "handover" and game.departure_rule == Game.DepartureRule.LOSE
            and len(people) <= 1)


def resign_outcome(game: Game, seat: int) -> str:
    """What happens if seat ``seat`` resigns now, in words (the confirmation, the menu)."""
    seats = seats_of(game)
    if departure_ends_game(game, seats, seat, "resigned"):
        others = [s.display_name for s in seats if s.index != seat and s.left_user_id is None]
        if len(seats) == 2 and others:
            return _("You lose and the game ends at once: %(name)s wins.") % {
                "name": others[0]}
        return _("You lose and the game ends at once.")
    if game.departure_rule == Game.DepartureRule.LOSE:
        return _("You take last place and leave the table; the AI plays your seat on "
                 "until one person is left.")
    return _("You take last place and leave the table; the AI plays your seat on.")
