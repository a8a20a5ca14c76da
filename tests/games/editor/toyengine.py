"""A tiny game with the whole wave-2 protocol (rule data, events, figures), for the editor.

Players take turns adding 1, 2 or 3 to a shared counter; the seat that reaches
``target`` scores ``bonus`` and the game ends.  ``crash_at`` (optional) makes ``apply``
raise once the counter passes it for odd seeds: a variant that "fails in simulation"
only in some games, like a wrong footprint.
"""

from __future__ import annotations

import random
from typing import Any

from games.engines import IllegalAction, InvalidVariant

NAME = "toygame"

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "target", "steps", "bonus", "board"],
    "$defs": {"cell": {"type": "array", "items": {"type": "integer", "minimum": 0},
                       "minItems": 2, "maxItems": 2}},
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "description": {"type": "string", "description": "Shown to players."},
        "target": {"type": "integer", "minimum": 3, "maximum": 100,
                   "description": "The counter value that ends the game."},
        "steps": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1,
                  "description": "What a player may add on a turn."},
        "bonus": {"type": "object", "additionalProperties": {"type": "integer"},
                  "description": "Points for the seat that ends the game, by player count."},
        "board": {"type": "object", "additionalProperties": False,
                  "required": ["cells", "fast"],
                  "properties": {"cells": {"type": "array", "items": {"$ref": "#/$defs/cell"}},
                                 "fast": {"type": "boolean"}}},
        "crash_at": {"type": "integer"},
        "mode": {"enum": ["plain", "fancy"]},
    },
}


def default() -> dict:
    return {"name": "basic", "description": "Count to 10.", "target": 10, "steps": [1, 2, 3],
            "bonus": {"2": 5, "3": 4}, "board": {"cells": [[0, 0], [1, 2]], "fast": True}}


class ToyEngine:
    name = NAME
    title = "Toy game"
    min_players = 2
    max_players = 4

    def default_variants(self) -> dict[str, dict]:
        return {"basic": default()}

    def variant_schema(self) -> dict:
        return SCHEMA

    def validate_variant(self, variant: Any) -> list[str]:
        import jsonschema

        if not isinstance(variant, dict):
            return ["(variant): must be a JSON object"]
        validator = jsonschema.Draft202012Validator(SCHEMA)
        problems = []
        for err in validator.iter_errors(variant):
            path = ""
            for step in err.absolute_path:
                path += f"[{step}]" if isinstance(step, int) else (f".{step}" if path else step)
            problems.append(f"{path or '(variant)'}: {err.message}")
        if problems:
            return problems
        for i, step in enumerate(variant["steps"]):
            if step >= variant["target"]:
                problems.append(f"steps[{i}]: {step} reaches the target in one move")
        for key in variant["bonus"]:
            if not key.isdigit() or not 2 <= int(key) <= 4:
                problems.append(f"bonus['{key}']: not a player count of 2 to 4")
        return problems

    def rule_data(self, variant: dict) -> dict:
        problems = self.validate_variant(variant)
        if problems:
            raise InvalidVariant(problems)
        return {"game": NAME, "title": self.title, "variant": variant["name"],
                "description": variant.get("description", ""),
                "player_counts": sorted(int(k) for k in variant["bonus"])}

    def new_game(self, variant: dict, num_players: int, seed: int) -> dict:
        if self.validate_variant(variant):
            raise InvalidVariant(self.validate_variant(variant))
        if str(num_players) not in variant["bonus"]:
            raise InvalidVariant([f"num_players: {num_players} is not offered"])
        return {"v": variant, "n": num_players, "seed": seed, "count": 0, "turn": 0,
                "scores": [0] * num_players, "over": False, "moves": 0}

    def to_move(self, state: dict) -> list[int]:
        return [] if state["over"] else [state["turn"]]

    def legal_actions(self, state: dict, seat: int) -> list[int]:
        if seat not in self.to_move(state):
            return []
        return list(state["v"]["steps"])

    def apply(self, state: dict, seat: int, action: Any) -> dict:
        if seat not in self.to_move(state) or action not in state["v"]["steps"]:
            raise IllegalAction("not allowed")
        crash = state["v"].get("crash_at")
        if crash is not None and state["count"] >= crash and state["seed"] % 2:
            raise RuntimeError("the toy engine broke")
        new = {**state, "scores": list(state["scores"]), "moves": state["moves"] + 1}
        new["count"] += action
        if new["count"] >= state["v"]["target"]:
            new["over"] = True
            new["scores"][seat] += state["v"]["bonus"][str(state["n"])]
        else:
            new["turn"] = (seat + 1) % state["n"]
        return new

    def is_over(self, state: dict) -> bool:
        return state["over"]

    def scores(self, state: dict) -> list[int]:
        return list(state["scores"])

    def winners(self, state: dict) -> list[int]:
        if not state["over"]:
            return []
        best = max(state["scores"])
        return [i for i, s in enumerate(state["scores"]) if s == best]

    def observe(self, state: dict, seat: int | None) -> dict:
        return {"count": state["count"], "turn": state["turn"], "scores": state["scores"]}

    def determinize(self, state: dict, seat: int | None, rng: random.Random) -> dict:
        return state

    def reveal(self, state: dict) -> dict:
        return {**self.observe(state, None), "revealed": {}}

    def state_to_json(self, state: dict) -> dict:
        return dict(state)

    def state_from_json(self, data: dict) -> dict:
        return dict(data)

    def action_to_json(self, action: int) -> Any:
        return action

    def action_from_json(self, data: Any) -> int:
        if not isinstance(data, int) or isinstance(data, bool):
            raise IllegalAction("an integer")
        return data

    def describe_action(self, state: dict, action: int) -> dict:
        return {"type": "added", "seat": state["turn"], "amount": action}

    def figures(self, events: list[dict], state: dict) -> dict[str, float]:
        return {"turns": len(events), "overshoot": state["count"] - state["v"]["target"]}


ENGINE = ToyEngine()
