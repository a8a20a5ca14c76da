"""The editor's socket: staff see a simulation's progress bar move."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from games.editor import broadcast
from games.models import Variant
from games.routing import websocket_urlpatterns
from games.variants import services as variants

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

TIMEOUT = 5


@pytest.fixture(autouse=True)
def short_lived_connections(monkeypatch):
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


@database_sync_to_async
def setup(staff: bool):
    variants.load_default_variants(games=["newhaven"])
    user = get_user_model().objects.create_user(username="u", password="x-unused-Pw9",
                                                is_staff=staff)
    return Variant.objects.get(game="newhaven", name="standard"), user


def communicator(variant_id: int, user) -> WebsocketCommunicator:
    app = URLRouter(websocket_urlpatterns)
    comm = WebsocketCommunicator(app, f"/ws/editor/variants/{variant_id}/")
    comm.scope["user"] = user
    return comm


async def test_progress_reaches_staff_as_a_progress_bar():
    variant, user = await setup(staff=True)
    comm = communicator(variant.pk, user)
    connected, _code = await comm.connect()
    assert connected
    await database_sync_to_async(broadcast.simulation_progress)(variant.pk, 7, 30, 120,
                                                                "running")
    html = await comm.receive_from(timeout=TIMEOUT)
    assert 'id="sim-progress"' in html and 'max="120" value="30"' in html
    assert "hx-get" not in html  # still running: nothing to fetch yet
    await database_sync_to_async(broadcast.simulation_progress)(variant.pk, 7, 120, 120,
                                                                "done")
    done = await comm.receive_from(timeout=TIMEOUT)
    assert 'data-status="done"' in done and 'hx-trigger="load"' in done
    await database_sync_to_async(broadcast.simulation_progress)(
        variant.pk, 8, 3, 120, "running", role="published")
    compare = await comm.receive_from(timeout=TIMEOUT)
    assert 'id="compare-progress"' in compare and "3 of 120" in compare
    await comm.disconnect()


async def test_non_staff_are_turned_away():
    variant, user = await setup(staff=False)
    comm = communicator(variant.pk, user)
    connected, code = await comm.connect()
    assert not connected and code == 4403
