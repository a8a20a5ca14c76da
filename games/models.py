"""Database models of the games app: variants and their versions, games (tables), seats, moves.

A game's state is always the fold of its moves over
``engine.new_game(variant_data, num_players, seed)``; ``Game.state_json`` is only a cache
of that fold, rewritten in the same transaction as each move.  ``seed`` and
``state_json`` hold hidden information: nothing outside ``games.services`` /
``games.selectors`` may print, log or send them (everything goes through
``engine.observe``).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.engines import Engine, engine_names, get_engine

GAME_CHOICES = [(name, name) for name in engine_names()]

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


class Variant(models.Model):
    """A named series of rule data for one game: published versions plus at most one draft.

    The versions live in ``VariantVersion`` (edited in the rules editor, ``games.editor``);
    ``data`` is a copy of the *current* version's data (the newest published version
    that is not retired), kept by the editor's services for lists and for rows made
    outside the editor.  ``active`` is False for a retired variant: no new table is
    offered it, running and finished games keep their version.
    """

    game = models.CharField(_("game"), max_length=32, choices=GAME_CHOICES)
    name = models.SlugField(_("name"), max_length=64)
    data = models.JSONField(_("data"))
    active = models.BooleanField(_("active"), default=True)
    is_default = models.BooleanField(
        _("shipped default"), default=False, help_text=_("Loaded from the engine's defaults.")
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "name"]
        constraints = [
            models.UniqueConstraint(fields=["game", "name"], name="unique_variant_name_per_game")
        ]
        verbose_name = _("variant")
        verbose_name_plural = _("variants")

    def __str__(self) -> str:
        return f"{self.game}/{self.name}"


class ImmutableVersion(Exception):
    """A published variant version was about to change: published versions never do."""


class VariantVersion(models.Model):
    """One version of a variant's data: a mutable draft, or an immutable published version.

    Published versions are numbered 1, 2, 3... per variant and never change (only their
    retirement may be set or cleared); a variant has at most one draft, which becomes
    the next published version.  Games pin the version they were created with.
    """

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        PUBLISHED = "published", _("published")

    class Origin(models.TextChoices):
        SHIPPED = "shipped", _("shipped default")
        EDITOR = "editor", _("rules editor")
        IMPORT = "import", _("import")
        CLONE = "clone", _("clone")
        API = "api", _("API")
        SCRIPT = "script", _("script")

    variant = models.ForeignKey(Variant, on_delete=models.CASCADE, related_name="versions")
    #: 1, 2, 3... once published; ``None`` for the draft.
    number = models.PositiveIntegerField(_("version"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.DRAFT
    )
    data = models.JSONField(_("data"))
    origin = models.CharField(
        _("origin"), max_length=16, choices=Origin.choices, default=Origin.EDITOR
    )
    #: For shipped versions: the digest of the engine default they were loaded from.
    shipped_digest = models.CharField(max_length=64, blank=True, default="")
    #: The version a draft was started from (its diff base).
    based_on = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    note = models.TextField(_("note"), blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )
    published_at = models.DateTimeField(null=True, blank=True)
    retired_at = models.DateTimeField(null=True, blank=True)

    #: The only fields of a published version that may still change.
    MUTABLE_WHEN_PUBLISHED = frozenset({"retired_at"})

    class Meta:
        ordering = ["variant", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["variant", "number"], name="unique_version_number_per_variant"
            ),
            models.UniqueConstraint(
                fields=["variant"],
                condition=models.Q(status="draft"),
                name="one_draft_per_variant",
            ),
            models.CheckConstraint(
                condition=(models.Q(status="draft", number__isnull=True)
                           | models.Q(status="published", number__isnull=False)),
                name="numbered_iff_published",
            ),
        ]
        verbose_name = _("variant version")
        verbose_name_plural = _("variant versions")

    def __str__(self) -> str:
        label = f"v{self.number}" if self.number else "draft"
        return f"{self.variant_id}:{label}"

    def save(self, *args, **kwargs) -> None:
        """Refuse any change to a published version other than its retirement."""
        if getattr(self, "_stored_status", None) == self.Status.PUBLISHED:
            fields = kwargs.get("update_fields")
            if fields is None or not set(fields) <= self.MUTABLE_WHEN_PUBLISHED:
                raise ImmutableVersion(f"published version {self} cannot change")
        super().save(*args, **kwargs)
        self._stored_status = self.status

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        instance._stored_status = instance.status
        return instance

    @property
    def is_draft(self) -> bool:
        return self.status == self.Status.DRAFT

    @property
    def label(self) -> str:
        """``v3`` or ``draft``."""
        return f"v{self.number}" if self.number else str(_("draft"))


class JobStatus(models.TextChoices):
    """Where a background job (a simulation, an analysis) stands."""

    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    DONE = "done", _("done")
    FAILED = "failed", _("failed")


class Job(models.Model):
    """What every background job model (a simulation, an analysis) shares: where it
    stands, its error and its timestamps.  Who asked for it stays on each model
    (``created_by``, ``requested_by``: one name would need a migration)."""

    Status = JobStatus

    status = models.CharField(
        _("status"), max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED,
        db_index=True,
    )
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True

    @property
    def finished(self) -> bool:
        """Done or failed: nothing more will happen without a new start."""
        return self.status in (JobStatus.DONE, JobStatus.FAILED)


class Simulation(Job):
    """A self-play check of one version's data (``games.engines.simulate``), run on Celery.

    ``data`` is the data simulated (a draft may change while it runs: ``digest`` tells
    which state of the draft a report belongs to).  The task plays the games in short
    chunks so AI turns queued on the same worker are not held up; ``partial`` keeps the
    merged reports so far, ``report`` the final one.
    """

    version = models.ForeignKey(
        VariantVersion, on_delete=models.CASCADE, related_name="simulations"
    )
    digest = models.CharField(max_length=64)
    data = models.JSONField()
    games = models.PositiveIntegerField(_("games"))
    players = models.JSONField(_("player counts"))
    bots = models.JSONField(_("bots"))
    seed = models.BigIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    #: Chunks run so far: the compare-and-set counter that makes a redelivered task a no-op.
    step = models.PositiveIntegerField(default=0)
    partial = models.JSONField(default=dict, blank=True)
    report = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("simulation")
        verbose_name_plural = _("simulations")

    def __str__(self) -> str:
        return f"simulation {self.pk} of {self.version} ({self.status})"

    @property
    def passed(self) -> bool:
        """Done, every game played to its end, no error."""
        return bool(
            self.status == self.Status.DONE
            and self.report
            and not self.report.get("errors")
            and self.report.get("completed") == self.games
        )

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.games) if self.games else 0


class AppendOnly(Exception):
    """A row of the variant change log was about to be changed or deleted."""


class VariantChange(models.Model):
    """Who changed what and when in the rules editor: an append-only log.

    Rows outlive the variant, version and user they name (``SET_NULL`` plus labels).
    """

    class Action(models.TextChoices):
        CREATED = "created", _("created")
        DRAFT_STARTED = "draft_started", _("draft started")
        DRAFT_SAVED = "draft_saved", _("draft saved")
        DRAFT_DISCARDED = "draft_discarded", _("draft discarded")
        SIMULATED = "simulated", _("simulation requested")
        PUBLISHED = "published", _("published")
        RETIRED = "retired", _("variant retired")
        RESTORED = "restored", _("variant restored")
        VERSION_RETIRED = "version_retired", _("version retired")
        VERSION_RESTORED = "version_restored", _("version restored")
        CLONED = "cloned", _("cloned")
        IMPORTED = "imported", _("imported")
        SHIPPED = "shipped", _("shipped default loaded")

    variant = models.ForeignKey(
        Variant, on_delete=models.SET_NULL, null=True, blank=True, related_name="changes"
    )
    variant_label = models.CharField(max_length=100)
    version = models.ForeignKey(
        VariantVersion, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    version_label = models.CharField(max_length=20, blank=True, default="")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )
    username = models.CharField(max_length=150, blank=True, default="")
    action = models.CharField(max_length=20, choices=Action.choices)
    #: ``[{"path", "kind", "old", "new"}]`` field by field (truncated), or other details.
    changes = models.JSONField(default=list, blank=True)
    note = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("variant change")
        verbose_name_plural = _("variant changes")

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.username or '-'} {self.action} " \
               f"{self.variant_label} {self.version_label}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise AppendOnly("the variant change log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnly("the variant change log is append-only")


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
    #: A rated table changes its players' ratings (``accounts.ratings``) when it ends.
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

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        return f"#{self.pk} {self.game_name}/{self.variant_name} ({self.status})"

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
        """True while nobody (person or AI) sits here."""
        return self.user_id is None and not self.ai_level

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


class ChatMessage(models.Model):
    """A line of a table's chat, written by a signed-in player or spectator.

    Removed by staff: the row stays (who removed it and when) and everyone sees that a
    message was removed, never its text.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_messages")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="chat_messages",
    )
    #: The name at the time of writing (the account may be gone later).
    author_name = models.CharField(_("author"), max_length=150)
    text = models.TextField(_("text"))
    created_at = models.DateTimeField(auto_now_add=True)
    removed_at = models.DateTimeField(_("removed at"), null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["game", "id"]
        indexes = [models.Index(fields=["game", "-id"], name="chat_game_newest")]
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")

    def __str__(self) -> str:
        return f"{self.game_id}: {self.author_name}: {self.text[:40]}"

    @property
    def removed(self) -> bool:
        return self.removed_at is not None


class ChatMute(models.Model):
    """``user`` does not see the chat messages of ``muted`` (at every table)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes"
    )
    muted = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="unique_chat_mute"),
        ]
        verbose_name = _("chat mute")
        verbose_name_plural = _("chat mutes")

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"


class Analysis(Job):
    """The post-game analysis of one finished game (``ai.analysis``), run on Celery.

    One per game; a re-run on request starts it over.  The task analyses the moves in
    chunks; ``done`` (decisions stored so far) is the compare-and-set counter that makes a
    redelivered chunk a no-op.  ``moves`` holds one JSON object per move
    (``ai.analysis.Decision.to_json``), ``summary`` the per-seat lines once done.
    """

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    #: ``{"iterations", "samples", "worlds"}``: the ``ai.analysis.Budget`` used.
    budget = models.JSONField(default=dict)
    #: Bumped by every (re)start: a chunk of an earlier run never stores its results.
    run = models.PositiveIntegerField(default=1)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    moves = models.JSONField(default=list, blank=True)
    summary = models.JSONField(null=True, blank=True)
    #: Times a chunk was taken up since the last progress (a chunk that kills its
    #: worker every time ends as ``failed`` instead of looping).
    attempts = models.PositiveSmallIntegerField(default=0)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("analysis")
        verbose_name_plural = _("analyses")

    def __str__(self) -> str:
        return f"analysis of game {self.game_id} ({self.status})"

    @property
    def progress(self) -> float:
        """From 0 to 1."""
        if self.status == self.Status.DONE:
            return 1.0
        return min(1.0, self.done / self.total) if self.total else 0.0
