"""Nouvelle-France knowledge: points-first move ordering (the search's: placements by
points now plus the storm points of every cube placed), sampled-greedy playouts,
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

from .knowledge import learned_weights, softmax_values, terminal_values
from .rules import rules_for

Action = Any
State = Any



def _storm_count(data: dict) -> int:
    """How many snowstorms a game has (rule data)."""
    return int(data["storms"])


def _symbol_points(data: dict) -> dict[str, float]:
    """Points per cube at a storm by the stick's symbol for that level (rule data)."""
    return {symbol: float(points) for symbol, points in data["symbols"].items()}

# Placement-like actions: their immediate points are the best cheap guide.
_PLACING = ("place", "bonus")


class _PlacementRules:
    """Rule numbers a placement's value needs (built once per variant from rule data)."""

    __slots__ = ("bonus", "extra", "footprints", "points", "shapes")

    def __init__(self, data: dict) -> None:
        self.points = _symbol_points(data)
        # shape name -> copy -> orientation -> cubes (dx, dy, dz, colour name)
        self.shapes = {
            shape["name"]: [
                [[tuple(cube) for cube in o] for o in copy["orientations"]]
                for copy in shape["copies"]
            ]
            for shape in data["shapes"]
        }
        # bonus piece name -> orientation -> cubes (dx, dy, dz)
        self.bonus = {
            piece["name"]: [[tuple(cube) for cube in o] for o in piece["orientations"]]
            for piece in data["bonus_pieces"]
        }
        self.footprints = {
            site["name"]: [tuple(cell) for cell in site["footprint"]] for site in data["sites"]
        }
        # site name -> cell -> the cells it touches through an extra adjacency
        self.extra: dict[str, dict[tuple, list[tuple]]] = {}
        for site in data["sites"]:
            extra: dict[tuple, list[tuple]] = {}
            for a, b in site["extra_adjacency"]:
                extra.setdefault(tuple(a), []).append(tuple(b))
                extra.setdefault(tuple(b), []).append(tuple(a))
            self.extra[site["name"]] = extra


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


