from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # Celery's autodiscovery finds games.tasks; the editor's task lives in a subpackage.
        from games.editor import tasks  # noqa: F401
