"""Events: what an action did, as JSON data (ids and numbers, never prose).

``describe(state, action)`` applies ``action`` for the seat to move and reports the
difference.  Every event has ``type`` and ``seat`` (the acting seat).  Names are the
variant's ids: sites (``church``), shapes and bonus pieces (``eel``, ``beam``),
colours (``white``), characters (``priest``).  An event holds only what every seat
may know once the action is taken: a drawn card is public (it lands face up), a
Huron peek is not (the event says who looked and how many cards, never which or in
what order).

=================  ===============================================================
type               fields (besides ``type`` and ``seat``) and meaning
=================  ===============================================================
``huron``          ``cards``: the seat looked at the top ``cards`` cards (Huron).
``huron_skipped``  the seat let its Huron pass in this window.
``huron_ordered``  ``cards``: the seat put the ``cards`` peeked cards back in an
                   order only it knows.
``drew``           ``card``: the shape that came up (``null`` when the game ended
                   first); ``storms``: the snowstorms the draw triggered, in order
                   (see below); ``dropped``: the shape pushed off a full display, or
                   ``null``; ``over``: the game ended.
``discarded``      no face-up card could be played: ``shape`` of the card discarded
                   (not its position: two cards of a shape are alike), ``copy`` of
                   that shape sent back to the box (``null`` when none was left),
                   then the same ``card``, ``storms``, ``dropped``, ``over`` as
                   ``drew`` for the draw that follows.
``card_chosen``    ``index``, ``shape``: the face-up card the seat will play.
``copy_taken``     ``shape``, ``copy``, ``colours``: the copy (colour names, cube by
                   cube) taken from the supply.
``placed``         a building piece: ``piece`` (shape), ``copy``, ``site``,
                   ``orientation``, ``x``, ``y``, ``level`` (of the piece's lowest
                   layer), ``cubes`` (``[x, y, level, colour]`` each), ``points``
                   scored, ``character`` taken by completing the site (or ``null``).
``bonus_placed``   a bonus piece: the same fields as ``placed`` (``piece`` is the bonus
                   piece, ``copy`` is ``null``).
``fille_du_roy``   ``points``: the seat doubled its turn, gaining ``points`` more.
``no_ally``        the seat did not use the Fille du Roy.
``coureur``        ``points``: the seat used the Coureur des bois and gained ``points``.
``declined``       the seat let the Coureur des bois pass.
=================  ===============================================================

A storm (in ``drew`` and ``discarded``) is ``{"storm": k, "level": k, "symbols":
{site: symbol}, "points": {site: [points of seat 0, seat 1, ...]}, "expired": [[seat,
bonus piece], ...], "characters": [[site, character, seat, points], ...]}``;
``characters`` (the bonus of every character held) is non-empty only for the last
storm, which ends the game.
"""

from __future__ import annotations

from typing import Any

from . import rules
from .state import BONUS_EXPIRED, State

__all__ = ["EVENT_TYPES", "describe"]

PLACED_FIELDS = (
    "piece",
    "copy",
    "site",
    "orientation",
    "x",
    "y",
    "level",
    "cubes",
    "points",
    "character",
)

#: Every event type with its fields besides ``type`` and ``seat``, in the table's order.
EVENT_TYPES: dict[str, tuple[str, ...]] = {
    "huron": ("cards",),
    "huron_skipped": (),
    "huron_ordered": ("cards",),
    "drew": ("card", "storms", "dropped", "over"),
    "discarded": ("shape", "copy", "card", "storms", "dropped", "over"),
    "card_chosen": ("index", "shape"),
    "copy_taken": ("shape", "copy", "colours"),
    "placed": PLACED_FIELDS,
    "bonus_placed": PLACED_FIELDS,
    "fille_du_roy": ("points",),
    "no_ally": (),
    "coureur": ("points",),
    "declined": (),
}


