"""Colonia as it runs on several machines, on one: ``python deploy/stack.py start|stop|status``.

    .venv/bin/python deploy/stack.py start            # https://127.0.0.1:8443/
    .venv/bin/python deploy/stack.py status [--json]
    .venv/bin/python deploy/stack.py stop

What starts, each piece standing for a machine or a service of its own:

* nginx (Debian's package) on ``--host``:``--port`` with TLS (a self-signed certificate
  made for 127.0.0.1 and localhost), serving the static files itself and passing HTTP and
  WebSockets to the web processes; its config is written from ``deploy/nginx.conf.template``;
* ``--web`` uvicorn processes (2), one per loopback port, behind nginx's upstream;
* one Celery worker (``--concurrency``, below the web processes in CPU priority) and
  exactly one Celery beat (the sweeps);
* the machine's PostgreSQL and Redis (``--database-url``, ``--redis-url``): the script
  creates its own database (``colonia_deploy``) and uses a Redis database and channel
  prefix of its own, so it never touches the test databases.

The Django processes run ``config.settings.production`` with ``NUM_PROXIES=1`` and a
secret key generated once per run folder; ``start`` refuses to go on unless
``manage.py check --deploy`` is clean.  Everything the script writes (configs, keys,
certificate, logs, static files, pid files) is in the run folder (``--run-dir``, by
default ``$TMPDIR/colonia-deploy-<uid>``), never in the repository.  Any other setting
comes from the caller's environment (e.g. ``THROTTLE_MOVES``, ``REQUEST_BODY_TIMEOUT``).

``start`` returns once everything answers; a supervisor (``stack.py supervise``, in the
background) restarts a piece that dies, as ``config.run`` does, and ``stop`` stops it
and everything in order: nginx (no new requests), the web processes, the worker (it
finishes its turn), the beat.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the repository's packages
    sys.path.insert(0, str(ROOT))

from config import limits  # noqa: E402
from config.run import Child, restart_exited, wait_for_port  # noqa: E402

TEMPLATE = Path(__file__).resolve().parent / "nginx.conf.template"
DEFAULT_RUN_DIR = Path(tempfile.gettempdir()) / f"colonia-deploy-{os.getuid()}"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/colonia_deploy"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/2"
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")
#: Seconds ``start`` waits for everything to answer, ``stop`` for everything to stop.
START_TIMEOUT, STOP_TIMEOUT = 240.0, 90.0
#: Seconds each piece gets to stop cleanly before it is killed.
STOP_TIMEOUTS = {"nginx": 10.0, "worker": 30.0, "beat": 10.0}
#: Environment the stack sets itself: the caller's values of these never leak in.
OWN_VARIABLES = {
    "DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG", "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS", "DJANGO_CSRF_TRUSTED_ORIGINS", "NUM_PROXIES", "SQLITE_PATH",
    "STATIC_ROOT", "COLONIA_VAR_DIR", "CELERY_TASK_ALWAYS_EAGER", "CHANNEL_LAYER_PREFIX",
    "SITE_URL", "EMAIL_BACKEND", "EMAIL_FILE_PATH", "TEST_CACHE_REDIS_URL",
}


class StackError(Exception):
    """Something the person starting the stack must fix; the message says what."""


def say(message: str) -> None:
    print(f"[deploy] {message}", flush=True)


# --- the run folder ---------------------------------------------------------------------------


class RunDir:
    """The paths of one stack's run folder."""

    def __init__(self, path: Path) -> None:
        self.path = path.resolve()
        self.logs = self.path / "logs"
        self.config = self.path / "stack.json"      # written by ``start``
        self.state = self.path / "state.json"       # the supervisor's pids, live
        self.env = self.path / "env.json"           # the Django processes' environment
        self.nginx_conf = self.path / "nginx.conf"
        self.tls = self.path / "tls"
        self.static = self.path / "static"
        self.var = self.path / "var"

    def make(self) -> None:
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        for sub in (self.logs, self.tls, self.static, self.var, self.path / "mail",
                    *(self.path / "nginx" / d for d in ("body", "proxy", "fastcgi", "uwsgi",
                                                        "scgi"))):
            sub.mkdir(parents=True, exist_ok=True)

    def read(self, path: Path) -> dict:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return {}


