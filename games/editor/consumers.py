"""The editor's socket: live progress of a variant's simulations (staff only).

The channel layer carries ``{"type": "simulation.progress", simulation, done, total,
status}``; the bar is drawn from those numbers alone (no database read), so progress
arrives even while the worker -- or, with eager Celery, the request -- is busy.  When a
simulation ends, the fragment asks the page to fetch the report over HTTP.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from games.editor.broadcast import variant_group
from games.live.consumers import scope_language
from games.models import Variant

FINISHED = ("done", "failed")


class EditorConsumer(AsyncWebsocketConsumer):
    """``/ws/editor/variants/<id>/``: pushes the simulation progress bar."""

    group = ""

    async def connect(self) -> None:
        self.variant_id = int(self.scope["url_route"]["kwargs"]["variant_id"])
        if not await database_sync_to_async(self._allowed)():
            await self.close(code=4403)
            return
        self.language = scope_language(self.scope)
        self.group = variant_group(self.variant_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    def _allowed(self) -> bool:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or not user.is_staff:
            return False
        return Variant.objects.filter(pk=self.variant_id).exists()

    async def disconnect(self, code) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Clients do not talk over this socket."""

    async def simulation_progress(self, event: dict) -> None:
        status = str(event.get("status", ""))
        template = ("editor/partials/compare_progress.html"
                    if event.get("role") == "published" else "editor/partials/sim_progress.html")
        with translation.override(self.language):
            html = render_to_string(template, {
                "status": status,
                "done": int(event.get("done", 0)),
                "total": int(event.get("total", 0)),
                "finished": status in FINISHED,
                "reload_url": reverse("editor:sim_status", args=[self.variant_id]),
            })
        await self.send(text_data=html)
