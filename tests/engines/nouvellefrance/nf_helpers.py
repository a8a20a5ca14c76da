"""Shared helpers for the Nouvelle-France engine tests (not a test module)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from games.engines.nouvellefrance import ENGINE
from games.engines.nouvellefrance.geometry import PieceKind
from games.engines.nouvellefrance.state import State

E = ENGINE


def variant(name: str = "standard") -> dict:
    """A fresh default variant."""
    return E.default_variants()[name]


def new(name: str = "standard", n: int = 2, seed: int = 0) -> State:
    """A new game."""
    return E.new_game(variant(name), n, seed)


def edit(s: State, **fields: object) -> State:
    """A copy of ``s`` with some fields replaced (test set-up only)."""
    t = s.copy()
    for k, v in fields.items():
        setattr(t, k, v)
    return t


def with_cubes(s: State, site_name: str, cubes: dict[tuple[int, int, int], int]) -> State:
    """A copy of ``s`` whose site holds exactly ``cubes`` ((x, y, level) -> colour index)."""
    i = s.compiled.site_index[site_name]
    site = s.compiled.sites[i]
    h = [0] * len(site.cells)
    for x, y, lv in cubes:
        j = site.index[(x, y)]
        h[j] = max(h[j], lv)
    t = s.copy()
    t.cubes = tuple(dict(cubes) if k == i else c for k, c in enumerate(s.cubes))
    t.heights = tuple(tuple(h) if k == i else hh for k, hh in enumerate(s.heights))
    return t


def heights_of(s: State, site_name: str, levels: dict[tuple[int, int], int]) -> tuple:
    """A heightmap tuple for a site from ``{(x, y): height}`` (others 0)."""
    site = s.compiled.sites[s.compiled.site_index[site_name]]
    return tuple(levels.get(c, 0) for c in site.cells)


def rotation_index(kind: PieceKind, cubes: set[tuple[int, int, int]]) -> int:
    """The geometric rotation of ``kind`` whose (normalised) cube set is ``cubes``."""
    for r, rot in enumerate(kind.rotations):
        if set(rot.cubes) == cubes:
            return r
    raise AssertionError(f"no rotation of {kind.name} is {sorted(cubes)}")


def orientation_index(
    kind: PieceKind, colours: tuple[int, ...], cubes: set[tuple[int, int, int, int]]
) -> int:
    """The orientation whose coloured cubes ((dx, dy, dz, colour)) are ``cubes``."""
    for o, (_r, oc) in enumerate(kind.orientations(colours)):
        if set(oc) == cubes:
            return o
    raise AssertionError(f"no orientation of {kind.name} is {sorted(cubes)}")


def play_random(s: State, rng: random.Random, limit: int = 5000) -> Iterator[tuple]:
    """Yield (state, seat, action, next_state) along a uniform-random playout."""
    for _ in range(limit):
        if E.is_over(s):
            return
        seat = E.to_move(s)[0]
        action = rng.choice(E.legal_actions(s, seat))
        t = E.apply(s, seat, action)
        yield s, seat, action, t
        s = t
    raise AssertionError("game did not end")


def finish(s: State, seed: int = 0) -> State:
    """Play ``s`` to the end with a random policy."""
    rng = random.Random(seed)
    for _s, _seat, _a, t in play_random(s, rng):
        s = t
    return s
