"""Load test of live play against a running server (loopback only); prints the curve.

    python scripts/load.py --base http://127.0.0.1:8000 --curve          # the whole curve
    python scripts/load.py --tables 100 --sockets 1000 --duration 60     # one point
    python scripts/load.py --tables 100 --sockets 1000 --think 0         # saturated

For each point it registers a few users through the API, opens ``--tables`` tables of one
human seat (played by this script with random legal actions through the API) and AI seats
(``--level``, played by the Celery worker), opens ``--sockets`` anonymous spectator
WebSockets on ``/ws/games/{id}/`` spread evenly over the tables, plays for ``--duration``
seconds and prints:

* committed move -> fragment on another socket: for every move, the time from its commit
  (``created_at`` from the moves API, server clock -- the same machine) to the first
  message on *each* spectator socket of its table carrying that version or a later one;
  p50 / p95 / p99 over all (move, socket) pairs;
* moves per second achieved (all tables, people and AI), and the people's share;
* memory per idle socket: the growth of the web server's resident memory (all its
  processes, found by ``--port`` in /proc) when the sockets opened, divided by their count;
* CPU per move and per delivery (a (move, socket) pair that arrived): the CPU seconds
  (utime + stime from /proc) that the web processes, and with ``--cpu-tree PID`` (e.g. the
  pid of ``python -m config.run``) the Celery worker and the embedded Redis too, spent
  during the play phase, divided by the moves and by the deliveries; and this script's own
  CPU, since it runs on the same cores.  CPU does not depend on what else the machine runs,
  unlike wall-clock latencies.

The offered load: a person thinks before each action.  ``--think`` is the mean of an
exponential think time (many quick clicks, a few long ponders; ``--think-fixed`` for a
constant), 8 s by default: a brisk player.  A turn of New Haven is three to six actions
(the harvest, the builds, the end of the turn), so 8 s an action is
half a minute a turn, the pace of a live table on a board-game site; a person reads what
the AI did before each turn, too.  At 100 tables that offers at most 12.5 people's actions a
second, plus the AI's replies (``--level random`` answers at once, quicker than any real
level).  ``--think 0`` is the old closed loop: each person acts the instant the server
answers, like a bot making several moves a second at every table at once.  That saturates
the two cores, so its latency measures the queue of work at saturation, not how fast a
move reaches the screens; ``--curve`` prints it as a last row for comparison.  Between its
actions a person reuses the document the POST answers with (as a browser reuses the
fragments it gets) and reads the game only after the AI has moved.

``--curve`` runs 10 / 100 / 1,000 sockets over 20 and over 100 tables at ``--think``, then
the 100 x 1,000 point closed-loop.  Tables of a point stop when it ends (their human seat
stops playing), so points do not add up.  The measured curve and its commands are in the
README ("Live play at scale").

``--stack embedded|proxy|both`` starts the stack itself, measures, and stops it: ``embedded``
is ``python -m config.run --workers 2 --concurrency 2`` (SQLite, the embedded Redis) in a
temporary folder; ``proxy`` is ``deploy/stack.py`` (nginx with TLS in front of two uvicorn
processes, a Celery worker and a beat, the machine's PostgreSQL in a fresh database of its
own and Redis), measured through nginx; ``both`` prints one curve after the other
(``make load-curve``).  The per-person limits are lifted for the script in the stacks it
starts, and the CPU of every process of the stack is counted (nginx as ``proxy``), and
of PostgreSQL's backends serving the stack's database (``database``); the rest of the
machine's PostgreSQL and its Redis are not.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parent.parent
VERSION_RE = re.compile(r'data-version="(\d+)"')
#: Trust for an https stack's own certificate (``--stack proxy``, or ``--cafile``).
SSL_CONTEXT: ssl.SSLContext | None = None
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
CURVE = [(20, 10), (20, 100), (20, 1000), (100, 10), (100, 100), (100, 1000)]
MAX_TABLES, MAX_SOCKETS, MAX_DURATION = 200, 2000, 600.0
#: Mean seconds a person thinks before an action (see the module docstring).
DEFAULT_THINK = 8.0


class Api:
    """A tiny JSON client (urllib), run in threads from asyncio."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        request.add_header("Accept", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=60, context=SSL_CONTEXT) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            payload = error.read()
            try:
                return error.code, json.loads(payload or b"null")
            except ValueError:
                return error.code, {"detail": payload[:200].decode(errors="replace")}

    async def acall(self, method: str, path: str, body: dict | None = None):
        return await asyncio.to_thread(self.call, method, path, body)


