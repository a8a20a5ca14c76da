"""Admin of the games app.  The seed and the state cache are never shown (hidden info)."""

from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from games.chat.services import remove_message
from games.engines import get_engine
from games.models import (
    Analysis,
    ChatMessage,
    Game,
    Move,
    Seat,
    SeatResult,
    Variant,
    VariantChange,
    VariantVersion,
)
from games.variants import services as variants


class VariantAdminForm(forms.ModelForm):
    """Variant data is saved only when the game's engine finds it playable."""

    class Meta:
        model = Variant
        fields = ["game", "name", "data", "active"]

    def clean(self) -> dict:
        cleaned = super().clean()
        game, data = cleaned.get("game"), cleaned.get("data")
        if game and isinstance(data, dict):
            problems = get_engine(game).validate_variant(data)
            if problems:
                raise forms.ValidationError({"data": problems})
        elif game and data is not None:
            raise forms.ValidationError({"data": _("Variant data must be a JSON object.")})
        return cleaned


class VersionInline(admin.TabularInline):
    """Versions are read here; they are edited in the rules editor (/editor/)."""

    model = VariantVersion
    extra = 0
    fields = ["number", "status", "origin", "published_at", "published_by", "retired_at",
              "note"]
    readonly_fields = fields
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    """A new variant made here is published as version 1; later changes go through the
    rules editor, which keeps versions, simulations and the change log."""

    form = VariantAdminForm
    list_display = ["game", "name", "active", "is_default", "updated_at", "editor_link"]
    list_filter = ["game", "active"]
    inlines = [VersionInline]

    @admin.display(description=_("rules editor"))
    def editor_link(self, obj: Variant) -> str:
        return format_html('<a href="{}">{}</a>', reverse("editor:variant", args=[obj.pk]),
                           _("open"))

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        return ["game", "name", "data", "editor_link"] if obj is not None else []

    def save_model(self, request, obj: Variant, form, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)  # the active flag only
            return
        variant = variants.publish_data(
            game=obj.game, name=obj.name, data=obj.data, user=request.user)
        obj.pk = variant.pk
        obj.refresh_from_db()


@admin.register(VariantChange)
class VariantChangeAdmin(admin.ModelAdmin):
    """The rules editor's change log: append-only, read-only here."""

    list_display = ["created_at", "username", "action", "variant_label", "version_label"]
    list_filter = ["action"]
    search_fields = ["variant_label", "username"]
    readonly_fields = ["created_at", "variant", "variant_label", "version", "version_label",
                       "user", "username", "action", "changes", "note"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ["index", "user", "ai_level", "joined_at"]
    readonly_fields = ["index", "joined_at"]
    raw_id_fields = ["user"]


class SeatResultInline(admin.TabularInline):
    """The result record of a finished game: read only (written once, when it ended)."""

    model = SeatResult
    extra = 0
    fields = ["seat", "user", "ai_level", "place", "points", "ended", "left_at", "won",
              "rating_before", "rating_after"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    fields = ["seq", "seat", "event", "description", "created_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["id", "game_name", "variant_name", "status", "num_players", "version",
                    "created_at"]
    list_filter = ["status", "game_name"]
    search_fields = ["id", "seats__user__username"]
    # Hidden information (seed, full state) and the invite token stay out of the admin.
    exclude = ["seed", "state_json", "invite_token"]
    readonly_fields = ["game_name", "variant", "variant_version", "variant_name", "variant_data",
                       "num_players",
                       "version", "to_move", "result", "created_by", "started_at",
                       "finished_at"]
    inlines = [SeatInline, SeatResultInline, MoveInline]


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    """Table chat moderation: staff remove messages (the text is kept, no longer shown)."""

    list_display = ["id", "game", "author_name", "text", "created_at", "removed_at"]
    list_filter = ["removed_at"]
    search_fields = ["author_name", "text", "game__id"]
    readonly_fields = ["game", "author", "author_name", "text", "created_at", "removed_at",
                       "removed_by"]
    actions = ["remove_messages"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description=_("Remove the selected messages from the chat"))
    def remove_messages(self, request, queryset) -> None:
        for message in queryset.filter(removed_at__isnull=True):
            remove_message(message=message, by=request.user)


@admin.register(Analysis)
class AnalysisAdmin(admin.ModelAdmin):
    """Post-game analyses: read here (a failure's message too); started from the replay."""

    list_display = ["game", "status", "done", "total", "attempts", "updated_at"]
    list_filter = ["status"]
    fields = ["game", "status", "run", "budget", "done", "total", "attempts", "error",
              "summary", "requested_by", "created_at", "started_at", "finished_at",
              "updated_at"]
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False
