"""The events of New Haven: what each action did, as JSON data for logs and replays.

``describe(state, action)`` returns the event of ``action`` taken in ``state`` by the seat
to move.  Every event has ``type`` and ``seat`` (the acting seat); cells are
``[row, col]`` of the main board, spaces ``[row, col]`` of the acting seat's village, a
building is ``{"resource": name, "number": n}``.  An event holds only what every seat
knows once the action is taken: no hand index, no tile still in a hand, no number of a
building drawn blind, nothing from the bag or the pool.

============= ========================================== =======================================
type          fields                                     meaning
============= ========================================== =======================================
harvested     cell, squares, building, markers           put a harvest tile on ``cell``;
                                                         ``squares`` as placed
                                                         ``[NW, NE, SE, SW]``; ``building``
                                                         taken from that clearing or ``null``;
                                                         ``markers`` resource -> value gathered
shipped       cell, resource, building, markers          played the shipment face down on
                                                         ``cell`` as 4 squares of ``resource``;
                                                         ``building`` and ``markers`` as above
built         resource, number, space, face_up,          built a building; ``number`` is
              replaced                                   ``null`` when it went face down from
                                                         the hidden part of the hand;
                                                         ``replaced`` (variant *rebuild*) the
                                                         building built over, its ``number``
                                                         ``null`` if that was hidden, or
                                                         ``null``
ended_build   built                                      the active seat ended its build
                                                         (``built``: whether it built)
passed        built                                      a seat ended its share of the markers
                                                         (``built``: whether it built)
drew_market   resource, number                           took that building from the market
drew_blind                                               drew a building blind from the bag
============= ========================================== =======================================
"""

from __future__ import annotations

from typing import Any

from ..protocol import IllegalAction
from . import rules
from .state import State

__all__ = ["EVENT_TYPES", "describe"]

#: Every event type with its fields besides ``type`` and ``seat``, in the table's order.
EVENT_TYPES: dict[str, tuple[str, ...]] = {
    "harvested": ("cell", "squares", "building", "markers"),
    "shipped": ("cell", "resource", "building", "markers"),
    "built": ("resource", "number", "space", "face_up", "replaced"),
    "ended_build": ("built",),
    "passed": ("built",),
    "drew_market": ("resource", "number"),
    "drew_blind": (),
}


def _markers(state: State) -> dict[str, int]:
    return dict(zip(state.compiled.resources, state.markers, strict=True))


def describe(state: State, action: Any) -> dict:
    """The event of ``action`` taken now by the seat to move; ``IllegalAction`` if illegal."""
    moving = rules.to_move(state)
    if not moving:
        raise IllegalAction("The game is over.")
    seat = moving[0]
    try:
        after = rules.apply(state, seat, action)
    except IllegalAction:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise IllegalAction("That is not a valid action here.") from exc
    cv = state.compiled
    kind = action[0]
    event: dict[str, Any] = {"type": "", "seat": seat}
    if kind in ("harvest", "ship"):
        row, col = action[1:3] if kind == "ship" else action[2:4]
        cell = row * cv.size + col
        taken = state.clearings.get(cell)
        building = cv.building(taken) if taken is not None else None
        if kind == "harvest":
            tile = state.players[seat].tiles[action[1]]
            squares = list(cv.rotated_names[tile][action[4]])
            event.update(type="harvested", cell=[row, col], squares=squares)
        else:
            event.update(type="shipped", cell=[row, col], resource=action[3])
        event.update(building=building, markers=_markers(after))
        return event
    if kind == "build":
        _, resource, number, row, col, face_up = action
        p = state.players[seat]
        code = cv.code(resource, number)
        # The public copy is built first (rules): its number was known already.
        public = face_up or code in p.public_buildings
        old = p.village[row * cv.village_cols + col]
        replaced = None
        if old >= 0:
            replaced = cv.building(old >> 2)
            if not old & 1:
                replaced["number"] = None
        event.update(
            type="built",
            resource=resource,
            number=number if public else None,
            space=[row, col],
            face_up=face_up,
            replaced=replaced,
        )
        return event
    if kind == "end_build":
        event.update(type="ended_build", built=state.built)
    elif kind == "pass":
        event.update(type="passed", built=state.built)
    elif kind == "draw_market":
        event.update(type="drew_market", resource=action[1], number=action[2])
    else:
        event["type"] = "drew_blind"
    return event
