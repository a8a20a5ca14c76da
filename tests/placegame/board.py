"""The test game's board: a grid of buttons.  A whole board in one small file, registered
from test code (see ``__init__.py``) to prove that generic code needs no change."""

from __future__ import annotations

from collections.abc import Mapping

from games.boards import Board, Choice, Scene

MARKS = ("X", "O")


def cell_name(row: int, col: int) -> str:
    return f"{chr(65 + col)}{row + 1}"


class PlaceBoard(Board):
    name = "placegame"
    template = "boards/placegame/board.html"
    layout = "layout"
    fragments = ("grid",)

    def present(self, scene: Scene) -> dict:
        view = scene.view
        moves = {(a["row"], a["col"]): a for a in scene.legal if a.get("type") == "mark"}
        rows = []
        for r, line in enumerate(view["grid"]):
            row = []
            for c, owner in enumerate(line):
                action = moves.get((r, c)) if scene.interactive else None
                row.append({
                    "name": cell_name(r, c),
                    "mark": MARKS[owner] if owner >= 0 else "",
                    "choice": Choice(action, f"Mark {cell_name(r, c)}", text=" ",
                                     focus=f"cell-{cell_name(r, c)}") if action else None,
                })
            rows.append(row)
        over = view["is_over"]
        return {
            "headline": "Game over" if over else "Mark a cell",
            "prompt": "Choose an empty cell." if moves else "",
            "scores": view["scores"],
            "rows": rows,
        }

    def event_text(self, event: dict, names: Mapping[int, str], rules: Mapping | None = None
                   ) -> str:
        r, c = event["cell"]
        return f"{names.get(event['seat'], '?')} marked {cell_name(r, c)}."


BOARD = PlaceBoard()
