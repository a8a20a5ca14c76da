"""Browser tests: a live ASGI server (uvicorn, WebSockets included) and Debian's Chromium.

The server runs in a subprocess on a free port with the test settings, a temporary SQLite
file, in-memory channel layer and cache (one process), eager Celery (AI moves happen on
commit) and collected static files.  It never touches DATABASE_URL or REDIS_URL.
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


def _serve(env: dict[str, str], *, app: str, manage: list[str], games: list[str],
           app_dir: str | None = None):
    """Migrate, load variants, collect static files, start uvicorn; yield its base URL."""
    tmp = Path(env["SQLITE_PATH"]).parent
    py = sys.executable
    for cmd in (["migrate", "--noinput"], ["load_variants", *games],
                ["collectstatic", "--noinput", "-v0"]):
        subprocess.run([py, *manage, *cmd], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    port = _free_port()
    log = open(tmp / "uvicorn.log", "w")  # noqa: SIM115 - closed at teardown
    extra = ["--app-dir", app_dir] if app_dir else []
    proc = subprocess.Popen(
        [py, "-m", "uvicorn", app, *extra, "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning", "--ws", "websockets"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/", timeout=2)
            break
        except Exception:
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                raise RuntimeError((tmp / "uvicorn.log").read_text()) from None
            time.sleep(0.2)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


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
def live_url(live_env) -> str:
    """Base URL of a uvicorn serving ``config.asgi:application`` (session-wide)."""
    yield from _serve(live_env, app="config.asgi:application", manage=["manage.py"],
                      games=["newhaven", "nouvellefrance"])


@pytest.fixture(scope="session")
def placegame_url(tmp_path_factory) -> str:
    """A server with the test game of tests/placegame/ registered (and nothing else changed)."""
    yield from _serve(_env(tmp_path_factory.mktemp("e2e-placegame")),
                      app="placegame.asgi:application", app_dir="tests",
                      manage=["tests/placegame/manage.py"], games=["placegame"])


class RestartableServer:
    """A live server of its own (``start()`` -> base URL, ``stop()``) whose SQLite database
    outlives a restart: what is stored must still be there after ``stop(); start()``."""

    def __init__(self, tmp: Path) -> None:
        self.env = _env(tmp)
        self.running = None

    def start(self) -> str:
        self.running = _serve(self.env, app="config.asgi:application", manage=["manage.py"],
                              games=["newhaven"])
        return next(self.running)

    def stop(self) -> None:
        if self.running is not None:
            next(self.running, None)
            self.running = None


@pytest.fixture
def restartable_server(tmp_path):
    server = RestartableServer(tmp_path)
    yield server
    server.stop()


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
