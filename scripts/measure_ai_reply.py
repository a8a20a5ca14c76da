"""The move a person waits for: from their commit to the AI's move on their screen.

    .venv/bin/python scripts/measure_ai_reply.py [--game newhaven] [--level normal]
        [--replies 40] [--think 1.0]

Starts the embedded stack (``python -m config.run``: SQLite, the embedded Redis, one web
process, one Celery worker) in a temporary folder, signs a person up, opens a 2-seat table
against the AI at ``--level`` and plays the person's seat with random legal actions through
the API while its own socket listens, like the play page.  For every AI move that follows a
person's move it takes:

* **total**: the person's move committed (``Move.created_at``) -> the AI's move's version
  arriving on the person's socket;
* **queue**: the person's commit -> the worker starting the AI's turn;
* **search**: the worker's read of the game and the AI's search;
* **commit**: the AI's move through the one write path;
* **push**: the rest (the hint after commit, the web process's render, the socket).

queue/search/commit come from the worker's ``colonia.timing`` log lines (``ai-move ...``,
games/ai_turns/turn.py).  Prints p50/p95/max of each; run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # scripts/load.py: the stack and the API client

TIMING_RE = re.compile(r"ai-move game=(\d+) version=(\d+) level=\S+ start=([\d.]+) "
                       r"search_ms=([\d.]+) commit_ms=([\d.]+)")


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def play(api: load.Api, base: str, game_id: int, args: argparse.Namespace,
               rng: random.Random) -> dict[int, float]:
    """Play the person's seat; return {version: arrival time} of the socket's messages."""
    ws_url = base.replace("http://", "ws://") + f"/ws/games/{game_id}/"
    arrivals: dict[int, float] = {}
    replies = 0
    async with connect(ws_url, origin=base, open_timeout=60, max_size=None) as socket:

        async def listen() -> None:
            while True:
                message = await socket.recv()
                now = time.time()
                text = message if isinstance(message, str) else message.decode()
                for v in load.VERSION_RE.findall(text):
                    arrivals.setdefault(int(v), now)

        listener = asyncio.create_task(listen())
        status, doc = await api.acall("GET", f"/api/games/{game_id}/")
        while replies < args.replies and status == 200 and doc["status"] == "running":
            if doc["legal_actions"]:
                await asyncio.sleep(args.think)
                status, answer = await api.acall(
                    "POST", f"/api/games/{game_id}/actions/",
                    {"action": rng.choice(doc["legal_actions"]), "version": doc["version"],
                     "key": uuid.uuid4().hex})
                if status != 200:
                    raise SystemExit(f"move refused: HTTP {status} {answer}")
                doc = answer
                if not doc["legal_actions"] and doc["status"] == "running":
                    replies += 1  # the AI is to move now
                continue
            # Wait for the AI's move on the socket, then read the game.
            deadline = time.monotonic() + 60
            while max(arrivals, default=0) <= doc["version"] and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            status, doc = await api.acall("GET", f"/api/games/{game_id}/")
        await asyncio.sleep(2.0)  # the last reply's push
        listener.cancel()
    return arrivals


def main(argv: list[str] | None = None) -> int:
    """Start the stack, play, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="newhaven")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--level", default="normal")
    parser.add_argument("--replies", type=int, default=40, help="AI replies to measure")
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each action")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    with tempfile.TemporaryDirectory(prefix="ai-reply-") as tmp:
        stack = load.EmbeddedStack(Path(tmp), web=1)
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=load.ROOT,
                       env=stack.env, check=True, capture_output=True)
        subprocess.run([sys.executable, "manage.py", "load_variants", args.game],
                       cwd=load.ROOT, env=stack.env, check=True, capture_output=True)
        stack.start()
        try:
            api = load.register(stack.base, f"reply{uuid.uuid4().hex[:6]}", 0)
            _status, variants = api.call("GET", "/api/variants/")
            variant = next(v for v in variants
                           if v["game"] == args.game and v["name"] == args.variant)
            status, doc = api.call("POST", "/api/games/", {
                "variant": variant["id"],
                "seats": [{"type": "human"}, {"type": "ai", "level": args.level}]})
            if status != 201:
                raise SystemExit(f"create game: HTTP {status} {doc}")
            game_id = doc["id"]
            arrivals = asyncio.run(play(api, stack.base, game_id, args, rng))
            _status, moves = api.call("GET", f"/api/games/{game_id}/moves/")
        finally:
            stack.stop()
        log = stack.log.read_text(errors="replace")

    moves = moves["results"] if isinstance(moves, dict) else moves
    committed = {m["seq"]: datetime.fromisoformat(m["created_at"]).timestamp() for m in moves}
    seat_of = {m["seq"]: m["seat"] for m in moves}
    worker = {int(m[2]): (float(m[3]), float(m[4]) / 1000, float(m[5]) / 1000)
              for m in TIMING_RE.finditer(log) if int(m[1]) == game_id}
    rows: dict[str, list[float]] = {k: [] for k in ("total", "queue", "search", "commit",
                                                     "push")}
    for seq, seat in sorted(seat_of.items()):
        # An AI move (seat 1) right after the person's move: version seq - 1 was the
        # person's commit; the AI's turn ran at version seq - 1 and made version seq.
        if seat != 1 or seat_of.get(seq - 1) != 0 or seq not in arrivals:
            continue
        if seq - 1 not in worker:
            continue
        start, search, commit = worker[seq - 1]
        person = committed[seq - 1]
        total = arrivals[seq] - person
        rows["total"].append(total)
        rows["queue"].append(start - person)
        rows["search"].append(search)
        rows["commit"].append(commit)
        rows["push"].append(arrivals[seq] - (start + search + commit))
    if not rows["total"]:
        raise SystemExit("no AI reply measured (see the stack's log)")
    print(f"{args.game}/{args.variant}, AI level {args.level}, embedded stack (1 web process, "
          f"1 worker), {len(rows['total'])} AI replies after the person's move")
    print(f"{'part':8} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, values in rows.items():
        print(f"{name:8} {1000 * statistics.median(values):8.0f} "
              f"{1000 * percentile(values, 0.95):8.0f} {1000 * max(values):8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
