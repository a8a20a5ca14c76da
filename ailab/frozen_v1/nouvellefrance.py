"""Nouvelle-France knowledge: points-first move ordering, sampled-greedy playouts,
storm-aware evaluator.

It reads the game only through the protocol: ``scores``, ``observe`` views and
the engine's action tuples (``("place", site, rot, x, y)``, ``("bonus", piece,
site, rot, x, y)``, ``("draw",)``, ``("card", i)``, ``("copy", k)``,
``("huron",)``/``("skip_huron",)``, ``("order", ...)``, ``("fille_du_roy",)``/
``("no_ally",)``, ``("coureur",)``/``("decline",)``, ``("discard", i)``).  Rule numbers (what a
stick's symbol is worth per cube) come from the engine's ``rule_data`` for the
state's variant.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ai.rules import rules_for

from .knowledge import softmax_values, terminal_values

Action = Any
State = Any



def _symbol_points(data: dict) -> dict[str, float]:
    """Points per cube at a storm by the stick's symbol for that level (rule data)."""
    return {symbol: float(points) for symbol, points in data["symbols"].items()}

# Placement-like actions: their immediate points are the best cheap guide.
_PLACING = ("place", "bonus")


def _points_after(engine: Any, state: State, seat: int, action: Action) -> float:
    """Points ``seat`` has right after ``action`` (placement points are immediate)."""
    return engine.scores(engine.apply(state, seat, action))[seat]


class NouvelleFranceKnowledge:
    """Knowledge of Nouvelle-France for the search (see :mod:`ai.knowledge`)."""

    #: About one turn of micro-actions: the engine's steps are dear (~150 us), so
    #: playouts stay short and the evaluator does the rest.
    rollout_depth: int | None = 6
    #: Iteration budgets are scaled by this so levels keep their answer times.
    budget_scale: float = 0.5
    #: Score-estimate softmax temperature (points).
    temperature: float = 5.0
    #: Placements a playout samples before taking the one that scores most.
    playout_sample: int = 3

    def evaluate(self, engine: Any, state: State) -> list[float]:
        """Scores plus the storm points the cubes already placed will earn, plus allies."""
        if engine.is_over(state):
            return terminal_values(engine, state)
        points = rules_for(engine, state, _symbol_points)
        view = engine.observe(state, None)
        colours = view["colours"]
        seat_of = {c: i for i, c in enumerate(colours)}
        estimates = [float(s) for s in view["scores"]]
        storms = view["storms"]
        for site in view["sites"]:
            levels = site["stick"]["levels"]
            for cube in site["cubes"]:
                seat = seat_of.get(cube["colour"])
                level = cube["level"]
                # Scored levels are gone; levels above the stick's last storm never score.
                if seat is None or cube["covered"] or level <= storms or level > len(levels):
                    continue
                # Later storms are further away: more cubes will cover or join them.
                estimates[seat] += points[levels[level - 1]] * 0.8
            holder = site.get("character_holder")
            if holder is not None and holder in seat_of:
                estimates[seat_of[holder]] += site["character_bonus"]
            elif isinstance(holder, int) and 0 <= holder < len(estimates):
                estimates[holder] += site["character_bonus"]
        for i, player in enumerate(view["players"]):
            ready = sum(1 for v in player["allies"].values() if v == "ready")
            estimates[i] += 1.0 * ready
        return softmax_values(estimates, self.temperature)

    def order_actions(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action]
    ) -> list[Action]:
        """Placements by the points they score now; other actions keep their order."""
        if not any(a[0] in _PLACING for a in actions):
            return list(actions)
        base = engine.scores(state)[seat]
        keys = {}
        for action in actions:
            if action[0] in _PLACING:
                keys[action] = _points_after(engine, state, seat, action) - base
            else:
                keys[action] = 0.5  # drawing a card: about a middling placement
        return sorted(actions, key=lambda a: -keys[a])

    def rollout_policy(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action], rng: random.Random
    ) -> Action:
        """Best of a few sampled placements; skip the Huron; otherwise uniform."""
        kind = actions[0][0]
        if kind == "huron" or kind == "skip_huron":
            return next((a for a in actions if a[0] == "skip_huron"), actions[0])
        placing = [a for a in actions if a[0] in _PLACING]
        if placing:
            if len(placing) < len(actions) and rng.random() < 0.5:
                others = [a for a in actions if a[0] not in _PLACING]
                return others[rng.randrange(len(others))]
            sample = rng.sample(placing, min(self.playout_sample, len(placing)))
            return max(sample, key=lambda a: _points_after(engine, state, seat, a))
        return actions[rng.randrange(len(actions))]


KNOWLEDGE = NouvelleFranceKnowledge()
