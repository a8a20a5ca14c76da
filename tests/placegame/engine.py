"""*Three in a row* on a 3x3 grid: a test-only engine that implements the whole protocol.

Two players take turns marking an empty cell (``{"type": "mark", "row": r, "col": c}``);
three of one's marks in a row, column or diagonal wins, a full grid is a draw.  Pure
Python, no hidden information; the variant may change the grid size and the line length.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from games.engines import EngineError, IllegalAction, InvalidVariant

NAME = "placegame"


@dataclass(frozen=True)
class State:
    size: int
    line: int
    cells: tuple[int, ...]  # -1 empty, else the seat
    turn: int  # seat to move
    winner: int  # -1 none yet


class PlaceEngine:
    name = NAME
    title = "Three in a Row"
    min_players = 2
    max_players = 2

    def default_variants(self) -> dict[str, dict]:
        return {"standard": {"name": "standard", "size": 3, "line": 3,
                             "description": "Three marks in a row on a 3x3 grid."}}

    def variant_schema(self) -> dict:
        return {"type": "object", "properties": {"size": {"type": "integer"},
                                                 "line": {"type": "integer"}}}

    def validate_variant(self, variant: dict) -> list[str]:
        size = variant.get("size") if isinstance(variant, dict) else None
        line = variant.get("line") if isinstance(variant, dict) else None
        problems = []
        if not isinstance(size, int) or not 3 <= size <= 6:
            problems.append("size: an integer from 3 to 6")
        if not isinstance(line, int) or not 3 <= line <= (size if isinstance(size, int) else 3):
            problems.append("line: an integer from 3 to size")
        return problems

    def rule_data(self, variant: dict) -> dict:
        if self.validate_variant(variant):
            raise InvalidVariant(self.validate_variant(variant))
        return {"game": NAME, "title": self.title, "variant": variant.get("name", ""),
                "description": variant.get("description", ""), "player_counts": [2],
                "size": variant["size"], "line": variant["line"]}

    def new_game(self, variant: dict, num_players: int, seed: int) -> State:
        problems = self.validate_variant(variant)
        if problems or num_players != 2:
            raise InvalidVariant(problems or ["num_players: 2"])
        size = variant["size"]
        return State(size, variant["line"], (-1,) * size * size, random.Random(seed).randrange(2),
                     -1)

    def to_move(self, state: State) -> list[int]:
        return [] if self.is_over(state) else [state.turn]

    def legal_actions(self, state: State, seat: int) -> list[tuple]:
        if seat not in self.to_move(state):
            return []
        return [("mark", i // state.size, i % state.size)
                for i, v in enumerate(state.cells) if v < 0]

    def apply(self, state: State, seat: int, action: Any) -> State:
        if action not in self.legal_actions(state, seat):
            raise IllegalAction("You cannot mark that cell now.")
        _kind, r, c = action
        cells = list(state.cells)
        cells[r * state.size + c] = seat
        winner = seat if self._wins(state, cells, seat) else -1
        return State(state.size, state.line, tuple(cells), 1 - seat, winner)

    def _wins(self, state: State, cells: list[int], seat: int) -> bool:
        n, k = state.size, state.line
        for r in range(n):
            for c in range(n):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    if all(0 <= r + i * dr < n and 0 <= c + i * dc < n
                           and cells[(r + i * dr) * n + c + i * dc] == seat for i in range(k)):
                        return True
        return False

    def is_over(self, state: State) -> bool:
        return state.winner >= 0 or all(v >= 0 for v in state.cells)

    def scores(self, state: State) -> list[int]:
        return [int(state.winner == s) for s in (0, 1)]

    def winners(self, state: State) -> list[int]:
        if not self.is_over(state):
            return []
        return [state.winner] if state.winner >= 0 else [0, 1]

    def observe(self, state: State, seat: int | None) -> dict:
        n = state.size
        return {"size": n, "grid": [list(state.cells[r * n:(r + 1) * n]) for r in range(n)],
                "to_move": self.to_move(state), "is_over": self.is_over(state),
                "winners": self.winners(state), "scores": self.scores(state)}

    def determinize(self, state: State, seat: int | None, rng: random.Random) -> State:
        return state

    def reveal(self, state: State) -> dict:
        return {**self.observe(state, None), "revealed": {}}

    def state_to_json(self, state: State) -> dict:
        return {"format": 1, "size": state.size, "line": state.line, "cells": list(state.cells),
                "turn": state.turn, "winner": state.winner}

    def state_from_json(self, data: dict) -> State:
        try:
            if data["format"] != 1:
                raise ValueError("format")
            return State(int(data["size"]), int(data["line"]),
                         tuple(int(v) for v in data["cells"]), int(data["turn"]),
                         int(data["winner"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"malformed state: {exc}") from exc

    def action_to_json(self, action: tuple) -> dict:
        return {"type": "mark", "row": action[1], "col": action[2]}

    def action_from_json(self, data: Any) -> tuple:
        if (not isinstance(data, dict) or set(data) != {"type", "row", "col"}
                or data["type"] != "mark" or type(data["row"]) is not int
                or type(data["col"]) is not int):
            raise IllegalAction("That is not a mark.")
        return ("mark", data["row"], data["col"])

    def describe_action(self, state: State, action: tuple) -> dict:
        seat = state.turn
        if action not in self.legal_actions(state, seat):
            raise IllegalAction("You cannot mark that cell now.")
        return {"type": "marked", "seat": seat, "cell": [action[1], action[2]]}

    def figures(self, events: list[dict], state: State) -> dict[str, float]:
        return {"turns": float(len(events))}


ENGINE = PlaceEngine()
