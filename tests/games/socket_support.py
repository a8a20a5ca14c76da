"""What the socket tests share: a game of two, a socket of a viewer, the nav's messages."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore

from games.core.selectors import current_state, legal_actions_json
from games.core.services import submit_action
from games.engines import get_engine
from games.models import Variant
from games.routing import websocket_urlpatterns
from games.tables.services import create_game, join_game
from games.variants.services import load_default_variants

TIMEOUT = 5



@database_sync_to_async
def setup_game():
    load_default_variants(games=["newhaven"])
    users = [get_user_model().objects.create_user(username=n, password="x-unused-Pw9")
             for n in ("ann", "bob", "eve")]
    variant = Variant.objects.get(game="newhaven", name="standard")
    game = create_game(creator=users[0], variant=variant,
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=users[1])
    game.refresh_from_db()
    return game, users



@database_sync_to_async
def play_first_legal(game, user, seat, key):
    game.refresh_from_db()
    action = next(a for a in legal_actions_json(game, seat) if a["type"] == "harvest")
    return submit_action(game=game, user=user, seat=seat, action=action,
                         version=game.version, key=key)



@database_sync_to_async
def hand_markers(game, seat):
    game.refresh_from_db()
    view = get_engine("newhaven").observe(current_state(game), seat)
    return {",".join(t["squares"]) for t in view["hand"]["tiles"]}



@database_sync_to_async
def logged_in_session(user):
    """A real session of ``user`` (sockets re-check it before every push)."""
    store = SessionStore()
    if user.is_authenticated:
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.save()
    return store



def is_nav(message: str) -> bool:
    """The nav's count of games waiting for the viewer (``turns.changed``), alone."""
    return message.lstrip().startswith("<a ") and 'id="nav-turns"' in message



async def board_message(socket) -> str:
    """The next message that is not the nav's count (a seated viewer gets both)."""
    while is_nav(message := await socket.receive_from(timeout=TIMEOUT)):
        pass
    return message



async def nothing_but_nav(socket) -> bool:
    """True when nothing but nav counts is waiting on ``socket``."""
    while not await socket.receive_nothing(timeout=0.1):
        if not is_nav(await socket.receive_from(timeout=TIMEOUT)):
            return False
    return True



async def connect(path, user):
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = user
    communicator.scope["session"] = await logged_in_session(user)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    if user.is_authenticated:  # a signed-in socket first sends the nav's count as it is now
        communicator.nav = await communicator.receive_from(timeout=TIMEOUT)
        assert is_nav(communicator.nav)
    return communicator
