"""Variants, their versions (drafts and published, immutable ones) and the editor's change log."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.data_texts import variant_title
from games.engines import engine_names

GAME_CHOICES = [(name, name) for name in engine_names()]



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

    @property
    def title(self) -> str:
        """The display name (translated when shipped); ``name`` is the slug of addresses."""
        return variant_title(self.data, self.name, self.game)



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
