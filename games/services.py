"""Write operations of the games app: keyword-only, typed, atomic.

``submit_action`` is the one path by which people (pages, API) and AI seats (the Celery
task) change a game.  After each commit, ``games.broadcast`` tells the sockets the new
version and, when an AI seat is to act, ``games.tasks.play_ai_turn`` is enqueued.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from accounts import ratings
from accounts.validators import validate_not_confusable
from games import broadcast, clocks
from games.editor import services as editor_services
from games.editor.errors import VariantDataInvalid
from games.engines import IllegalAction, InvalidVariant, get_engine
from games.errors import (
    AlreadySeated,
    GameFull,
    GameNotOpen,
    GameNotRunning,
    GameServiceError,
    IllegalMove,
    InvalidSeats,
    InvalidTableRules,
    KeyConflict,
    NotRunningSeat,
    NotSeated,
    NotYourTurn,
    OutOfTime,
    RegistrationError,
    StaleVersion,
    VariantUnavailable,
)
from games.models import AI_LEVELS, Game, Move, Seat, Variant

__all__ = [
    "ActionTooLarge",
    "AlreadySeated",
    "GameFull",
    "GameNotOpen",
    "GameNotRunning",
    "GameServiceError",
    "IllegalMove",
    "InvalidSeats",
    "InvalidTableRules",
    "KeyConflict",
    "NotRunningSeat",
    "NotSeated",
    "NotYourTurn",
    "OutOfTime",
    "RegistrationError",
    "StaleVersion",
    "TooManyOpenTables",
    "VariantUnavailable",
    "ai_seat_to_move",
    "apply_timeouts",
    "check_table_rules",
    "create_game",
    "expire_open_tables",
    "hand_over_seat",
    "join_game",
    "leave_game",
    "load_default_variants",
    "nudge_ai",
    "nudge_if_stalled",
    "register_user",
    "rematch_game",
    "resign_game",
    "save_variant",
    "start_game",
    "submit_action",
    "sweep_stalled_ai",
]

logger = logging.getLogger(__name__)

MAX_KEY_LENGTH = 64
#: Request keys with this prefix belong to the AI task (``ai-{game}-{version}``): a person
#: who used one first would make the AI's own submit a key conflict and stall the game.
AI_KEY_PREFIX = "ai-"
#: The largest action (as compact JSON) anyone may submit; real actions are < 200 bytes.
MAX_ACTION_BYTES = 4096
#: Open (not yet started) tables one person may have created at a time.
MAX_OPEN_TABLES_PER_USER = 10
#: Names that would collide with the account pages (``/accounts/<name>/``).
RESERVED_USERNAMES = frozenset({"login", "logout", "signup", "password"})


class ActionTooLarge(GameServiceError):
    """An action whose JSON is larger (or deeper) than any real action."""

    status_code = 413
    code = "action_too_large"
    default_message = _lazy("This action is too large.")


class TooManyOpenTables(GameServiceError):
    """The creator already has as many open tables as allowed."""

    status_code = 409
    code = "too_many_open_tables"
    default_message = _lazy(
        "You already have too many open tables: start or close one of them first."
    )


def check_action_size(action: Any) -> None:
    """Raise ``ActionTooLarge`` for an action over ``MAX_ACTION_BYTES`` (or too deep to dump).

    Something that is not JSON at all is left to the engine, which refuses it.
    """
    try:
        size = len(json.dumps(action, separators=(",", ":")).encode())
    except RecursionError:
        raise ActionTooLarge() from None
    except (TypeError, ValueError):
        return
    if size > MAX_ACTION_BYTES:
        raise ActionTooLarge()


# --- variants (the rules editor's services: games/editor/services.py) -------------------------


def save_variant(*, game: str, name: str, data: dict, is_default: bool = False) -> Variant:
    """Create a variant published as version 1, or publish ``data`` as its next version.

    For scripts and tests (no simulation check; the editor's pages and API require one).
    Raises ``InvalidVariant`` (listing every problem by field) and changes nothing when
    the data is not playable; ``KeyError`` for an unknown game.
    """
    get_engine(game)
    try:
        return editor_services.publish_data(game=game, name=name, data=data,
                                            is_default=is_default)
    except VariantDataInvalid as exc:
        raise InvalidVariant(exc.problems) from None


def load_default_variants(*, games: list[str] | None = None) -> list[Variant]:
    """Store the engines' default variants without overwriting anything (see
    ``games.editor.services.load_default_variants``); the variants, in order."""
    return [result.variant for result in editor_services.load_default_variants(games=games)]


# --- accounts (API registration) ------------------------------------------------------------


@transaction.atomic
def register_user(*, username: str, password: str) -> AbstractBaseUser:
    """Create a player account after Django's password validators; ``RegistrationError``."""
    user_model = get_user_model()
    username = user_model.normalize_username(username)
    errors: dict[str, list[str]] = {}
    try:
        user_model.username_validator(username)
        validate_not_confusable(username)
    except ValidationError as exc:
        errors["username"] = list(exc.messages)
    if username.lower() in RESERVED_USERNAMES:
        errors.setdefault("username", []).append(_("This username is reserved."))
    if user_model._default_manager.filter(username__iexact=username).exists():
        errors.setdefault("username", []).append(_("This username is already taken."))
    try:
        validate_password(password, user=user_model(username=username))
    except ValidationError as exc:
        errors["password"] = list(exc.messages)
    if errors:
        raise RegistrationError(errors)
    return user_model._default_manager.create_user(username=username, password=password)