def _ws_ssl(url: str) -> dict:
    return {"ssl": SSL_CONTEXT} if url.startswith("wss://") and SSL_CONTEXT else {}


def register(base: str, prefix: str, index: int) -> Api:
    """A fresh user with a token (name ``{prefix}{index}``)."""
    username, password = f"{prefix}{index}", f"Load-{uuid.uuid4().hex}"
    status, body = Api(base).call("POST", "/api/auth/register/",
                                  {"username": username, "password": password})
    if status != 201:
        raise SystemExit(f"register {username}: HTTP {status} {body}")
    return Api(base, body["token"])


# --- the server's memory ------------------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _command_line(pid: int | str) -> str | None:
    """A process's command line, its arguments joined by spaces (``None`` once gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        return None


def _processes() -> dict[int, list[str]]:
    """Every process's command line as words (Linux /proc)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (line := _command_line(entry.name)) is not None:
            out[int(entry.name)] = line.split()
    return out


def _with_descendants(roots: list[int]) -> list[int]:
    tree, pids, stack = _children(), [], list(roots)
    while stack:
        pid = stack.pop()
        pids.append(pid)
        stack.extend(tree.get(pid, []))
    return pids


def server_pids(port: int) -> list[int]:
    """The uvicorn process serving ``port`` and its worker processes (Linux /proc)."""
    return _with_descendants([
        pid for pid, words in _processes().items()
        if any("uvicorn" in w for w in words) and "--port" in words and str(port) in words])


def tree_pids(root: int) -> list[int]:
    """``root`` and all its descendants (Linux /proc)."""
    return _with_descendants([root])


def database_pids(name: str) -> list[int]:
    """The PostgreSQL server processes serving database ``name`` (Linux /proc): the
    backends of the stack's connections ("postgres: 15/main: user name 127.0.0.1(…) …")."""
    return [pid for pid, words in _processes().items()
            if words and words[0] == "postgres:" and name in words[3:5]]


def _role(pid: int) -> str:
    words = _command_line(pid)
    if words is None:
        return "gone"
    if words.startswith("postgres:"):
        return "database"
    if "celery" in words:
        return "celery"
    if words.startswith("nginx"):
        return "proxy"
    if "valkey" in words or "redis-server" in words:
        return "redis"
    if "uvicorn" in words or "multiprocessing" in words:
        return "web"
    return "other"


def cpu_by_pid(pids: list[int]) -> dict[int, tuple[str, float]]:
    """Each of ``pids``' role (web, celery, database, redis, proxy, other) and CPU seconds
    (utime + stime) so far; the pids that are gone are left out."""
    ticks = os.sysconf("SC_CLK_TCK")
    out: dict[int, tuple[str, float]] = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[pid] = (_role(pid), (int(fields[11]) + int(fields[12])) / ticks)
    return out


def cpu_used(before: dict[int, tuple[str, float]],
             after: dict[int, tuple[str, float]]) -> dict[str, float]:
    """CPU seconds by role between two :func:`cpu_by_pid` readings: a process started in
    between counts whole; one that ended in between counts nothing of its last stretch."""
    out: dict[str, float] = {}
    for pid, (role, seconds) in after.items():
        out[role] = out.get(role, 0.0) + seconds - before.get(pid, (role, 0.0))[1]
    return out


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