class StrongNouvelleFranceKnowledge(NouvelleFranceKnowledge):
    """The search's Nouvelle-France knowledge since issue 13 (``greedy`` keeps the base).

    The evaluator reads the mover's view (cheaper than a spectator's, the same
    public fields) and its weights are parameters for the sweep.  Progressive
    widening ranks placements by :meth:`placement_gains` (points now, the storm
    points every cube of the piece will earn its colour's owner, a character taken),
    not by points now only: the v1 order put opponents' cubes on ``x2`` levels and
    its own on ``-`` ones as readily as the reverse (ailab/tuning/README.md: 18/20
    against the v1 search at equal time).
    """

    #: Weight of the storm points the cubes already placed will earn.
    storm_weight: float = 0.8
    #: Points per ally still ready.
    ally_weight: float = 1.0
    #: Placements ``followup`` samples below the root (0: no macro placements).  Off:
    #: in the arena (ailab/tuning/README.md) macro placements lost to the v1 search.
    followup_sample: int = 0

    def followup(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action], rng: random.Random
    ) -> Action | None:
        """Below the root, a forced placement is the best of a sample by immediate points.

        The tree then branches on cards, copies and allies, and the budget is not
        split over a hundred placements at every level.
        """
        if self.followup_sample <= 0 or actions[0][0] not in _PLACING:
            return None
        if any(a[0] not in _PLACING for a in actions):
            return None  # an optional bonus piece: the tree decides
        sample = rng.sample(actions, min(self.followup_sample, len(actions)))
        return max(sample, key=lambda a: _points_after(engine, state, seat, a))

    #: Rank placements by :meth:`placement_gains` (points now, the storm points of
    #: every cube placed for its owner, a character taken) instead of points now only.
    value_order: bool = True
    #: Weight of the storm points in :meth:`placement_gains` (they are certain: a cube
    #: on level k scores at storm k for its colour's owner).
    gain_storm_weight: float = 1.0
    #: Gain given to drawing a card in the ``draw`` phase (about a placement's gain).
    draw_gain: float = 3.0

    def placement_gains(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action]
    ) -> dict[Action, float]:
        """What each placement of ``actions`` is worth to ``seat``, in points.

        Points now, plus the storm points of the piece's cubes for their colours'
        owners (``seat``'s own minus the mean of the others'), plus a character it
        takes.  One ``observe`` (it lists every placement's landing level) and no
        ``apply``: applying each placement and reading the scores cost ~3.5x more.
        Other actions get ``draw_gain``.
        """
        rules = rules_for(engine, state, _PlacementRules)
        view = engine.observe(state, seat)
        colours = view["colours"]
        seat_of = {c: i for i, c in enumerate(colours)}
        n = len(colours)
        storms = view["storms"]
        sites = {site["name"]: site for site in view["sites"]}
        landing: dict[tuple, tuple[int, list]] = {}
        if view["placements"]:
            pending = view["pending"]
            orientations = rules.shapes[pending["shape"]][pending["copy"]]
            for site, o, x, y, level in view["placements"]:
                landing[("place", site, o, x, y)] = (level, orientations[o])
        mine = colours[seat]
        for piece, found in view["bonus_placements"].items():
            orientations = [
                [(dx, dy, dz, mine) for dx, dy, dz in o] for o in rules.bonus[piece]
            ]
            for site, o, x, y, level in found:
                landing[("bonus", piece, site, o, x, y)] = (level, orientations[o])
        points = rules.points
        weight = self.gain_storm_weight
        open_cells: dict[str, set] = {}
        buried = view["buried_levels"]
        own_cubes: dict[str, set] = {}  # the seat's uncovered cubes (x, y, level) by site
        gains: dict[Action, float] = {}
        for action in actions:
            found = landing.get(action)
            if found is None:
                gains[action] = self.draw_gain
                continue
            level, cubes = found
            name = action[-4]
            site = sites[name]
            levels = site["stick"]["levels"]
            top = len(levels)
            storm = [0.0] * n
            for _dx, _dy, dz, colour in cubes:
                owner = seat_of.get(colour)
                at = level + dz
                if owner is not None and storms < at <= top:
                    storm[owner] += points[levels[at - 1]]
            x, y = action[-2], action[-1]
            # Placement points (the rules' count): own uncovered cubes, +1 each touching
            # an earlier own uncovered cube face to face or through an extra adjacency.
            own = own_cubes.get(name)
            if own is None:
                own = own_cubes[name] = {
                    (c["x"], c["y"], c["level"]) for c in site["cubes"]
                    if c["colour"] == mine and c["level"] > buried
                }
            extra = rules.extra[name]
            gain = 0.0
            for dx, dy, dz, colour in cubes:
                at = level + dz
                if colour != mine or at <= buried:
                    continue
                gain += 1.0
                cx, cy = x + dx, y + dy
                if (
                    (cx + 1, cy, at) in own or (cx - 1, cy, at) in own
                    or (cx, cy + 1, at) in own or (cx, cy - 1, at) in own
                    or (cx, cy, at + 1) in own or (cx, cy, at - 1) in own
                    or any((ex, ey, at) in own for ex, ey in extra.get((cx, cy), ()))
                ):
                    gain += 1.0
            others = (sum(storm) - storm[seat]) / (n - 1) if n > 1 else 0.0
            gain += weight * (storm[seat] - others)
            if site["character_holder"] is None:
                cells = open_cells.get(name)
                if cells is None:
                    cells = open_cells[name] = {
                        cell for cell, h in zip(rules.footprints[name], site["heights"],
                                                strict=True) if h == 0
                    }
                if cells and cells <= {(x + dx, y + dy) for dx, dy, _dz, _c in cubes}:
                    gain += site["character_bonus"]
            gains[action] = gain
        return gains

    def order_actions(
        self, engine: Any, state: State, seat: int, actions: Sequence[Action]
    ) -> list[Action]:
        """Placements by :meth:`placement_gains` (``value_order``), else by points now."""
        if not self.value_order or not any(a[0] in _PLACING for a in actions):
            return super().order_actions(engine, state, seat, actions)
        gains = self.placement_gains(engine, state, seat, actions)
        return sorted(actions, key=lambda a: -gains[a])

    #: Names of :meth:`features` (the learned evaluator's inputs, see :mod:`ailab.learn`).
    feature_names: tuple[str, ...] = (
        "bias", "score", "next_storm", "later_storms", "characters", "allies_ready",
        "bonus_ready", "done", "allies_left", "bonus_left",
    )
    #: Use ``ai/weights/nouvellefrance.json`` (``python -m ailab.learn``) when present.
    learned: bool = False
    #: Softmax temperature (points) of the learned final-score predictions.
    learned_temperature: float = 5.0

    def features(self, engine: Any, state: State) -> list[list[float]]:
        """Per seat: public features (score, pending storm points, characters, allies)."""
        points = rules_for(engine, state, _symbol_points)
        storms_total = rules_for(engine, state, _storm_count)
        movers = engine.to_move(state)
        view = engine.observe(state, movers[0] if movers else None)
        seat_of = {c: i for i, c in enumerate(view["colours"])}
        n = len(view["players"])
        nxt = [0.0] * n
        later = [0.0] * n
        chars = [0.0] * n
        storms = view["storms"]
        for site in view["sites"]:
            levels = site["stick"]["levels"]
            for cube in site["cubes"]:
                seat = seat_of.get(cube["colour"])
                level = cube["level"]
                if seat is None or cube["covered"] or level <= storms or level > len(levels):
                    continue
                value = points[levels[level - 1]]
                if level == storms + 1:
                    nxt[seat] += value
                else:
                    later[seat] += value
            holder = site.get("character_holder")
            if holder is not None and holder in seat_of:
                chars[seat_of[holder]] += site["character_bonus"]
            elif isinstance(holder, int) and 0 <= holder < n:
                chars[holder] += site["character_bonus"]
        done = storms / max(1, storms_total)
        out = []
        for i, player in enumerate(view["players"]):
            allies = sum(1 for v in player["allies"].values() if v == "ready")
            bonus = sum(1 for v in player["bonus_pieces"].values() if v == "ready")
            out.append([
                1.0, float(player["score"]), nxt[i], later[i], chars[i], float(allies),
                float(bonus), done, allies * (1 - done), bonus * (1 - done),
            ])
        return out

    def _weights(self) -> tuple[float, ...] | None:
        return learned_weights("nouvellefrance", tuple(self.feature_names))

    def evaluate(self, engine: Any, state: State) -> list[float]:
        """Scores plus pending storm points, characters held and ready allies.

        With ``learned`` (and fitted weights) the estimates are predicted final scores.
        """
        if engine.is_over(state):
            return terminal_values(engine, state)
        if self.learned:
            weights = self._weights()
            if weights:
                predicted = [
                    sum(w * x for w, x in zip(weights, feats, strict=True))
                    for feats in self.features(engine, state)
                ]
                return softmax_values(predicted, self.learned_temperature)
        points = rules_for(engine, state, _symbol_points)
        movers = engine.to_move(state)
        view = engine.observe(state, movers[0] if movers else None)
        seat_of = {c: i for i, c in enumerate(view["colours"])}
        estimates = [float(s) for s in view["scores"]]
        storms = view["storms"]
        weight = self.storm_weight
        for site in view["sites"]:
            levels = site["stick"]["levels"]
            top = len(levels)
            for cube in site["cubes"]:
                seat = seat_of.get(cube["colour"])
                level = cube["level"]
                if seat is None or cube["covered"] or level <= storms or level > top:
                    continue
                estimates[seat] += points[levels[level - 1]] * weight
            holder = site.get("character_holder")
            if holder is not None and holder in seat_of:
                estimates[seat_of[holder]] += site["character_bonus"]
            elif isinstance(holder, int) and 0 <= holder < len(estimates):
                estimates[holder] += site["character_bonus"]
        for i, player in enumerate(view["players"]):
            ready = sum(1 for v in player["allies"].values() if v == "ready")
            estimates[i] += self.ally_weight * ready
        return softmax_values(estimates, self.temperature)


STRONG = StrongNouvelleFranceKnowledge()
