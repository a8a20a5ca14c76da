"""The per-game board layer: how each game looks in the browser and how a player picks actions.

Each game's board is named by its entry in ``games.catalogue``.  The generic play page, the
socket consumer, the lobby and the replay page ask :func:`get_board` for it and never name a
game.  A board turns one :class:`Scene` (one viewer's ``observe`` of one moment, the
variant's rule data, the viewer's legal actions and what they have picked so far) into a
template context (:meth:`Board.present`), draws it with its own template partials, and turns
stored events into log text (:meth:`Board.event_text`).  See ``games/boards/README.md``.

>>> get_board("newhaven").name
'newhaven'
>>> get_board("no-such-game") is None
True
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from django.utils.translation import gettext as _

from games import catalogue

__all__ = [
    "Board",
    "Choice",
    "Pick",
    "PlayerInfo",
    "Scene",
    "board_names",
    "default_event_text",
    "get_board",
]

def board_names() -> list[str]:
    """The names of every game with a board in the catalogue, sorted."""
    return [name for name in catalogue.game_names() if catalogue.entry(name).board]


@cache
def get_board(name: str) -> Board | None:
    """The board of the game ``name``; ``None`` when the browser cannot draw it."""
    game = catalogue.entry(name)
    if game is None or not game.board:
        return None
    return import_module(game.board).BOARD


catalogue.on_change(get_board.cache_clear)


# --- what a board is given ----------------------------------------------------------------


@dataclass(frozen=True)
class PlayerInfo:
    """A seat as the page names it (the board never reads users or seats itself)."""

    seat: int
    name: str
    is_ai: bool = False
    is_me: bool = False


@dataclass(frozen=True)
class Scene:
    """One viewer's picture of one moment of a game: everything a board may draw.

    ``view`` is ``engine.observe(state, seat)`` (a replay of a finished game may pass
    ``engine.reveal(state)``); ``rules`` is ``engine.rule_data(variant)``; ``legal`` the
    viewer's legal actions as JSON (empty for spectators, other seats and replays);
    ``selection`` the raw query parameters of what the viewer has picked but not played.
    ``interactive`` is False for replays: the board then offers no picks and no forms.
    ``winners`` are the seats that won by the game's result record once it is over (a
    seat someone left never wins, whatever the AI then scored there): a board marks
    these, not the view's; ``None`` (a game still running, a replay's earlier steps)
    keeps the view's.
    """

    view: dict
    rules: dict
    seat: int | None
    players: tuple[PlayerInfo, ...]
    legal: tuple = ()
    selection: Mapping[str, str] = field(default_factory=dict)
    version: int = 0
    interactive: bool = True
    winners: tuple[int, ...] | None = None

    def winning_seats(self) -> list[int]:
        """The seats a board marks as winners: ``winners`` when given, else the view's."""
        if self.winners is not None:
            return list(self.winners)
        return list(self.view.get("winners") or [])

    @property
    def names(self) -> dict[int, str]:
        """Seat -> display name."""
        return {p.seat: p.name for p in self.players}

    def player(self, seat: int) -> PlayerInfo:
        """The seat's info; a placeholder for a seat the page does not know."""
        for p in self.players:
            if p.seat == seat:
                return p
        return PlayerInfo(seat=seat, name=str(seat + 1))

    def distinct_name(self, seat: int) -> str:
        """The seat's name, with its seat number when another seat has the same name (two
        AIs of one level), as the replay's perspective switch names them."""
        name = self.player(seat).name
        if sum(1 for p in self.players if p.name == name) < 2:
            return name
        return f"{name} · " + _("Seat %(n)s") % {"n": seat + 1}


# --- what a board offers ------------------------------------------------------------------


@dataclass
class Choice:
    """One legal action offered as a button (``games/partials/act_form.html`` posts it).

    ``action`` is the engine's JSON of the action, ``label`` its accessible name, ``text``
    what the button shows (the label when empty), ``pos`` the CSS position of a button laid
    over a drawing (``left:..;top:..``; written to ``data-pos``, which ``colonia.js``
    applies: the Content-Security-Policy forbids ``style`` attributes), ``css`` extra
    classes, ``focus`` a stable key: after a swap the
    page puts the keyboard focus back on the element with the same key; ``data`` adds
    ``data-*`` attributes.
    """

    action: Any
    label: str
    text: str = ""
    pos: str = ""
    css: str = ""
    focus: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    key: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def action_json(self) -> str:
        """The action as compact, canonical JSON (what the form posts)."""
        return json.dumps(self.action, separators=(",", ":"), sort_keys=True)