# --- after-commit hooks ---------------------------------------------------------------------


def _enqueue_ai(game_id: int, version: int) -> bool:
    """Queue the AI turn for ``version`` (runs after commit); False when the broker fails.

    A failure is logged, never raised: the move is committed whatever happens to the
    queue, and the periodic sweep (``sweep_stalled_ai``) enqueues the turn again later.
    """
    from games.tasks import play_ai_turn  # tasks imports services

    try:
        play_ai_turn.delay(game_id, version)
    except Exception as exc:  # broker down or unreachable: the sweep will pick it up
        logger.warning(
            "could not enqueue the AI turn of game %s at version %s (%s); "
            "the stalled-turn sweep will retry it", game_id, version, exc.__class__.__name__,
        )
        return False
    return True


def _after_commit(game: Game, *, lobby: bool, seats: list[Seat] | None = None,
                  turns: bool = True, departed: int | None = None) -> None:
    """Register the socket hints and the AI turn to run once the transaction commits
    (``turns``: whose turn it is may have changed, so may the nav's count of the people
    seated; ``departed``: who this change took a seat from, their count changes too)."""
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: broadcast.game_updated(game_id, version), robust=True)
    if lobby:
        transaction.on_commit(broadcast.lobby_updated, robust=True)
    if game.status == Game.Status.RUNNING and ai_seat_to_move(game, seats) is not None:
        transaction.on_commit(lambda: _enqueue_ai(game_id, version), robust=True)
    # The nav's "your turn" count of the people seated (games.turns).
    from games.turns.services import notify_turn, push_turn_counts

    if turns:
        gone = () if departed is None else (departed,)
        transaction.on_commit(lambda: push_turn_counts(game, departed=gone), robust=True)
    if game.status == Game.Status.RUNNING:
        # "Your turn" mails of correspondence games (games.turns): queued, never blocking.
        transaction.on_commit(lambda: notify_turn(game), robust=True)


def ai_seat_to_move(game: Game, seats: list[Seat] | None = None) -> Seat | None:
    """The first AI seat among the seats to move, if any (``seats``: already loaded)."""
    if not game.to_move:
        return None
    if seats is None:
        seats = list(Seat.objects.filter(game=game, index__in=game.to_move).exclude(ai_level=""))
    candidates = [s for s in seats if s.index in game.to_move and s.is_ai]
    return min(candidates, key=lambda s: s.index) if candidates else None


