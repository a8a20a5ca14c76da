"""How long the rules editor's simulation check takes on one Celery worker.

    REDIS_URL=redis://127.0.0.1:6379/7 python scripts/simulation_timing.py newhaven \\
        --variant standard --games 200 --bots greedy

Sets up a throwaway SQLite database (migrate, load_variants), starts one worker as
``make run`` does (``--concurrency 1``), queues a check of the variant's draft through
the editor's service (the comparison run of the published version is left out) and
prints the wall-clock time from the request to the finished report, the chunks the
worker played it in, and the report's own figures.  Needs a Redis for the broker.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--bots", default="greedy")
    parser.add_argument("--players", type=int, nargs="*", help="default: every count")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not os.environ.get("REDIS_URL"):
        parser.error("set REDIS_URL (a Redis database of your own) for the broker")

    tmp = Path(tempfile.mkdtemp(prefix="colonia-simtime-"))
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base",
           "SQLITE_PATH": str(tmp / "db.sqlite3"), "COLONIA_VAR_DIR": str(tmp),
           "DJANGO_DEBUG": "false", "LOG_LEVEL": "WARNING"}
    env.pop("DATABASE_URL", None)
    os.environ.update(env)
    for command in (["migrate", "--noinput", "-v0"], ["load_variants", args.game]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "WARNING",
         "--concurrency", "1", "--hostname", f"simtime-{os.getpid()}@%h"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.db import transaction

        from games.editor import services
        from games.models import Simulation, Variant

        user = get_user_model().objects.create_user("timer", is_staff=True)
        variant = Variant.objects.get(game=args.game, name=args.variant)
        services.start_draft(variant=variant, user=user)
        time.sleep(3)  # the worker connects to the broker
        started = time.perf_counter()
        with transaction.atomic():
            sim = services.request_simulation(
                variant=variant, user=user, games=args.games, bots=args.bots.split(","),
                players=args.players or None, seed=args.seed, compare=False)
        while True:
            sim.refresh_from_db()
            if sim.finished:
                break
            if worker.poll() is not None:
                raise SystemExit("the worker died")
            time.sleep(0.2)
        elapsed = time.perf_counter() - started
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker_cpu = (cpu_after.ru_utime + cpu_after.ru_stime
                  - cpu_before.ru_utime - cpu_before.ru_stime)
    if sim.status != Simulation.Status.DONE:
        raise SystemExit(f"simulation failed: {sim.error}")
    report = sim.report
    print(f"{args.game}/{args.variant}: {args.games} games, bots {args.bots}, "
          f"players {', '.join(map(str, sim.players))}, one worker (--concurrency 1)")
    print(f"wall clock   {elapsed:.1f} s  ({args.games / elapsed:.2f} games/s)")
    print(f"worker CPU   {worker_cpu:.1f} s  (wall clock > CPU when the machine is shared)")
    print(f"chunks       {sim.step}  (mean {elapsed / max(sim.step, 1):.2f} s each)")
    print(f"playing      {report['seconds']:.1f} s  (engine + bots, summed over chunks)")
    print(f"completed    {report['completed']}, errors {len(report['errors'])}")
    for players, r in sorted(report["by_players"].items(), key=lambda kv: int(kv[0])):
        turns = r["turns"]["mean"] if r.get("turns") else float("nan")
        print(f"  {players} players: {r['completed']} games, {turns:.1f} turns, "
              f"{r['seconds'] / max(r['games'], 1):.3f} s/game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
