"""The games app: the features' listeners and tasks are connected when Django is ready."""

from __future__ import annotations

from importlib import import_module

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

#: The modules that connect listeners (``receivers``) or define Celery tasks (``tasks``),
#: imported once Django is ready: the features react to the core's announcements
#: (``games.core.signals``) and the worker knows every task.  The order is the order in
#: which the reactions to a committed change run.
READY_MODULES = (
    "games.live.receivers",      # sockets of a session that ended
    "games.play.receivers",      # the game's sockets
    "games.tables.receivers",    # the clocks, the lobby
    "games.ratings.receivers",   # a finished game's result and ratings
    "games.ai_turns.receivers",  # the AI's turn
    "games.turns.receivers",     # the nav's counts, the turn mails
    "games.analysis.receivers",  # the replay page's analysis panel
    "games.editor.tasks",
    "games.analysis.tasks",
    "games.practice.tasks",
    "games.periodic",
)


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        for module in READY_MODULES:
            import_module(module)
