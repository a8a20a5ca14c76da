"""New Haven knowledge: gather-aware move ordering, cheap playouts, village evaluator.

It reads the game only through the protocol: ``observe`` views and the
engine's action tuples (``("harvest", tile, row, col, rot)``,
``("ship", row, col, resource)``, ``("build", resource, number, vrow, vcol,
face_up)``, ``("end_build",)``, ``("pass",)``, ``("draw_market", r, n)``,
``("draw_bag",)``).  Village rows cost 6..1 top to bottom and score that much;
columns score 5, 4, 3, 4, 5; a line scores double when all face up.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .knowledge import softmax_values, terminal_values

Action = Any
State = Any

ROW_VALUES = (6, 5, 4, 3, 2, 1)
COL_VALUES = (5, 4, 3, 4, 5)
# Square offsets of a tile's [NW, NE, SE, SW] squares inside its 2×2 cell.
_OFFSETS = ((0, 0), (0, 1), (1, 1), (1, 0))


def _grid(view: dict) -> dict[tuple[int, int], str]:
    """Square (row, col) on the 14×14 grid -> resource, from an observe view."""
    grid: dict[tuple[int, int], str] = {}
    for tile in view["board"]["tiles"]:
        squares = tile.get("squares")
        if not squares:
            continue
        r, c = 2 * tile["row"], 2 * tile["col"]
        for (dr, dc), res in zip(_OFFSETS, squares, strict=False):
            if res:
                grid[(r + dr, c + dc)] = res
    return grid


def _components(grid: dict[tuple[int, int], str]) -> dict[tuple[int, int], tuple[int, int]]:
    """Square -> (component id, component size) of its same-resource chain."""
    comp: dict[tuple[int, int], tuple[int, int]] = {}
    next_id = 0
    for start, res in grid.items():
        if start in comp:
            continue
        stack = [start]
        members = [start]
        seen = {start}
        while stack:
            r, c = stack.pop()
            for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if nb not in seen and grid.get(nb) == res:
                    seen.add(nb)
                    members.append(nb)
                    stack.append(nb)
        for m in members:
            comp[m] = (next_id, len(members))
        next_id += 1
    return comp


def _gather(
    grid: dict[tuple[int, int], str],
    comp: dict[tuple[int, int], tuple[int, int]],
    row: int,
    col: int,
    squares: Sequence[str],
) -> dict[str, int]:
    """The markers a tile with ``squares`` (already rotated) on cell (row, col) would give."""
    r0, c0 = 2 * row, 2 * col
    own = {(r0 + dr, c0 + dc) for dr, dc in _OFFSETS}
    values: dict[str, int] = {}
    joined: dict[str, set[int]] = {}
    for (dr, dc), res in zip(_OFFSETS, squares, strict=False):
        r, c = r0 + dr, c0 + dc
        values[res] = values.get(res, 0) + 1
        ids = joined.setdefault(res, set())
        for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nb in own or grid.get(nb) != res:
                continue
            cid, size = comp[nb]
            if cid not in ids:
                ids.add(cid)
                values[res] += size
    return values


def _rotate(squares: Sequence[str], rot: int) -> list[str]:
    """Squares after ``rot`` quarter turns clockwise (NW→NE→SE→SW→NW)."""
    return [squares[(i - rot) % 4] for i in range(4)]


def _gather_key(values: dict[str, int]) -> float:
    # Markers above 6 rarely buy more (the dearest space costs 6): damp the excess.
    return sum(v if v <= 6 else 6 + 0.3 * (v - 6) for v in values.values())


def _line_potential(village: list[list[Any]], weight: float) -> float:
    """Expected extra points from unfinished rows and columns (a rough guess)."""
    total = 0.0
    for i, row in enumerate(village):
        filled = [b for b in row if b is not None]
        k = len(filled)
        if 0 < k < 5:
            double = 1.5 if all(b["face_up"] for b in filled) else 1.0
            total += ROW_VALUES[i] * double * (k / 5) ** 2
    for j, value in enumerate(COL_VALUES):
        filled = [row[j] for row in village if row[j] is not None]
        k = len(filled)
        if 0 < k < 6:
            double = 1.5 if all(b["face_up"] for b in filled) else 1.0
            total += value * double * (k / 6) ** 2
    return weight * total


class NewHavenKnowledge:
    """Knowledge of New Haven for the search (see :mod:`ai.knowledge`)."""

    #: About two full turns of micro-actions in a 2-player game.
    rollout_depth: int | None = 24
    #: Score-estimate softmax temperature (points).
    temperature: float = 4.0

    def evaluate(self, engine: Any, state: State) -> list[float]:
        """Win-probability-like values from scores plus unfinished-line potential."""
        if engine.is_over(state):
            return terminal_values(engine, state)
        view = engine.observe(state, None)
        n = view["num_players"]
        total_turns = max(1, view["turns_per_player"] * n)
        left = max(0.0, 1.0 - view["turn"] / total_turns)
        weight = 0.4 + 0.6 * left
        estimates = []
        for player in view["players"]:
            estimate = player["score"] + _line_potential(player["village"], weight)
            estimate += 0.15 * left * player["buildings_in_hand"]
            estimates.append(estimate)
        # The active player's unspent markers are buildings about to be placed.
        markers = view.get("markers") or {}
        active = view.get("active")
        if isinstance(active, int) and 0 <= active < n:
            estimates[active] += 0.1 * sum(markers.values())
        return softmax_values(estimates, self.temperature)

    def order_actions(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action]
    ) -> list[Action]:
        """Harvests by the markers they gather, builds by line progress, others as given."""
        kinds = {a[0] for a in actions}
        if kinds & {"harvest", "ship"}:
            view = engine.observe(state, seat)
            grid = _grid(view)
            comp = _components(grid)
            tiles = {t["index"]: t["squares"] for t in view["hand"]["tiles"]}
            keys = {}
            for action in actions:
                keys[action] = self._harvest_key(grid, comp, tiles, action)
            return sorted(actions, key=lambda a: -keys[a])
        if "build" in kinds:
            view = engine.observe(state, None)
            village = view["players"][seat]["village"]
            return sorted(actions, key=lambda a: -self._build_key(village, a))
        return list(actions)

    @staticmethod
    def _harvest_key(grid, comp, tiles, action) -> float:
        if action[0] == "harvest":
            _, index, row, col, rot = action
            squares = tiles.get(index)
            if squares is None:
                return 0.0
            return _gather_key(_gather(grid, comp, row, col, _rotate(squares, rot)))
        if action[0] == "ship":
            _, row, col, res = action
            # The shipment is once a game: keep it for a rich spot (a small handicap).
            return _gather_key(_gather(grid, comp, row, col, [res] * 4)) - 3.0
        return -1.0

    @staticmethod
    def _build_key(village, action) -> float:
        if action[0] != "build":
            return -100.0  # end_build / pass last
        _, _res, _num, vrow, vcol, face_up = action
        row_k = sum(b is not None for b in village[vrow])
        col_k = sum(village[r][vcol] is not None for r in range(6))
        gain = ROW_VALUES[vrow] * ((row_k + 1) ** 2 - row_k**2) / 25
        gain += COL_VALUES[vcol] * ((col_k + 1) ** 2 - col_k**2) / 36
        return gain * (1.5 if face_up else 1.0) + 0.1 * ROW_VALUES[vrow]

    def rollout_policy(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action], rng: random.Random
    ) -> Action:
        """Cheap playout moves from the action tuples alone (no view: playouts must be fast)."""
        kind = actions[0][0]
        if kind in ("end_build", "pass", "build"):
            builds = [a for a in actions if a[0] == "build"]
            if not builds:
                return actions[0]
            # Face up beats face down; dearer spaces score more; random among equals.
            best = max(builds, key=lambda a: (a[5], 6 - a[3], rng.random()))
            return best
        if kind in ("harvest", "ship"):
            harvests = [a for a in actions if a[0] == "harvest"]
            if harvests and rng.random() < 0.9:
                return harvests[rng.randrange(len(harvests))]
        return actions[rng.randrange(len(actions))]


KNOWLEDGE = NewHavenKnowledge()