# --- one point of the curve ---------------------------------------------------------------------


def think_time(args: argparse.Namespace, rng: random.Random) -> float:
    """Seconds a person thinks before an action: exponential with mean ``--think`` (many
    quick clicks, a few long ponders), fixed with ``--think-fixed``, none with 0."""
    if args.think <= 0:
        return 0.0
    return args.think if args.think_fixed else rng.expovariate(1.0 / args.think)


async def play_human(api: Api, ws_url: str, origin: str, game_id: int, deadline: float,
                     rng: random.Random, counters: dict, args: argparse.Namespace) -> None:
    """Play seat 0 with random legal actions until the game ends or time is up.

    Like a person at a browser: it thinks (``think_time``) before each action, then posts
    it; the answer is the fresh game document, so while it is still its turn it acts on
    that (no read in between).  When the AI is to move it learns that the AI moved from
    its own socket (not measured) and only then reads the game, instead of polling the
    API while the AI thinks.  With ``--think 0`` it acts as fast as the server answers: a
    closed loop that saturates the machine.
    """
    async with connect(ws_url, origin=origin, open_timeout=60, max_size=None,
                       **_ws_ssl(ws_url)) as socket:
        status, doc = await api.acall("GET", f"/api/games/{game_id}/")
        # The tables start together.  An exponential think is memoryless: drawing the
        # first pause from it too makes each table's actions a steady stream from the
        # start (no burst of first clicks); a fixed think starts at a uniform offset.
        pause = rng.uniform(0, args.think) if args.think_fixed else think_time(args, rng)
        while time.monotonic() < deadline:
            if status != 200 or doc["status"] != "running":
                return
            if doc["legal_actions"]:
                if pause > 0:
                    if time.monotonic() + pause >= deadline:
                        return
                    await asyncio.sleep(pause)
                action = rng.choice(doc["legal_actions"])
                status, answer = await api.acall(
                    "POST", f"/api/games/{game_id}/actions/",
                    {"action": action, "version": doc["version"], "key": uuid.uuid4().hex},
                )
                counters[status] = counters.get(status, 0) + 1
                pause = think_time(args, rng)
                if status == 200:
                    doc = answer
                    continue
                if status == 429:
                    await asyncio.sleep(1.0)
                status, doc = await api.acall("GET", f"/api/games/{game_id}/")
                continue
            # The AI is to move: wait for a message past this version (or 2 s, a hint may
            # have been sent before the socket saw it).
            wait_until = min(deadline, time.monotonic() + 2.0)
            while (left := wait_until - time.monotonic()) > 0:
                try:
                    message = await asyncio.wait_for(socket.recv(), left)
                except TimeoutError:
                    break
                text = message if isinstance(message, str) else message.decode()
                if any(int(v) > doc["version"] for v in VERSION_RE.findall(text)):
                    break
            status, doc = await api.acall("GET", f"/api/games/{game_id}/")


