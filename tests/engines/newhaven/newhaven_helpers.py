"""Shared helpers of the New Haven tests (a uniquely named module, not a conftest)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from games.engines.newhaven import ENGINE
from games.engines.newhaven.state import SHIP_DOWN, SHIP_UP, TILE, State

E = ENGINE
VARIANTS = E.default_variants()


def code(state: State, resource: str, number: int) -> int:
    """The building code of (resource, number) in ``state``'s variant."""
    cv = state.compiled
    return cv.resource_index[resource] * len(cv.numbers) + cv.number_index[number]


def edit(state: State, fn: Callable[[dict], None]) -> State:
    """A new state made by editing the state's JSON with ``fn`` (test set-ups only)."""
    data = E.state_to_json(state)
    fn(data)
    return E.state_from_json(data)


def set_hand_tiles(data: dict, seat: int, tiles: list[int]) -> None:
    """Give ``seat`` the hand ``tiles`` (ids) in the state JSON ``data``.

    Each tile is swapped with the one it replaces, wherever it lies (the pool, a hand,
    a shipment), so every tile stays in exactly one place as ``state_from_json`` demands.
    """
    hand = data["players"][seat]["tiles"]
    assert len(tiles) == len(hand), "give as many tiles as the hand holds"
    for i, tile in enumerate(tiles):
        if hand[i] == tile:
            continue
        places = [(data["pool"], k) for k, t in enumerate(data["pool"]) if t == tile]
        for p in data["players"]:
            places += [(p["tiles"], k) for k, t in enumerate(p["tiles"]) if t == tile]
        holders = [p for p in data["players"] if p["shipment"] == tile]
        if holders:
            holders[0]["shipment"], hand[i] = hand[i], tile
            continue
        assert places, f"tile {tile} lies on the board: pick another copy"
        where, k = places[0]
        where[k], hand[i] = hand[i], tile


def set_village(state: State, seat: int, spaces: dict) -> State:
    """Put buildings ``{(row, col): (resource, number, face_up)}`` into seat's village."""
    cv = state.compiled

    def fn(data: dict) -> None:
        village = data["players"][seat]["village"]
        built_turns = data["players"][seat]["built_turns"]
        build_counts = data["players"][seat]["build_counts"]
        for (row, col), (res, num, up) in spaces.items():
            s = row * cv.village_cols + col
            village[s] = code(state, res, num) << 2 | (2 if up else 0) | 1
            built_turns[s] = 0
            build_counts[s] = max(build_counts[s], 1)

    return edit(state, fn)


def at_build(state: State, seat: int, markers: dict, hand: list[tuple[str, int]]) -> State:
    """``state`` moved to the build step of ``seat`` with the given markers and hand."""
    cv = state.compiled

    def fn(data: dict) -> None:
        data["phase"] = "build"
        data["active"] = seat
        data["markers"] = [markers.get(r, 0) for r in cv.resources]
        data["players"][seat]["private_buildings"] = [code(state, r, n) for r, n in hand]
        data["players"][seat]["public_buildings"] = []

    return edit(state, fn)


def play_random(
    variant: dict,
    n: int,
    seed: int,
    visit: Callable[[State, int, tuple, State], None] | None = None,
) -> tuple[State, list[tuple[int, tuple]]]:
    """Play a seeded uniformly random game; call ``visit(before, seat, action, after)``."""
    rng = random.Random(seed * 7919 + n)
    state = E.new_game(variant, n, seed)
    history = []
    for _ in range(5000):
        if E.is_over(state):
            break
        seat = E.to_move(state)[0]
        actions = E.legal_actions(state, seat)
        assert actions, "a seat to move must have an action"
        action = rng.choice(actions)
        after = E.apply(state, seat, action)
        history.append((seat, action))
        if visit is not None:
            visit(state, seat, action, after)
        state = after
    assert E.is_over(state), "the game did not end"
    return state, history


def building_total(state: State) -> Counter:
    """Multiset of every building code, wherever it is."""
    c: Counter = Counter()
    c.update(state.bag)
    c.update(state.market)
    c.update(state.clearings.values())
    c.update(code for code, _owner in state.removed)
    for p in state.players:
        c.update(p.public_buildings)
        c.update(p.private_buildings)
        c.update(v >> 2 for v in p.village if v >= 0)
    return c


def tile_total(state: State) -> Counter:
    """Multiset of every harvest tile id, wherever it is."""
    c: Counter = Counter(state.pool)
    for p in state.players:
        c.update(p.tiles)
        if p.shipment >= 0:
            c[p.shipment] += 1
    for entry in state.cells:
        if entry is not None and entry[0] in (TILE, SHIP_DOWN, SHIP_UP):
            c[entry[1]] += 1
    return c
