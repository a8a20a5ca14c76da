"""Fixtures of the rules editor's tests: a toy engine with the whole protocol, staff."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.catalogue import GameEntry, register_game, unregister_game

TOY_MODULE = "colonia_tests_toyengine"
HERE = Path(__file__).parent
if str(HERE) not in sys.path:  # formdata.py, the browser-like form reader
    sys.path.insert(0, str(HERE))


def _load(name: str, filename: str) -> Any:
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / filename)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The toy engine registered as "toygame" (no visual editors of its own)."""
    module = _load(TOY_MODULE, "toyengine.py")
    register_game(GameEntry(module.NAME, engine=TOY_MODULE))
    yield module.ENGINE
    unregister_game(module.NAME)


@pytest.fixture
def make_user(db: None) -> Callable[..., Any]:
    counter = iter(range(10_000))

    def make(username: str | None = None, *, staff: bool = False) -> Any:
        name = username or f"user{next(counter)}"
        return get_user_model().objects.create_user(
            username=name, password="pw-unused-9x!", is_staff=staff)

    return make


@pytest.fixture
def boss(make_user: Callable[..., Any]) -> Any:
    """A staff member."""
    return make_user("boss", staff=True)


@pytest.fixture
def staff_client(boss: Any) -> Client:
    client = Client()
    client.force_login(boss)
    return client


@pytest.fixture
def player_client(make_user: Callable[..., Any]) -> Client:
    client = Client()
    client.force_login(make_user("pat"))
    return client


@pytest.fixture
def fast_checks(settings: Any) -> Any:
    """Simulations may publish after a few games (the default asks for more)."""
    settings.EDITOR_MIN_SIMULATION_GAMES = 4
    return settings