async def spectate(ws_url: str, origin: str, index: int, arrivals: list, ready: asyncio.Event,
                   opened: list, stop: asyncio.Event, errors: list) -> None:
    """Record (arrival time, version) of every message on one socket."""
    try:
        async with connect(ws_url, origin=origin, open_timeout=60, max_size=None,
                           **_ws_ssl(ws_url)) as socket:
            opened.append(index)
            if len(opened) == ready.target:  # type: ignore[attr-defined]
                ready.set()
            while not stop.is_set():
                try:
                    message = await asyncio.wait_for(socket.recv(), 0.5)
                except TimeoutError:
                    continue
                now = time.time()
                text = message if isinstance(message, str) else message.decode()
                versions = [int(v) for v in VERSION_RE.findall(text)]
                if versions:  # a message at version v also announces every move <= v
                    arrivals[index].append((now, max(versions)))
    except Exception as exc:  # reported at the end
        errors.append(f"{ws_url}: {exc!r}")
        opened.append(index)
        if len(opened) == ready.target:  # type: ignore[attr-defined]
            ready.set()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_point(args: argparse.Namespace, tables: int, sockets: int,
                    apis: list[Api], variant_id: int, pids: list[int]) -> dict:
    """One point: ``tables`` new tables, ``sockets`` spectators, ``args.duration`` of play."""
    seats = [{"type": "human"}] + [{"type": "ai", "level": args.level}] * (args.players - 1)
    ws_base = ("wss://" if args.base.startswith("https") else "ws://") + urlsplit(args.base).netloc
    game_ids: list[tuple[int, Api]] = []
    for i in range(tables):
        api = apis[i % len(apis)]
        status, doc = await api.acall("POST", "/api/games/",
                                      {"variant": variant_id, "seats": seats})
        if status != 201:
            raise SystemExit(f"create game: HTTP {status} {doc}")
        game_ids.append((doc["id"], api))

    memory_before = rss_bytes(pids)
    arrivals: list[list[tuple[float, int]]] = [[] for _ in range(sockets)]
    socket_game = [game_ids[i % tables][0] for i in range(sockets)]
    ready, stop = asyncio.Event(), asyncio.Event()
    ready.target = sockets  # type: ignore[attr-defined]
    opened: list[int] = []
    errors: list[str] = []
    tasks = []
    for i in range(sockets):  # open in small batches: a burst of handshakes is not the test
        tasks.append(asyncio.create_task(spectate(
            f"{ws_base}/ws/games/{socket_game[i]}/", args.base, i, arrivals, ready, opened,
            stop, errors)))
        if i % 50 == 49:
            await asyncio.sleep(0.2)
    if sockets:
        await asyncio.wait_for(ready.wait(), 300)
    await asyncio.sleep(3.0)  # idle: let the server settle before measuring memory
    memory_after = rss_bytes(pids)

    rng = random.Random(args.seed)
    counters: dict[int, int] = {}
    watched = sorted(set(pids) | set(tree_pids(args.cpu_tree) if args.cpu_tree else []))
    # PostgreSQL's backends are not the stack's children: found by the database's name
    # (again at the end: the pool may have opened more).
    database = getattr(args, "database_name", None)
    watched_db = database_pids(database) if database else []
    cpu_before, own_before = cpu_by_pid(watched + watched_db), own_cpu_seconds()
    started = time.monotonic()
    deadline = started + args.duration
    await asyncio.gather(*(play_human(api, f"{ws_base}/ws/games/{gid}/", args.base, gid,
                                      deadline, random.Random(rng.random()), counters, args)
                           for gid, api in game_ids))
    elapsed = time.monotonic() - started
    await asyncio.sleep(2.0)  # the last messages
    if database:
        watched_db = sorted(set(watched_db) | set(database_pids(database)))
    cpu_after, own_after = cpu_by_pid(watched + watched_db), own_cpu_seconds()
    cpu = cpu_used(cpu_before, cpu_after)
    cpu["load script"] = own_after - own_before
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)

    moves, latencies = 0, []
    by_game: dict[int, list[int]] = {}
    for i, gid in enumerate(socket_game):
        by_game.setdefault(gid, []).append(i)
    window_start = time.time() - elapsed - 2.5
    for gid, api in game_ids:
        _, log = await api.acall("GET", f"/api/games/{gid}/moves/")
        for move in log:
            committed = datetime.fromisoformat(move["created_at"]).timestamp()
            if committed < window_start:
                continue
            moves += 1
            for i in by_game.get(gid, []):
                arrived = next((t for t, v in arrivals[i] if v >= move["seq"]), None)
                if arrived is not None:
                    latencies.append((arrived - committed) * 1000)
    return {
        "tables": tables, "sockets": sockets, "elapsed": elapsed, "moves": moves,
        "think": args.think, "people_moves": counters.get(200, 0),
        "latencies": latencies, "errors": errors, "statuses": counters,
        "memory_per_socket": (memory_after - memory_before) / sockets if sockets else 0.0,
        "cpu": cpu, "load": os.getloadavg()[0],
    }


