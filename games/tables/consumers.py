"""The lobby's socket: the open tables (and the viewer's games) pushed on every change."""

from __future__ import annotations

from django.utils import translation

from games.live.broadcast import LOBBY_GROUP
from games.live.consumers import ViewerConsumer, scope_csrf_token, scope_language
from games.tables.page import render_open_tables


class LobbyConsumer(ViewerConsumer):
    """``/ws/lobby/``: pushes the open-tables (and my-games) fragment on every change."""

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.language = scope_language(self.scope)
        self.csrf = scope_csrf_token(self.scope)
        if await self.join_group(LOBBY_GROUP, *self.own_groups()):
            await self.send_viewer_fragment()

    def _render(self) -> str:
        with translation.override(self.language):
            return render_open_tables(self.user, csrf_token=self.csrf)

    async def lobby_updated(self, event: dict) -> None:
        await self.push(self._render)
