"""Browser tests: a live ASGI server (uvicorn, WebSockets included) and Debian's Chromium.

The server runs in a subprocess on a free port with the test settings, a temporary SQLite
file, in-memory channel layer and cache (one process), eager Celery (AI moves happen on
commit) and static files served by their finders (no collectstatic).  It never touches
DATABASE_URL or REDIS_URL.  Servers start once per session (per pytest-xdist worker, each
with its own ports and temporary folders) and are shared by the tests; each starts from a
copy of one migrated database, so a server costs one Django start-up before uvicorn's.

Tests that need a game near its end ask ``advance`` to play it there on the server side
(random legal moves through the services, as the live server would make them), then
reload the page and play the last moves in the browser: a short scripted position instead
of a whole game (the whole games run in the long profile only, see tests/conftest.py).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("COLONIA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SHOTS = Path(os.environ.get("COLONIA_SCREENSHOTS", ROOT / "var" / "screenshots"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(tmp: Path) -> dict[str, str]:
    """The environment of a live server with its own database under ``tmp``."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        SQLITE_PATH=str(tmp / "e2e.sqlite3"),
        STATIC_ROOT=str(tmp / "static"),
        COLONIA_VAR_DIR=str(tmp / "var"),
        AXES_FAILURE_LIMIT="50",
        # One session-wide server signs up every test's people from 127.0.0.1: the
        # per-address limits (10 sign-ups, 20 API registrations an hour) would refuse the
        # later tests' sign-ups.
        SIGNUP_RATE_LIMIT="10000",
        THROTTLE_REGISTER="10000/hour",
        # Mails as files the tests read (password reset links, "your turn" notices).
        EMAIL_BACKEND="filebased",
        EMAIL_FILE_PATH=str(tmp / "mail"),
        PYTHONUNBUFFERED="1",
    )
    return env


def _prepare(env: dict[str, str], *, manage: list[str], games: list[str],
             template: Path) -> None:
    """The server's database: a copy of the migrated ``template``, the games' variants loaded."""
    shutil.copyfile(template, env["SQLITE_PATH"])
    subprocess.run([sys.executable, *manage, "load_variants", *games], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)


def _serve(env: dict[str, str], *, app: str, app_dir: str | None = None):
    """Start uvicorn on the prepared database; yield its base URL, stop it after."""
    tmp = Path(env["SQLITE_PATH"]).parent
    port = _free_port()
    log = open(tmp / "uvicorn.log", "a")  # noqa: SIM115 - closed at teardown
    extra = ["--app-dir", app_dir] if app_dir else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", app, *extra, "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning", "--ws", "websockets"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:  # until it answers (a bound on the waiting, not a measure of speed)
        try:
            urllib.request.urlopen(url + "/", timeout=2)
            break
        except Exception:
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                raise RuntimeError((tmp / "uvicorn.log").read_text()) from None
            time.sleep(0.05)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def migrated_db(tmp_path_factory) -> Path:
    """A migrated SQLite database without variants, made once: every server starts from a
    copy of it (migrating takes longer than everything else a server does to start)."""
    env = _env(tmp_path_factory.mktemp("e2e-template"))
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return Path(env["SQLITE_PATH"])


@pytest.fixture(scope="session")
def live_env(tmp_path_factory) -> dict[str, str]:
    """The environment of the live server: ``manage.py`` commands run with it share its
    database (e.g. to create a staff account)."""
    return _env(tmp_path_factory.mktemp("e2e"))


@pytest.fixture(scope="session")
def mail_dir(live_env) -> Path:
    """Where the live server writes its mails (one file per connection)."""
    return Path(live_env["EMAIL_FILE_PATH"])


def read_mails(mail_dir: Path) -> list:
    """The mails the live server wrote so far (``email.message.EmailMessage``), oldest first."""
    import email
    import email.policy

    mails = []
    for path in sorted(mail_dir.glob("*.log")) if mail_dir.exists() else []:
        for chunk in path.read_text().split("\n" + "-" * 79 + "\n"):
            if chunk.strip():
                mails.append(email.message_from_string(chunk.strip(),
                                                       policy=email.policy.default))
    return mails


@pytest.fixture(scope="session")
def mails(mail_dir: Path):
    """``mails()``: the live server's mails so far (see :func:`read_mails`)."""
    return lambda: read_mails(mail_dir)


@pytest.fixture(scope="session")
def live_url(live_env, migrated_db) -> str:
    """Base URL of a uvicorn serving ``config.asgi:application`` (session-wide)."""
    _prepare(live_env, manage=["manage.py"], games=["newhaven", "nouvellefrance"],
             template=migrated_db)
    yield from _serve(live_env, app="config.asgi:application")


