"""Admin of the games app.  The seed and the state cache are never shown (hidden info)."""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from games.engines import get_engine
from games.models import Game, Move, Seat, Variant


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


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    form = VariantAdminForm
    list_display = ["game", "name", "active", "is_default", "updated_at"]
    list_filter = ["game", "active"]


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ["index", "user", "ai_level", "joined_at"]
    readonly_fields = ["index", "joined_at"]
    raw_id_fields = ["user"]


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
    readonly_fields = ["game_name", "variant", "variant_name", "variant_data", "num_players",
                       "version", "to_move", "result", "created_by", "started_at",
                       "finished_at"]
    inlines = [SeatInline, MoveInline]
