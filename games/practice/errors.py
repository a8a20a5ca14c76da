"""Errors of practice help; each carries a user-facing message and an HTTP status."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.core.errors import GameServiceError


class NotPractice(GameServiceError):
    """Hints and undo exist only in unrated games where every other seat is the AI."""

    status_code = 403
    code = "not_practice"
    default_message = _("Hints and undo are only for unrated practice games against the AI.")


class NothingToUndo(GameServiceError):
    """The player has made no move yet (none left to take back)."""

    status_code = 409
    code = "nothing_to_undo"
    default_message = _("You have no move to take back.")


class UndoRevealed(GameServiceError):
    """Taking the move back would go past one that showed the player something new (a
    card or tile drawn, a card turned up): replayed, they would know what comes."""

    status_code = 409
    code = "undo_revealed"
    default_message = _("You cannot take back a move that revealed something new (a drawn "
                        "card or tile).")
