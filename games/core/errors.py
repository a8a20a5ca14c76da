"""Errors the game services raise; each carries a user-facing message and an HTTP status.

Views and API views catch ``GameServiceError`` and show ``str(error)`` (already
translated) with ``error.status_code``.  ``error.code`` is a stable machine name.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from common.errors import InvalidFields, ServiceError


class GameServiceError(ServiceError):
    """Base class: a request the game services refuse, with a message for the player."""


class InvalidSeats(GameServiceError):
    """The seat list of a new table is malformed (count, types, levels)."""

    status_code = 400
    code = "invalid_seats"
    default_message = _("These seats are not valid for this game.")


class VariantUnavailable(GameServiceError):
    """The variant does not exist, is inactive, or is not playable."""

    status_code = 400
    code = "variant_unavailable"
    default_message = _("This variant is not available.")


class GameNotOpen(GameServiceError):
    """Joining or leaving a table that has already started (or ended)."""

    status_code = 409
    code = "game_not_open"
    default_message = _("This table is no longer open.")


class GameFull(GameServiceError):
    """No free seat left (or the requested seat is taken)."""

    status_code = 409
    code = "game_full"
    default_message = _("This seat is already taken.")


class AlreadySeated(GameServiceError):
    """The user already sits at this table."""

    status_code = 409
    code = "already_seated"
    default_message = _("You already have a seat at this table.")


class NotSeated(GameServiceError):
    """The user does not hold the seat they act for (or is not at the table)."""

    status_code = 403
    code = "not_seated"
    default_message = _("You do not hold this seat.")


class GameNotRunning(GameServiceError):
    """An action on a game that has not started or has ended."""

    status_code = 409
    code = "game_not_running"
    default_message = _("This game is not running.")


class StaleVersion(GameServiceError):
    """The client acted on an old version of the game: it must refetch."""

    status_code = 409
    code = "stale_version"
    default_message = _("The game has moved on; please reload it.")
    #: What a page says: it answers with the current position, so nothing to reload.
    page_message = _("The game had moved on: the page now shows the current position.")


class NotYourTurn(GameServiceError):
    """The seat is valid but may not act now (409: a conflict with the game state)."""

    status_code = 409
    code = "not_your_turn"
    default_message = _("It is not your turn.")


class KeyConflict(GameServiceError):
    """An idempotency key reused for a different action."""

    status_code = 409
    code = "key_conflict"
    default_message = _("This request key was already used for another action.")


class IllegalMove(GameServiceError):
    """The engine refused the action; the message is the engine's."""

    status_code = 422
    code = "illegal_move"
    default_message = _("This move is not allowed.")


class OutOfTime(GameServiceError):
    """The seat's clock ran out before its action arrived (the table's rule then applies)."""

    status_code = 409
    code = "out_of_time"
    default_message = _("Your time has run out.")


class InvalidTableRules(InvalidFields, GameServiceError):
    """The time control or the departure rule of a new table is not valid."""

    status_code = 400
    code = "invalid_table_rules"
    default_message = _("These table rules are not valid.")


class NotRunningSeat(GameServiceError):
    """Resigning or handing over a seat one does not play in a running game."""

    status_code = 409
    code = "cannot_leave_seat"
    default_message = _("You are not playing in this game.")