def print_row(result: dict) -> None:
    lat = result["latencies"]
    if lat:
        p50, p95, p99 = (statistics.median(lat), percentile(lat, 0.95),
                         percentile(lat, 0.99))
        lat_text = f"{p50:8.1f} {p95:8.1f} {p99:8.1f} {len(lat):8d}"
    else:
        lat_text = f"{'-':>8} {'-':>8} {'-':>8} {0:8d}"
    elapsed = result["elapsed"] or 1.0
    moves_s, people_s = result["moves"] / elapsed, result["people_moves"] / elapsed
    print(f"{result['tables']:6d} {result['sockets']:7d} {result['think']:7.1f} {lat_text} "
          f"{moves_s:8.1f} {people_s:8.1f} {result['memory_per_socket'] / 1024:10.1f} "
          f"{len(result['errors']):6d}", flush=True)
    moves, deliveries = max(result["moves"], 1), max(len(lat), 1)
    parts = [f"{role} {seconds * 1000 / moves:.1f}" for role, seconds in
             sorted(result["cpu"].items()) if seconds > 0]
    web = result["cpu"].get("web", 0.0)
    own = result["cpu"].get("load script", 0.0)
    print(f"  CPU-ms per move: {', '.join(parts)}; web CPU-ms per delivery: "
          f"{web * 1000 / deliveries:.2f}; the load generator used {own / elapsed:.0%} of a "
          f"core (load average {result['load']:.1f})", flush=True)


HEADER = (f"{'tables':>6} {'sockets':>7} {'think s':>7} {'p50 ms':>8} {'p95 ms':>8} "
          f"{'p99 ms':>8} {'samples':>8} {'moves/s':>8} {'people/s':>8} {'KiB/socket':>10} "
          f"{'errors':>6}")


