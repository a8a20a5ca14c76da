"""New Haven knowledge: gather-aware move ordering, cheap playouts, village evaluator.

It reads the game only through the protocol: ``observe`` views and the
engine's action tuples (``("harvest", tile, row, col, rot)``,
``("ship", row, col, resource)``, ``("build", resource, number, vrow, vcol,
face_up)``, ``("end_build",)``, ``("pass",)``, ``("draw_market", r, n)``,
``("draw_bag",)``).  Every rule number (village size, space costs, row and
column values, the face-up multiplier, the resources, a tile's square order) is
read from the engine's ``rule_data`` for the state's variant (``variant_key``),
compiled once per variant into :class:`NewHavenRules`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ai.rules import rules_for

from .knowledge import softmax_values, terminal_values

Action = Any
State = Any

# Where each compass-named square of a tile lies inside its 2×2 cell (geometry, not rules:
# the order of a tile's squares comes from the rule data's ``square_order``).
_COMPASS = {"NW": (0, 0), "NE": (0, 1), "SE": (1, 1), "SW": (1, 0)}


class NewHavenRules:
    """The rule numbers the AI uses, compiled from one variant's ``rule_data``."""

    def __init__(self, data: dict) -> None:
        village = data["village"]
        self.resources: tuple[str, ...] = tuple(data["resources"])
        self.rows: int = village["rows"]
        self.cols: int = village["cols"]
        self.row_values: tuple[int, ...] = tuple(village["row_values"])
        self.col_values: tuple[int, ...] = tuple(village["col_values"])
        self.space_costs: tuple[tuple[int, ...], ...] = tuple(
            tuple(row) for row in village["space_costs"]
        )
        self.max_cost: int = max(max(row) for row in self.space_costs)
        self.multiplier: float = float(village["face_up_line_multiplier"])
        self.offsets: tuple[tuple[int, int], ...] = tuple(
            _COMPASS[name] for name in data["harvest_tiles"]["square_order"]
        )
        self.shipment_squares: int = data["shipment_squares"]
        self.numbers: tuple[int, ...] = tuple(data["buildings"]["numbers"])




