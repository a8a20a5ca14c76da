"""Measure replay step requests on long games: the API step, the HTMX step, the whole page.

    .venv/bin/python scripts/measure_replay.py [--requests 40] [--seed 1]

In-process (Django's test client, no network), on a throw-away SQLite database and the
test settings' cache (in-memory; set ``TEST_CACHE_REDIS_URL=redis://127.0.0.1:6379/N`` and
``REDIS_URL`` to measure with Redis).  For each game -- New Haven and Nouvelle-France with
four players, played to the end by random legal actions, the longest games they have -- it
requests ``--requests`` random steps from random perspectives and prints the CPU time
(median, p95, max; steady on a busy machine) and the median wall time in milliseconds of:

* ``api cold``: ``GET /api/games/{id}/replay/?step=K&seat=S`` folding from the deal (the
  cache's answers are ignored);
* ``api warm``: the same with the state checkpoints and the move list in the cache;
* ``htmx``: the replay page's fragments for "next" (what stepping costs), warm;
* ``page``: the whole replay page (a shared link), warm.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time

from benchsetup import setup_django


def long_game(name: str, players: int, seed: int):
    """A finished random game stored as rows (seats: AI)."""
    from django.utils import timezone

    from games.engines import get_engine
    from games.models import Game, Move, Seat

    engine = get_engine(name)
    variant = engine.default_variants()["standard"]
    rng = random.Random(seed)
    state = engine.new_game(variant, players, seed)
    rows = []
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        action = rng.choice(engine.legal_actions(state, seat))
        rows.append((seat, engine.action_to_json(action), engine.describe_action(state, action)))
        state = engine.apply(state, seat, action)
    now = timezone.now()
    game = Game.objects.create(
        game_name=name, variant_name="standard", variant_data=variant, num_players=players,
        seed=seed, status=Game.Status.FINISHED, version=len(rows), started_at=now,
        finished_at=now, state_json=engine.state_to_json(state), to_move=[],
        result={"scores": engine.scores(state), "winners": engine.winners(state)},
    )
    for index in range(players):
        Seat.objects.create(game=game, index=index, ai_level="random", joined_at=now)
    Move.objects.bulk_create(
        Move(game=game, seq=i, seat=seat, action=action, key=f"k{i}", event=event)
        for i, (seat, action, event) in enumerate(rows, start=1)
    )
    return game


WALL: list[float] = []


def timed(client, url: str, **headers) -> float:
    """The CPU time of one request in ms (steady on a busy machine: the request runs in this
    one thread); its wall time goes to ``WALL``."""
    start, wall = time.process_time(), time.perf_counter()
    response = client.get(url, **headers)
    elapsed = (time.process_time() - start) * 1000
    WALL.append((time.perf_counter() - wall) * 1000)
    if response.status_code != 200:
        raise SystemExit(f"{url}: {response.status_code}")
    return elapsed


def summary(label: str, values: list[float], wall: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return (f"  {label:<9} cpu median {statistics.median(values):6.1f} ms  p95 {p95:6.1f} ms"
            f"  max {values[-1]:6.1f} ms   (wall median {statistics.median(wall):6.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(tmp)
        from django.test import Client

        from games.replay import selectors as replays

        client = Client()
        rng = random.Random(args.seed)
        for name in ("newhaven", "nouvellefrance"):
            game = long_game(name, 4, args.seed)
            steps = game.moves.count()
            picks = [(rng.randint(0, steps), rng.choice(["0", "1", "2", "3", "spectator",
                                                          "all"]))
                     for _ in range(args.requests)]
            api = f"/api/games/{game.pk}/replay/"
            page = f"/games/{game.pk}/replay/"
            real_get_many = replays.cache_get_many
            replays.cache_get_many = lambda keys: {}
            timed(client, f"{api}?step=0")  # warm up imports and templates
            WALL.clear()
            cold = [timed(client, f"{api}?step={k}&seat={s}") for k, s in picks]
            replays.cache_get_many = real_get_many
            for k in range(0, steps + 1, replays.CHECKPOINT_EVERY):  # fill the checkpoints
                timed(client, f"{api}?step={k}&seat=all")
            walls = [WALL[:]]
            runs = []
            for path, headers in ((api, {}), (page, {"HTTP_HX_REQUEST": "true"}), (page, {})):
                WALL.clear()
                # HTMX: "next" from step k - 1 of the same perspective, as the page sends it.
                runs.append([timed(client, f"{path}?step={k}&seat={s}&shown={max(k - 1, 0)}:"
                                           f"{s}:{steps}", **headers) for k, s in picks])
                walls.append(WALL[:])
            warm, htmx, whole = runs
            print(f"{name}, 4 players, {steps} moves, {args.requests} requests each:")
            for (label, values), wall in zip(
                    (("api cold", cold), ("api warm", warm), ("htmx", htmx), ("page", whole)),
                    walls, strict=True):
                print(summary(label, values, wall))


if __name__ == "__main__":
    main()
