"""Measure the table chat and the "your turn" count: what they add to a page and a push.

    .venv/bin/python scripts/measure_chat.py [--messages 100] [--games 50] [--repeat 200]

In-process, on a throw-away SQLite database (test settings).  Prints the CPU time in
milliseconds (median and p95 over ``--repeat`` runs) of:

* ``chat push``: one viewer's chat log as a socket push renders it (``render_chat``) with
  ``--messages`` messages at the table and a few mutes;
* ``chat post``: one message through the service (the rate limit, the row, the hint);
* ``turn count``: the nav's count of games waiting for a person seated at ``--games``
  running tables, and the number of queries it makes.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from benchsetup import setup_django


def timed(fn, repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        samples.append((time.process_time() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(tmp)
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from games.chat import services as chat
        from games.chat.selectors import render_chat
        from games.models import ChatMessage, Game, Seat
        from games.turns.selectors import waiting_count
        from games.variants.services import load_default_variants

        settings.CHAT_RATE_LIMIT = 10**9
        load_default_variants(games=["newhaven"])
        users = [get_user_model().objects.create_user(f"p{i}", password="x-unused-Pw9")
                 for i in range(6)]
        game = Game.objects.create(game_name="newhaven", variant_name="standard",
                                   variant_data={}, num_players=2,
                                   status=Game.Status.RUNNING, to_move=[0])
        ChatMessage.objects.bulk_create([
            ChatMessage(game=game, author=users[i % 6], author_name=users[i % 6].username,
                        text=f"message {i} <with> & some text")
            for i in range(args.messages)
        ])
        chat.mute(user=users[0], muted_id=users[5].pk)
        push = timed(lambda: render_chat(game, users[0], csrf_token="t" * 64), args.repeat)
        post = timed(lambda: chat.post_message(game=game, user=users[1], text="hello"),
                     args.repeat)
        for i in range(args.games):
            table = Game.objects.create(game_name="newhaven", variant_name="standard",
                                        variant_data={}, num_players=2,
                                        status=Game.Status.RUNNING, to_move=[i % 2])
            Seat.objects.create(game=table, index=0, user=users[2])
            Seat.objects.create(game=table, index=1, user=users[3])
        count = timed(lambda: waiting_count(users[2]), args.repeat)
        with CaptureQueriesContext(connection) as queries:
            waiting = waiting_count(users[2])
        print(f"chat push  ({args.messages} messages): median {push[0]:.2f} ms, "
              f"p95 {push[1]:.2f} ms (CPU)")
        print(f"chat post: median {post[0]:.2f} ms, p95 {post[1]:.2f} ms (CPU)")
        print(f"turn count ({args.games} running games, {waiting} waiting): median "
              f"{count[0]:.2f} ms, p95 {count[1]:.2f} ms (CPU), {len(queries)} query")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
