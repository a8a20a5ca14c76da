"""Admin of the accounts app: ratings and their history, read-only (the services write them)."""

from django.contrib import admin

from accounts.models import Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["user", "game", "rating", "mu", "sigma", "updated_at"]
    list_filter = ["game"]
    search_fields = ["user__username"]
    readonly_fields = ["user", "game", "mu", "sigma", "rating", "updated_at"]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ["user", "game", "game_name", "rank", "rating_before", "rating_after",
                    "created_at"]
    list_filter = ["game_name"]
    search_fields = ["user__username"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