@dataclass
class Pick:
    """A step of the action-picking flow: a link that changes the selection, not the game.

    ``params`` become the query string of the play page (``?tile=0&rot=1``); the page (or
    HTMX, without reloading) renders the fragments for that selection.  ``current`` marks
    the pick that is selected now (``aria-current``); ``data`` adds ``data-*`` attributes
    (hooks for tests and scripts).
    """

    params: Mapping[str, Any]
    label: str
    text: str = ""
    css: str = ""
    focus: str = ""
    current: bool = False
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def query(self) -> str:
        """The query string of this selection ("" clears the selection)."""
        return urlencode({k: v for k, v in self.params.items() if v is not None})


def default_event_text(event: Mapping, names: Mapping[int, str]) -> str:
    """A plain line for an event no board formats: the name, the type, the fields."""
    seat = event.get("seat")
    who = names.get(seat, "") if isinstance(seat, int) else ""
    details = ", ".join(f"{k} {v}" for k, v in event.items() if k not in ("type", "seat"))
    return " ".join(part for part in (who, str(event.get("type", "")), details) if part)


# --- the board --------------------------------------------------------------------------


class Board:
    """Base class of a game's board.  Subclasses set the names and implement ``present``.

    Attributes:
        name: the engine's name.
        template: the board's template, holding its partials (``boards/<name>/board.html``).
        layout: the partial that lays out the whole board area of the play page (page load,
            replays); it contains every fragment partial.
        fragments: partials re-sent on every update, each one element with a stable ``id``,
            ``data-version`` and ``hx-swap-oob`` when the context's ``oob`` is true.
        final: a partial shown under the final scores once the game is over ("" for none).
        revealed: the partial of the replay's "Everything revealed" panel ("" for none): what
            was hidden at that step (hands, bag, deck...) drawn the board's way, from
            :meth:`present_revealed`; shown only in the revealed perspective of a finished
            game.
        stylesheets: static paths of the board's CSS, linked from the page head.
        log_in_layout: True when the layout places the generic log itself, with
            ``{% include parts.log %}`` (for example in a side column); otherwise the page
            puts it after the layout.
        scripts: static paths of the board's own JavaScript (deferred, after the page's
            scripts), for what links and forms cannot do (e.g. a ghost following the
            pointer); the page must still work with the forms alone.
    """

    name: str = ""
    template: str = ""
    layout: str = "layout"
    fragments: tuple[str, ...] = ()
    final: str = ""
    revealed: str = ""
    stylesheets: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()
    log_in_layout: bool = False

    @property
    def template_dir(self) -> Path:
        """Where the board's templates live: ``templates/`` beside its package."""
        module = import_module(type(self).__module__)
        return Path(module.__file__).resolve().parent / "templates"

    def partial(self, name: str) -> str:
        """The include name of one of the board's partials (``template#name``)."""
        return f"{self.template}#{name}"

    def parts(self, *, log: str) -> dict:
        """The include names of the board's partials, for the generic pages (``log``: the
        page's own partial of the move log)."""
        return {
            "name": self.name,
            "layout": self.partial(self.layout),
            "fragments": [self.partial(name) for name in self.fragments],
            "final": self.partial(self.final) if self.final else "",
            "revealed": self.partial(self.revealed) if self.revealed else "",
            "stylesheets": list(self.stylesheets),
            "scripts": list(self.scripts),
            "log": log,
            "log_in_layout": self.log_in_layout,
        }

    def present(self, scene: Scene) -> dict:
        """The template context of ``scene`` (under ``board`` in the page's context).

        Generic templates read these keys (all optional but ``headline``):
        ``headline`` (the phase, for everyone), ``prompt`` (what the viewer should do now,
        when they may act), ``scores`` (per seat), ``turn`` (e.g. "Turn 3 of 10").
        Everything else is the board's own business.
        """
        raise NotImplementedError

    def present_revealed(self, scene: Scene) -> dict:
        """The context of the :attr:`revealed` partial (under ``revealed``), or ``{}``.

        ``scene.view`` is ``engine.reveal(state)`` (its ``revealed`` key holds what was
        hidden); the replay calls this only in the revealed perspective of a finished game.
        Draw what each seat held and what the bag, pool or deck still held, with the
        board's own pictures and translated words -- never the engine's raw keys.
        """
        return {}

    def event_text(self, event: dict, names: Mapping[int, str], rules: Mapping | None = None
                   ) -> str:
        """The log line of one stored event, translated, with the players' names.

        ``rules`` is the variant's rule data (for numbers an event leaves out, e.g. a
        space's cost); it may be ``None``.
        """
        return default_event_text(event, names)

    def variant_summary(self, rules: dict) -> str:
        """A one-line description of a variant for the lobby (the engine's own text)."""
        return str(rules.get("description", ""))