def write_private(path: Path, text: str) -> None:
    """Write ``text`` readable by its owner only (keys, the environment with the secret)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)


def secret_key(run: RunDir) -> str:
    """The stack's Django secret key: generated once, kept in the run folder."""
    path = run.path / "secret_key"
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_urlsafe(50)
    write_private(path, key + "\n")
    return key


def certificate(run: RunDir) -> None:
    """A self-signed certificate for 127.0.0.1 and localhost (openssl), made once."""
    cert, key = run.tls / "cert.pem", run.tls / "key.pem"
    if cert.exists() and key.exists():
        return
    openssl = shutil.which("openssl")
    if openssl is None:
        raise StackError("openssl not found: install Debian's openssl package")
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "365", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True)
    key.chmod(0o600)


def nginx_binary() -> str:
    """Debian's nginx, or a clear error saying how to get it."""
    for candidate in NGINX_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    raise StackError("nginx not found: install Debian's nginx package (`make nginx` as root, "
                     "or apt-get install nginx)")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_is_free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


# --- PostgreSQL and Redis ---------------------------------------------------------------------


def database_name(url: str) -> str:
    name = urlsplit(url).path.lstrip("/")
    if not name:
        raise StackError(f"the database URL names no database: {url}")
    return name


def ensure_database(url: str, *, fresh: bool) -> None:
    """Create the stack's database when it is missing (``fresh``: drop it first)."""
    import psycopg
    from psycopg import sql

    name = database_name(url)
    if fresh and not name.startswith("colonia_deploy"):
        raise StackError(f"--fresh-database only drops databases named colonia_deploy*, "
                         f"not {name!r}")
    parts = urlsplit(url)
    server = urlunsplit(parts._replace(path="/postgres"))
    try:
        with psycopg.connect(server, autocommit=True, connect_timeout=5) as db:
            if fresh:
                db.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    sql.Identifier(name)))
            exists = db.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                (name,)).fetchone()
            if not exists:
                db.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                say(f"created the database {name}")
    except psycopg.OperationalError as exc:
        raise StackError(f"PostgreSQL at {parts.hostname}:{parts.port or 5432} is not "
                         f"reachable ({str(exc).strip()}): set --database-url") from None


def check_redis(url: str) -> None:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        raise StackError(f"Redis at {url} is not reachable ({exc}): set --redis-url") from None


# --- configs ----------------------------------------------------------------------------------


def render(template: str, values: dict[str, str]) -> str:
    """``@name@`` placeholders filled in; an unknown or missing name is an error."""
    import re

    missing = set(re.findall(r"@([a-z_]+)@", template)) - set(values)
    if missing:
        raise StackError(f"{TEMPLATE.name}: no value for {sorted(missing)}")
    return re.sub(r"@([a-z_]+)@", lambda m: values[m.group(1)], template)


def nginx_config(run: RunDir, config: dict) -> str:
    servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=3s;"
                        for port in config["web_ports"])
    return render(TEMPLATE.read_text(), {
        # nginx started as root would switch its workers to www-data, who cannot read a
        # private run folder: a loopback stand-in keeps the starting user.
        "user_line": "user root;" if os.geteuid() == 0 else "",
        "run": str(run.path), "static": str(run.static), "host": config["host"],
        "port": str(config["port"]), "upstream_servers": servers,
        "max_body": str(limits.REQUEST_BODY_MAX_BYTES),
        "body_timeout": str(max(1, round(limits.REQUEST_BODY_TIMEOUT * 1000))),
    })


