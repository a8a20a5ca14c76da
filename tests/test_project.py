"""Project-level checks: purity of the engines and the AI, deploy settings, the launcher."""

from __future__ import annotations

import ast
import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from config.cache import SharedRedisCache
from config.settings import base
from config.settings.base import database_from_url

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("django", "channels", "celery", "rest_framework", "kombu", "redis", "accounts",
             "config")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("package", ["games/engines", "ai"])
def test_pure_packages_import_no_framework(package):
    offenders = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for module in _imports(path):
            top = module.split(".")[0]
            is_django_app = module.startswith("games.") and not module.startswith("games.engines")
            if top in FORBIDDEN or is_django_app:
                offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert offenders == []


def test_import_contract_detects_a_violation(tmp_path):
    """The AST check above is not vacuous: it flags a planted framework import."""
    planted = tmp_path / "bad.py"
    planted.write_text("from django.db import models\nimport games.models\n")
    assert {"django.db", "games.models"} <= _imports(planted)


def test_deploy_checks_pass_under_production_settings():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "x7" * 30 + "-not-a-real-secret-but-long-and-varied-Qz9",
        "DJANGO_ALLOWED_HOSTS": "colonia.example",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_refuse_a_missing_secret_key():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production"}
    env.pop("DJANGO_SECRET_KEY", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Console:
    """The launcher's output, read line by line in a thread (so a test can wait for a line)."""

    def __init__(self, process: subprocess.Popen) -> None:
        import threading

        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self.thread.start()

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, needle: str, timeout: float = 120.0, start: int = 0) -> str:
        """The first line from ``start`` on containing ``needle`` (bounds the wait only)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines[start:]:
                if needle in line:
                    return line
            time.sleep(0.2)
        raise AssertionError(f"no line with {needle!r} in {timeout} s:\n"
                             + "\n".join(self.lines[-40:]))

    def text(self) -> str:
        return "\n".join(self.lines)


def _group_members(pgid: int) -> list[int]:
    """Live processes of process group ``pgid`` (Linux /proc)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def _pid(line: str) -> int:
    return int(line.rsplit("(pid ", 1)[1].rstrip(")"))


@pytest.mark.slow
def test_launcher_supervises_and_stops_in_order(tmp_path):
    """``make run``'s launcher on the embedded default: SQLite + embedded Redis + web + worker.

    It serves the home page (DEBUG off), restarts a SIGKILLed worker and a SIGKILLed
    embedded Redis with a console line each, and stops web, worker, Redis in that order.
    """
    env = {
        key: value for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG"}
    }
    env["COLONIA_VAR_DIR"] = str(tmp_path)
    env["STATIC_ROOT"] = str(tmp_path / "static")
    manage = [sys.executable, "manage.py"]
    for command in (["migrate", "--noinput"], ["load_variants"]):
        subprocess.run(manage + command, cwd=ROOT, env=env, check=True, capture_output=True,
                       timeout=300)
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "config.run", "--port", str(port)], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    console = Console(process)
    try:
        console.wait_for(f"http://127.0.0.1:{port}/")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
            body = response.read().decode()
        assert "newhaven" in body.lower() and "nouvellefrance" in body.lower()
        assert 'data-variant="standard"' in body
        try:  # DEBUG is off: a real 404 page, no debug page
            urllib.request.urlopen(f"http://127.0.0.1:{port}/no/such/page/", timeout=30)
        except urllib.error.HTTPError as error:
            assert error.code == 404 and b'id="error-page"' in error.read()
        # Clients never talk over the socket: a big message closes it (1009), it is not
        # buffered (uvicorn's default took 16 MiB).
        assert asyncio.run(_oversized_socket_message(port)) == 1009
        # The worker yields the cores to the web processes (batch AI turns, --worker-nice).
        worker = _pid(console.wait_for("started the worker"))
        assert os.getpriority(os.PRIO_PROCESS, worker) == min(19, os.nice(0) + 10)
        # A worker killed mid-flight is restarted ...
        mark = len(console.lines)
        os.kill(worker, signal.SIGKILL)
        console.wait_for("the worker exited with", start=mark)
        assert _pid(console.wait_for("started the worker", start=mark)) != worker
        # ... and its pool processes died with it (orphans kept a task and spun).
        deadline = time.monotonic() + 30
        while _group_members(worker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _group_members(worker) == []
        # ... and so is the embedded Redis, on the same address.
        redis = _pid(console.wait_for("embedded Redis-compatible server"))
        mark = len(console.lines)
        os.kill(redis, signal.SIGKILL)
        console.wait_for("the embedded Redis exited with", start=mark)
        back = console.wait_for("the embedded Redis is back", start=mark)
        assert _pid(back) != redis
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=90)
        console.thread.join(timeout=10)
    output = console.text()
    assert process.returncode == 0, output
    order = [output.index(f"[colonia] {name} stopped")
             for name in ("web", "worker", "embedded Redis")]
    assert order == sorted(order), output
    assert "[colonia] stopped" in output