# --- tables ---------------------------------------------------------------------------------


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
) -> Game:
    """Open a table of ``variant``'s current version; ``creator`` sits in seat 0.

    ``seats`` is like ``[{"type": "human"}, {"type": "ai", "level": "normal"}]``; the game
    starts at once when every seat is filled (creator and AI seats only).  A ``rated``
    table changes its players' ratings when it ends (``accounts.ratings``);
    ``time_control`` and ``departure_rule``/``takeover_level`` are checked by
    :func:`check_table_rules`.
    """
    rules = check_table_rules(time_control=time_control, departure_rule=departure_rule,
                              takeover_level=takeover_level)
    if not variant.active:
        raise VariantUnavailable()
    try:
        engine = get_engine(variant.game)
    except KeyError:
        raise VariantUnavailable() from None
    # The table pins the variant's current published version, forever.
    version = editor_services.version_for_new_game(variant)
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
    game = Game.objects.create(
        variant=variant,
        variant_version=version,
        game_name=variant.game,
        variant_name=variant.name,
        variant_data=json.loads(json.dumps(version.data)),
        num_players=len(seats),
        created_by=creator,
        rated=bool(rated),
        **rules,
    )
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
        _after_commit(game, lobby=True)
    return game


def _locked_game(game: Game | int) -> Game:
    """The game re-read from the database, row-locked where the backend can."""
    game_id = game if isinstance(game, int) else game.pk
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise GameNotRunning(_("This game does not exist.")) from None


@transaction.atomic
def join_game(*, game: Game | int, user: AbstractBaseUser, seat: int | None = None) -> Seat:
    """Sit ``user`` at an open table (the first free seat when ``seat`` is None).

    Starts the game when the last seat fills.  Raises ``GameNotOpen``, ``AlreadySeated``
    or ``GameFull``.
    """
    game = _locked_game(game)
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
    else:
        _after_commit(game, lobby=True)
    return chosen


@transaction.atomic
def rematch_game(*, game: Game | int, user: AbstractBaseUser) -> Game:
    """The rematch of a finished game for ``user``, who was seated at it.

    The first player to ask opens a table with the same variant and seats: they sit where
    they sat, AI seats keep their levels, and every other person's seat is kept for them
    (``Seat.reserved_for``).  Later players who ask take their kept seat at that table;
    the game starts when the last seat fills (at once when the others are all AI).
    Raises ``GameNotRunning`` for an unfinished game, ``NotSeated`` for someone who did
    not play it, ``VariantUnavailable`` when its variant was withdrawn.
    """
    game = _locked_game(game)
    if game.status != Game.Status.FINISHED:
        raise GameNotRunning(_("Only a finished game can be played again."))
    seats = list(game.seats.order_by("index"))
    mine = next((s for s in seats if s.user_id == user.pk), None)
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
        return existing
    variant = game.variant
    if variant is None or not variant.active:
        raise VariantUnavailable()
    # The same rules again: the version this game pinned, unless it has been retired since.
    version = game.variant_version
    if version is None or version.retired_at is not None:
        version = editor_services.version_for_new_game(variant)
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
        **_table_rules(game),
    )
    now = timezone.now()
    Seat.objects.bulk_create(
        [
            Seat(
                game=rematch,
                index=s.index,
                user=user if s.index == mine.index else None,
                ai_level=s.ai_level,
                reserved_for=s.user if s.user_id and s.index != mine.index else None,
                joined_at=now if s.index == mine.index or s.ai_level else None,
            )
            for s in seats
        ]
    )
    if not rematch.seats.filter(user__isnull=True, ai_level="").exists():
        start_game(rematch)
    else:
        _after_commit(rematch, lobby=True)
    # The finished game's pages show the rematch offer (a hint, not a new version).
    game_id = game.pk
    transaction.on_commit(lambda: broadcast.rematch_offered(game_id), robust=True)
    return rematch


