"""The tables: opening, joining and leaving them, rematches, and leaving a running game
(resignations, hand-overs, timeouts under the table's departure rule).

Keyword-only, typed, atomic.  A table deals its game through ``games.core.services``
(``start_game``) when its last seat fills, and every change is announced
(``games.core.signals``) for the features that react to it.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from games.core.errors import (
    AlreadySeated,
    GameFull,
    GameNotOpen,
    GameNotRunning,
    GameServiceError,
    InvalidSeats,
    InvalidTableRules,
    NotRunningSeat,
    NotSeated,
    StaleVersion,
    VariantUnavailable,
)
from games.core.services import MAX_KEY_LENGTH, locked_game, start_game
from games.core.signals import GameChange, announce
from games.engines import get_engine
from games.live import broadcast
from games.models import AI_LEVELS, Game, Seat, Variant
from games.tables import clocks
from games.tables.selectors import departure_ends_game
from games.variants.services import version_for_new_game

logger = logging.getLogger(__name__)


#: Open (not yet started) tables one person may have created at a time.
MAX_OPEN_TABLES_PER_USER = 10



class TooManyOpenTables(GameServiceError):
    """The creator already has as many open tables as allowed."""

    status_code = 409
    code = "too_many_open_tables"
    default_message = _lazy(
        "You already have too many open tables: start or close one of them first."
    )



def _check_seats(engine: Any, seats: list[dict]) -> None:
    """Raise ``InvalidSeats`` unless ``seats`` fits the engine and starts with a human."""
    if not isinstance(seats, list) or not (
        engine.min_players <= len(seats) <= engine.max_players
    ):
        raise InvalidSeats(
            _("This game needs between %(min)d and %(max)d seats.")
            % {"min": engine.min_players, "max": engine.max_players}
        )
    for index, spec in enumerate(seats):
        kind = spec.get("type") if isinstance(spec, dict) else None
        if kind not in ("human", "ai"):
            raise InvalidSeats(
                _("Seat %(n)d must be a human or an AI seat.") % {"n": index + 1}
            )
        if kind == "ai" and spec.get("level", "normal") not in AI_LEVELS:
            raise InvalidSeats(
                _("Seat %(n)d: unknown AI level; choose one of %(levels)s.")
                % {"n": index + 1, "levels": ", ".join(AI_LEVELS)}
            )
    if seats[0].get("type") != "human":
        raise InvalidSeats(_("The first seat is yours: it must be a human seat."))



def check_table_rules(
    *, time_control: dict | None, departure_rule: str, takeover_level: str
) -> dict[str, Any]:
    """The ``Game`` fields of a time control and departure rule; ``InvalidTableRules``.

    ``time_control`` is ``{"kind": "none"}``, ``{"kind": "live", "reserve": seconds,
    "increment": seconds}`` or ``{"kind": "correspondence", "days": n}`` (``None``: none).
    """
    errors: dict[str, list[str]] = {}
    control = time_control or {"kind": "none"}
    kind = control.get("kind", "none") if isinstance(control, dict) else None
    fields: dict[str, Any] = {"clock": Game.Clock.NONE, "clock_reserve": 0,
                              "clock_increment": 0, "clock_days": 0}

    def number(name: str, low: int, high: int) -> int:
        value = control.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            errors.setdefault("time_control", []).append(
                _("%(name)s must be a whole number from %(low)d to %(high)d.")
                % {"name": name, "low": low, "high": high})
            return low
        return value

    if kind == Game.Clock.LIVE:
        fields.update(clock=kind, clock_reserve=number("reserve", clocks.MIN_RESERVE,
                                                       clocks.MAX_RESERVE),
                      clock_increment=number("increment", 0, clocks.MAX_INCREMENT)
                      if "increment" in control else 0)
    elif kind == Game.Clock.CORRESPONDENCE:
        fields.update(clock=kind, clock_days=number("days", clocks.MIN_DAYS, clocks.MAX_DAYS))
    elif kind != Game.Clock.NONE:
        errors["time_control"] = [_("The kind of clock must be none, live or correspondence.")]
    if departure_rule not in Game.DepartureRule.values:
        errors["departure_rule"] = [
            _("Choose one of: %(rules)s.") % {"rules": ", ".join(Game.DepartureRule.values)}]
    if takeover_level not in AI_LEVELS:
        errors["takeover_level"] = [
            _("Choose one of: %(levels)s.") % {"levels": ", ".join(AI_LEVELS)}]
    if errors:
        raise InvalidTableRules(errors)
    return fields | {"departure_rule": departure_rule, "takeover_level": takeover_level}



def _table_rules(game: Game) -> dict[str, Any]:
    """The rules of ``game`` a rematch copies."""
    return {name: getattr(game, name) for name in (
        "rated", "clock", "clock_reserve", "clock_increment", "clock_days",
        "departure_rule", "takeover_level")}



@transaction.atomic
def create_game(
    *,
    creator: AbstractBaseUser,
    variant: Variant,
    seats: list[dict],
    rated: bool = False,
    time_control: dict | None = None,
    departure_rule: str = Game.DepartureRule.AI,
    takeover_level: str = "normal",
    seats_as_listed: bool | None = None,
    key: str = "",
) -> Game:
    """Open a table of ``variant``'s current version; ``creator`` is listed first.

    ``key`` (the form's or client's request key, 1 to 64 characters; ``""``: none) makes
    it idempotent: the same key again from the same creator (a double click, a retry)
    returns the table it opened, nothing new (a unique constraint settles concurrent
    requests).

    When the game starts the seat order (and so who starts) is drawn from the game's
    seed, unless ``seats_as_listed``: the seats stay as listed (unrated tables only:
    ``InvalidTableRules`` for a rated one).  ``None`` (programmatic callers): drawn for
    a rated table, as listed for an unrated one; the lobby's form and the API draw
    unless the creator asks otherwise.

    ``seats`` is like ``[{"type": "human"}, {"type": "ai", "level": "normal"}]``; the game
    starts at once when every seat is filled (creator and AI seats only).  A ``rated``
    table changes its players' ratings when it ends (``games.ratings``);
    ``time_control`` and ``departure_rule``/``takeover_level`` are checked by
    :func:`check_table_rules`.
    """
    if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH:
        raise GameServiceError(_("A request key of 1 to 64 characters is required."))
    if key:
        first = Game.objects.filter(created_by=creator, create_key=key).first()
        if first is not None:
            return first
    rules = check_table_rules(time_control=time_control, departure_rule=departure_rule,
                              takeover_level=takeover_level)
    if seats_as_listed is None:
        seats_as_listed = not rated
    if seats_as_listed and rated:
        raise InvalidTableRules({"seats_as_listed": [
            _("A rated game always draws its seat order: untick \"seat order as listed\" "
              "or make the game unrated.")]})
    if not variant.active:
        raise VariantUnavailable()
    try:
        engine = get_engine(variant.game)
    except KeyError:
        raise VariantUnavailable() from None
    # The table pins the variant's current published version, forever.
    version = version_for_new_game(variant)
    if version is None:
        raise VariantUnavailable()
    _check_seats(engine, seats)
    waits_for_people = any(spec["type"] == "human" for spec in seats[1:])
    if (
        waits_for_people
        and Game.objects.filter(created_by=creator, status=Game.Status.OPEN).count()
        >= MAX_OPEN_TABLES_PER_USER
    ):
        raise TooManyOpenTables()
    now = timezone.now()
    try:
        with transaction.atomic():
            game = Game.objects.create(
                variant=variant,
                variant_version=version,
                game_name=variant.game,
                variant_name=variant.name,
                variant_data=json.loads(json.dumps(version.data)),
                num_players=len(seats),
                created_by=creator,
                rated=bool(rated),
                seats_as_listed=bool(seats_as_listed),
                create_key=key,
                **rules,
            )
    except IntegrityError:
        # The same key, concurrently: the request that got there first opened the table.
        first = Game.objects.filter(created_by=creator, create_key=key).first() if key else None
        if first is None:
            raise
        return first
    Seat.objects.bulk_create(
        [
            Seat(
                game=game,
                index=index,
                user=creator if index == 0 else None,
                ai_level=spec.get("level", "normal") if spec["type"] == "ai" else "",
                joined_at=now if index == 0 or spec["type"] == "ai" else None,
            )
            for index, spec in enumerate(seats)
        ]
    )
    if all(spec["type"] == "ai" for spec in seats[1:]):
        start_game(game)
    else:
        announce(game, GameChange("opened", lobby=True))
    return game



@transaction.atomic
def join_game(*, game: Game | int, user: AbstractBaseUser, seat: int | None = None) -> Seat:
    """Sit ``user`` at an open table (the first free seat when ``seat`` is None).

    Starts the game when the last seat fills.  Raises ``GameNotOpen``, ``AlreadySeated``
    or ``GameFull``.
    """
    game = locked_game(game)
    if game.status != Game.Status.OPEN:
        raise GameNotOpen()
    if game.seats.filter(user=user).exists():
        raise AlreadySeated()
    free = (
        game.seats.filter(user__isnull=True, ai_level="")
        # A seat kept for someone else (a rematch) is not free for this user.
        .filter(Q(reserved_for__isnull=True) | Q(reserved_for=user))
        .order_by("index")
    )
    mine = free.filter(reserved_for=user).first()
    if seat is None and mine is not None:
        free = free.filter(pk=mine.pk)
    if seat is not None:
        if not 0 <= seat < game.num_players:
            raise GameFull(_("There is no such seat at this table."))
        free = free.filter(index=seat)
    chosen = free.first()
    if chosen is None:
        raise GameFull() if seat is not None else GameFull(_("This table is full."))
    # Compare-and-set: the seat must still be free (SQLite has no row locks).
    now = timezone.now()
    taken = Seat.objects.filter(pk=chosen.pk, user__isnull=True, ai_level="").update(
        user=user, joined_at=now
    )
    if taken != 1:
        raise GameFull()
    chosen.user, chosen.joined_at = user, now
    if not game.seats.filter(user__isnull=True, ai_level="").exists():
        start_game(game)
        # The seat order may have been drawn: the seat they sit in now.
        chosen = Seat.objects.get(game=game, user=user)
    else:
        announce(game, GameChange("joined", lobby=True))
    return chosen



def _person(seat: Seat) -> int | None:
    """The person who played ``seat`` (still seated, or who left it), ``None`` for an AI."""
    return seat.user_id or seat.left_user_id


def _notify_rematch(game: Game) -> None:
    """After the commit, the pages of the game ``game`` is the rematch of show its offer
    as it stands now (made, accepted, started, declined)."""
    if game.rematch_of_id:
        finished_id = game.rematch_of_id
        transaction.on_commit(lambda: broadcast.rematch_offered(finished_id), robust=True)


@transaction.atomic
def rematch_game(*, game: Game | int, user: AbstractBaseUser) -> Game:
    """Offer (or accept) the rematch of a finished game that ``user`` played.

    The first player to ask offers it: a table with the same variant, rules and players,
    the seats rotated by one (the player of seat 1 now sits first, and so on), where the
    asker sits at once, AI seats keep their levels and every other person's seat is kept
    for them (``Seat.reserved_for``): their offer, which they accept by asking too (they
    take their kept seat) or decline (:func:`decline_rematch`).  The game starts when the
    last person accepted (at once when the others are all AI).  People who resigned,
    timed out or handed their seat to the AI are offered their seat like everyone else:
    a person is never replaced by an AI in a rematch.  Raises ``GameNotRunning`` for an
    unfinished game, ``NotSeated`` for someone who did not play it,
    ``VariantUnavailable`` when its variant was withdrawn.
    """
    game = locked_game(game)
    if game.status != Game.Status.FINISHED:
        raise GameNotRunning(_("Only a finished game can be played again."))
    seats = list(game.seats.order_by("index"))
    mine = next((s for s in seats if _person(s) == user.pk), None)
    if mine is None:
        raise NotSeated(_("Only the players of a game can ask for a rematch."))
    existing = (
        Game.objects.select_for_update()
        .filter(rematch_of=game)
        .exclude(status=Game.Status.ABORTED)
        .order_by("-created_at")
        .first()
    )
    if existing is not None:
        if existing.seats.filter(user=user).exists() or existing.status != Game.Status.OPEN:
            return existing
        join_game(game=existing, user=user)
        existing.refresh_from_db()
        _notify_rematch(existing)
        return existing
    variant = game.variant
    if variant is None or not variant.active:
        raise VariantUnavailable()
    # The same rules again: the version this game pinned, unless it has been retired since.
    version = game.variant_version
    if version is None or version.retired_at is not None:
        version = version_for_new_game(variant)
    if version is None:
        raise VariantUnavailable()
    rematch = Game.objects.create(
        variant=variant,
        variant_version=version,
        game_name=game.game_name,
        variant_name=game.variant_name,
        variant_data=json.loads(json.dumps(version.data)),
        num_players=game.num_players,
        created_by=user,
        rematch_of=game,
        # The seats are already rotated from the last game: no new draw.
        seats_as_listed=True,
        **_table_rules(game),
    )
    now = timezone.now()
    count = len(seats)
    # Rotated by one: seat i of the rematch is seat i + 1 of the finished game.
    rotated = [seats[(index + 1) % count] for index in range(count)]
    Seat.objects.bulk_create(
        [
            Seat(
                game=rematch,
                index=index,
                user=user if _person(s) == user.pk else None,
                ai_level=s.ai_level if _person(s) is None else "",
                reserved_for_id=_person(s) if _person(s) not in (None, user.pk) else None,
                joined_at=now if _person(s) in (None, user.pk) else None,
            )
            for index, s in enumerate(rotated)
        ]
    )
    if not rematch.seats.filter(user__isnull=True, ai_level="").exists():
        start_game(rematch)
    else:
        announce(rematch, GameChange("opened", lobby=True))
    # The finished game's pages show the rematch offer (a hint, not a new version).
    _notify_rematch(rematch)
    return rematch



@transaction.atomic
def decline_rematch(*, game: Game | int, user: AbstractBaseUser) -> Game:
    """``user`` declines the rematch offered after the finished ``game``: the rematch
    table is closed (ABORTED, ``result = {"ended_by": "declined", "declined_by": name}``)
    and the others' pages say so.  Anyone the rematch is for may decline while it has not
    started (a person who accepted may still withdraw).  Raises ``GameNotOpen`` when no
    rematch waits, ``NotSeated`` for someone it is not for; the closed rematch.
    """
    game = locked_game(game)
    rematch = (Game.objects.select_for_update().filter(rematch_of=game)
               .exclude(status=Game.Status.ABORTED).order_by("-created_at").first())
    if rematch is None or rematch.status != Game.Status.OPEN:
        raise GameNotOpen(_("There is no rematch offer to decline."))
    if not rematch.seats.filter(Q(user=user) | Q(reserved_for=user)).exists():
        raise NotSeated(_("This rematch is not for you."))
    closed = Game.objects.filter(pk=rematch.pk, status=Game.Status.OPEN).update(
        status=Game.Status.ABORTED, finished_at=timezone.now(),
        result={"ended_by": "declined", "declined_by": user.get_username()},
    )
    if closed != 1:
        raise GameNotOpen(_("There is no rematch offer to decline."))
    rematch.refresh_from_db()
    announce(rematch, GameChange("aborted", lobby=True))
    _notify_rematch(rematch)
    return rematch



@transaction.atomic
def leave_game(*, game: Game | int, user: AbstractBaseUser) -> None:
    """Leave a table before it starts.

    When the creator leaves, the table is aborted (status ABORTED) rather than handed
    over: the others joined the creator's table, not a stranger's.
    """
    game = locked_game(game)
    if game.status != Game.Status.OPEN:
        raise GameNotOpen(_("You can only leave a table before the game starts."))
    seat = game.seats.filter(user=user).first()
    if seat is None:
        raise NotSeated(_("You are not seated at this table."))
    if game.created_by_id == user.pk:
        game.status = Game.Status.ABORTED
        game.finished_at = timezone.now()
        game.save(update_fields=["status", "finished_at", "updated_at"])
    else:
        seat.user, seat.joined_at = None, None
        seat.save(update_fields=["user", "joined_at"])
    announce(game, GameChange("aborted" if game.status == Game.Status.ABORTED else "left",
                              lobby=True))
    _notify_rematch(game)



def _depart(game: Game, seat: Seat, *, reason: str, now: Any) -> bool:
    """``seat``'s person leaves the game for good (``reason``: resigned, timeout,
    handover); False when someone else already did.  Runs inside the caller's transaction
    on a locked game.

    A resignation at a two-seat table (people and AIs counted) ends the game at once: the
    other seat wins (as on Board Game Arena and lichess).  Under the rule "lose" a
    resignation or timeout that leaves at most one person ends the game too: those still
    seated win, the leavers lose.  A game that ends so says why in ``result["ended_by"]``
    (and ``result["resigned"]``, the seat that resigned), and no AI takes the seat.
    Otherwise the AI at the table's ``takeover_level`` plays the seat on.  The version is
    bumped with a compare-and-set, so a concurrent move or sweep makes this a no-op.
    """
    user_id = seat.user_id
    if user_id is None:
        return False
    before = list(Seat.objects.filter(game=game).order_by("index"))
    people = [s.index for s in before if s.user_id is not None and s.index != seat.index]
    ends = departure_ends_game(game, before, seat.index, reason)
    taken = Seat.objects.filter(pk=seat.pk, user_id=user_id, left_user__isnull=True).update(
        user=None, ai_level="" if ends else game.takeover_level, left_user_id=user_id,
        left_at=now, left_reason=reason, deadline=None, time_left=None,
    )
    if taken != 1:
        return False
    version = game.version
    seats = list(Seat.objects.filter(game=game).order_by("index"))
    fields: dict[str, Any] = {"version": version + 1, "updated_at": now}
    if ends:
        engine = game.engine
        try:
            scores = list(engine.scores(engine.state_from_json(game.state_json)))
        except Exception:  # an engine may score only finished games
            scores = []
        if len(seats) == 2 and reason == "resigned":
            winners = [s.index for s in seats if s.index != seat.index]
        else:
            stayed = [s.index for s in seats if s.left_user_id is None]
            winners = people or stayed
        result: dict[str, Any] = {"scores": scores, "winners": winners, "ended_by": reason}
        if reason == "resigned":
            result["resigned"] = seat.index
        fields.update(status=Game.Status.FINISHED, finished_at=now, to_move=[],
                      result=result)
    updated = Game.objects.filter(pk=game.pk, version=version,
                                  status=Game.Status.RUNNING).update(**fields)
    if updated != 1:
        raise StaleVersion(version=game.version)  # rolls the seat change back too
    for name, value in fields.items():
        setattr(game, name, value)
    if game.status == Game.Status.FINISHED:
        Seat.objects.filter(game=game).update(deadline=None)
    # A finished game's result and ratings commit with the departure (game_changed); after
    # the commit every screen of the game hears of it (its sockets re-render).
    announce(game, GameChange("departed", seats=seats, lobby=True, departed=user_id, now=now))
    return True



@transaction.atomic
def _time_out(*, game_id: int, seat_id: int, deadline: Any, now: Any) -> bool:
    """Apply one expired deadline if it still stands (locked game, unchanged deadline)."""
    game = locked_game(game_id)
    if game.status != Game.Status.RUNNING:
        return False
    seat = Seat.objects.filter(pk=seat_id, game=game).first()
    if (seat is None or seat.user_id is None or seat.deadline is None
            or seat.deadline != deadline or seat.deadline > now
            or seat.index not in (game.to_move or [])):
        return False
    return _depart(game, seat, reason="timeout", now=now)



def _leave_running_game(*, game: Game | int, user: AbstractBaseUser, reason: str) -> Game:
    """Resign or hand over ``user``'s seat of a running game (see :func:`_depart`)."""
    game = locked_game(game)
    if game.status != Game.Status.RUNNING:
        raise GameNotRunning(version=game.version)
    seat = Seat.objects.filter(game=game, user=user).first()
    if seat is None:
        raise NotRunningSeat(version=game.version)
    if not _depart(game, seat, reason=reason, now=timezone.now()):
        raise StaleVersion(version=game.version)
    return game



