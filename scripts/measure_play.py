"""Measure a play page: its weight, the size of a push, the time to the other screen.

    .venv/bin/python scripts/measure_play.py [--game newhaven] [--variant standard]
        [--moves 60] [--base http://127.0.0.1:8000]

Without ``--base`` it starts its own server (uvicorn, temporary SQLite, in-memory channel
layer, the test settings) on a free port and stops it at the end; with ``--base`` it uses a
running server on the loopback (the game's variants loaded).

Two people play a 2-seat game (``--game``: New Haven by default, or ``nouvellefrance``)
through the API with random legal actions; Bob watches it in Debian's Chromium
(Playwright).  The script prints:

* the page weight: the play page's HTML and every asset it loads (CSS, JS, icon), as
  served and gzipped (level 6);
* the pushes Bob's socket received: the size of the one after ``--moves`` log lines, and
  what re-sending the whole log (an HTMX refetch) weighs at that point;
* the time from each committed move (``Move.created_at``) to Bob's screen showing its
  version (a MutationObserver in the page): median, p95, max.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("COLONIA_CHROMIUM", "/usr/bin/chromium")
PASSWORD = "Measure-play-pw-47!"


def api(base: str, method: str, path: str, body: dict | None = None, token: str = "") -> dict:
    request = urllib.request.Request(base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{method} {path}: {error.code} {error.read()[:300]!r}") from None


@contextmanager
def own_server(game: str):
    """A uvicorn of config.asgi on a free port with a throw-away database."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(DJANGO_SETTINGS_MODULE="config.settings.test",
                   SQLITE_PATH=f"{tmp}/db.sqlite3", STATIC_ROOT=f"{tmp}/static",
                   COLONIA_VAR_DIR=f"{tmp}/var", AXES_FAILURE_LIMIT="50")
        py = sys.executable
        for cmd in (["migrate", "--noinput"], ["load_variants", game]):
            subprocess.run([py, "manage.py", *cmd], cwd=ROOT, env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen(
            [py, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--log-level", "warning", "--ws", "websockets"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(150):
                try:
                    urllib.request.urlopen(base + "/", timeout=2)
                    break
                except Exception:
                    time.sleep(0.2)
            yield base
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def served_size(url: str) -> tuple[int, int, str]:
    """(bytes as served with Accept-Encoding: gzip, bytes of the body, content encoding)."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
        encoding = response.headers.get("Content-Encoding", "")
    body = gzip.decompress(raw) if encoding == "gzip" else raw
    return len(raw), len(body), encoding


def kib(n: float) -> str:
    return f"{n / 1024:.1f} KiB"


OBSERVER = """() => {
  window.__seen = {};
  const note = () => {
    const input = document.getElementById('game-version');
    if (input && !(input.value in window.__seen)) {
      window.__seen[input.value] = performance.timeOrigin + performance.now();
    }
  };
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true});
  note();
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="a running server (loopback); default: start one")
    parser.add_argument("--game", default="newhaven", help="the engine's name")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.base:
        run(args.base.rstrip("/"), args)
    else:
        with own_server(args.game) as base:
            run(base, args)


def run(base: str, args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    rng = random.Random(args.seed)
    suffix = f"{os.getpid()}{rng.randrange(10**6)}"
    tokens, names = {}, {}
    for who in ("ann", "bob"):
        name = f"m{who}{suffix}"
        tokens[who] = api(base, "POST", "/api/auth/register/",
                          {"username": name, "password": PASSWORD})["token"]
        names[who] = name
    variants = api(base, "GET", "/api/variants/")
    variant = next(v for v in variants
                   if v["game"] == args.game and v["name"] == args.variant)
    game = api(base, "POST", "/api/games/",
               {"variant": variant["id"], "seats": [{"type": "human"}, {"type": "human"}]},
               tokens["ann"])
    game_id = game["id"]
    api(base, "POST", f"/api/games/{game_id}/join/", {}, tokens["bob"])

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_context().new_page()
        page.goto(base + "/accounts/login/")
        page.fill("#id_username", names["bob"])
        page.fill("#id_password", PASSWORD)
        page.click("form button[type=submit]")
        page.wait_for_load_state("networkidle")
        loaded: list[str] = []
        page.on("response", lambda r: loaded.append(r.url))
        frames: list[bytes] = []  # every message Bob's socket received
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda f: frames.append(f.encode() if isinstance(f, str) else f)))
        page.goto(f"{base}/games/{game_id}/")
        page.wait_for_load_state("networkidle")
        page.evaluate(OBSERVER)

        # Page weight: the page and its assets, as served and gzipped.
        total_served = total_body = total_gzip = 0
        print(f"Play page of {args.game} game #{game_id} (Bob's screen, seat 1)")
        for url in dict.fromkeys(u for u in loaded if u.startswith(base)):
            if "/ws/" in url:
                continue
            served, body_len, encoding = served_size(url)
            with urllib.request.urlopen(url, timeout=30) as response:
                body = response.read()
            gz = len(gzip.compress(body, 6))
            total_served, total_body, total_gzip = (total_served + served,
                                                    total_body + body_len, total_gzip + gz)
            print(f"  {url[len(base):]:<48} {kib(body_len):>10} raw {kib(gz):>10} gzip"
                  f"   served {kib(served)}{' (' + encoding + ')' if encoding else ''}")
        print(f"  {'total':<48} {kib(total_body):>10} raw {kib(total_gzip):>10} gzip"
              f"   served {kib(total_served)}")

        # Moves through the API; Bob's screen follows over its socket.
        seat_token = {0: tokens["ann"], 1: tokens["bob"]}
        for n in range(args.moves):
            doc = api(base, "GET", f"/api/games/{game_id}/", token=tokens["ann"])
            if doc["status"] != "running":
                break
            seat = doc["to_move"][0]
            mover = api(base, "GET", f"/api/games/{game_id}/", token=seat_token[seat])
            action = rng.choice(mover["legal_actions"])
            api(base, "POST", f"/api/games/{game_id}/actions/",
                {"action": action, "version": mover["version"], "key": f"m{n}"},
                seat_token[seat])
            page.wait_for_function("v => { const e = document.getElementById('game-version');"
                                   " return e && +e.value >= v; }", arg=mover["version"] + 1,
                                   timeout=20_000)
        seen = page.evaluate("window.__seen")
        moves = api(base, "GET", f"/api/games/{game_id}/moves/", token=tokens["ann"])
        latencies = []
        for move in moves:
            shown = seen.get(str(move["seq"]))
            if shown is None:
                continue  # skipped over by a later version
            created = datetime.fromisoformat(move["created_at"]).timestamp()
            latencies.append((shown / 1000 - created) * 1000)
        lines = page.locator("#game-log li").count()
        last_push = frames[-1] if frames else b""
        full = urllib.request.Request(f"{base}/games/{game_id}/",
                                      headers={"HX-Request": "true",
                                               "Cookie": _cookie(page, base)})
        with urllib.request.urlopen(full, timeout=30) as response:
            refetch = response.read()
        print(f"\nAfter {len(moves)} moves ({lines} log lines on Bob's screen):")
        print(f"  last push to Bob: {kib(len(last_push))} raw, "
              f"{kib(len(gzip.compress(last_push, 6)))} gzip "
              f"({len(frames)} messages, mean {kib(statistics.mean(map(len, frames or [b''])))})")
        print(f"  whole fragments with the whole log (an HTMX refetch): {kib(len(refetch))} raw, "
              f"{kib(len(gzip.compress(refetch, 6)))} gzip")
        if latencies:
            latencies.sort()
            p95 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.95))]
            print(f"\nCommitted move -> Bob's screen shows it ({len(latencies)} moves): "
                  f"median {statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms, "
                  f"max {latencies[-1]:.0f} ms")
        browser.close()


def _cookie(page, base: str) -> str:
    return "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies(base))


if __name__ == "__main__":
    main()