@transaction.atomic
def leave_game(*, game: Game | int, user: AbstractBaseUser) -> None:
    """Leave a table before it starts.

    When the creator leaves, the table is aborted (status ABORTED) rather than handed
    over: the others joined the creator's table, not a stranger's.
    """
    game = _locked_game(game)
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
    _after_commit(game, lobby=True)


@transaction.atomic
def start_game(game: Game) -> Game:
    """Deal the game (internal: called when the last seat fills).

    Builds ``engine.new_game(variant_data, num_players, seed)``, stores the state, marks
    the game running; after commit it broadcasts and enqueues the AI if it is to move.
    """
    engine = game.engine
    try:
        state = engine.new_game(game.variant_data, game.num_players, game.seed)
    except InvalidVariant as exc:
        raise VariantUnavailable(
            _("This variant cannot be played: %(problems)s") % {"problems": exc}
        ) from exc
    game.state_json = engine.state_to_json(state)
    game.to_move = list(engine.to_move(state))
    game.status = Game.Status.RUNNING
    game.started_at = timezone.now()
    game.version = 0
    game.save(
        update_fields=["state_json", "to_move", "status", "started_at", "version", "updated_at"]
    )
    clocks.sync_clocks(game, list(Seat.objects.filter(game=game)), game.started_at)
    _after_commit(game, lobby=True)
    return game


# --- moves ----------------------------------------------------------------------------------