@transaction.atomic
def resign_game(*, game: Game | int, user: AbstractBaseUser) -> Game:
    """``user`` resigns: they lose.  A two-seat game (people and AIs counted) ends at
    once, the other seat winning; otherwise the table's rule decides what follows -- the
    AI plays their seat on ("ai"), or the game ends when one person is left ("lose").

    Raises ``GameNotRunning`` or ``NotRunningSeat``; the game, updated.
    """
    return _leave_running_game(game=game, user=user, reason="resigned")



@transaction.atomic
def hand_over_seat(*, game: Game | int, user: AbstractBaseUser) -> Game:
    """``user`` leaves and the AI (the table's ``takeover_level``) plays their seat on,
    whatever the table's rule; in a rated game this counts as a loss for them."""
    return _leave_running_game(game=game, user=user, reason="handover")



def expire_open_tables(*, now: Any = None, limit: int = 500) -> int:
    """Close tables that never started within ``OPEN_TABLE_EXPIRY_SECONDS``; how many.

    One conditional update (``status = open``), so a table someone fills at the same
    moment either starts or expires, never both, and a repeated sweep changes nothing.
    """
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.OPEN_TABLE_EXPIRY_SECONDS)
    stale = list(Game.objects.filter(status=Game.Status.OPEN, created_at__lte=cutoff)
                 .order_by("created_at").values_list("pk", flat=True)[:limit])
    if not stale:
        return 0
    with transaction.atomic():
        expired = Game.objects.filter(pk__in=stale, status=Game.Status.OPEN).update(
            status=Game.Status.ABORTED, finished_at=now, updated_at=now,
            result={"ended_by": "expired"},
        )
        if expired:
            transaction.on_commit(broadcast.lobby_updated, robust=True)
    if expired:
        logger.info("expired %d open table(s) nobody started", expired)
    return expired



def apply_timeouts(*, game: Game | int | None = None, now: Any = None, limit: int = 200) -> int:
    """Apply the table's rule to every seat whose deadline has passed; how many.

    Of one game (page and API reads, a move sent too late) or of all (the periodic sweep,
    a worker start).  Each seat is handled in its own transaction and at most once,
    however many sweeps run at the same time: the game row is locked, the deadline must
    be unchanged, the seat change and the version bump are compare-and-sets.
    """
    now = now or timezone.now()
    due = Seat.objects.filter(deadline__lte=now, user__isnull=False,
                              game__status=Game.Status.RUNNING)
    if game is not None:
        due = due.filter(game_id=game if isinstance(game, int) else game.pk)
    applied = 0
    for seat_id, game_id, deadline in due.order_by("deadline").values_list(
            "pk", "game_id", "deadline")[:limit]:
        try:
            if _time_out(game_id=game_id, seat_id=seat_id, deadline=deadline, now=now):
                applied += 1
        except GameServiceError as exc:  # a move or another sweep got there first
            logger.info("timeout of seat %s in game %s not applied: %s", seat_id, game_id,
                        exc.code)
    if applied:
        logger.info("clock sweep: %d seat(s) ran out of time", applied)
    return applied
