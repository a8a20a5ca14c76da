"""After an undo every viewer sees the rolled-back position: the sockets get the log whole
(not appended to), and replays of the game so far fold the log as it stands now."""

from __future__ import annotations

import random
import re

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.core.cache import cache
from socket_support import board_message, connect, nothing_but_nav

from games.core.selectors import current_state, legal_actions_json, replayed_state
from games.core.services import locked_game, rewind_moves, submit_action
from games.models import Game, Move, Variant
from games.practice.services import undo_last_move
from games.replay.selectors import replay_step
from games.tables.services import create_game
from games.variants.services import load_default_variants


def practice(user) -> Game:
    load_default_variants(games=["newhaven"])
    variant = Variant.objects.get(game="newhaven", name="standard")
    game = create_game(creator=user, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    game.refresh_from_db()
    return game


@pytest.fixture(autouse=True)
def short_lived_connections(monkeypatch):
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_undo_sends_every_socket_the_whole_log():
    @database_sync_to_async
    def setup():
        users = [get_user_model().objects.create_user(username=n, password="x-unused-Pw9")
                 for n in ("ann", "eve")]
        return practice(users[0]), users

    @database_sync_to_async
    def harvest(game, ann):
        game.refresh_from_db()
        action = next(a for a in legal_actions_json(game, 0) if a["type"] == "harvest")
        submit_action(game=game, user=ann, seat=0, action=action, version=game.version,
                      key="m1")

    @database_sync_to_async
    def undo(game, ann):
        undo_last_move(game=game, user=ann, version=1, key="u1")

    game, (ann, eve) = await setup()
    path = f"/ws/games/{game.pk}/"
    sockets = [await connect(path, ann), await connect(path, eve)]
    await harvest(game, ann)  # building now: still ann's turn, the AI waits
    for socket in sockets:
        message = await board_message(socket)
        assert 'hx-swap-oob="afterbegin:#game-log"' in message
        assert re.findall(r'data-seq="(\d+)"', message) == ["1"]
    await undo(game, ann)
    for socket in sockets:
        message = await board_message(socket)
        assert 'data-version="2"' in message
        # The whole log replaces the page's (which still shows the move taken back).
        assert '<section id="log-panel"' in message and "log-append" not in message
        assert re.findall(r'data-seq="(\d+)"', message) == []
        assert await nothing_but_nav(socket)
        await socket.disconnect()


@pytest.mark.django_db
def test_a_replay_of_the_game_so_far_folds_the_log_as_it_stands(make_user) -> None:
    """Checkpoints and log lines cached before a rewind are not those of the game after it."""
    cache.clear()
    ann = make_user("ann")
    game = practice(ann)
    rng = random.Random(3)

    def play_until(count: int) -> None:
        while Move.objects.filter(game=game).count() < count:
            game.refresh_from_db()
            seat = game.to_move[0]
            action = rng.choice(legal_actions_json(game, seat))
            submit_action(game=game, user=None if seat else ann, seat=seat, action=action,
                          version=game.version, key=f"k{game.version}", ai=bool(seat))

    play_until(20)
    game.refresh_from_db()
    replay_step(game, ann, step=20, seat="0")  # caches the checkpoint of step 16
    # Cut back to move 10 and play on differently, past the checkpoint again.
    cut = Move.objects.filter(game=game).order_by("seq")[9]
    locked = locked_game(game)
    rewind_moves(game=locked, seats=list(locked.seats.all()), seat=cut.seat,
                 from_seq=cut.seq, version=locked.version, key="r1")
    rng.seed(99)
    play_until(20)
    game.refresh_from_db()
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    for step in (16, 17, 20):
        state = game.engine.new_game(game.variant_data, game.num_players, game.seed)
        for move in moves[:step]:
            state = game.engine.apply(state, move.seat, game.engine.action_from_json(move.action))
        got = replay_step(game, ann, step=step, seat="0")
        assert got.view == game.engine.observe(state, 0), step
    assert current_state(game) == replayed_state(game)