def _grid(view: dict, offsets: Sequence[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """Square (row, col) on the square grid -> resource, from an observe view."""
    grid: dict[tuple[int, int], str] = {}
    for tile in view["board"]["tiles"]:
        squares = tile.get("squares")
        if not squares:
            continue
        r, c = 2 * tile["row"], 2 * tile["col"]
        for (dr, dc), res in zip(offsets, squares, strict=False):
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
    offsets: Sequence[tuple[int, int]],
) -> dict[str, int]:
    """The markers a tile with ``squares`` (already rotated) on cell (row, col) would give."""
    r0, c0 = 2 * row, 2 * col
    own = {(r0 + dr, c0 + dc) for dr, dc in offsets}
    values: dict[str, int] = {}
    joined: dict[str, set[int]] = {}
    for (dr, dc), res in zip(offsets, squares, strict=False):
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
    """Squares after ``rot`` quarter turns clockwise (each square moves one place on)."""
    n = len(squares)
    return [squares[(i - rot) % n] for i in range(n)]


def _gather_key(values: dict[str, int], cap: int) -> float:
    # Markers above the dearest space's cost rarely buy more: damp the excess.
    return sum(v if v <= cap else cap + 0.3 * (v - cap) for v in values.values())


def _line_potential(rules: NewHavenRules, village: list[list[Any]], weight: float) -> float:
    """Expected extra points from unfinished rows and columns (a rough guess)."""
    total = 0.0
    # Half of the face-up bonus: a line may still get a face-down building.
    bonus = 1.0 + (rules.multiplier - 1.0) / 2
    cols, rows = rules.cols, rules.rows
    for i, row in enumerate(village):
        filled = [b for b in row if b is not None]
        k = len(filled)
        if 0 < k < cols:
            double = bonus if all(b["face_up"] for b in filled) else 1.0
            total += rules.row_values[i] * double * (k / cols) ** 2
    for j, value in enumerate(rules.col_values):
        filled = [row[j] for row in village if row[j] is not None]
        k = len(filled)
        if 0 < k < rows:
            double = bonus if all(b["face_up"] for b in filled) else 1.0
            total += value * double * (k / rows) ** 2
    return weight * total


class NewHavenKnowledge:
    """Knowledge of New Haven for the search (see :mod:`ai.knowledge`)."""

    #: About two full turns of micro-actions in a 2-player game.
    rollout_depth: int | None = 24
    #: Score-estimate softmax temperature (points).
    temperature: float = 4.0

    def rules(self, engine: Any, state: State) -> NewHavenRules:
        """The compiled rule numbers of the state's variant."""
        return rules_for(engine, state, NewHavenRules)

    def evaluate(self, engine: Any, state: State) -> list[float]:
        """Win-probability-like values from scores plus unfinished-line potential."""
        if engine.is_over(state):
            return terminal_values(engine, state)
        rules = self.rules(engine, state)
        view = engine.observe(state, None)
        n = view["num_players"]
        total_turns = max(1, view["turns_per_player"] * n)
        left = max(0.0, 1.0 - view["turn"] / total_turns)
        weight = 0.4 + 0.6 * left
        estimates = []
        for player in view["players"]:
            estimate = player["score"] + _line_potential(rules, player["village"], weight)
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
        rules = self.rules(engine, state)
        if kinds & {"harvest", "ship"}:
            view = engine.observe(state, seat)
            grid = _grid(view, rules.offsets)
            comp = _components(grid)
            tiles = {t["index"]: t["squares"] for t in view["hand"]["tiles"]}
            keys = {}
            for action in actions:
                keys[action] = self._harvest_key(rules, grid, comp, tiles, action)
            return sorted(actions, key=lambda a: -keys[a])
        if "build" in kinds:
            view = engine.observe(state, None)
            village = view["players"][seat]["village"]
            return sorted(actions, key=lambda a: -self._build_key(rules, village, a))
        return list(actions)

    @staticmethod
    def _harvest_key(rules: NewHavenRules, grid, comp, tiles, action) -> float:
        cap = rules.max_cost
        if action[0] == "harvest":
            _, index, row, col, rot = action
            squares = tiles.get(index)
            if squares is None:
                return 0.0
            return _gather_key(
                _gather(grid, comp, row, col, _rotate(squares, rot), rules.offsets), cap
            )
        if action[0] == "ship":
            _, row, col, res = action
            # The shipment is once a game: keep it for a rich spot (a small handicap).
            squares = [res] * len(rules.offsets)
            return _gather_key(_gather(grid, comp, row, col, squares, rules.offsets), cap) - 3.0
        return -1.0

    @staticmethod
    def _build_key(rules: NewHavenRules, village, action) -> float:
        if action[0] != "build":
            return -100.0  # end_build / pass last
        _, _res, _num, vrow, vcol, face_up = action
        rows, cols = rules.rows, rules.cols
        row_k = sum(b is not None for b in village[vrow])
        col_k = sum(village[r][vcol] is not None for r in range(rows))
        value = rules.row_values[vrow]
        gain = value * ((row_k + 1) ** 2 - row_k**2) / (cols * cols)
        gain += rules.col_values[vcol] * ((col_k + 1) ** 2 - col_k**2) / (rows * rows)
        bonus = 1.0 + (rules.multiplier - 1.0) / 2
        return gain * (bonus if face_up else 1.0) + 0.1 * value

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
            costs = self.rules(engine, state).space_costs
            return max(builds, key=lambda a: (a[5], costs[a[3]][a[4]], rng.random()))
        if kind in ("harvest", "ship"):
            harvests = [a for a in actions if a[0] == "harvest"]
            if harvests and rng.random() < 0.9:
                return harvests[rng.randrange(len(harvests))]
        return actions[rng.randrange(len(actions))]


KNOWLEDGE = NewHavenKnowledge()
