"""The "your turn" mail of correspondence games (what the turn-mail task does)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format

from accounts.models import Preferences, language_of
from common import ratelimit
from games.core.selectors import game_label
from games.models import Game, Move, Seat
from games.turns.selectors import is_correspondence
from games.turns.unsubscribe import unsubscribe_token

logger = logging.getLogger(__name__)


def _wants_mail(user: Any) -> bool:
    if user is None or not user.is_active or not user.email:
        return False
    prefs = Preferences.objects.filter(user=user).first()
    return prefs is None or prefs.turn_emails



def turn_deadline(game: Game, user: Any) -> datetime | None:
    """When ``user``'s time for the current move runs out (the earliest clock of their seats
    to move); ``None`` when no clock runs for them."""
    return (Seat.objects.filter(game=game, user=user, index__in=game.to_move or [],
                                deadline__isnull=False)
            .order_by("deadline").values_list("deadline", flat=True).first())



def deadline_text(deadline: datetime) -> str:
    """``deadline`` in the active language's date and time format, in UTC (people have no
    time zone of their own here: the mail says "UTC" next to it)."""
    return date_format(deadline.astimezone(UTC), "DATETIME_FORMAT")



def turn_mail(game: Game, user: Any) -> EmailMessage:
    """The "your turn" mail of ``game`` for ``user`` (RFC 8058 one-click unsubscribe):
    the deadline of the move in the recipient's language (the days per move when no
    clock runs yet)."""
    base = settings.SITE_URL.rstrip("/")
    unsubscribe = base + reverse("accounts:unsubscribe", args=[unsubscribe_token(user)])
    context = {
        "user": user,
        "game_label": game_label(game),
        "game_id": game.pk,
        "play_url": base + reverse("play", args=[game.pk]),
        "settings_url": base + reverse("accounts:notifications"),
        "unsubscribe_url": unsubscribe,
        "days": game.clock_days,
    }
    deadline = turn_deadline(game, user)
    with translation.override(language_of(user)):
        context["deadline"] = deadline_text(deadline) if deadline is not None else ""
        subject = " ".join(render_to_string("games/mail/turn_subject.txt", context).split())
        body = render_to_string("games/mail/turn_body.txt", context)
    return EmailMessage(
        subject=subject,
        body=body,
        to=[user.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )



def send_turn_mails(*, game_id: int, version: int) -> int:
    """Mail the people who became the ones to move at ``version`` (once each); how many.

    Nothing when the game has moved on since (they may have played already), for a seat
    that keeps the turn it just played (its own turn continues), or for people who turned
    the mails off or have no address.
    """
    game = Game.objects.filter(pk=game_id).first()
    if (game is None or game.version != version or game.status != Game.Status.RUNNING
            or not is_correspondence(game)):
        return 0
    last = Move.objects.filter(game=game).order_by("-seq").values_list("seat", flat=True).first()
    sent = 0
    for seat in game.seats.filter(index__in=game.to_move, user__isnull=False).select_related(
        "user"
    ):
        if seat.index == last or not _wants_mail(seat.user):
            continue
        if not ratelimit.first_in_window(f"turnmail:{game.pk}:{seat.index}:{version}",
                                         window=7 * 24 * 3600):
            continue  # a redelivered task: this mail went out already
        try:
            turn_mail(game, seat.user).send()
        except Exception:
            logger.warning("could not send the turn mail of game %s to seat %s", game.pk,
                           seat.index, exc_info=True)
            continue
        sent += 1
    return sent
