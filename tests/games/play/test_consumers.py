"""Socket consumers: every viewer gets its own fragments, stamped with the version."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from socket_support import (
    TIMEOUT,
    board_message,
    connect,
    hand_markers,
    is_nav,
    nothing_but_nav,
    play_first_legal,
    setup_game,
)

from config.asgi import application
from games.boards import get_board
from games.core.selectors import current_state, legal_actions_json
from games.core.services import submit_action
from games.engines import get_engine
from games.live import broadcast
from games.live.broadcast import game_group
from games.live.fragment_cache import split_fragments
from games.models import Game, Variant
from games.routing import websocket_urlpatterns
from games.tables.services import create_game, join_game
from games.variants.services import load_default_variants

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def short_lived_connections(monkeypatch):
    """Threads of database_sync_to_async close their connections after each call, so the
    test database can be dropped at the end (CI sets a persistent CONN_MAX_AGE)."""
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


async def test_each_seat_receives_its_own_view_after_a_move():
    game, (ann, bob, eve) = await setup_game()
    path = f"/ws/games/{game.pk}/"
    sockets = {
        "ann": await connect(path, ann),
        "bob": await connect(path, bob),
        "eve": await connect(path, eve),
        "anon": await connect(path, AnonymousUser()),
    }
    await play_first_legal(game, ann, 0, "move-1")
    messages = {name: await board_message(s) for name, s in sockets.items()}

    ann_tiles, bob_tiles = await hand_markers(game, 0), await hand_markers(game, 1)
    for html in messages.values():
        assert 'data-version="1"' in html
        assert 'id="game-version" value="1"' in html
        # Status and the board's fragments swapped whole; the log gets the new move appended.
        assert html.count('hx-swap-oob="true"') == len(get_board("newhaven").fragments) + 1
        assert html.count('hx-swap-oob="afterbegin:#game-log"') == 1
        assert re.findall(r'data-seq="(\d+)"', html) == ["1"]
        assert "<html" not in html
    assert set(re.findall(r'data-hand-tile="([^"]*)"', messages["ann"])) == ann_tiles
    assert set(re.findall(r'data-hand-tile="([^"]*)"', messages["bob"])) == bob_tiles
    # Ann is building now: she is offered End building; Bob is offered nothing.
    assert "end_build" in messages["ann"]
    assert "data-action" not in messages["bob"]
    for spectator in ("eve", "anon"):
        assert "data-hand-tile" not in messages[spectator]
        assert "data-private-building" not in messages[spectator]
        assert "Spectators see no hand" in messages[spectator]
    for s in sockets.values():
        assert await nothing_but_nav(s)
        await s.disconnect()


async def test_versions_follow_the_moves():
    game, (ann, bob, _eve) = await setup_game()
    socket = await connect(f"/ws/games/{game.pk}/", bob)
    await play_first_legal(game, ann, 0, "m1")
    assert 'data-version="1"' in await board_message(socket)

    @database_sync_to_async
    def end_build():
        game.refresh_from_db()
        return submit_action(game=game, user=ann, seat=0, action={"type": "end_build"},
                             version=game.version, key="m2")

    await end_build()
    assert 'data-version="2"' in await board_message(socket)
    await socket.disconnect()


async def test_unknown_game_is_refused():
    _game, (ann, _bob, _eve) = await setup_game()
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/games/999999/")
    communicator.scope["user"] = ann
    await communicator.connect(timeout=TIMEOUT)
    # Closed with a code the client can read (a refused handshake would hide it).
    assert await communicator.receive_output(timeout=TIMEOUT) == {
        "type": "websocket.close", "code": 4404}


async def test_waiting_table_pushes_seat_changes():
    @database_sync_to_async
    def open_table():
        load_default_variants(games=["newhaven"])
        ann = get_user_model().objects.create_user(username="ann", password="x-unused-Pw9")
        bob = get_user_model().objects.create_user(username="bob", password="x-unused-Pw9")
        variant = Variant.objects.get(game="newhaven", name="standard")
        game = create_game(creator=ann, variant=variant,
                           seats=[{"type": "human"}] * 3)
        return game, ann, bob

    game, ann, bob = await open_table()
    socket = await connect(f"/ws/games/{game.pk}/", ann)
    await database_sync_to_async(join_game)(game=game, user=bob)
    html = await board_message(socket)
    assert 'id="table-waiting"' in html and "bob" in html
    await socket.disconnect()


async def test_lobby_socket_pushes_open_tables():
    @database_sync_to_async
    def prepare():
        load_default_variants(games=["newhaven"])
        return (get_user_model().objects.create_user(username="ann", password="x-unused-Pw9"),
                get_user_model().objects.create_user(username="bob", password="x-unused-Pw9"))

    ann, bob = await prepare()
    socket = await connect("/ws/lobby/", bob)

    @database_sync_to_async
    def open_table():
        variant = Variant.objects.get(game="newhaven", name="standard")
        return create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)

    game = await open_table()
    html = await board_message(socket)
    assert 'id="open-tables"' in html and 'hx-swap-oob="true"' in html
    assert f'data-join="{game.pk}"' in html
    await socket.disconnect()


async def test_full_stack_with_session_cookie():
    """Through config.asgi: origin check, session auth, routing."""
    from django.conf import settings
    from django.test import Client


    game, (ann, _bob, _eve) = await setup_game()

    @database_sync_to_async
    def login_cookie():
        client = Client()
        client.force_login(ann)
        return client.cookies[settings.SESSION_COOKIE_NAME].value

    session = await login_cookie()
    communicator = WebsocketCommunicator(
        application, f"/ws/games/{game.pk}/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost"),
                 (b"cookie", f"{settings.SESSION_COOKIE_NAME}={session}".encode())],
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    await play_first_legal(game, ann, 0, "full-1")
    html = await board_message(communicator)
    assert 'data-version="1"' in html
    assert "data-hand-tile" in html  # recognised as Ann, seat 0
    await communicator.disconnect()


@database_sync_to_async
def play_random_step(game, users, rng, step):
    """One uniformly random legal action by whoever is to move; None once the game is over."""
    game.refresh_from_db()
    if not game.to_move:
        return None
    seat = game.to_move[0]
    action = rng.choice(legal_actions_json(game, seat))
    submit_action(game=game, user=users[seat], seat=seat, action=action,
                  version=game.version, key=f"sweep-{step}")
    game.refresh_from_db()
    view = [get_engine("newhaven").observe(current_state(game), s)["hand"] for s in (0, 1)]
    return game.version, [
        (
            {",".join(t["squares"]) for t in hand["tiles"]},
            {f"{b['resource']}-{b['number']}" for b in hand["private_buildings"]},
        )
        for hand in view
    ]


async def test_no_hidden_information_in_socket_messages_over_an_opening():
    """Every message of the first 40 moves shows each socket its own hand and nobody
    else's (the whole game: the ``long`` test below; the leak property at positions over
    whole games: tests/security/test_indistinguishable.py)."""
    await _sockets_show_own_hands_only(limit=40)


@pytest.mark.long
async def test_no_hidden_information_in_socket_messages_over_a_whole_game():
    """Every message of a whole game shows each socket its own hand and nobody else's."""
    await _sockets_show_own_hands_only(limit=None)


