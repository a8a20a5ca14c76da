"""A template loader for board packages: ``boards/<game>/...`` comes from that board's
``template_dir`` (``templates/`` beside its package), so a board registered from anywhere
(a plug-in, a test) brings its own templates without touching the settings again."""

from __future__ import annotations

from collections.abc import Iterator

from django.core.exceptions import SuspiciousFileOperation
from django.template import Origin
from django.template.loaders.filesystem import Loader as FilesystemLoader
from django.utils._os import safe_join

from games.boards import board_names, get_board


class Loader(FilesystemLoader):
    """Finds ``boards/<name>/<file>`` in the template directory of the board ``<name>``."""

    def get_dirs(self) -> list:
        """Every registered board's template directory (for Django's autoreloader)."""
        return [board.template_dir for name in board_names() if (board := get_board(name))]

    def get_template_sources(self, template_name: str) -> Iterator[Origin]:
        parts = template_name.split("/")
        if len(parts) < 3 or parts[0] != "boards":
            return
        board = get_board(parts[1])
        if board is None:
            return
        try:
            name = safe_join(board.template_dir, template_name)
        except SuspiciousFileOperation:
            return
        yield Origin(name=name, template_name=template_name, loader=self)
