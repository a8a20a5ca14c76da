"""The rules editor: versioned variants, edited through forms generated from the engines'
JSON Schemas and per-game visual editors, checked by self-play simulation.

Generic code here names no game: each game's visual editors live in
``games/editor/<game>/`` and register themselves in ``games.editor.widgets``.
"""
