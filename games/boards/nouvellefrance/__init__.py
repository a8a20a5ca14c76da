"""Nouvelle-France's board: ``BOARD`` (see ``board.py``), its drawings and event texts."""

from games.boards.nouvellefrance.board import BOARD

__all__ = ["BOARD"]