def describe(state: State, action: Any) -> dict[str, Any]:
    """The event of ``action`` in ``state``; ``IllegalAction`` when it is not legal."""
    s = state
    movers = rules.to_move(s)
    seat = movers[0] if movers else s.active
    after = rules.apply(s, seat, action)  # raises IllegalAction
    cv = s.compiled
    tag = action[0]
    event: dict[str, Any] = {"type": tag, "seat": seat}
    if tag == "huron":
        event["cards"] = after.known[seat]
    elif tag == "skip_huron":
        event["type"] = "huron_skipped"
    elif tag == "order":
        event["type"] = "huron_ordered"
        event["cards"] = len(action) - 1
    elif tag == "draw":
        event["type"] = "drew"
        event.update(_drawn(s, after))
    elif tag == "discard":
        i = action[1]
        event["type"] = "discarded"
        event["shape"] = cv.shapes[s.display[i]].name
        event["copy"] = action[2] if len(action) == 3 else None
        # The draw that follows starts from the display without the discarded card.
        before = s.copy()
        before.display = s.display[:i] + s.display[i + 1 :]
        event.update(_drawn(before, after))
    elif tag == "card":
        event["type"] = "card_chosen"
        event["index"] = action[1]
        event["shape"] = cv.shapes[s.display[action[1]]].name
    elif tag == "copy":
        k = action[1]
        event["type"] = "copy_taken"
        event["shape"] = cv.shapes[s.display[s.pending_card]].name
        event["copy"] = k
        event["colours"] = [cv.colours[c] for c in cv.copies[k]]
    elif tag in ("place", "bonus"):
        if tag == "place":
            event["type"] = "placed"
            piece = cv.shapes[s.display[s.pending_card]].name
            copy: int | None = s.pending_copy
            site_name, o, x, y = action[1:]
        else:
            event["type"] = "bonus_placed"
            piece, site_name, o, x, y = action[1:]
            copy = None
        i = cv.site_index[site_name]
        new = sorted(set(after.cubes[i]) - set(s.cubes[i]))
        took = s.holders[i] < 0 and after.holders[i] >= 0
        event.update(
            piece=piece,
            copy=copy,
            site=site_name,
            orientation=o,
            x=x,
            y=y,
            level=min(lv for _x, _y, lv in new),
            cubes=[[cx, cy, lv, cv.colours[after.cubes[i][(cx, cy, lv)]]] for cx, cy, lv in new],
            # Not ``after.points``: a turn that ends at once resets it.
            points=after.scores[seat] - s.scores[seat],
            character=cv.sites[i].character if took else None,
        )
    elif tag == "fille_du_roy":
        event["points"] = s.points
    elif tag == "coureur":
        event["points"] = s.points // 2
    elif tag == "decline":
        event["type"] = "declined"
    return event


def _drawn(before: State, after: State) -> dict[str, Any]:
    """What a draw (with its storms) did, between ``before`` and ``after``."""
    cv = before.compiled
    storms = []
    probe = before
    for k in range(before.storms + 1, after.storms + 1):
        points = rules.storm_points(probe, k)
        expired = [
            [seat, cv.bonus[b].name]
            for seat in range(before.num_players)
            for b in range(len(cv.bonus))
            if after.bonus[seat][b] == BONUS_EXPIRED
            and before.bonus[seat][b] != BONUS_EXPIRED
            and cv.bonus_expiry[b] == k
        ]
        last = k == cv.storms
        storms.append(
            {
                "storm": k,
                "level": k,
                "symbols": {
                    site.name: cv.sticks[before.sticks[i]][k - 1] for i, site in enumerate(cv.sites)
                },
                "points": {site.name: points[i] for i, site in enumerate(cv.sites)},
                "expired": expired,
                "characters": [
                    [cv.sites[i].name, cv.sites[i].character, holder, bonus]
                    for i, holder, bonus in rules.character_points(before)
                ]
                if last
                else [],
            }
        )
    dropped = None
    if not after.over and len(before.display) >= cv.display_size:
        dropped = cv.shapes[before.display[0]].name
    return {
        "card": None if after.over else cv.shapes[after.display[-1]].name,
        "storms": storms,
        "dropped": dropped,
        "over": after.over,
    }
