"""The one write path of a game: dealing it and applying actions (keyword-only, typed, atomic).

``submit_action`` is the one path by which people (pages, API) and AI seats (the Celery
task) change a running game; ``start_game`` deals it.  Each ends with
``games.core.signals.announce``: the features that react to a change (clocks, results,
sockets, the lobby, AI turns, turn counts, mails) listen there, and this module names none
of them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from games.core.errors import (
    GameNotRunning,
    GameServiceError,
    IllegalMove,
    KeyConflict,
    NotSeated,
    NotYourTurn,
    OutOfTime,
    StaleVersion,
    VariantUnavailable,
)
from games.core.selectors import replayed_state
from games.core.signals import GameChange, announce, announce_deadline_passed
from games.engines import IllegalAction, InvalidVariant
from games.models import Game, Move, Rewind, Seat

MAX_KEY_LENGTH = 64
#: Request keys with this prefix belong to the AI task (``ai-{game}-{version}``): a person
#: who used one first would make the AI's own submit a key conflict and stall the game.
AI_KEY_PREFIX = "ai-"
#: The largest action (as compact JSON) anyone may submit; real actions are < 200 bytes.
MAX_ACTION_BYTES = 4096


class ActionTooLarge(GameServiceError):
    """An action whose JSON is larger (or deeper) than any real action."""

    status_code = 413
    code = "action_too_large"
    default_message = _lazy("This action is too large.")


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


# --- accounts (API registration) ------------------------------------------------------------


def locked_game(game: Game | int) -> Game:
    """The game re-read from the database, row-locked where the backend can."""
    game_id = game if isinstance(game, int) else game.pk
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise GameNotRunning(_("This game does not exist.")) from None


def draw_seat_order(seed: int, count: int) -> list[int]:
    """The seat order drawn from a game's ``seed``: seat ``i`` gets who was listed at
    ``order[i]``.  A stream of its own (not the engine's), so the deal is the same
    whoever sits where; the same seed always gives the same order."""
    order = list(range(count))
    random.Random(f"colonia-seating:{seed}").shuffle(order)
    return order


def _draw_seats(game: Game) -> None:
    """Seat the listed occupants in the order drawn from the seed (or as listed), and
    store the order on the game.  Moves and replays name seats by index, so a stored
    game replays identically; only who sits where is drawn."""
    count = game.num_players
    order = list(range(count)) if game.seats_as_listed else draw_seat_order(game.seed, count)
    game.seat_order = order
    if order == list(range(count)):
        return
    seats = {s.index: s for s in Seat.objects.filter(game=game)}
    listed = {i: (s.user_id, s.ai_level, s.joined_at, s.reserved_for_id)
              for i, s in seats.items()}
    # Everyone up first: a person may sit only once at a table (a unique constraint).
    Seat.objects.filter(game=game).update(user=None)
    for index, seat in seats.items():
        seat.user_id, seat.ai_level, seat.joined_at, seat.reserved_for_id = listed[order[index]]
        seat.save(update_fields=["user", "ai_level", "joined_at", "reserved_for"])


@transaction.atomic
def start_game(game: Game) -> Game:
    """Deal the game (called by the tables when the last seat fills).

    Draws the seat order from the seed unless the table keeps it as listed
    (:func:`draw_seat_order`; stored in ``seat_order``), builds
    ``engine.new_game(variant_data, num_players, seed)``, stores the state, marks the
    game running and announces it (the clocks start; after commit the sockets, the lobby
    and an AI seat to move hear of it).
    """
    engine = game.engine
    try:
        state = engine.new_game(game.variant_data, game.num_players, game.seed)
    except InvalidVariant as exc:
        raise VariantUnavailable(
            _("This variant cannot be played: %(problems)s") % {"problems": exc}
        ) from exc
    _draw_seats(game)
    game.state_json = engine.state_to_json(state)
    game.to_move = list(engine.to_move(state))
    game.status = Game.Status.RUNNING
    game.started_at = timezone.now()
    game.version = 0
    game.save(
        update_fields=["state_json", "to_move", "status", "started_at", "version",
                       "seat_order", "updated_at"]
    )
    announce(game, GameChange("started", seats=list(Seat.objects.filter(game=game)),
                              lobby=True, now=game.started_at))
    return game


# --- moves ----------------------------------------------------------------------------------


def _canonical(value: Any) -> str:
    """A stable text form of JSON data (for comparing actions)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def repeated_request(
    *, game: Game, seats: list[Seat], model: type[Move] | type[Rewind], key: str,
    same: Callable[[Any], bool],
) -> bool:
    """Whether ``key`` names a request ``game`` has answered already (the ``model`` row
    stored under it: a ``Move``, a ``Rewind``): a request's idempotency, one rule for
    every write path keyed by the caller.

    ``False``: a new key, go on.  The same request again (``same(row)``): ``True``, and
    the caller returns the game unchanged.  Another request under a used key:
    ``KeyConflict``.
    """
    previous = model.objects.filter(game=game, key=key).first()
    if previous is None:
        return False
    if not same(previous):
        raise KeyConflict(version=game.version)
    # The same request again: maybe the first answer was lost with a web process that
    # died after its commit, before its hints went out -- so they go out again (the
    # sockets and the AI's turn ignore what they have already seen).
    announce(game, GameChange("repeated", seats=seats, turns=False))
    return True


def check_current(*, game: Game, version: int) -> None:
    """Raise ``GameNotRunning`` unless ``game`` runs, ``StaleVersion`` unless the request
    was made at its current ``version``."""
    if game.status != Game.Status.RUNNING:
        raise GameNotRunning(version=game.version)
    if version != game.version:
        raise StaleVersion(version=game.version)


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
        # Out of the rolled-back transaction: the table's rule is applied now.
        announce_deadline_passed(game if isinstance(game, int) else game.pk)
        raise


@transaction.atomic
def _submit_action(
    *, game: Game | int, user: Any, seat: int, action: Any, version: int, key: str, ai: bool
) -> Game:
    """``submit_action`` in one transaction."""
    passed = game
    check_action_size(action)
    game = locked_game(game)
    seats = list(game.seats.all())
    _check_seat_holder(game, seats, user=user, seat=seat, ai=ai)
    engine = game.engine
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH:
        raise GameServiceError(_("A request key of 1 to 64 characters is required."))
    if not ai and key.lower().startswith(AI_KEY_PREFIX):
        raise GameServiceError(
            _("Request keys starting with %(prefix)s are reserved.") % {"prefix": AI_KEY_PREFIX}
        )

    def same(previous: Move) -> bool:
        try:
            return previous.seat == seat and _canonical(previous.action) == _canonical(
                engine.action_to_json(engine.action_from_json(action)))
        except IllegalAction:
            return False

    if repeated_request(game=game, seats=seats, model=Move, key=key, same=same):
        return game
    check_current(game=game, version=version)
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
    # The engine's event of the action (JSON data): the log's and the replay's text.
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
                event=event,
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
    # The clocks, and a finished game's result and ratings, commit with the move.
    announce(game, GameChange("moved", seats=seats, mover=seat, now=now, turns=turns,
                              lobby=game.status == Game.Status.FINISHED))
    return game


# --- taking moves back ----------------------------------------------------------------------


@transaction.atomic
def rewind_moves(
    *, game: Game, seats: list[Seat], seat: int, from_seq: int, version: int, key: str
) -> Game:
    """Cut ``game``'s move log back to before move ``from_seq`` (``seat``'s, taken back
    with every move after it) and refold the game from what is left.

    The caller has locked the game (``locked_game``) and decided the rewind is allowed
    (a practice game's undo); this checks only that the game still runs at ``version``
    (``GameNotRunning``, ``StaleVersion``).  The moves are deleted, so the log, the
    replays and the analyses show the game as finally played; the state is the fold of
    the shorter log; the version goes *up* (never back: clients and caches key on it), and
    ``rewinds`` too (caches of the game's steps key on it).  Time spent is not given
    back: the clocks only follow whose turn it is again (``games.tables`` listens to
    ``undone``).  Recorded as a ``Rewind`` under ``key`` and announced as ``undone``.
    """
    check_current(game=game, version=version)
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH:
        raise GameServiceError(_("A request key of 1 to 64 characters is required."))
    engine = game.engine
    removed, _by_model = Move.objects.filter(game=game, seq__gte=from_seq).delete()
    state = replayed_state(game)  # the fold of what is left
    now = timezone.now()
    fields: dict[str, Any] = {
        "version": version + 1,
        "state_json": engine.state_to_json(state),
        "to_move": list(engine.to_move(state)),
        "updated_at": now,
        "rewinds": game.rewinds + 1,
    }
    updated = Game.objects.filter(
        pk=game.pk, version=version, status=Game.Status.RUNNING
    ).update(**fields)
    if updated != 1:
        raise StaleVersion(version=game.version)  # rolls the deletion back too
    try:
        with transaction.atomic():
            Rewind.objects.create(game=game, key=key, seat=seat, from_seq=from_seq,
                                  removed=removed, version=version + 1)
    except IntegrityError as exc:  # the same key, concurrently
        raise StaleVersion() from exc
    for name, value in fields.items():
        setattr(game, name, value)
    # Every viewer refetches the whole position (its log lost rows); an AI seat now to
    # move gets its turn; the nav's counts follow whose turn it is.
    announce(game, GameChange("undone", seats=seats, mover=seat, now=now))
    return game


# --- leaving a running game: timeouts, resignations, hand-overs -----------------------------