async def _oversized_socket_message(port: int) -> int | None:
    """The close code the lobby's socket answers a 64 KiB message with."""
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/lobby/",
                                  origin=f"http://127.0.0.1:{port}") as socket:
        await socket.send("x" * 65536)
        try:
            while True:
                await asyncio.wait_for(socket.recv(), 10)
        except websockets.ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None


def test_redis_cache_objects_share_one_client_per_configuration():
    """Each request (an async context) gets its own cache object; they must not each
    open a Redis connection (``config.cache``)."""
    options = {"OPTIONS": {"socket_timeout": 1}}
    first = SharedRedisCache("redis://127.0.0.1:1/3", options)
    second = SharedRedisCache("redis://127.0.0.1:1/3", options)
    other = SharedRedisCache("redis://127.0.0.1:1/4", options)
    assert first is not second and first._cache is second._cache
    assert first._cache._get_connection_pool(True) is second._cache._get_connection_pool(True)
    assert other._cache is not first._cache
    assert base.CACHES["default"]["BACKEND"] == "config.cache.SharedRedisCache"


def test_postgresql_connections_come_from_a_pool(monkeypatch):
    """Every ASGI request runs in its own thread: without a pool each one connected anew."""
    database = database_from_url("postgres://u@127.0.0.1:5432/colonia")
    assert database["OPTIONS"]["pool"]["max_size"] >= 1 and database["CONN_MAX_AGE"] == 0
    other = database_from_url("sqlite:////tmp/colonia.sqlite3")
    assert "pool" not in other.get("OPTIONS", {}) and other["CONN_MAX_AGE"] == 60
    monkeypatch.setenv("DB_POOL", "off")
    unpooled = database_from_url("postgres://u@127.0.0.1:5432/colonia")
    assert "pool" not in unpooled.get("OPTIONS", {}) and unpooled["CONN_MAX_AGE"] == 60


# -- parallel test processes on one Redis (make test runs one pytest-xdist worker per core) --


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (CI sets it)")
def test_a_test_cache_clears_only_its_own_keys():
    """One worker's ``cache.clear()`` leaves the other workers' keys (the stock clear of
    Django's Redis cache is a FLUSHDB of the shared database)."""
    from django.conf import settings

    from config.cache import NamespacedRedisCache

    location = settings.CACHES["default"]["LOCATION"]
    mine = NamespacedRedisCache(location, {"KEY_PREFIX": f"{settings.TEST_NAMESPACE}-a"})
    theirs = NamespacedRedisCache(location, {"KEY_PREFIX": f"{settings.TEST_NAMESPACE}-b"})
    mine.set("k", 1)
    theirs.set("k", 2)
    theirs.set("k", 3, version=2)
    mine.clear()
    assert mine.get("k") is None
    assert (theirs.get("k"), theirs.get("k", version=2)) == (2, 3)
    theirs.clear()
    assert theirs.get("k") is None and theirs.get("k", version=2) is None
    with pytest.raises(ValueError, match="KEY_PREFIX"):
        NamespacedRedisCache(location, {}).clear()


def test_each_test_process_has_its_own_redis_namespace():
    """Cache prefix, channel-layer prefix and Celery's broker keys carry the process id (two
    workers both have a game 1: a hint or a stored render of one must not reach the other)."""
    from config.settings import test

    assert str(os.getpid()) in test.TEST_NAMESPACE
    if not os.environ.get("REDIS_URL"):
        pytest.skip("in-memory layers: nothing shared between processes")
    assert test.CACHES["default"]["KEY_PREFIX"] == test.TEST_NAMESPACE
    assert test.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] == test.TEST_NAMESPACE
    assert test.CELERY_BROKER_TRANSPORT_OPTIONS["global_keyprefix"].startswith(
        test.TEST_NAMESPACE)


@pytest.mark.asyncio
async def test_shared_renders_are_keyed_under_the_cache_prefix(monkeypatch):
    """Renders shared through Redis live under the cache's key prefix ("colonia" in
    production, the process's namespace in tests)."""
    from django.conf import settings

    from games.live.fragment_cache import shared

    names: list[str] = []

    class Pipeline:
        async def __aenter__(self):
            return self

        async def __aexit__(self, *exc):
            return False

        def set(self, name, *args, **kwargs):
            names.append(name)
            return self

        def get(self, name):
            return self

        async def execute(self):
            return [True, None]

    class Client:
        def pipeline(self, transaction=False):
            return Pipeline()

        async def set(self, name, *args, **kwargs):
            names.append(name)

    async def render():
        return "<p>board</p>"

    monkeypatch.setattr(shared, "_client", lambda: Client())
    assert await shared.get(("game", 1, 2), render) == "<p>board</p>"
    prefix = settings.CACHES["default"].get("KEY_PREFIX") or "colonia"
    assert names and all(n.startswith(f"{prefix}:fragments:") for n in names), names
