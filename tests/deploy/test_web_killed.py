"""A web process killed under load costs its sockets a reconnect, and nothing else.

Tables against the AI are played through nginx (people's moves on the API, the AI on the
worker) while spectator sockets, spread by nginx over both web processes, watch them.  One
web process is SIGKILLed mid-play; the stack restarts it.  Then:

* no move is lost: every move a person posted was answered 200 (one caught by the dying
  process is sent again by nginx to the other, and its idempotency key answers it as it
  was), and the game's log holds them all;
* every socket saw every version, or its page refetched one at least as new (as the
  browser does when it reconnects or sees a gap), and ends at the game's last version;
* only the sockets of the killed process were closed: the others never noticed.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import time
import uuid

import pytest
from deploy_support import Stack

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

TABLES, SOCKETS_PER_TABLE = 6, 4
BEFORE_KILL, AFTER_KILL = 5.0, 8.0  # seconds of play around the kill
VERSION_RE = re.compile(r'data-version="(\d+)"')
SINCE_RE = re.compile(r'data-since="(\d+)"')


class Viewer:
    """A page watching a game: what it showed, and how (push or refetch)."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.shown = -1
        self.pushed: set[int] = set()
        self.refetched: list[int] = []
        self.closes = 0
        self.opened = asyncio.Event()

    def refetch(self, version: int) -> None:
        self.refetched.append(version)
        self.shown = max(self.shown, version)

    def push(self, message: str) -> bool:
        """Take a message as colonia.js does; True when the page must refetch (a gap)."""
        versions = [int(v) for v in VERSION_RE.findall(message)]
        if not versions:
            return False
        incoming = max(versions)
        since = SINCE_RE.search(message)
        follows = (int(since.group(1)) <= self.shown if since
                   else incoming == self.shown + 1)
        if incoming <= self.shown:
            return False
        if not follows:
            return True
        # A message whose log follows what the page shows brings every move since.
        self.pushed.update(range(self.shown + 1, incoming + 1))
        self.shown = incoming
        return False


async def watch(stack: Stack, viewer: Viewer, stop: asyncio.Event) -> None:
    from websockets.asyncio.client import connect

    async def current() -> int:
        status, doc = await asyncio.to_thread(stack.call, "GET", f"/api/games/{viewer.game_id}/")
        assert status == 200, doc
        return doc["version"]

    delay = 0.3
    while not stop.is_set():
        try:
            async with connect(f"{stack.ws_base}/ws/games/{viewer.game_id}/", origin=stack.base,
                               ssl=stack.ssl, open_timeout=30) as sock:
                viewer.refetch(await current())  # a page (re)opening its socket refetches
                viewer.opened.set()
                delay = 0.3
                while not stop.is_set():
                    try:
                        message = await asyncio.wait_for(sock.recv(), 0.5)
                    except TimeoutError:
                        continue
                    if viewer.push(message if isinstance(message, str) else message.decode()):
                        viewer.refetch(await current())
        except Exception:  # closed under us (the killed process), refused, reset
            if stop.is_set():
                return
            viewer.closes += 1
        await asyncio.sleep(delay)
        delay = min(delay * 2, 3.0)


def play(stack: Stack, token: str, game_id: int, until: float, statuses: list[int],
         rng: random.Random) -> None:
    """Seat 0: random legal actions with short pauses until ``until``; the statuses."""
    while time.monotonic() < until:
        status, doc = stack.call("GET", f"/api/games/{game_id}/", token=token)
        assert status == 200, doc
        if doc["status"] != "running":
            return
        if not doc["legal_actions"]:
            time.sleep(0.2)  # the AI's turn
            continue
        time.sleep(rng.uniform(0.05, 0.4))
        status, _answer = stack.call("POST", f"/api/games/{game_id}/actions/", {
            "action": rng.choice(doc["legal_actions"]), "version": doc["version"],
            "key": uuid.uuid4().hex}, token)
        statuses.append(status)
        if status != 200:
            return


def test_a_killed_web_process_costs_only_a_reconnect(stack: Stack) -> None:
    token = stack.new_player()
    games = [stack.new_game(token) for _ in range(TABLES)]
    web_pid = stack.status()["children"]["web-1"]["pid"]

    async def scenario() -> tuple[list[Viewer], list[int], dict[int, int]]:
        stop = asyncio.Event()
        viewers = [Viewer(g) for g in games for _ in range(SOCKETS_PER_TABLE)]
        watchers = [asyncio.create_task(watch(stack, v, stop)) for v in viewers]
        await asyncio.wait_for(asyncio.gather(*(v.opened.wait() for v in viewers)), 120)
        statuses: list[int] = []
        until = time.monotonic() + BEFORE_KILL + AFTER_KILL
        players = [asyncio.create_task(asyncio.to_thread(
            play, stack, token, g, until, statuses, random.Random(i)))
            for i, g in enumerate(games)]
        await asyncio.sleep(BEFORE_KILL)
        os.kill(web_pid, signal.SIGKILL)  # mid-play: requests and sockets on it die
        await asyncio.gather(*players)
        # The AI answers the last moves; then every page must show the last version.
        finals = {}
        deadline = time.monotonic() + 120
        for g in games:
            while True:
                _status, doc = await asyncio.to_thread(stack.call, "GET", f"/api/games/{g}/")
                if doc["status"] != "running" or 1 not in doc["to_move"]:  # AI done
                    finals[g] = doc["version"]
                    break
                assert time.monotonic() < deadline, f"the AI never answered in game {g}"
                await asyncio.sleep(0.3)
        deadline = time.monotonic() + 60
        while (time.monotonic() < deadline
               and any(v.shown < finals[v.game_id] for v in viewers)):
            await asyncio.sleep(0.3)
        stop.set()
        await asyncio.gather(*watchers, return_exceptions=True)
        return viewers, statuses, finals

    viewers, statuses, finals = asyncio.run(scenario())
    restarted = stack.status()["children"]["web-1"]
    assert restarted["pid"] != web_pid and restarted["alive"]  # the stack brought it back
    assert "web-1 exited with" in stack.log("stack.log")
    # No move lost: every posted move was answered as made.
    assert statuses and set(statuses) == {200}, statuses
    for g in games:
        status, log = stack.call("GET", f"/api/games/{g}/moves/")
        assert status == 200 and [m["seq"] for m in log] == list(range(1, finals[g] + 1))
    # Every socket: every version pushed, or refetched at least as new; the last one shown.
    for v in viewers:
        start = v.refetched[0]
        missed = [n for n in range(start + 1, finals[v.game_id] + 1)
                  if n not in v.pushed and not any(r >= n for r in v.refetched[1:])]
        assert not missed, (v.game_id, missed, sorted(v.pushed), v.refetched)
        assert v.shown == finals[v.game_id], (v.game_id, v.shown, finals[v.game_id])
    # Only the killed process's sockets were closed (each reconnected once it could).
    closed = [v for v in viewers if v.closes]
    assert 0 < len(closed) < len(viewers), [v.closes for v in viewers]
    assert all(len(v.refetched) >= 2 for v in closed)
