"""New Haven's board: ``BOARD`` (see ``board.py``), its drawings and event texts."""

from games.boards.newhaven.board import BOARD

__all__ = ["BOARD"]