def django_env(run: RunDir, config: dict) -> dict[str, str]:
    """The Django processes' environment: production settings behind one proxy."""
    env = {k: v for k, v in os.environ.items() if k not in OWN_VARIABLES}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY=secret_key(run),
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=config["database_url"],
        REDIS_URL=config["redis_url"],
        # Redis's pub/sub ignores database numbers: a channel prefix of its own.
        CHANNEL_LAYER_PREFIX=database_name(config["database_url"]),
        NUM_PROXIES="1",
        STATIC_ROOT=str(run.static),
        COLONIA_VAR_DIR=str(run.var),
        SITE_URL=config["url"].rstrip("/"),
        EMAIL_BACKEND="filebased",
        EMAIL_FILE_PATH=str(run.path / "mail"),
        PYTHONUNBUFFERED="1",
    )
    return env


def manage(env: dict[str, str], log: Path, *args: str) -> None:
    """``manage.py ARGS`` with the stack's environment; its output to ``log``."""
    with open(log, "ab") as out:
        out.write(f"\n$ manage.py {' '.join(args)}\n".encode())
        out.flush()
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                              stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise StackError(f"manage.py {' '.join(args)} failed:\n{tail}")


# --- the supervised pieces --------------------------------------------------------------------


class Piece(Child):
    """A supervised process whose output goes to a log file of its own."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path,
                 nice: int = 0) -> None:
        super().__init__(name, argv, env, nice)
        self.log = log

    def start(self) -> None:
        argv = ["nice", "-n", str(self.nice), *self.argv] if self.nice else self.argv
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(argv, env=self.env, cwd=ROOT, stdout=out,
                                            stderr=subprocess.STDOUT, start_new_session=True)


def pieces(run: RunDir, config: dict, env: dict[str, str]) -> list[Piece]:
    """In the order they stop: nginx first (no new requests), the beat last."""
    python = sys.executable
    out = [Piece("nginx", [config["nginx"], "-c", str(run.nginx_conf), "-p", str(run.path),
                           "-e", str(run.logs / "nginx-error.log")], env,
                 run.logs / "nginx.log")]
    for i, port in enumerate(config["web_ports"], 1):
        out.append(Piece(
            f"web-{i}",
            [python, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--no-access-log",
             # The app counts the proxies itself (NUM_PROXIES=1, the client-address rule):
             # uvicorn must not rewrite the client's address as well.
             "--no-proxy-headers", "--ws-per-message-deflate", "false",
             "--timeout-graceful-shutdown", "5"],
            env, run.logs / f"web-{i}.log"))
    out.append(Piece(
        "worker",
        [python, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO",
         "--concurrency", str(config["concurrency"]),
         "--hostname", f"deploy-{config['port']}@%h"],
        env, run.logs / "worker.log", nice=config["worker_nice"]))
    out.append(Piece(
        "beat",
        [python, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
         "--schedule", str(run.var / "celerybeat-schedule")],
        env, run.logs / "beat.log", nice=config["worker_nice"]))
    return out


def _start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (tells a live process from a reused pid)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _write_state(run: RunDir, supervisor: int, children: list[Piece], ready: bool) -> None:
    state = {"supervisor": {"pid": supervisor, "start": _start_time(supervisor)},
             "ready": ready, "children": {}}
    for child in children:
        if child.process is not None:
            pid = child.process.pid
            state["children"][child.name] = {"pid": pid, "start": _start_time(pid)}
    tmp = run.state.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    tmp.replace(run.state)


def supervise(run: RunDir) -> int:
    """Start every piece, restart what dies, stop everything on SIGTERM (background)."""
    config = run.read(run.config)
    env = run.read(run.env)
    children = pieces(run, config, env)
    stopping = False

    def request_stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    for child in children:
        child.start()
        say(f"started {child.name} (pid {child.process.pid})")
    _write_state(run, os.getpid(), children, ready=False)
    ready = False
    exit_code = 0
    try:
        while not stopping:
            changed, gave_up = restart_exited(children, report=say)
            if gave_up:
                exit_code, stopping = 1, True
            if not ready and not stopping:
                addresses = [*(("127.0.0.1", p) for p in config["web_ports"]),
                             (config["host"], config["port"])]
                if all(wait_for_port(host, port, cancelled=lambda: False, timeout=0.5)
                       for host, port in addresses):
                    ready, changed = True, True
                    say(f"ready at {config['url']}")
            if changed:
                _write_state(run, os.getpid(), children, ready=ready)
            time.sleep(0.5)
    finally:
        say("stopping…")
        for child in children:
            child.stop(STOP_TIMEOUTS.get(child.name, 10.0))
            say(f"{child.name} stopped")
        with contextlib.suppress(FileNotFoundError):
            run.state.unlink()
        say("stopped")
    return exit_code


# --- start, stop, status ----------------------------------------------------------------------


def _alive(entry: dict | None) -> bool:
    """True while the process of a state entry runs (the same one: pid and start time)."""
    if not entry or entry.get("start") is None:
        return False
    return _start_time(entry["pid"]) == entry["start"]


def running_supervisor(run: RunDir) -> int | None:
    entry = run.read(run.state).get("supervisor")
    return entry["pid"] if _alive(entry) else None


def start(args: argparse.Namespace) -> int:
    run = RunDir(args.run_dir)
    if (pid := running_supervisor(run)) is not None:
        raise StackError(f"a stack is already running from {run.path} (supervisor pid {pid}): "
                         f"stop it first")
    nginx = nginx_binary()
    if not port_is_free(args.host, args.port):
        raise StackError(f"{args.host}:{args.port} is taken: choose another --port")
    check_redis(args.redis_url)
    ensure_database(args.database_url, fresh=args.fresh_database)
    run.make()
    certificate(run)
    config = {
        "host": args.host, "port": args.port, "url": f"https://{args.host}:{args.port}/",
        "web_ports": [free_port() for _ in range(args.web)], "nginx": nginx,
        "concurrency": args.concurrency, "worker_nice": args.worker_nice,
        "database_url": args.database_url, "redis_url": args.redis_url,
        "run_dir": str(run.path),
    }
    env = django_env(run, config)
    run.config.write_text(json.dumps(config, indent=1))
    write_private(run.env, json.dumps(env, indent=1))
    run.nginx_conf.write_text(nginx_config(run, config))
    setup_log = run.logs / "setup.log"
    say(f"checking and preparing (log: {setup_log})")
    manage(env, setup_log, "check", "--deploy", "--fail-level", "WARNING")
    manage(env, setup_log, "migrate", "--noinput")
    manage(env, setup_log, "load_variants")
    manage(env, setup_log, "collectstatic", "--noinput", "-v0")
    tested = subprocess.run([nginx, "-t", "-q", "-c", str(run.nginx_conf), "-p", str(run.path),
                             "-e", str(run.logs / "nginx-error.log")],
                            capture_output=True, text=True)
    if tested.returncode != 0:
        raise StackError(f"nginx refuses {run.nginx_conf}:\n{tested.stderr}")
    with open(run.logs / "stack.log", "ab") as out:
        supervisor = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "supervise", "--run-dir",
             str(run.path)], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT
    while not run.read(run.state).get("ready"):
        if supervisor.poll() is not None or time.monotonic() > deadline:
            tail = "\n".join((run.logs / "stack.log").read_text(errors="replace")
                             .splitlines()[-20:])
            stop_run(run, quiet=True)
            raise StackError(f"the stack did not come up (logs in {run.logs}):\n{tail}")
        time.sleep(0.3)
    say(f"Colonia (production settings) is running at {config['url']} behind nginx, "
        f"{args.web} web processes, a worker and a beat; run folder {run.path}")
    say(f"stop it with: {Path(sys.executable).name} deploy/stack.py stop"
        + ("" if run.path == DEFAULT_RUN_DIR.resolve() else f" --run-dir {run.path}"))
    return 0


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def stop_run(run: RunDir, quiet: bool = False) -> bool:
    """Stop the supervisor (it stops everything in order); clean up what is left."""
    state = run.read(run.state)
    supervisor = state.get("supervisor")
    if not _alive(supervisor) and not any(_alive(c) for c in state.get("children", {}).values()):
        return False
    if _alive(supervisor):
        os.kill(supervisor["pid"], signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        while _alive(supervisor) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _alive(supervisor):
            _kill_group(supervisor["pid"], signal.SIGKILL)
    # A supervisor that was killed leaves its pieces behind (each in a session of its own).
    leftovers = [c for c in state.get("children", {}).values() if _alive(c)]
    for child in leftovers:
        _kill_group(child["pid"], signal.SIGTERM)
    deadline = time.monotonic() + 20
    while any(_alive(c) for c in leftovers) and time.monotonic() < deadline:
        time.sleep(0.2)
    for child in leftovers:
        if _alive(child):
            _kill_group(child["pid"], signal.SIGKILL)
    with contextlib.suppress(FileNotFoundError):
        run.state.unlink()
    if not quiet:
        say("stopped")
    return True


def stop(args: argparse.Namespace) -> int:
    if not stop_run(RunDir(args.run_dir)):
        say(f"no stack is running from {args.run_dir}")
    return 0


def status(args: argparse.Namespace) -> int:
    """0 while the stack runs, 3 when it does not (as init scripts do)."""
    run = RunDir(args.run_dir)
    config, state = run.read(run.config), run.read(run.state)
    up = _alive(state.get("supervisor"))
    children = {name: {**entry, "alive": _alive(entry)}
                for name, entry in state.get("children", {}).items()}
    report = {"running": up, "ready": bool(up and state.get("ready")),
              "url": config.get("url"), "run_dir": str(run.path),
              "supervisor": state.get("supervisor"), "children": children,
              "web_ports": config.get("web_ports", []),
              "database_url": config.get("database_url"), "redis_url": config.get("redis_url")}
    if args.json:
        print(json.dumps(report, indent=1))
    elif not up:
        print(f"not running ({run.path})")
    else:
        print(f"running at {report['url']} ({'ready' if report['ready'] else 'starting'}), "
              f"supervisor pid {state['supervisor']['pid']}, run folder {run.path}")
        ports = dict(zip([f"web-{i}" for i in range(1, 99)], report["web_ports"], strict=False))
        for name, entry in children.items():
            where = f" port {ports[name]}" if name in ports else ""
            print(f"  {name:7} pid {entry['pid']:>7}{where}  "
                  f"{'up' if entry['alive'] else 'DOWN'}")
    return 0 if up else 3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--run-dir", type=Path,
                        default=Path(os.environ.get("COLONIA_DEPLOY_DIR", DEFAULT_RUN_DIR)),
                        help="where configs, keys, logs and pid files go (not the repository)")
    p_start = sub.add_parser("start", parents=[common], help="start the stack, in the background")
    p_start.add_argument("--host", default="127.0.0.1", choices=["127.0.0.1", "localhost"],
                         help="nginx's address (loopback only)")
    p_start.add_argument("--port", type=int, default=8443, help="nginx's HTTPS port")
    p_start.add_argument("--web", type=int, default=2, help="uvicorn processes (at least 1)")
    p_start.add_argument("--concurrency", type=int, default=1,
                         help="AI turns the Celery worker plays at once")
    p_start.add_argument("--worker-nice", type=int, default=10, choices=range(0, 20),
                         metavar="0..19", help="CPU priority of the worker and the beat below "
                         "the web processes")
    p_start.add_argument("--database-url",
                         default=os.environ.get("DEPLOY_DATABASE_URL", DEFAULT_DATABASE_URL),
                         help="the stack's own PostgreSQL database (created when missing)")
    p_start.add_argument("--redis-url",
                         default=os.environ.get("DEPLOY_REDIS_URL", DEFAULT_REDIS_URL),
                         help="the machine's Redis, a database number of the stack's own")
    p_start.add_argument("--fresh-database", action="store_true",
                         help="drop the stack's database first (colonia_deploy* only)")
    sub.add_parser("stop", parents=[common], help="stop the stack")
    p_status = sub.add_parser("status", parents=[common], help="is it running, and where")
    p_status.add_argument("--json", action="store_true")
    sub.add_parser("supervise", parents=[common], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            if args.web < 1:
                parser.error("--web must be at least 1")
            return start(args)
        if args.command == "stop":
            return stop(args)
        if args.command == "status":
            return status(args)
        return supervise(RunDir(args.run_dir))
    except StackError as exc:
        print(f"[deploy] {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
