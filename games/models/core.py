"""The game record: games (tables), seats, moves.

A game's state is always the fold of its moves over
``engine.new_game(variant_data, num_players, seed)``; ``Game.state_json`` is only a cache
of that fold, rewritten in the same transaction as each move.  ``seed`` and
``state_json`` hold hidden information: nothing outside ``games.core`` may print, log
or send them (everything goes through ``engine.observe``).
"""

from __future__ import annotations

import secrets
from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.data_texts import variant_title
from games.engines import Engine, get_engine
from games.models.variants import Variant, VariantVersion

#: AI strengths a seat may have ("" means a human seat).
AI_LEVELS = ("random", "greedy", "easy", "normal", "hard")
AI_LEVEL_CHOICES = [
    ("random", _("random")),
    ("greedy", _("greedy")),
    ("easy", _("easy")),
    ("normal", _("normal")),
    ("hard", _("hard")),
]


def new_seed() -> int:
    """A random 63-bit seed (fits a signed BIGINT)."""
    return secrets.randbits(63)


def new_invite_token() -> str:
    """A random URL-safe token for invite links."""
    return secrets.token_urlsafe(18)


class Game(models.Model):
    """One table: its rules snapshot, seed, status, version and cached state."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    class Clock(models.TextChoices):
        NONE = "none", _("no clock")
        LIVE = "live", _("live (reserve + increment)")
        CORRESPONDENCE = "correspondence", _("correspondence (days per move)")

    class DepartureRule(models.TextChoices):
        #: The AI plays the seat of a player who resigns or runs out of time.
        AI = "ai", _("the AI takes the seat and the game goes on")
        #: The player loses; the game ends when one person is left (else the AI plays on).
        LOSE = "lose", _("the player loses; the game ends when one person is left")

    variant = models.ForeignKey(
        Variant, on_delete=models.SET_NULL, null=True, blank=True, related_name="games"
    )
    #: The version this game was created with, forever (``variant_data`` is its data).
    variant_version = models.ForeignKey(
        VariantVersion, on_delete=models.PROTECT, null=True, blank=True, related_name="games"
    )
    game_name = models.CharField(_("game"), max_length=32)
    variant_name = models.CharField(_("variant"), max_length=64)
    variant_data = models.JSONField(_("variant data"))
    num_players = models.PositiveSmallIntegerField(_("players"))
    seed = models.BigIntegerField(default=new_seed, editable=False)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    version = models.PositiveIntegerField(_("version"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="created_games",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    #: ``{"scores": [...], "winners": [...]}`` once finished, ``{}`` before.
    result = models.JSONField(_("result"), default=dict, blank=True)
    #: Cache of the engine state (hidden parts included): the fold of the moves.
    state_json = models.JSONField(null=True, blank=True, editable=False)
    #: Seats that may act now (public; cached so lists need not load states).
    to_move = models.JSONField(default=list, blank=True)
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    #: The finished game this table is the rematch of (same variant and seats).
    rematch_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematches"
    )
    #: The creator's choice to keep the seats in the order they listed them (unrated
    #: tables only); otherwise the seats are drawn from ``seed`` when the game starts.
    seats_as_listed = models.BooleanField(_("seat order as listed"), default=False)
    #: Set when the game starts: seat ``i`` holds whoever was listed at
    #: ``seat_order[i]`` (``[]``: games from before the draw, seated as listed).
    seat_order = models.JSONField(default=list, blank=True, editable=False)
    #: A rated table changes its players' ratings (``games.ratings``) when it ends.
    rated = models.BooleanField(_("rated"), default=False)
    #: When the ratings were updated for this game (set once, in the finishing transaction).
    rated_at = models.DateTimeField(null=True, blank=True, editable=False)
    #: The time control: none, live (``clock_reserve`` seconds plus ``clock_increment``
    #: per turn, Fischer-style) or correspondence (``clock_days`` per turn).
    clock = models.CharField(_("clock"), max_length=16, choices=Clock.choices,
                             default=Clock.NONE)
    clock_reserve = models.PositiveIntegerField(_("reserve (seconds)"), default=0)
    clock_increment = models.PositiveIntegerField(_("increment (seconds)"), default=0)
    clock_days = models.PositiveSmallIntegerField(_("days per move"), default=0)
    #: What happens when a player resigns or runs out of time.
    departure_rule = models.CharField(_("when a player leaves"), max_length=8,
                                      choices=DepartureRule.choices, default=DepartureRule.AI)
    #: The level of the AI that takes over a seat.
    takeover_level = models.CharField(_("AI level taking over"), max_length=16,
                                      choices=AI_LEVEL_CHOICES, default="normal")
    #: How many times the move log was cut back (``Rewind``: a practice game's undo).
    #: Caches of a game's steps key on it: after a rewind, step K may be another state.
    rewinds = models.PositiveIntegerField(default=0, editable=False)
    #: The creator's request key of the form that opened the table ("" for none): the
    #: same key again (a double click) gets this table, not a second one.
    create_key = models.CharField(max_length=64, blank=True, default="", editable=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["created_by", "create_key"],
                condition=~models.Q(create_key=""),
                name="unique_game_create_key",
            ),
        ]
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        return f"#{self.pk} {self.game_name}/{self.variant_name} ({self.status})"

    @property
    def variant_title(self) -> str:
        """The display name of the variant as this game pinned it (translated when shipped)."""
        if "variant_data" in self.get_deferred_fields() and hasattr(self, "variant_title_data"):
            # A light list read (``games.core.selectors.with_seats``): the title only.
            return variant_title({"title": self.variant_title_data}, self.variant_name,
                                 self.game_name)
        return variant_title(self.variant_data, self.variant_name, self.game_name)

    @property
    def engine(self) -> Engine:
        """The rules engine of this game."""
        return get_engine(self.game_name)


class Seat(models.Model):
    """A place at a table: a person, an AI of some level, or still open."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="seats",
    )
    ai_level = models.CharField(
        _("AI level"), max_length=16, choices=AI_LEVEL_CHOICES, blank=True, default=""
    )
    joined_at = models.DateTimeField(null=True, blank=True)
    #: An open seat kept for one person (a rematch keeps each player's seat for them).
    reserved_for = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reserved_seats",
    )

    #: The moment this seat runs out of time (set while it is to move under a clock).
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    #: Live clocks: the seconds in the bank while the seat is not to move.
    time_left = models.FloatField(null=True, blank=True)
    #: The person who played this seat before the AI took it over (resigned, timed out,
    #: handed over), when and why; they count as having lost.
    left_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="left_seats",
    )
    left_at = models.DateTimeField(null=True, blank=True)
    left_reason = models.CharField(max_length=16, blank=True, default="",
                                   choices=[("resigned", _("resigned")),
                                            ("timeout", _("ran out of time")),
                                            ("handover", _("handed over to the AI"))])

    class Meta:
        ordering = ["game", "index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="unique_seat_index"),
            models.UniqueConstraint(
                fields=["game", "user"],
                condition=models.Q(user__isnull=False),
                name="one_seat_per_user_per_game",
            ),
        ]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")

    def __str__(self) -> str:
        return f"{self.game_id}:{self.index} {self.display_name}"

    @property
    def is_ai(self) -> bool:
        """True for a seat played by the AI."""
        return bool(self.ai_level)

    @property
    def is_open(self) -> bool:
        """True while nobody (person or AI) sits here (nor left it: a seat whose person
        resigned and so ended the game keeps their name)."""
        return self.user_id is None and not self.ai_level and self.left_user_id is None

    def seconds_left(self, now: datetime) -> float | None:
        """Seconds left on the seat's clock at ``now`` (running or banked); ``None``
        without a clock."""
        if self.deadline is not None:
            return max(0.0, (self.deadline - now).total_seconds())
        return self.time_left

    @property
    def display_name(self) -> str:
        """The name shown at the table."""
        if self.ai_level and self.left_user_id is not None:
            return str(_("AI (%(level)s) for %(name)s") % {
                "level": self.get_ai_level_display(), "name": self.left_user.get_username()})
        if self.ai_level:
            return str(_("AI (%(level)s)") % {"level": self.get_ai_level_display()})
        if self.user_id is not None:
            return self.user.get_username()
        if self.left_user_id is not None:  # they resigned, and that ended the game
            return self.left_user.get_username()
        return str(_("Open seat"))