async def main_async(args: argparse.Namespace, web_pids: list[int] | None = None) -> int:
    parts = urlsplit(args.base)
    if parts.hostname not in LOOPBACK:
        raise SystemExit("this load script only targets a loopback server")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    prefix = f"load{uuid.uuid4().hex[:6]}u"
    apis = [register(args.base, prefix, i) for i in range(args.users)]
    _status, variants = apis[0].call("GET", "/api/variants/")
    variant = next((v for v in variants if v["game"] == args.game
                    and v["name"] == args.variant), None)
    if variant is None:
        raise SystemExit(f"no active variant {args.game}/{args.variant}: run load_variants")
    pids = web_pids if web_pids is not None else server_pids(parts.port or 80)
    print(f"server: {args.base} ({len(pids)} web processes found), game: {args.game}/"
          f"{args.variant}, {args.players} seats (1 played here, AI level {args.level}), "
          f"{args.duration:.0f} s per point; a person thinks "
          + (f"{'exactly' if args.think_fixed else 'on average'} {args.think:g} s per action "
             f"(offers at most {1 / args.think:.2f} actions/s per table on its turn)"
             if args.think > 0 else "not at all (closed loop: the machine is saturated)"))
    print(HEADER, flush=True)
    points = ([(t, s, args.think) for t, s in CURVE] if args.curve
              else [(args.tables, args.sockets, args.think)])
    if args.curve and args.think > 0:  # and the saturated point, for comparison
        points.append((CURVE[-1][0], CURVE[-1][1], 0.0))
    failed = False
    for tables, sockets, think in points:
        point_args = argparse.Namespace(**{**vars(args), "think": think})
        result = await run_point(point_args, tables, sockets, apis, variant["id"], pids)
        print_row(result)
        for error in result["errors"][:3]:
            print("  socket error:", error, file=sys.stderr)
        failed |= bool(result["errors"]) or not result["latencies"]
        bad = {k: v for k, v in result["statuses"].items() if k >= 500}
        if bad:
            print(f"  server errors on moves: {bad}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


# --- stacks this script starts itself (--stack) --------------------------------------------------

#: The per-person limits, lifted for the script in the stacks it starts.
LIFTED = {"THROTTLE_REGISTER": "1000/hour", "THROTTLE_MOVES": "100000/minute"}
#: Environment of the caller that must not reach a stack this script starts.
STACK_OWNED = {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "SQLITE_PATH",
               "STATIC_ROOT", "COLONIA_VAR_DIR", "CELERY_TASK_ALWAYS_EAGER"}


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class EmbeddedStack:
    """``python -m config.run`` (SQLite, the embedded Redis) in a temporary folder."""

    name = "embedded"

    def __init__(self, tmp: Path, web: int) -> None:
        self.tmp, self.web, self.port = tmp, web, _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ssl: ssl.SSLContext | None = None
        self.env = {k: v for k, v in os.environ.items() if k not in STACK_OWNED}
        self.env.update(LIFTED, COLONIA_VAR_DIR=str(tmp / "var"),
                        SQLITE_PATH=str(tmp / "load.sqlite3"), STATIC_ROOT=str(tmp / "static"),
                        PYTHONUNBUFFERED="1")
        self.process: subprocess.Popen | None = None
        self.log = tmp / "stack.log"

    def describe(self) -> str:
        return (f"python -m config.run --workers {self.web} --concurrency 2 (SQLite, the "
                f"embedded Redis) at {self.base}")

    def start(self) -> None:
        for command in (["migrate", "--noinput"], ["load_variants", "newhaven"]):
            subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=self.env,
                           check=True, capture_output=True)
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "config.run", "--port", str(self.port), "--workers",
                 str(self.web), "--concurrency", "2"], cwd=ROOT, env=self.env, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 240
        while not all(n in self.log.read_text(errors="replace")
                      for n in ("Colonia is running at", " ready.")):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the embedded stack did not start:\n" + self.log.read_text())
            time.sleep(0.5)

    @property
    def root_pid(self) -> int:
        return self.process.pid

    def web_pids(self) -> list[int]:
        return server_pids(self.port)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)


class ProxyStack:
    """``deploy/stack.py``: nginx (TLS) in front of the web processes, PostgreSQL, Redis."""

    name = "proxy"

    def __init__(self, tmp: Path, web: int, database_url: str, redis_url: str) -> None:
        self.run_dir, self.web, self.port = tmp / "run", web, _free_port()
        self.database_url, self.redis_url = database_url, redis_url
        self.base = f"https://127.0.0.1:{self.port}"
        self.ssl: ssl.SSLContext | None = None
        self.env = {**os.environ, **LIFTED}
        self.supervisor = 0

    def describe(self) -> str:
        return (f"deploy/stack.py: nginx (TLS) at {self.base} in front of {self.web} uvicorn "
                f"processes, a Celery worker (concurrency 2) and a beat; PostgreSQL "
                f"{self.database_url} (fresh), Redis {self.redis_url}")

    def _script(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(ROOT / "deploy" / "stack.py"), *args,
                               "--run-dir", str(self.run_dir)], cwd=ROOT, env=self.env,
                              capture_output=True, text=True)

    def start(self) -> None:
        started = self._script("start", "--port", str(self.port), "--web", str(self.web),
                               "--concurrency", "2", "--database-url", self.database_url,
                               "--redis-url", self.redis_url, "--fresh-database")
        if started.returncode != 0:
            raise SystemExit(f"the proxy stack did not start:\n{started.stdout}{started.stderr}")
        self.supervisor = json.loads(self._script("status", "--json").stdout)["supervisor"]["pid"]
        self.ssl = ssl.create_default_context(cafile=str(self.run_dir / "tls" / "cert.pem"))
        deadline = time.monotonic() + 120  # the worker takes its first task once ready
        while " ready." not in (self.run_dir / "logs" / "worker.log").read_text(errors="replace"):
            if time.monotonic() > deadline:
                raise SystemExit("the proxy stack's worker never got ready")
            time.sleep(0.5)

    @property
    def root_pid(self) -> int:
        return self.supervisor

    def web_pids(self) -> list[int]:
        return [pid for pid in tree_pids(self.supervisor) if _role(pid) == "web"]

    def stop(self) -> None:
        self._script("stop")