def _canonical(value: Any) -> str:
    """A stable text form of JSON data (for comparing actions)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _check_seat_holder(game: Game, seats: list[Seat], *, user: Any, seat: int, ai: bool) -> None:
    """Raise ``NotSeated`` unless ``user`` (or the AI, with ``ai=True``) holds ``seat``."""
    holder = next((s for s in seats if s.index == seat), None)
    if holder is None:
        raise NotSeated(_("There is no such seat at this table."), version=game.version)
    if ai:
        if not holder.is_ai:
            raise NotSeated(_("This seat is not played by the AI."), version=game.version)
        return
    if user is None or not getattr(user, "is_authenticated", False) or holder.user_id != user.pk:
        raise NotSeated(version=game.version)


def submit_action(
    *,
    game: Game | int,
    user: Any = None,
    seat: int,
    action: Any,
    version: int,
    key: str,
    ai: bool = False,
) -> Game:
    """Apply ``seat``'s ``action`` (JSON) at ``version``; the one path for every move.

    Checks, in order: the seat holder (``NotSeated``), a repeated ``key`` (same action:
    returns the game unchanged; other action: ``KeyConflict``), the game is running
    (``GameNotRunning``), ``version`` is current (``StaleVersion``), the seat is to move
    (``NotYourTurn``), its clock has not run out (``OutOfTime``: the table's rule is then
    applied, in a transaction of its own), the engine accepts the action (``IllegalMove``
    with its message).  Then appends the move, bumps the version with a compare-and-set
    and runs the clocks.
    """
    try:
        return _submit_action(game=game, user=user, seat=seat, action=action,
                              version=version, key=key, ai=ai)
    except OutOfTime:
        apply_timeouts(game=game if isinstance(game, int) else game.pk)
        raise


@transaction.atomic
def _submit_action(
    *, game: Game | int, user: Any, seat: int, action: Any, version: int, key: str, ai: bool
) -> Game:
    """``submit_action`` in one transaction."""
    passed = game
    check_action_size(action)
    game = _locked_game(game)
    seats = list(game.seats.all())
    _check_seat_holder(game, seats, user=user, seat=seat, ai=ai)
    engine = game.engine
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH:
        raise GameServiceError(_("A request key of 1 to 64 characters is required."))
    if not ai and key.lower().startswith(AI_KEY_PREFIX):
        raise GameServiceError(
            _("Request keys starting with %(prefix)s are reserved.") % {"prefix": AI_KEY_PREFIX}
        )

    previous = Move.objects.filter(game=game, key=key).first()
    if previous is not None:
        try:
            same = previous.seat == seat and _canonical(previous.action) == _canonical(
                engine.action_to_json(engine.action_from_json(action))
            )
        except IllegalAction:
            same = False
        if not same:
            raise KeyConflict(version=game.version)
        return game

    if game.status != Game.Status.RUNNING:
        raise GameNotRunning(version=game.version)
    if version != game.version:
        raise StaleVersion(version=game.version)
    if seat not in game.to_move:
        raise NotYourTurn(version=game.version)
    holder = next(s for s in seats if s.index == seat)
    if holder.deadline is not None and holder.deadline <= timezone.now():
        raise OutOfTime(version=game.version)

    state = engine.state_from_json(game.state_json)
    try:
        parsed = engine.action_from_json(action)
        new_state = engine.apply(state, seat, parsed)
    except IllegalAction as exc:
        raise IllegalMove(str(exc) or None, version=game.version) from exc
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        # Garbage the engine did not recognise as such: still the player's mistake.
        raise IllegalMove(version=game.version) from exc
    # Engines return an event (JSON data); a legacy engine may still return a sentence.
    event = engine.describe_action(state, parsed)

    now = timezone.now()
    fields: dict[str, Any] = {
        "version": version + 1,
        "state_json": engine.state_to_json(new_state),
        "to_move": list(engine.to_move(new_state)),
        "updated_at": now,
    }
    if engine.is_over(new_state):
        fields.update(
            status=Game.Status.FINISHED,
            finished_at=now,
            result={
                "scores": list(engine.scores(new_state)),
                "winners": list(engine.winners(new_state)),
            },
        )
    updated = Game.objects.filter(
        pk=game.pk, version=version, status=Game.Status.RUNNING
    ).update(**fields)
    if updated != 1:
        raise StaleVersion(version=game.version)
    try:
        with transaction.atomic():
            Move.objects.create(
                game=game,
                seq=version + 1,
                seat=seat,
                action=engine.action_to_json(parsed),
                key=key,
                event=event if isinstance(event, dict) else None,
                description=event if isinstance(event, str) else "",
            )
    except IntegrityError as exc:  # a concurrent writer won the race
        raise StaleVersion() from exc
    # The seats to move and the status are what the nav's counts depend on: a step
    # within a turn (a harvest, a build) changes neither.
    turns = set(game.to_move or []) != set(fields["to_move"]) or "status" in fields
    for name, value in fields.items():
        setattr(game, name, value)
        if isinstance(passed, Game):  # the caller's instance follows too
            setattr(passed, name, value)
    clocks.sync_clocks(game, seats, now, mover=seat)
    if game.status == Game.Status.FINISHED:
        # In this transaction: the final move and the rating change commit together.
        ratings.record_result(game=game)
    _after_commit(game, lobby=game.status == Game.Status.FINISHED, seats=seats, turns=turns)
    return game


# --- leaving a running game: timeouts, resignations, hand-overs -----------------------------


def _depart(game: Game, seat: Seat, *, reason: str, now: Any) -> bool:
    """The AI takes ``seat`` from its person for good (``reason``: resigned, timeout,
    handover); False when someone else already did.  Runs inside the caller's transaction
    on a locked game.

    Under the rule "lose" a resignation or timeout that leaves at most one person ends the
    game: those still seated win, the leavers lose (``result["ended_by"]``).  Otherwise
    the AI at the table's ``takeover_level`` plays the seat on.  The version is bumped
    with a compare-and-set, so a concurrent move or sweep makes this a no-op.
    """
    user_id = seat.user_id
    if user_id is None:
        return False
    taken = Seat.objects.filter(pk=seat.pk, user_id=user_id, left_user__isnull=True).update(
        user=None, ai_level=game.takeover_level, left_user_id=user_id, left_at=now,
        left_reason=reason, deadline=None, time_left=None,
    )
    if taken != 1:
        return False
    version = game.version
    seats = list(Seat.objects.filter(game=game).order_by("index"))
    fields: dict[str, Any] = {"version": version + 1, "updated_at": now}
    people = [s.index for s in seats if s.user_id is not None]
    if (reason != "handover" and game.departure_rule == Game.DepartureRule.LOSE
            and len(people) <= 1):
        engine = game.engine
        try:
            scores = list(engine.scores(engine.state_from_json(game.state_json)))
        except Exception:  # an engine may score only finished games
            scores = []
        stayed = [s.index for s in seats if s.left_user_id is None]
        fields.update(
            status=Game.Status.FINISHED, finished_at=now, to_move=[],
            result={"scores": scores, "winners": people or stayed, "ended_by": reason},
        )
    updated = Game.objects.filter(pk=game.pk, version=version,
                                  status=Game.Status.RUNNING).update(**fields)
    if updated != 1:
        raise StaleVersion(version=game.version)  # rolls the seat change back too
    for name, value in fields.items():
        setattr(game, name, value)
    if game.status == Game.Status.FINISHED:
        Seat.objects.filter(game=game).update(deadline=None)
        ratings.record_result(game=game)
    _after_commit(game, lobby=True, seats=seats, departed=user_id)
    return True


@transaction.atomic
def _time_out(*, game_id: int, seat_id: int, deadline: Any, now: Any) -> bool:
    """Apply one expired deadline if it still stands (locked game, unchanged deadline)."""
    game = _locked_game(game_id)
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
    game = _locked_game(game)
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
    """``user`` resigns: they lose, and the table's rule decides what follows -- the AI
    plays their seat on ("ai"), or the game ends when one person is left ("lose").

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