@pytest.fixture(scope="session")
def placegame_url(tmp_path_factory, migrated_db) -> str:
    """A server with the test game of tests/placegame/ registered (and nothing else changed)."""
    env = _env(tmp_path_factory.mktemp("e2e-placegame"))
    _prepare(env, manage=["tests/placegame/manage.py"], games=["placegame"],
             template=migrated_db)
    yield from _serve(env, app="placegame.asgi:application", app_dir="tests")


class RestartableServer:
    """A live server of its own (``start()`` -> base URL, ``stop()``) whose SQLite database
    outlives a restart: what is stored must still be there after ``stop(); start()``."""

    def __init__(self, tmp: Path, template: Path) -> None:
        self.env = _env(tmp)
        self.template = template
        self.running = None

    def start(self) -> str:
        if not Path(self.env["SQLITE_PATH"]).exists():  # the first start only
            _prepare(self.env, manage=["manage.py"], games=["newhaven"], template=self.template)
        self.running = _serve(self.env, app="config.asgi:application")
        return next(self.running)

    def stop(self) -> None:
        if self.running is not None:
            next(self.running, None)
            self.running = None


@pytest.fixture
def restartable_server(tmp_path, migrated_db):
    server = RestartableServer(tmp_path, migrated_db)
    yield server
    server.stop()


# Runs in the live server's environment (``manage.py shell``): plays the running game
# GAME_ID on with random legal moves of its human seats (the AI seats answer on commit, as
# on the server: Celery is eager there) until STOP(state, seat) holds for the seat to move,
# a human one; CHOOSE(state, seat, actions, rng) picks each move.  Prints the version.
ADVANCE = """
import random
from games.core.selectors import current_state
from games.core.services import submit_action
from games.models import Game
game = Game.objects.get(pk=GAME_ID)
engine = game.engine
humans = {s.index: s.user for s in game.seats.all() if s.user_id}
rng = random.Random(SEED)
STOP = lambda state, seat: PREDICATE
CHOOSE = lambda state, seat, actions, rng: POLICY
for _step in range(2000):
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING, "the game ended before the position: " + game.status
    state = current_state(game)
    seat = engine.to_move(state)[0]
    assert seat in humans, f"seat {seat} (an AI) is to move: its turn was not played"
    if STOP(state, seat):
        break
    action = CHOOSE(state, seat, engine.legal_actions(state, seat), rng)
    submit_action(game=game, user=humans[seat], seat=seat,
                  action=engine.action_to_json(action), version=game.version,
                  key=f"advance-{game.version}")
else:
    raise AssertionError("the position was not reached")
print("VERSION", game.version)
"""


@pytest.fixture(scope="session")
def advance(live_env):
    """``advance(game_id, predicate, policy="rng.choice(actions)", seed=0) -> version``:
    play the live server's game ``game_id`` on until ``predicate`` (a Python expression of
    ``state`` and ``seat``, the seat to move) holds; see ``ADVANCE``.  The pages of the game
    see none of it (another process): reload them."""

    def run(game_id: int, predicate: str, policy: str = "rng.choice(actions)",
            seed: int = 0) -> int:
        code = (ADVANCE.replace("GAME_ID", str(int(game_id))).replace("SEED", str(int(seed)))
                .replace("PREDICATE", predicate).replace("POLICY", policy))
        out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT,
                             env=live_env, capture_output=True, text=True)
        if out.returncode:
            raise AssertionError(f"advance failed:\n{out.stdout}\n{out.stderr[-3000:]}")
        return int(out.stdout.split("VERSION")[-1].split()[0])

    return run


# Module scope, not session: Playwright's sync API keeps an event loop running in the
# main thread while it is open, which breaks every asyncio test collected after it.
@pytest.fixture(scope="module")
def browser():
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        message = f"no Chromium at {CHROMIUM} (run `make browser`)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs it: a skip there would hide a broken path
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def screenshot():
    """``screenshot(page, name)`` saves a full-page PNG under var/screenshots/."""

    def take(page, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        # A full-page shot resizes the view for a moment; in a phone's emulation the page
        # comes back scrolled elsewhere (a spot measured before it was then off screen),
        # so the shot puts the scroll back where it was: taking it changes nothing.
        where = page.evaluate("() => [window.scrollX, window.scrollY]")
        # caret="initial": hiding the caret injects a style the page's CSP refuses (a
        # violation the tests that count them would see).
        page.screenshot(path=str(path), full_page=True, caret="initial")
        page.evaluate("([x, y]) => window.scrollTo(x, y)", where)
        return path

    return take

