from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # Celery's autodiscovery finds games.tasks; the editor's task lives in a subpackage.
        # The post-game analysis fills the replay page's analysis slot.
        from games.analysis_views import replay_panel
        from games.editor import tasks  # noqa: F401
        from games.replay_page import register_replay_panel

        register_replay_panel(replay_panel)