def nudge_ai(*, game: Game | int) -> bool:
    """Enqueue the AI turn again when an AI seat is to move (after a lost task or an outage).

    Harmless when repeated: the task does nothing once the version has moved on.
    """
    game = Game.objects.get(pk=game) if isinstance(game, int) else game
    game.refresh_from_db(fields=["status", "version", "to_move"])
    if game.status != Game.Status.RUNNING or ai_seat_to_move(game) is None:
        return False
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: _enqueue_ai(game_id, version), robust=True)
    return True


def nudge_if_stalled(*, game: Game) -> bool:
    """Enqueue the AI turn again if it has been pending longer than ``AI_STALL_SECONDS``.

    Called by page loads, API reads, socket connects and the periodic sweep, so a turn
    lost with its worker (or with the broker) is played again without anyone reloading.
    At most one nudge per game version and stall period, however often it is called
    (each nudge may queue an expensive search); when the cache is down it nudges anyway
    (the broker is probably down too, and the task dedups by version).
    """
    from accounts.ratelimit import first_in_window

    if game.status != Game.Status.RUNNING or not game.to_move:
        return False
    stall = settings.AI_STALL_SECONDS
    if (timezone.now() - game.updated_at).total_seconds() < stall:
        return False
    started = game.started_at.timestamp() if game.started_at else 0
    if not first_in_window(f"ai-nudge:{game.pk}:{started}:{game.version}", window=max(1, stall)):
        return False
    return nudge_ai(game=game)


def sweep_stalled_ai(*, limit: int = 500) -> int:
    """Nudge every running game whose AI turn has been pending too long; how many."""
    from games.selectors import stalled_ai_games

    nudged = 0
    for game in stalled_ai_games(older_than=settings.AI_STALL_SECONDS, limit=limit):
        if nudge_if_stalled(game=game):
            nudged += 1
    if nudged:
        logger.warning("stalled-turn sweep: re-enqueued %d AI turn(s)", nudged)
    return nudged