async def _sockets_show_own_hands_only(*, limit: int | None) -> None:
    import random

    game, (ann, bob, eve) = await setup_game()
    path = f"/ws/games/{game.pk}/"
    sockets = [await connect(path, ann), await connect(path, bob), await connect(path, eve)]

    rng = random.Random(5)
    moves = 0
    # What each client shows: sockets send only the fragments that changed, so the
    # client's page is the fragments received so far, swapped in by id.
    screens: list[dict[str, str]] = [{} for _ in sockets]
    while (limit is None or moves < limit) and (
            result := await play_random_step(game, (ann, bob), rng, moves)) is not None:
        moves += 1
        version, hands = result
        for index, socket in enumerate(sockets):
            message = await board_message(socket)
            assert f'data-version="{version}"' in message
            for other in range(2):  # no message ever carries another seat's hand
                if other != index:
                    own = hands[index][0] if index < 2 else set()
                    for tile in hands[other][0] - own:
                        assert f'data-hand-tile="{tile}"' not in message, (moves, index)
            screens[index].update({f.id: f.html for f in split_fragments(message)})
            html = "".join(screens[index].values())
            tiles = set(re.findall(r'data-hand-tile="([^"]*)"', html))
            blind = set(re.findall(r'data-private-building="([^"]*)"', html))
            if index < 2:  # a seat: exactly its own hand tiles and blind draws
                assert tiles == hands[index][0], (moves, index)
                assert blind == hands[index][1], (moves, index)
            else:  # the spectator: no hand at all
                assert tiles == set() and blind == set(), moves
    assert moves == limit if limit else moves > 100  # the opening, or a whole game
    for socket in sockets:
        await socket.disconnect()


async def test_socket_closes_when_its_game_is_deleted():
    """A hint for a game that no longer exists closes the socket (4404) instead of
    leaving it open and silent."""
    game, (ann, _bob, _eve) = await setup_game()
    socket = await connect(f"/ws/games/{game.pk}/", ann)
    await database_sync_to_async(Game.objects.filter(pk=game.pk).delete)()
    await database_sync_to_async(broadcast.game_updated)(game.pk, 99)
    output = await socket.receive_output(timeout=TIMEOUT)
    assert output == {"type": "websocket.close", "code": 4404}


