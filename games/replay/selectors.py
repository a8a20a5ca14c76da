"""Replays (read-only): who may see which perspective of which step, and what they see.

The one selector behind the replay page, the replay API and the export: every one of them
calls :func:`resolve_perspective` (through :func:`replay_step` or :func:`export_document`)
and nothing else decides the rules:

* **During a game** (and for a game stopped before its end) a seated player may review the
  game so far from their *own* seat only; everyone else (spectators, anonymous visitors,
  staff) sees the public (spectator) view.  Nobody gets another seat's view or the revealed
  view, and the export has no seed and hides other seats' raw actions.
* **After the end** anyone may choose any seat's perspective (exactly what that seat knew
  at that step: ``engine.observe``), the spectator view, or everything revealed
  (``engine.reveal``: every hand, the deck order, and the seed).

A step ``K`` is the state after the first ``K`` moves (``0`` is the deal), the fold of
``games.engines.replay.fold``.  States are checkpointed in the project's cache every
:data:`CHECKPOINT_EVERY` steps (moves never change once made; a practice undo that cuts
the log back changes the keys, ``Game.rewinds``), so a step folds at most that many
actions; a cache that is down only makes replays fold from the deal.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.utils.translation import gettext_lazy as _

from games.core.selectors import seat_of, seats_json, variant_version_number
from games.engines import State
from games.engines.replay import EXPORT_FORMAT
from games.models import Game, Move
from games.replay.errors import InvalidReplayRequest, PerspectiveForbidden, ReplayNotStarted

logger = logging.getLogger(__name__)

#: The ``seat`` parameter of the spectator's (public) view.
SPECTATOR = "spectator"
#: The ``seat`` parameter of the revealed view (finished games only).
REVEALED = "all"
#: A state is kept in the cache every this many steps.
CHECKPOINT_EVERY = 16
#: Seconds a checkpoint or a finished game's move list stays in the cache.
CACHE_SECONDS = 24 * 3600


# --- errors -----------------------------------------------------------------------------------


# --- perspectives -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Perspective:
    """Whose eyes a replay step is seen with: a seat, the spectator, or everything revealed."""

    seat: int | None = None
    revealed: bool = False

    @property
    def param(self) -> str:
        """The ``seat`` query parameter of this perspective (``0``, ``spectator``, ``all``)."""
        if self.revealed:
            return REVEALED
        return SPECTATOR if self.seat is None else str(self.seat)

    @property
    def kind(self) -> str:
        """``seat``, ``spectator`` or ``revealed``."""
        if self.revealed:
            return "revealed"
        return SPECTATOR if self.seat is None else "seat"


PUBLIC = Perspective()
EVERYTHING = Perspective(revealed=True)


def is_over(game: Game) -> bool:
    """True once the game has ended normally: every perspective is open then."""
    return game.status == Game.Status.FINISHED


def _check_started(game: Game) -> None:
    if game.status == Game.Status.OPEN or game.started_at is None:
        raise ReplayNotStarted()


def allowed_perspectives(game: Game, user: Any) -> list[Perspective]:
    """Every perspective ``user`` may take on ``game`` (see the module's rules)."""
    if is_over(game):
        return [Perspective(seat=s) for s in range(game.num_players)] + [PUBLIC, EVERYTHING]
    mine = seat_of(game, user)
    return [Perspective(seat=mine)] if mine is not None else [PUBLIC]


def default_perspective(game: Game, user: Any) -> Perspective:
    """The viewer's own seat when they have one, the spectator's view otherwise."""
    mine = seat_of(game, user)
    return PUBLIC if mine is None else Perspective(seat=mine)


def _number(text: str, digits: int) -> int | None:
    """``text`` as a whole number of at most ``digits`` ASCII digits (``"²"`` and ``"٣"``
    are digits to ``str.isdigit`` but not to ``int``), else ``None``."""
    if text.isascii() and text.isdigit() and len(text) <= digits:
        return int(text)
    return None


def parse_perspective(raw: Any, num_players: int) -> Perspective | None:
    """The perspective a ``seat`` parameter names (``None``/"" = the default).

    :class:`InvalidReplayRequest` for anything else than a seat number of this game,
    ``spectator`` or ``all``.
    """
    if raw is None or raw == "":
        return None
    text = str(raw).strip()
    if text == SPECTATOR:
        return PUBLIC
    if text == REVEALED:
        return EVERYTHING
    if _number(text, 3) is not None and int(text) < num_players:
        return Perspective(seat=int(text))
    raise InvalidReplayRequest(
        "seat",
        _("A seat number from 0 to %(last)s, “spectator” or “all”.") % {"last": num_players - 1},
    )


def resolve_perspective(game: Game, user: Any, raw: Any = None) -> Perspective:
    """The perspective ``user`` asked for with ``raw`` (the default when empty), if allowed.

    The one place that decides: ``ReplayNotStarted`` before the start,
    ``InvalidReplayRequest`` for garbage, ``PerspectiveForbidden`` when not allowed.
    """
    _check_started(game)
    wanted = parse_perspective(raw, game.num_players) or default_perspective(game, user)
    if wanted not in allowed_perspectives(game, user):
        raise PerspectiveForbidden()
    return wanted


# --- moves and states -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayMove:
    """One move of the replayed game: its number (= the step it leads to), seat and event."""

    seq: int
    seat: int
    action: Any
    event: dict | None


def cache_key(game: Game, *parts: Any) -> str:
    """A cache key of ``game``'s replay data (``parts`` name the datum)."""
    # The seed and the start make keys unique even where ids are reused (test databases).
    started = game.started_at.timestamp() if game.started_at else 0
    # A game whose log was cut back (a practice undo) may have another move K since.
    rewinds = getattr(game, "rewinds", 0) or 0
    return ":".join(["replay", str(game.pk), str(game.seed), f"{started:.6f}",
                     *([f"r{rewinds}"] if rewinds else []), *map(str, parts)])


def cache_get_many(keys: list[str]) -> dict[str, Any]:
    try:
        return cache.get_many(keys)
    except Exception:  # a cache that is down only makes replays slower
        logger.warning("replay cache unavailable (get)", exc_info=True)
        return {}


def cache_set_many(values: dict[str, Any]) -> None:
    if not values:
        return
    try:
        cache.set_many(values, timeout=CACHE_SECONDS)
    except Exception:
        logger.warning("replay cache unavailable (set)", exc_info=True)


def game_moves(game: Game) -> list[ReplayMove]:
    """Every move of ``game`` in order (a finished game's list is cached: it never changes)."""
    key = cache_key(game, "moves", 2)  # 2: rows without the legacy sentence
    if is_over(game):
        cached = cache_get_many([key]).get(key)
        if cached is not None:
            return [ReplayMove(*row) for row in cached]
    rows = list(
        Move.objects.filter(game=game)
        .order_by("seq")
        .values_list("seq", "seat", "action", "event")
    )
    if is_over(game):
        cache_set_many({key: rows})
    return [ReplayMove(*row) for row in rows]


_STATE_FORMATS: dict[str, Any] = {}


def _state_format(game: Game) -> Any:
    """The ``format`` of the states this process's engine writes for ``game``'s game."""
    engine = game.engine
    if engine.name not in _STATE_FORMATS:
        state = engine.new_game(game.variant_data, game.num_players, game.seed)
        _STATE_FORMATS[engine.name] = engine.state_to_json(state).get("format")
    return _STATE_FORMATS[engine.name]


def state_at(game: Game, moves: Sequence[ReplayMove], step: int) -> State:
    """The state after the first ``step`` moves, from the nearest cached checkpoint."""
    engine = game.engine
    marks = list(range(step - step % CHECKPOINT_EVERY, 0, -CHECKPOINT_EVERY))
    found = cache_get_many([cache_key(game, "state", m) for m in marks]) if marks else {}
    state, done = None, 0
    for mark in marks:  # highest first
        data = found.get(cache_key(game, "state", mark))
        # A checkpoint written before an engine upgrade may load (old formats are
        # converted) but lose what the old format lacked: fold instead.
        if data is None or data.get("format") != _state_format(game):
            continue
        try:
            state, done = engine.state_from_json(data), mark
        except Exception:  # an old format in the cache: fold instead
            state = None
            continue
        break
    if state is None:
        state = engine.new_game(game.variant_data, game.num_players, game.seed)
    fresh: dict[str, Any] = {}
    for k in range(done, step):
        move = moves[k]
        state = engine.apply(state, move.seat, engine.action_from_json(move.action))
        if (k + 1) % CHECKPOINT_EVERY == 0:
            fresh[cache_key(game, "state", k + 1)] = engine.state_to_json(state)
    cache_set_many(fresh)
    return state


def parse_step(raw: Any, steps: int) -> int:
    """The step a ``step`` parameter names (``None``/"" = the last); ``InvalidReplayRequest``
    unless it is a whole number from 0 to ``steps``."""
    if raw is None or raw == "":
        return steps
    text = str(raw).strip()
    if _number(text, 9) is None or int(text) > steps:
        raise InvalidReplayRequest(
            "step", _("A step from 0 to %(steps)s.") % {"steps": steps}
        )
    return int(text)


# --- one step ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayStep:
    """One step of a replay as one viewer may see it.

    ``view`` is ``engine.observe(state, perspective.seat)``, or ``engine.reveal(state)`` for
    the revealed perspective; ``event`` the event of the move that led here (``None`` at
    step 0); ``seed`` only in the revealed perspective; ``perspectives`` those the viewer may
    switch to.
    """

    game: Game
    step: int
    steps: int
    perspective: Perspective
    perspectives: list[Perspective]
    view: dict
    event: dict | None
    moves: list[ReplayMove] = field(repr=False)
    seed: int | None = None
    #: The true state at this step: for :meth:`analysis_state` only, never for output.
    _state: Any = field(default=None, repr=False, compare=False)

    @property
    def seat(self) -> int | None:
        return self.perspective.seat

    def analysis_state(self, rng: random.Random) -> State:
        """A state for analysing this step (an AI's opinion, the legal moves) that holds no
        more than the perspective may know: ``engine.determinize`` for a seat or the
        spectator (hidden parts resampled from ``rng``), the true state only in the
        revealed perspective (a finished game).  The analysis panel's way to a state."""
        if self.perspective.revealed:
            return self._state
        return self.game.engine.determinize(self._state, self.perspective.seat, rng)

    def api_document(self) -> dict:
        """``{step, steps, seat, perspective, view, event, seed}`` for the API."""
        return {
            "step": self.step,
            "steps": self.steps,
            "seat": self.perspective.seat,
            "perspective": self.perspective.kind,
            "view": self.view,
            "event": self.event,
            "seed": self.seed,
        }


def replay_step(game: Game, user: Any, *, step: Any = None, seat: Any = None) -> ReplayStep:
    """Step ``step`` (default: the last) of ``game`` from perspective ``seat`` for ``user``.

    Raises ``ReplayNotStarted``, ``InvalidReplayRequest`` or ``PerspectiveForbidden``.
    """
    perspective = resolve_perspective(game, user, seat)
    moves = game_moves(game)
    k = parse_step(step, len(moves))
    state = state_at(game, moves, k)
    engine = game.engine
    # The only place a replay reads hidden state: observe for a seat, reveal after the end.
    view = (engine.reveal(state) if perspective.revealed
            else engine.observe(state, perspective.seat))
    return ReplayStep(
        game=game,
        step=k,
        steps=len(moves),
        perspective=perspective,
        perspectives=allowed_perspectives(game, user),
        view=view,
        event=moves[k - 1].event if k > 0 else None,
        moves=moves,
        seed=game.seed if perspective.revealed else None,
        _state=state,
    )


# --- export -----------------------------------------------------------------------------------


def export_document(game: Game, user: Any) -> dict:
    """The export of ``game`` as ``user`` may have it (replayable once the game is finished).

    ``{format, id, game, variant, players, seats, seed, actions, result}`` (see
    ``games.engines.replay``).  Before the end: no seed, and the raw action of a move only
    for the seat that made it (the viewer's own perspective, as on the replay page).
    """
    perspective = resolve_perspective(game, user)
    over = is_over(game)
    actions = [
        {
            "seq": move.seq,
            "seat": move.seat,
            "action": move.action if over or move.seat == perspective.seat else None,
            "event": move.event,
        }
        for move in game_moves(game)
    ]
    return {
        "format": EXPORT_FORMAT,
        "id": game.pk,
        "game": game.game_name,
        "variant_name": game.variant_name,
        "variant_version": variant_version_number(game),
        "variant": game.variant_data,
        "players": game.num_players,
        "seats": seats_json(game),
        "seed": game.seed if over else None,
        "actions": actions,
        "status": game.status,
        "result": (game.result or None) if over else None,
    }
