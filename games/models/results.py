"""The record of every result: one row per seat of a finished game (``games.results``).

Written once, in the transaction that finishes the game, before the ratings read it; every
page and API that shows a result (the leaderboard, the profile, the game lists, the rating
history, the API) reads these rows and nothing else.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models.core import AI_LEVEL_CHOICES, Game


class SeatResult(models.Model):
    """How one seat of a finished game ended, for the person it counts for."""

    class Ended(models.TextChoices):
        #: Sat there to the end (a person, or an AI seated from the start).
        FINISHED = "finished", _("finished")
        RESIGNED = "resigned", _("resigned")
        #: Left the game and handed the seat to the AI (``Seat.left_reason`` "handover").
        LEFT = "left", _("left the game")
        TIMED_OUT = "timed_out", _("ran out of time")
        #: The AI took the seat for a reason this record does not know (a reason added
        #: later, a seat stored before the reasons were).
        REPLACED_BY_AI = "replaced_by_ai", _("replaced by the AI")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seat_results")
    #: ``Game.game_name``, kept here so a leaderboard reads one table.
    game_name = models.CharField(_("game"), max_length=32, db_index=True)
    seat = models.PositiveSmallIntegerField(_("seat"))
    #: The person the result counts for: the seat's player, or the person who left it
    #: (``Seat.left_user``); null for an AI seated from the start (or a deleted account).
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                             blank=True, related_name="seat_results")
    #: The AI level of a seat the AI held from the start ("" for a person's seat).
    ai_level = models.CharField(_("AI level"), max_length=16, choices=AI_LEVEL_CHOICES,
                                blank=True, default="")
    #: 1 is best; ties share a place (1, 1, 3).  Leavers always come after every seat that
    #: stayed, the later leaver first.
    place = models.PositiveSmallIntegerField(_("place"))
    #: The seat's score at the end (the AI's play after a takeover included); null when
    #: the game ended before the engine could score it.
    points = models.IntegerField(_("points"), null=True, blank=True)
    #: How the person (or AI) of the row ended: a leaver's row says how *they* left.
    ended = models.CharField(_("ended"), max_length=16, choices=Ended.choices,
                             default=Ended.FINISHED)
    left_at = models.DateTimeField(null=True, blank=True)
    #: Place 1 among the seats that stayed to the end: a leaver never wins.
    won = models.BooleanField(_("won"), default=False)
    #: The display rating before and after this game (rated games, people only).
    rating_before = models.IntegerField(_("rating before"), null=True, blank=True)
    rating_after = models.IntegerField(_("rating after"), null=True, blank=True)
    finished_at = models.DateTimeField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_result_per_seat"),
        ]
        indexes = [models.Index(fields=["user", "game_name"], name="seat_result_user_game")]
        verbose_name = _("seat result")
        verbose_name_plural = _("seat results")

    def __str__(self) -> str:
        return f"{self.game_id}:{self.seat} place {self.place} ({self.ended})"

    @property
    def left(self) -> bool:
        """True for a person who left before the end (resigned, left, timed out)."""
        return self.ended != self.Ended.FINISHED
