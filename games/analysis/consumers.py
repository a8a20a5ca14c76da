"""The analysis socket: the progress bar of a finished game's analysis."""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from games.live.broadcast import analysis_group
from games.live.consumers import ViewerConsumer, scope_language
from games.live.socket_health import CLOSE_NOT_FINISHED, CLOSE_NOT_FOUND
from games.models import Game


class AnalysisConsumer(ViewerConsumer):
    """``/ws/games/<id>/analysis/``: the progress bar of a finished game's analysis.

    Only finished games have analyses (a running game's would leak what each seat
    knows): another game is refused with 4409, an unknown one with 4404.  The channel
    layer carries ``{"type": "analysis.progress", game_id, done, total, status}``; the
    bar is drawn from those numbers alone (no database read), and once the analysis ends
    the fragment asks the page to refetch the panel over HTTP.
    """

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        status = await database_sync_to_async(self._status)()
        if status is None:
            await self.reject(CLOSE_NOT_FOUND)
            return
        if status != "finished":
            await self.reject(CLOSE_NOT_FINISHED)
            return
        self.language = scope_language(self.scope)
        await self.join_group(analysis_group(self.game_id))

    def _status(self) -> str | None:
        return Game.objects.filter(pk=self.game_id).values_list("status", flat=True).first()

    async def analysis_progress(self, event: dict) -> None:
        status = str(event.get("status", ""))
        with translation.override(self.language):
            html = render_to_string("games/partials/analysis_panel.html#progress", {"p": {
                "oob": True,
                "status": status,
                "done": int(event.get("done", 0)),
                "total": int(event.get("total", 0)),
                "panel_url": reverse("analysis_panel", args=[self.game_id]),
            }})
        await self.send(text_data=html)