async def test_invite_token_only_reaches_seated_sockets():
    """The waiting-table fragment pushed to a spectator carries no invite link."""

    @database_sync_to_async
    def open_table():
        load_default_variants(games=["newhaven"])
        users = [get_user_model().objects.create_user(username=n, password="x-unused-Pw9")
                 for n in ("ann", "bob", "eve")]
        variant = Variant.objects.get(game="newhaven", name="standard")
        game = create_game(creator=users[0], variant=variant, seats=[{"type": "human"}] * 3)
        return game, users

    game, (ann, bob, eve) = await open_table()
    path = f"/ws/games/{game.pk}/"
    sockets = {"ann": await connect(path, ann), "eve": await connect(path, eve),
               "anon": await connect(path, AnonymousUser())}
    await database_sync_to_async(join_game)(game=game, user=bob)
    messages = {name: await board_message(s) for name, s in sockets.items()}
    assert game.invite_token in messages["ann"]
    for name in ("eve", "anon"):
        assert 'id="table-waiting"' in messages[name]
        assert game.invite_token not in messages[name], name
    for s in sockets.values():
        await s.disconnect()


async def test_a_push_appends_the_log_from_the_version_before_its_hint():
    """The log part of a push follows the version before the hint's (``data-since``), even
    when the game has moved on since: the page that showed it appends, without a gap."""
    from channels.layers import get_channel_layer

    game, (ann, bob, _eve) = await setup_game()
    socket = await connect(f"/ws/games/{game.pk}/", bob)
    await play_first_legal(game, ann, 0, "a1")
    first = await board_message(socket)
    assert 'data-since="0"' in first and re.findall(r'data-seq="(\d+)"', first) == ["1"]

    @database_sync_to_async
    def end_build():
        game.refresh_from_db()
        return submit_action(game=game, user=ann, seat=0, action={"type": "end_build"},
                             version=game.version, key="a2")

    await end_build()
    second = await board_message(socket)
    assert 'data-since="1"' in second and re.findall(r'data-seq="(\d+)"', second) == ["2"]
    # A late hint for version 1, rendered at version 2: both moves, following version 0.
    await get_channel_layer().group_send(
        game_group(game.pk), {"type": "game.updated", "game_id": game.pk, "version": 1}
    )
    late = await board_message(socket)
    assert 'data-version="2"' in late and 'data-since="0"' in late
    assert re.findall(r'data-seq="(\d+)"', late) == ["2", "1"]
    await socket.disconnect()


async def test_the_nav_count_follows_my_games_on_any_page():
    """When a game of mine changes, every socket I have open (a game's, the lobby's) sends
    the nav's count of games waiting for me, and only when it changed; others get nothing."""
    game, (ann, bob, eve) = await setup_game()  # Ann (seat 0) to move
    lobby = {name: await connect("/ws/lobby/", user)
             for name, user in (("ann", ann), ("bob", bob), ("eve", eve))}
    bob_at_table = await connect(f"/ws/games/{game.pk}/", bob)

    await play_first_legal(game, ann, 0, "n1")  # still Ann's turn: she builds now
    for s in lobby.values():
        assert await s.receive_nothing(timeout=0.2)
    assert 'data-version="1"' in await bob_at_table.receive_from(timeout=TIMEOUT)
    assert await bob_at_table.receive_nothing(timeout=0.2)

    @database_sync_to_async
    def end_build():
        game.refresh_from_db()
        return submit_action(game=game, user=ann, seat=0, action={"type": "end_build"},
                             version=game.version, key="n2")

    await end_build()  # Bob's turn now
    ann_nav = await lobby["ann"].receive_from(timeout=TIMEOUT)
    assert is_nav(ann_nav) and 'id="turn-count"' not in ann_nav
    bob_nav = await lobby["bob"].receive_from(timeout=TIMEOUT)
    assert is_nav(bob_nav) and 'hx-swap-oob="true"' in bob_nav
    assert re.search(r'id="turn-count"[^>]*>1</span>', bob_nav)
    assert 'data-version="2"' in await bob_at_table.receive_from(timeout=TIMEOUT)
    assert await bob_at_table.receive_from(timeout=TIMEOUT) == bob_nav
    assert await lobby["eve"].receive_nothing(timeout=0.2)
    for s in [*lobby.values(), bob_at_table]:
        assert await s.receive_nothing(timeout=0.1)
        await s.disconnect()


async def test_a_socket_opened_after_a_change_sends_the_count_as_it_is_now():
    """The page was rendered before Ann's move made it Bob's turn, and his socket opened
    after it: the hint of that move reached no socket of his, so the socket's first
    message is the count as it is now."""
    game, (ann, bob, _eve) = await setup_game()
    await play_first_legal(game, ann, 0, "c1")

    @database_sync_to_async
    def end_build():
        game.refresh_from_db()
        return submit_action(game=game, user=ann, seat=0, action={"type": "end_build"},
                             version=game.version, key="c2")

    await end_build()
    socket = await connect("/ws/lobby/", bob)
    assert re.search(r'id="turn-count"[^>]*>1</span>', socket.nav)
    await socket.disconnect()