class Move(models.Model):
    """One accepted action, in order; the game is the fold of these."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    key = models.CharField(max_length=64)
    #: The engine's event for this move (``describe_action``): JSON, never prose.
    event = models.JSONField(null=True, blank=True)
    #: Legacy English sentence of engines that returned prose; empty for events.
    description = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="unique_move_seq"),
            models.UniqueConstraint(fields=["game", "key"], name="unique_move_key"),
        ]
        verbose_name = _("move")
        verbose_name_plural = _("moves")

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} seat {self.seat}"




class Rewind(models.Model):
    """One cut of a game's move log (a practice game's undo): the moves from ``from_seq``
    on were deleted and the game refolded from the rest; ``key`` makes it idempotent."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rewind_log")
    key = models.CharField(max_length=64)
    #: The seat whose move was taken back (with every move after it).
    seat = models.PositiveSmallIntegerField()
    #: The first move removed, how many were removed, and the version the rewind made.
    from_seq = models.PositiveIntegerField()
    removed = models.PositiveIntegerField()
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "version"]
        constraints = [
            models.UniqueConstraint(fields=["game", "key"], name="unique_rewind_key"),
        ]
        verbose_name = _("undone move")
        verbose_name_plural = _("undone moves")

    def __str__(self) -> str:
        return f"{self.game_id}: seat {self.seat} back from #{self.from_seq}"
