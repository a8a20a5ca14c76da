"""Reads of practice help: is a game a practice game, the hint of a version, the panel.

A *practice game* is unrated and every seat but the viewer's is the AI, and always was
(no person ever held it: a person who left counts as a game with people).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import uuid
from typing import Any, NamedTuple

from django.core.cache import cache
from django.urls import reverse

from games.boards import default_event_text, get_board
from games.core.selectors import current_state, rule_data, seats_of
from games.models import Game, Move, Seat

logger = logging.getLogger(__name__)

#: How many moves a hint shows.
HINT_MOVES = 3
#: Worlds of the seat's information set a hinted move is described in (``seen_event``).
SEEN_WORLDS = 4
#: Worlds of the seat's information set a move to take back is replayed in (``reveals``).
UNDO_WORLDS = 8


def is_practice(game: Game, seats: list[Seat] | None = None, *, seat: int | None) -> bool:
    """Whether ``game`` is a practice game for ``seat`` (a person's seat): unrated, and
    every other seat is the AI and never had a person (``seats``: already loaded)."""
    if game.rated or seat is None:
        return False
    seats = seats_of(game) if seats is None else seats
    mine = next((s for s in seats if s.index == seat), None)
    if mine is None or mine.user_id is None:
        return False
    return all(s.is_ai and s.left_user_id is None for s in seats if s.index != seat)


def hint_key(game: Game, version: int, seat: int) -> str:
    """The cache key of ``seat``'s hint at ``version`` (the start makes ids reused by
    test databases harmless)."""
    started = game.started_at.timestamp() if game.started_at else 0
    return f"practice-hint:{game.pk}:{started:.6f}:{version}:{seat}"


def hint_seed(game: Game, version: int, seat: int) -> int:
    """The search's seed: the game's id, version and seat only -- never its seed."""
    digest = hashlib.blake2b(f"hint:{game.pk}:{version}:{seat}".encode(),
                             digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def stored_hint(game: Game, version: int, seat: int) -> dict | None:
    """What the cache holds of the hint: ``{"status": "pending" | "done" | "failed",
    "moves"?: [{action, win, visits}]}``, ``None`` when nothing (or the cache is down)."""
    try:
        found = cache.get(hint_key(game, version, seat))
    except Exception:
        logger.warning("hint cache unavailable (get)", exc_info=True)
        return None
    return found if isinstance(found, dict) else None


def canonical(action: Any) -> str:
    """An action's JSON as the board's buttons carry it (``data-action``)."""
    return json.dumps(action, separators=(",", ":"), sort_keys=True)


def seen_event(engine: Any, state: Any, seat: int, action: Any, *, seed: int) -> Any:
    """The event of ``action`` (not played yet) as ``seat`` can foresee it.

    An event tells what a move did, its outcome included (the card a draw brought up):
    described in the true state, a move not yet played would tell what is hidden.  So it
    is described in :data:`SEEN_WORLDS` worlds ``seat`` cannot tell from the true one
    (``engine.determinize``), never in the true state, and a field on which they disagree
    -- what the move would reveal -- is left out (``None``).
    """
    rng = random.Random(seed)
    events = [engine.describe_action(engine.determinize(state, seat, rng), action)
              for _world in range(SEEN_WORLDS)]
    first = events[0]
    if not isinstance(first, dict):
        return first if all(e == first for e in events) else {}
    return {key: value if all(isinstance(e, dict) and e.get(key) == value for e in events)
            else None for key, value in first.items()}


def reveals(engine: Any, state: Any, seat: int, mover: int, action: Any, *, seed: int
            ) -> bool:
    """Whether ``mover``'s ``action`` in ``state`` showed ``seat`` something it could not
    foresee (a card or tile drawn, a card turned up, a building played from a hidden hand).

    The engine alone decides: the action is replayed in :data:`UNDO_WORLDS` worlds
    ``seat`` cannot tell from ``state`` (``engine.determinize``); if ``seat``'s view
    after it (``engine.observe``) differs in any of them from its view in the true game,
    or the action is not even possible in one of them, the move revealed hidden
    information.  Deterministic for a ``seed``.
    """
    after = engine.observe(engine.apply(state, mover, action), seat)
    rng = random.Random(seed)
    for _world in range(UNDO_WORLDS):
        world = engine.determinize(state, seat, rng)
        try:
            seen = engine.observe(engine.apply(world, mover, action), seat)
        except Exception:  # impossible in a world the seat could not rule out
            return True
        if seen != after:
            return True
    return False


def undo_seed(game: Game, seq: int, seat: int) -> int:
    """The worlds' seed of :func:`reveals` for move ``seq``: never the game's seed."""
    digest = hashlib.blake2b(f"undo:{game.pk}:{seq}:{seat}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


class UndoCheck(NamedTuple):
    """What an undo of ``seat`` would take back at a version: ``last`` is the ``seq`` of
    its last move (``None``: no move to take back), ``blocked`` whether taking back the
    moves from there on would go past one that revealed something (:func:`reveals`)."""

    last: int | None
    blocked: bool


def undo_check(game: Game, seat: int) -> UndoCheck:
    """The undo of ``seat`` at ``game``'s version (:class:`UndoCheck`).

    ``blocked``: a move from ``seat``'s last one on showed ``seat`` something it could
    not foresee (:func:`reveals`); replayed, the same seed would deal the same cards, so
    the player would know what comes.  Read once per version -- one query of the log,
    then the cache: the log at a version never changes (every move and undo moves the
    version on), and the play page asks on every render of the player's fragments.
    """
    started = game.started_at.timestamp() if game.started_at else 0
    key = f"practice-undo-check:{game.pk}:{started:.6f}:{game.version}:{seat}"
    try:
        found = cache.get(key)
    except Exception:
        logger.warning("undo cache unavailable (get)", exc_info=True)
        found = None
    if (isinstance(found, (list, tuple)) and len(found) == 2
            and isinstance(found[1], bool)):
        return UndoCheck(*found)
    # The log at this version: a move committed since the game was read is not in it.
    moves = list(game.moves.filter(seq__lte=game.version).order_by("seq")
                 .only("game", "seq", "seat", "action"))
    last = next((m.seq for m in reversed(moves) if m.seat == seat), None)
    checked = UndoCheck(last, last is not None and _reveals_from(game, moves, seat, last))
    try:
        cache.set(key, tuple(checked), timeout=3600)
    except Exception:
        logger.warning("undo cache unavailable (set)", exc_info=True)
    return checked


def _reveals_from(game: Game, moves: list[Move], seat: int, from_seq: int) -> bool:
    """Whether a move of ``moves`` (the log, in order) from ``from_seq`` on revealed
    something to ``seat`` (:func:`reveals`, in the game replayed from its deal)."""
    engine = game.engine
    state = engine.new_game(game.variant_data, game.num_players, game.seed)
    for move in moves:
        action = engine.action_from_json(move.action)
        if move.seq >= from_seq and reveals(engine, state, seat, move.seat, action,
                                            seed=undo_seed(game, move.seq, seat)):
            return True
        state = engine.apply(state, move.seat, action)
    return False


def hint_rows(game: Game, found: dict, seat: int) -> list[dict]:
    """The hint's moves in the board's own words: ``[{text, win, percent, action,
    action_json}]``.

    Each is the board's log line of the move's event as ``seat`` (whose hint it is) can
    foresee it
    (:func:`seen_event`: what it would reveal left out); ``action_json`` is the text of
    the action the board's buttons carry (``data-action``).
    """
    engine = game.engine
    state = current_state(game)
    board = get_board(game.game_name)
    names = {s.index: s.display_name for s in seats_of(game)}
    rules = rule_data(game.game_name, game.variant_data)
    rows = []
    for move in found.get("moves") or []:
        try:
            action = engine.action_from_json(move["action"])
            event = seen_event(engine, state, seat, action,
                               seed=hint_seed(game, game.version, seat))
        except Exception:  # not a move of this state (should not happen: keyed by version)
            continue
        if not isinstance(event, dict):
            text = str(event)
        elif board is not None:
            text = board.event_text(event, names, rules)
        else:
            text = default_event_text(event, names)
        win = float(move.get("win", 0.0))
        rows.append({"text": text, "win": round(win, 4), "percent": round(100 * win),
                     "action": move["action"], "action_json": canonical(move["action"])})
    return rows


def hint_panel(game: Game, seat: int, *, version: int, error: str = "") -> dict:
    """The hint part of the practice panel at ``version``: its state and rows."""
    found = stored_hint(game, version, seat) if version == game.version else None
    status = (found or {}).get("status", "")
    return {
        "hint_status": status,
        "hint_rows": hint_rows(game, found, seat) if status == "done" else [],
        "hint_url": reverse("practice_hint", args=[game.pk]),
        "hint_version": version,
        "hint_error": error,
    }


def practice_panel(game: Game, seat: int | None, seats: list[Seat] | None = None
                   ) -> dict | None:
    """What the play page offers the player of ``seat`` in a running practice game:
    ``{can_hint, can_undo, undo_blocked, undo_url, undo_key, ...hint_panel}``; ``None``
    anywhere else (rated, people at the table, spectators, a finished game): no buttons
    there.  ``undo_blocked``: there is a move, but taking it back would go past one that
    revealed something (:func:`undo_check`, read once per version), so the button is
    disabled.  Spectators and every other game cost nothing: the seats are loaded."""
    if game.status != Game.Status.RUNNING or not is_practice(game, seats, seat=seat):
        return None
    assert seat is not None
    undo = undo_check(game, seat)
    return {
        "can_hint": seat in (game.to_move or []),
        "can_undo": undo.last is not None and not undo.blocked,
        "undo_blocked": undo.blocked,
        "undo_url": reverse("practice_undo", args=[game.pk]),
        "undo_key": uuid.uuid4().hex,
        **hint_panel(game, seat, version=game.version),
    }