async def test_a_seat_push_after_a_move_reads_neither_seat_nor_session(monkeypatch):
    """Issue 23: a signed-in socket made three queries per push (session, user, seat).
    A move leaves the seats as they were, and the session was checked moments ago: the
    pushes after the first look up neither again (a seat change or a deleted session
    still makes them look: the other tests of this module)."""
    from games.play.consumers import GameConsumer

    lookups = {"seat": 0, "session": 0}
    member_kind, still_valid = GameConsumer._member_kind, GameConsumer.session_still_valid

    def counted_kind(self):
        lookups["seat"] += 1
        return member_kind(self)

    def counted_session(self):
        lookups["session"] += 1
        return still_valid(self)

    monkeypatch.setattr(GameConsumer, "_member_kind", counted_kind)
    monkeypatch.setattr(GameConsumer, "session_still_valid", counted_session)
    game, (ann, bob, _eve) = await setup_game()
    socket = await connect(f"/ws/games/{game.pk}/", ann)
    await play_first_legal(game, ann, 0, "m1")
    assert "data-version" in await board_message(socket)
    after_first = dict(lookups)
    await play_any_legal(game, {0: ann, 1: bob}, "m2")
    assert 'data-version="2"' in await board_message(socket)
    assert lookups == after_first and after_first["seat"] == 1
    await socket.disconnect()


@database_sync_to_async
def play_any_legal(game, users, key):
    game.refresh_from_db()
    seat = game.to_move[0]
    action = legal_actions_json(game, seat)[0]
    return submit_action(game=game, user=users[seat], seat=seat, action=action,
                         version=game.version, key=key)


async def test_one_read_of_the_game_per_hint_whatever_the_viewer_kinds():
    """Issue 23: each viewer kind (spectators, each seat) read the game again for the
    same move; now the renders of one hint share one read in the process."""
    from games.play.consumers import hint_loads

    game, (ann, bob, _eve) = await setup_game()
    path = f"/ws/games/{game.pk}/"
    sockets = [await connect(path, AnonymousUser()), await connect(path, ann),
               await connect(path, bob)]
    before = hint_loads.loads
    await play_first_legal(game, ann, 0, "m1")
    for socket in sockets:
        assert 'data-version="1"' in await board_message(socket)
    assert hint_loads.loads - before == 1
    for socket in sockets:
        await socket.disconnect()


async def test_a_socket_sends_what_changed_since_the_page_it_belongs_to():
    """The page's address for its socket says which version and chat it shows; the socket
    sends what changed between that render and its opening (a move, a message), and
    nothing when the page is up to date (the page no longer refetches on first open)."""
    from games.chat import services as chat
    from games.chat.selectors import chat_mark

    game, (ann, bob, _eve) = await setup_game()
    mark = await database_sync_to_async(chat_mark)(game)
    assert mark == "0-0"
    # Up to date: nothing but the nav's count.
    socket = await connect(f"/ws/games/{game.pk}/?v=0&chat={mark}", bob)
    assert await nothing_but_nav(socket)
    await socket.disconnect()

    # A move and a message after the page rendered version 0 and an empty chat.
    await play_first_legal(game, ann, 0, "early")
    await database_sync_to_async(chat.post_message)(game=game, user=ann, text="hello early")
    socket = await connect(f"/ws/games/{game.pk}/?v=0&chat={mark}", bob)
    html = await board_message(socket)
    # The log whole (no data-since): the page replaces its own.
    assert 'data-version="1"' in html and "data-since" not in html
    assert 'id="log-panel"' in html and re.findall(r'data-seq="(\d+)"', html) == ["1"]
    if "hello early" not in html:  # the log may come in its own message
        html = await board_message(socket)
    assert '<ol id="chat-log"' in html and "hello early" in html
    assert await nothing_but_nav(socket)
    await socket.disconnect()

    # A page of version 1 with the message already shown: nothing to send.
    mark = await database_sync_to_async(chat_mark)(game)
    socket = await connect(f"/ws/games/{game.pk}/?v=1&chat={mark}", AnonymousUser())
    assert await socket.receive_nothing(timeout=0.3)
    # An address that says nothing (or nonsense) sends nothing either: hints only.
    for query in ("", "?v=x&chat=", "?v=99999999999999"):
        other = await connect(f"/ws/games/{game.pk}/{query}", AnonymousUser())
        assert await other.receive_nothing(timeout=0.3)
        await other.disconnect()
    await socket.disconnect()
