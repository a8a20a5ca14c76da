"""Fixtures of the games app's tests: a toy engine, users, variants, an AI stub."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

import ai
from games.catalogue import GameEntry, register_game, unregister_game
from games.models import Game, Variant
from games.tables.services import create_game, join_game
from games.variants.services import load_default_variants

FAKE_MODULE = "colonia_tests_fakegame"
PLACE_PACKAGE = "colonia_tests_placegame"


def _load_fake_module() -> Any:
    """Import tests/games/fakegame.py under a fixed name, whatever pytest's import mode."""
    if FAKE_MODULE not in sys.modules:
        path = Path(__file__).with_name("fakegame.py")
        spec = importlib.util.spec_from_file_location(FAKE_MODULE, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[FAKE_MODULE] = module
        spec.loader.exec_module(module)
    return sys.modules[FAKE_MODULE]


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Register the toy engine as "fakegame" for this test."""
    module = _load_fake_module()
    register_game(GameEntry(module.NAME, engine=FAKE_MODULE))
    yield module.ENGINE
    unregister_game(module.NAME)


def _load_placegame() -> Any:
    """Import tests/placegame/ as a package under a fixed name."""
    if PLACE_PACKAGE not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "placegame"
        spec = importlib.util.spec_from_file_location(
            PLACE_PACKAGE, path / "__init__.py", submodule_search_locations=[str(path)]
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[PLACE_PACKAGE] = module
        spec.loader.exec_module(module)
    return sys.modules[PLACE_PACKAGE]


@pytest.fixture
def placegame(db: None) -> Iterator[Any]:
    """The test game of tests/placegame/ (engine and board) registered, its variant loaded."""
    package = _load_placegame()
    package.register()
    load_default_variants(games=[package.NAME])
    yield package
    package.unregister()


@pytest.fixture
def variant(fake_engine: Any, db: None) -> Variant:
    """A playable toy variant (3 cards each)."""
    return Variant.objects.create(game="fakegame", name="basic", data={"hand_size": 3})


@pytest.fixture
def make_user(db: None) -> Callable[..., Any]:
    """A factory of users: ``make_user("ann")``."""
    counter = iter(range(10_000))

    def make(username: str | None = None, password: str = "pw-unused-9x!") -> Any:
        name = username or f"user{next(counter)}"
        return get_user_model().objects.create_user(username=name, password=password)

    return make


@pytest.fixture
def ai_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """Replace ``ai.choose_action`` by a seeded random stub; the list records its calls."""
    calls: list[dict] = []

    def choose_action(engine: Any, state: Any, seat: int, level: str = "normal",
                      seed: int = 0) -> Any:
        calls.append({"seat": seat, "level": level, "seed": seed})
        return random.Random(seed).choice(engine.legal_actions(state, seat))

    monkeypatch.setattr(ai, "choose_action", choose_action, raising=False)
    return calls


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks: Any) -> Callable[[], Any]:
    """``with on_commit(): ...`` runs the on-commit hooks (broadcast, AI) at the end."""

    def run() -> Any:
        return django_capture_on_commit_callbacks(execute=True)

    return run


@pytest.fixture
def nh_variants(db: None) -> dict[str, Variant]:
    """New Haven's default variants, stored, by name."""
    load_default_variants(games=["newhaven"])
    return {v.name: v for v in Variant.objects.filter(game="newhaven")}


@pytest.fixture
def ann(make_user: Callable[..., Any]) -> Any:
    return make_user("ann")


@pytest.fixture
def bob(make_user: Callable[..., Any]) -> Any:
    return make_user("bob")


@pytest.fixture
def eve(make_user: Callable[..., Any]) -> Any:
    return make_user("eve")


@pytest.fixture
def clear_cache() -> Iterator[None]:
    """An empty cache before and after (rate limits, fragment and replay caches)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def table(variant: Variant, ann: Any, bob: Any) -> Any:
    """A running two-person table of the toy game: ann in seat 0 (to move), bob in seat 1."""

    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.to_move == [0]
    return game