def run_stacks(args: argparse.Namespace) -> int:
    """Start each stack of ``--stack``, measure it as asked, stop it; one curve each."""
    global SSL_CONTEXT
    failed = 0
    for kind in (["embedded", "proxy"] if args.stack == "both" else [args.stack]):
        with tempfile.TemporaryDirectory(prefix=f"colonia-load-{kind}-") as tmp:
            stack = (EmbeddedStack(Path(tmp), args.web) if kind == "embedded" else
                     ProxyStack(Path(tmp), args.web, args.database_url, args.redis_url))
            print(f"== the {kind} stack: {stack.describe()}", flush=True)
            stack.start()
            try:
                args.base, args.cpu_tree, SSL_CONTEXT = stack.base, stack.root_pid, stack.ssl
                args.database_name = (urlsplit(args.database_url).path.lstrip("/")
                                      if kind == "proxy" else None)
                failed |= asyncio.run(main_async(args, web_pids=stack.web_pids()))
            finally:
                stack.stop()
            print(flush=True)
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=os.environ.get("LOAD_BASE", "http://127.0.0.1:8000"))
    parser.add_argument("--game", default="newhaven")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--curve", action="store_true",
                        help="10 / 100 / 1,000 sockets over 20 and 100 tables, then the last "
                             "point closed-loop (--think 0)")
    parser.add_argument("--tables", type=int, default=20, help=f"AI tables (max {MAX_TABLES})")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--level", default="random", help="AI level of the AI seats")
    parser.add_argument("--sockets", type=int, default=100,
                        help=f"spectating sockets (max {MAX_SOCKETS})")
    parser.add_argument("--users", type=int, default=4, help="API users (register throttle!)")
    parser.add_argument("--duration", type=float, default=30.0,
                        help=f"seconds of play per point (max {MAX_DURATION:.0f})")
    parser.add_argument("--think", type=float, default=DEFAULT_THINK,
                        help="mean seconds a person thinks before each action (exponential; "
                             "0: none, a closed loop at saturation)")
    parser.add_argument("--think-fixed", action="store_true",
                        help="think exactly --think seconds each time")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cpu-tree", type=int, default=0,
                        help="pid whose process tree's CPU is counted too (python -m config.run)")
    parser.add_argument("--stack", choices=["embedded", "proxy", "both"],
                        help="start this stack (both: one after the other), measure it, stop "
                             "it; --base and --cpu-tree are then the stack's")
    parser.add_argument("--web", type=int, default=2,
                        help="web processes of a stack started with --stack")
    parser.add_argument("--database-url", default=os.environ.get(
        "LOAD_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/colonia_deploy_load"),
        help="the proxy stack's database (dropped and created afresh)")
    parser.add_argument("--redis-url", default=os.environ.get(
        "LOAD_REDIS_URL", "redis://127.0.0.1:6379/4"), help="the proxy stack's Redis")
    args = parser.parse_args(argv)
    args.tables = max(1, min(args.tables, MAX_TABLES))
    args.sockets = max(0, min(args.sockets, MAX_SOCKETS))
    args.users = max(1, min(args.users, 10))
    args.duration = max(1.0, min(args.duration, MAX_DURATION))
    args.think = max(0.0, args.think)
    if args.stack:
        return run_stacks(args)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
