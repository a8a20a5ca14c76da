"""The multi-process stack of ``deploy/`` under test: one stack for the whole folder.

``deploy/stack.py start`` runs nginx (TLS) in front of two uvicorn processes, a Celery
worker and one beat on the machine's PostgreSQL (a database of the tests' own,
``colonia_deploy_test``) and Redis (database 3, a channel prefix of its own), in a run
folder under pytest's temporary directory, on free loopback ports.  The tests skip, saying
why, where nginx cannot be installed; PostgreSQL and Redis are the machine's (CI starts
them): without them the tests skip too, except on CI, where that is a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from deploy_support import (
    BODY_TIMEOUT,
    DATABASE_URL,
    REDIS_URL,
    Stack,
    _free_port,
    _unavailable,
    e2e_module,
)


@pytest.fixture(scope="package")
def stack(tmp_path_factory) -> Stack:
    """One stack for every test of tests/deploy, stopped (and checked) after the last."""
    if not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        pytest.skip("nginx is not installed and could not be (Debian's nginx package: "
                    "`make nginx` installs it when run as root)")
    try:
        import psycopg

        admin = DATABASE_URL.rsplit("/", 1)[0] + "/postgres"
        psycopg.connect(admin, connect_timeout=3).close()
    except Exception as exc:
        _unavailable(f"no PostgreSQL for the deploy stack at {DATABASE_URL} ({exc})")
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except Exception as exc:
        _unavailable(f"no Redis for the deploy stack at {REDIS_URL} ({exc})")
    run_dir = tmp_path_factory.mktemp("deploy") / "run"
    env = {**os.environ, "REQUEST_BODY_TIMEOUT": str(BODY_TIMEOUT),
           # The tests sign many people up and play fast from one address.
           "SIGNUP_RATE_LIMIT": "10000", "THROTTLE_REGISTER": "10000/hour",
           "THROTTLE_MOVES": "100000/minute", "MOVE_RATE_LIMIT_PER_MINUTE": "100000",
           "AXES_FAILURE_LIMIT": "50", "PYTHONUNBUFFERED": "1"}
    running = Stack(run_dir, _free_port(), env)
    started = running.script("start", "--port", str(running.port), "--web", "2",
                             "--database-url", DATABASE_URL, "--redis-url", REDIS_URL,
                             timeout=600)
    if started.returncode != 0:
        running.script("stop")
        raise AssertionError(f"deploy/stack.py start failed:\n{started.stdout}\n{started.stderr}")
    try:
        yield running
    finally:
        pids = [entry["pid"] for entry in running.status().get("children", {}).values()]
        stopped = running.script("stop")
        after = running.script("status")
        assert stopped.returncode == 0 and "stopped" in stopped.stdout, stopped
        assert after.returncode == 3, after.stdout  # "not running"
        assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()], "pieces left over"


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, as tests/e2e drives it (module scope, see tests/e2e/conftest)."""
    e2e = e2e_module("conftest")
    if not shutil.which(e2e.CHROMIUM) and not Path(e2e.CHROMIUM).exists():
        message = f"no Chromium at {e2e.CHROMIUM} (run `make browser`)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=e2e.CHROMIUM, args=e2e.CHROMIUM_ARGS,
                               headless=True)
        yield b
        b.close()
