"""CPU of what a committed move costs the web tier: the renders pushed to sockets.

    .venv/bin/python scripts/measure_push.py [--game newhaven] [--moves 60] [--renders 3]
        [--profile] [--players 2]

A fixed, deterministic workload (a throw-away SQLite database, the test settings, random
legal moves from ``--seed``): two people play ``--moves`` moves through
``games.core.services.submit_action``; after each move the fragments are rendered ``--renders``
times for each viewer kind a socket can have, exactly as the socket consumer does
(``games.core.selectors.get_game`` + ``games.play.page.render_fragments`` + the split into
fragments):

* ``anon``: an anonymous spectator (every spectator socket of the load test);
* ``seat``: the player who just moved (their ``observe``, their forms);

and the API read a person's client makes before each move (``GET /api/games/{id}/``,
token authentication). It prints the CPU milliseconds (``time.process_time``) per render
of each kind.  ``--profile`` prints the top of a cProfile of the renders instead.

CPU time is noisy on a shared machine; instruction counts are not.  Compare two
checkouts by their instructions per render::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python scripts/measure_push.py --moves 30 --renders 1
    # minus the same with --renders 0 (the set-up and the moves), divided by 30 moves
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time

from benchsetup import setup_django

#: The random idempotency keys of forms (uuid4 hex): blanked in ``--dump``.
KEY = re.compile(r"\b[0-9a-f]{32}\b")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="newhaven")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--renders", type=int, default=3,
                        help="renders of each kind per move (0: the set-up and moves only)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile the renders")
    parser.add_argument("--only", choices=["anon", "seat", "api read"],
                        help="measure one kind only (for instruction counts)")
    parser.add_argument("--api-moves", action="store_true",
                        help="make the moves through the API (POST, measured too)")
    parser.add_argument("--dump", metavar="FILE",
                        help="write every render's HTML (idempotency keys blanked) to FILE, "
                             "to check that a change renders the same")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        setup_django(tmp)
        return run(args)


def run(args: argparse.Namespace) -> int:
    from django.contrib.auth.models import AnonymousUser
    from django.test import Client
    from django.utils import translation
    from rest_framework.authtoken.models import Token

    from accounts.services import register_user
    from games.core.selectors import get_game, legal_actions_json
    from games.core.services import submit_action
    from games.live.fragment_cache import split_fragments
    from games.models import Game, Variant
    from games.play.page import render_fragments
    from games.tables.services import create_game, join_game
    from games.variants.services import load_default_variants

    load_default_variants(games=[args.game])
    variant = Variant.objects.get(game=args.game, name=args.variant)
    users = [register_user(username=f"measure{i}", password=f"Measure-pw-{i}-47!")
             for i in range(args.players)]
    game = create_game(creator=users[0], variant=variant,
                       seats=[{"type": "human"}] * args.players)
    Game.objects.filter(pk=game.pk).update(seed=args.seed)  # the same deal every run
    for seat, user in enumerate(users[1:], start=1):
        join_game(game=game.pk, user=user, seat=seat)
    client = Client()
    tokens = {u.pk: Token.objects.get_or_create(user=u)[0].key for u in users}
    rng = random.Random(args.seed)
    anon = AnonymousUser()
    csrf = "x" * 32

    dump = open(args.dump, "w") if args.dump else None  # noqa: SIM115

    def render(user, since: int) -> None:
        current = get_game(game.pk)
        with translation.override("en"):
            html = render_fragments(current, user, csrf_token=csrf if user else "",
                                    base_url="", log_since=since)
        split_fragments(html)
        if dump is not None:
            dump.write(KEY.sub("KEY", html) + "\n")

    def read(user) -> None:
        response = client.get(f"/api/games/{game.pk}/",
                              HTTP_AUTHORIZATION=f"Token {tokens[user.pk]}")
        assert response.status_code == 200, response.status_code

    kinds = {"anon": lambda mover, since: render(anon, since),
             "seat": lambda mover, since: render(mover, since),
             "api read": lambda mover, since: read(mover)}
    if args.only:
        kinds = {args.only: kinds[args.only]}
    spent = dict.fromkeys(kinds, 0.0)
    counts = dict.fromkeys(kinds, 0)
    for call in kinds.values():  # warm: templates compiled, caches filled
        call(users[0], 0)

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    moves = 0
    game = Game.objects.get(pk=game.pk)
    while moves < args.moves and game.status == Game.Status.RUNNING:
        seat = game.to_move[0]
        mover = users[seat]
        action = rng.choice(legal_actions_json(game, seat))
        if args.api_moves:  # the API's POST, measured as a kind of its own
            started = time.process_time()
            response = client.post(
                f"/api/games/{game.pk}/actions/", content_type="application/json",
                data={"action": action, "version": game.version, "key": f"m{moves}"},
                HTTP_AUTHORIZATION=f"Token {tokens[mover.pk]}")
            assert response.status_code == 200, response.content
            spent["api move"] = spent.get("api move", 0.0) + time.process_time() - started
            counts["api move"] = counts.get("api move", 0) + 1
            game = Game.objects.get(pk=game.pk)
        else:
            game = submit_action(game=game.pk, user=mover, seat=seat, action=action,
                                 version=game.version, key=f"m{moves}")
        moves += 1
        since = game.version - 1
        for _ in range(args.renders):
            for kind, call in kinds.items():
                if profiler is not None:
                    profiler.enable()
                started = time.process_time()
                call(mover, since)
                spent[kind] += time.process_time() - started
                counts[kind] += 1
                if profiler is not None:
                    profiler.disable()

    print(f"{args.game}/{args.variant}, {args.players} players: {moves} moves, "
          f"{args.renders} render(s) of each kind per move")
    for kind in counts:
        if counts[kind]:
            print(f"  {kind:9s} {spent[kind] * 1000 / counts[kind]:7.2f} CPU-ms per call")
    if profiler is not None:
        import pstats

        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(45)
    return 0


if __name__ == "__main__":
    sys.exit(main())
