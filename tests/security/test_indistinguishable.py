"""Hidden information: every output a viewer gets depends only on that viewer's ``observe``.

For random mid-game positions of both engines and every player count, a *twin* game is made
that the viewer cannot tell apart (``engine.determinize(state, viewer)``: same observation,
the hidden part resampled: other hands, bag or deck order, other seats' Huron knowledge).
Every output the viewer can ask for must then be byte-identical (modulo CSRF tokens and
nonces): the play page, its HTMX fragments, the socket push (``render_fragments``, what
``GameConsumer`` sends), the chat log, the replay page and fragments, the replay, export,
game and move APIs.  Any path that reads hidden state around ``observe`` changes a byte.

The replay folds the game from its seed; its last step is read from the replay's state
checkpoint, which the test fills with the real or the twin state (``state_at`` uses the
nearest checkpoint), so the replay's rendering is compared the same way.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.core.selectors import current_state, get_game
from games.core.services import submit_action
from games.models import Game, Variant
from games.play.page import render_fragments
from games.replay import selectors as replays
from games.replay.selectors import cache_key
from games.tables.services import create_game, join_game
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
#: Per-request randomness that is not game information.
NOISE = [
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*'), r"\1"),
    (re.compile(r'("X-CSRFToken": ?")[^"]*'), r"\1"),
    (re.compile(r'(csrf[-_]?token"? ?[:=] ?"?)[A-Za-z0-9]{32,}', re.I), r"\1"),
    (re.compile(r'nonce="[^"]*"'), 'nonce=""'),
    # A fresh idempotency key per rendered action form.
    (re.compile(r'(name="key" value=")[0-9a-f]{32}'), r"\1"),
    (re.compile(r'(<meta name="csrf-token" content=")[^"]*'), r"\1"),
]
#: Random plies before each comparison (mid-game for every variant and player count):
#: ``make test-long`` compares at both positions of every game and player count; the quick
#: profile at one of them, alternating over the parameters so both depths stay covered.
PLIES = (11, 31)


def clean(text: str) -> str:
    for pattern, repl in NOISE:
        text = pattern.sub(repl, text)
    return text


def start(name: str, players: int) -> tuple[Game, list[Any]]:
    load_default_variants(games=[name])
    variant = Variant.objects.get(game=name, name="standard")
    users = [get_user_model().objects.create_user(f"p{name[:3]}{i}", password="pw-unused-9x!")
             for i in range(players)]
    game = create_game(creator=users[0], variant=variant,
                                seats=[{"type": "human"}] * players)
    for user in users[1:]:
        join_game(game=game, user=user)
    return get_game(game.pk), users


def play(game: Game, users: list[Any], plies: int, rng: random.Random) -> Game:
    """``plies`` random moves; hidden-information moves (a Huron look) are preferred."""
    engine = game.engine
    for _ in range(plies):
        game = get_game(game.pk)
        if game.status != Game.Status.RUNNING:
            break
        state = current_state(game)
        seat = game.to_move[0]
        legal = engine.legal_actions(state, seat)
        peeks = [a for a in legal if isinstance(a, tuple) and a and a[0] in ("huron", "order")]
        action = rng.choice(peeks or legal)
        submit_action(game=game.pk, user=users[seat], seat=seat,
                               action=engine.action_to_json(action), version=game.version,
                               key=f"k{game.version}")
    return get_game(game.pk)


def outputs(game_id: int, user: Any, state_json: dict, steps: int) -> dict[str, str]:
    """Every output ``user`` may read about the game, with ``state_json`` as its state."""
    Game.objects.filter(pk=game_id).update(state_json=state_json)
    cache.clear()  # no page, fragment or replay cache may answer from the other world
    game = get_game(game_id)
    # The replay's last step starts from this checkpoint (see the module's docstring).
    cache.set(cache_key(game, "state", steps), state_json, 600)
    client, api = Client(), APIClient()
    if user is not None:
        client.force_login(user)
        token, _ = Token.objects.get_or_create(user=user)
        api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    got: dict[str, str] = {}
    pages = {
        "play": (f"/games/{game_id}/", {}),
        "play-htmx": (f"/games/{game_id}/", HX),
        "replay": (f"/games/{game_id}/replay/", {}),
        "replay-htmx": (f"/games/{game_id}/replay/", HX),
        "chat": (f"/games/{game_id}/chat/log/", HX),
    }
    for name, (url, headers) in pages.items():
        response = client.get(url, **headers)
        assert response.status_code == 200, (name, response.status_code)
        got[name] = clean(response.content.decode())
    for name in ("", "moves/", "replay/", "export/"):
        response = api.get(f"/api/games/{game_id}/{name}")
        assert response.status_code == 200, (name, response.content[:200])
        got[f"api/{name}"] = response.content.decode()
    got["socket"] = clean(render_fragments(game, user, csrf_token="t", base_url="http://x",
                                           log_since=0))
    return got


GAME_NAMES = ("newhaven", "nouvellefrance")
GAMES = [(name, n) for name in GAME_NAMES for n in (2, 3, 4)]


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_every_output_depends_only_on_the_viewers_observation(
        name: str, players: int, monkeypatch: pytest.MonkeyPatch, long_profile: bool) -> None:
    game, users = start(name, players)
    spectator = get_user_model().objects.create_user("watcher", password="pw-unused-9x!")
    engine = game.engine
    rng = random.Random(players)
    compared = differing = 0
    done = 0
    positions = PLIES if long_profile else (PLIES[(players + GAME_NAMES.index(name)) % len(PLIES)],)
    for plies in positions:
        game = play(game, users, plies - done, rng)
        done = plies
        assert game.status == Game.Status.RUNNING, "the position must be mid-game"
        state = current_state(game)
        real = engine.state_to_json(state)
        steps = game.moves.count()
        monkeypatch.setattr(replays, "CHECKPOINT_EVERY", steps)
        viewers = [*enumerate(users), (None, spectator), (None, None)]
        for seat, user in viewers:
            base = outputs(game.pk, user, real, steps)
            for trial in range(1):
                twin = engine.determinize(state, seat, random.Random(1000 * plies + trial))
                assert engine.observe(twin, seat) == engine.observe(state, seat)
                twin_json = engine.state_to_json(twin)
                differing += twin_json != real
                other = outputs(game.pk, user, twin_json, steps)
                for key, text in base.items():
                    assert other[key] == text, (name, players, plies, seat, key)
                    compared += 1
        Game.objects.filter(pk=game.pk).update(state_json=real)
        cache.clear()
    # The twins really differed in hidden state (else the comparison proved nothing).
    assert differing > 0
    assert compared == len(positions) * (players + 2) * 10
