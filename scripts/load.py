"""A small, bounded load test of online play against a running server (loopback only).

    python scripts/load.py --base http://127.0.0.1:8000 --games 4 --sockets 8 --duration 60

It registers a few users through the API, opens ``--games`` tables of one human seat
(played by this script with random legal actions) plus AI seats of level ``random``,
opens ``--sockets`` spectating WebSockets on ``/ws/games/{id}/`` spread over the games,
and prints moves per second and p50/p95 of the time from a committed move
(``Move.created_at`` from the moves API) to the first socket message stamped with that
version or a later one (``data-version="N"`` in the HTML, or ``"version": N`` in JSON).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import time
import urllib.error
import urllib.request
import uuid
from datetime import datetime
from urllib.parse import urlsplit

from websockets.asyncio.client import connect

VERSION_RE = re.compile(r'data-version="(\d+)"|"version":\s*(\d+)')
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


class Api:
    """A tiny JSON client (urllib), run in threads from asyncio."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        request.add_header("Accept", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            payload = error.read()
            try:
                return error.code, json.loads(payload or b"null")
            except ValueError:
                return error.code, {"detail": payload[:200].decode(errors="replace")}

    async def acall(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        return await asyncio.to_thread(self.call, method, path, body)


def register(base: str, prefix: str, index: int) -> Api:
    """A fresh user with a token (name ``{prefix}{index}``)."""
    username, password = f"{prefix}{index}", f"Load-{uuid.uuid4().hex}"
    status, body = Api(base).call("POST", "/api/auth/register/",
                                  {"username": username, "password": password})
    if status != 201:
        raise SystemExit(f"register {username}: HTTP {status} {body}")
    return Api(base, body["token"])


async def play_human(api: Api, game_id: int, deadline: float, rng: random.Random,
                     counters: dict) -> None:
    """Play seat 0 with random legal actions until the game ends or time is up."""
    while time.monotonic() < deadline:
        status, doc = await api.acall("GET", f"/api/games/{game_id}/")
        if status != 200 or doc["status"] != "running":
            return
        if doc["legal_actions"]:
            action = rng.choice(doc["legal_actions"])
            status, _ = await api.acall(
                "POST", f"/api/games/{game_id}/actions/",
                {"action": action, "version": doc["version"], "key": uuid.uuid4().hex},
            )
            counters[status] = counters.get(status, 0) + 1
            if status == 429:
                await asyncio.sleep(1.0)
        else:
            await asyncio.sleep(0.05)  # the AI is thinking


async def spectate(ws_url: str, origin: str, game_id: int, arrivals: dict,
                   deadline: float, errors: list) -> None:
    """Record the first arrival time of each version on one socket."""
    try:
        async with connect(ws_url, origin=origin, open_timeout=10) as socket:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                try:
                    message = await asyncio.wait_for(socket.recv(), remaining)
                except TimeoutError:
                    return
                now = time.time()
                text = message if isinstance(message, str) else message.decode()
                versions = [int(a or b) for a, b in VERSION_RE.findall(text)]
                if versions:  # a message at version v also announces every move <= v
                    arrivals.setdefault(game_id, []).append((now, max(versions)))
    except Exception as exc:  # reported at the end
        errors.append(f"{ws_url}: {exc!r}")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main_async(args: argparse.Namespace) -> int:
    parts = urlsplit(args.base)
    if parts.hostname not in LOOPBACK:
        raise SystemExit("this load script only targets a loopback server")
    ws_base = ("wss://" if parts.scheme == "https" else "ws://") + parts.netloc
    prefix = f"load{uuid.uuid4().hex[:6]}u"
    apis = [register(args.base, prefix, i) for i in range(min(args.users, args.games))]
    status, variants = apis[0].call("GET", "/api/variants/")
    variant = next((v for v in variants if v["game"] == args.game
                    and v["name"] == args.variant), None)
    if variant is None:
        raise SystemExit(f"no active variant {args.game}/{args.variant}: run load_variants")
    seats = [{"type": "human"}] + [{"type": "ai", "level": args.level}] * (args.players - 1)

    rng = random.Random(args.seed)
    deadline = time.monotonic() + args.duration
    arrivals: dict[int, list[tuple[float, int]]] = {}
    errors: list[str] = []
    counters: dict[int, int] = {}
    game_apis: list[tuple[int, Api]] = []
    for i in range(args.games):
        api = apis[i % len(apis)]
        status, doc = api.call("POST", "/api/games/", {"variant": variant["id"], "seats": seats})
        if status != 201:
            raise SystemExit(f"create game: HTTP {status} {doc}")
        game_apis.append((doc["id"], api))

    sockets = [
        spectate(f"{ws_base}/ws/games/{game_apis[i % len(game_apis)][0]}/", args.base,
                 game_apis[i % len(game_apis)][0], arrivals, deadline, errors)
        for i in range(args.sockets)
    ]
    socket_tasks = [asyncio.create_task(s) for s in sockets]
    await asyncio.sleep(1.0)  # let the sockets join their groups before the first move
    started = time.monotonic()
    await asyncio.gather(*(play_human(api, gid, deadline, random.Random(rng.random()), counters)
                           for gid, api in game_apis))
    elapsed = time.monotonic() - started
    await asyncio.sleep(1.0)  # the last messages
    for task in socket_tasks:
        task.cancel()
    await asyncio.gather(*socket_tasks, return_exceptions=True)

    moves, latencies, finished = 0, [], 0
    for gid, api in game_apis:
        _, doc = api.call("GET", f"/api/games/{gid}/")
        finished += doc["status"] == "finished"
        _, log = api.call("GET", f"/api/games/{gid}/moves/")
        moves += len(log)
        seen = arrivals.get(gid, [])
        for move in log:
            committed = datetime.fromisoformat(move["created_at"]).timestamp()
            arrived = min((t for t, v in seen if v >= move["seq"]), default=None)
            if arrived is not None:
                latencies.append((arrived - committed) * 1000)
    print(f"games: {len(game_apis)} ({finished} finished), sockets: {args.sockets}, "
          f"elapsed: {elapsed:.1f} s")
    print(f"moves: {moves}, moves/s: {moves / elapsed:.1f}, human POST statuses: {counters}")
    if latencies:
        print(f"commit -> socket message: n={len(latencies)} "
              f"p50={statistics.median(latencies):.1f} ms "
              f"p95={percentile(latencies, 0.95):.1f} ms max={max(latencies):.1f} ms")
    else:
        print("no socket message carried a version")
    for error in errors[:5]:
        print("socket error:", error, file=sys.stderr)
    return 0 if latencies and not errors else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--game", default="newhaven")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--games", type=int, default=4, help="tables (max 50)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--level", default="random")
    parser.add_argument("--sockets", type=int, default=8, help="spectating sockets (max 200)")
    parser.add_argument("--users", type=int, default=4, help="API users (register throttle!)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds (max 600)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    args.games = max(1, min(args.games, 50))
    args.sockets = max(0, min(args.sockets, 200))
    args.users = max(1, args.users)
    args.duration = max(1.0, min(args.duration, 600.0))
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
