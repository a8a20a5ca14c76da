"""Replays: a game is the fold of its actions over the deal; the export format and its reader.

Pure Python (no Django): the web app's replay page, API and export fold with
:func:`fold` and write :data:`EXPORT_FORMAT`; :func:`replay_export` replays an export
(``GET /api/games/{id}/export/``) with the engine alone.  The command line that prints
its final scores is ``python -m tools.replay game-12.json`` (:mod:`tools.replay`).

An *export* is JSON with these keys::

    {
      "format": 1,
      "game": "newhaven",                 # the engine's name
      "variant": {...},                   # the variant snapshot the game was played with
      "players": 3,                       # the player count
      "seats": [{"index", "type", "username", "level"}, ...],
      "seed": 1234,                       # null before the game is finished
      "actions": [{"seq": 1, "seat": 0, "action": ..., "event": {...}}, ...],
      "result": {"scores": [...], "winners": [...]} | null
    }

``action`` is ``null`` where the exporter may not see it (another seat's move while the
game runs); such an export cannot be replayed, nor one without a seed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from . import get_engine
from .protocol import EngineError, State

__all__ = ["EXPORT_FORMAT", "ExportError", "Replayed", "fold", "replay_export"]

#: The version of the export document.
EXPORT_FORMAT = 1
#: Keys an export must have.
REQUIRED_KEYS = ("game", "variant", "players", "seats", "seed", "actions")


class ExportError(ValueError):
    """An export that cannot be replayed; the message says why."""


def fold(engine: Any, variant: dict, num_players: int, seed: int,
         actions: Iterable[tuple[int, Any]], *, start: State | None = None) -> State:
    """``new_game(variant, num_players, seed)`` (or ``start``) with ``(seat, action)`` applied.

    Actions are engine actions (not JSON); ``IllegalAction`` propagates.
    """
    state = engine.new_game(variant, num_players, seed) if start is None else start
    for seat, action in actions:
        state = engine.apply(state, seat, action)
    return state


@dataclass(frozen=True)
class Replayed:
    """The outcome of replaying an export."""

    game: str
    steps: int
    scores: list[int]
    winners: list[int]
    names: list[str]
    over: bool


def _seat_name(seat: Any, index: int) -> str:
    if isinstance(seat, dict):
        if seat.get("username"):
            return str(seat["username"])
        if seat.get("type") == "ai":
            return f"AI ({seat.get('level') or 'normal'})"
    return f"Seat {index + 1}"


def replay_export(data: Any) -> Replayed:
    """Replay an export document; :class:`ExportError` for anything malformed or illegal."""
    if not isinstance(data, dict):
        raise ExportError("an export is a JSON object")
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise ExportError(f"missing keys: {', '.join(missing)}")
    fmt = data.get("format", EXPORT_FORMAT)
    if fmt != EXPORT_FORMAT:
        raise ExportError(f"unknown export format {fmt!r} (this version reads {EXPORT_FORMAT})")
    try:
        engine = get_engine(data["game"])
    except KeyError as exc:
        raise ExportError(str(exc.args[0])) from None
    players, seed, actions = data["players"], data["seed"], data["actions"]
    if type(players) is not int:
        raise ExportError("players: the player count, a whole number")
    if seed is None:
        raise ExportError("seed is null: only a finished game's export can be replayed")
    if type(seed) is not int:
        raise ExportError("seed: a whole number")
    if not isinstance(data["variant"], dict):
        raise ExportError("variant: the variant's data, an object")
    if not isinstance(actions, list):
        raise ExportError("actions: a list")
    try:
        state = engine.new_game(data["variant"], players, seed)
    except (EngineError, ValueError, TypeError, KeyError) as exc:
        raise ExportError(f"cannot deal this game: {exc}") from None
    for number, row in enumerate(actions, start=1):
        if not isinstance(row, dict) or type(row.get("seat")) is not int:
            raise ExportError(f"action {number}: an object with a seat number")
        if row.get("action") is None:
            raise ExportError(f"action {number}: hidden in this export (the game was running)")
        try:
            state = engine.apply(state, row["seat"], engine.action_from_json(row["action"]))
        except (EngineError, ValueError, TypeError, KeyError, IndexError) as exc:
            raise ExportError(f"action {number} (seat {row['seat']}): {exc}") from None
    seats = data["seats"] if isinstance(data["seats"], list) else []
    names = [_seat_name(seats[i] if i < len(seats) else None, i) for i in range(players)]
    return Replayed(
        game=data["game"],
        steps=len(actions),
        scores=list(engine.scores(state)),
        winners=list(engine.winners(state)),
        names=names,
        over=engine.is_over(state),
    )
