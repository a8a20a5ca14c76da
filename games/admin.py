from django.contrib import admin

from games.models import Variant


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ["game", "name", "active", "is_default", "updated_at"]
    list_filter = ["game", "active"]
