"""New Haven events (``engine.describe_action``) -> translated log lines with names.

Board cells and village spaces are named alike, column letter then row number ("C4"), as
the drawings label them.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext as _

from games.boards.newhaven.drawing import cell_name, resource_label


def _where(value) -> str:
    """``[row, col]`` -> ``"C4"``; anything else as text."""
    if isinstance(value, list | tuple) and len(value) == 2 and all(
        isinstance(v, int) for v in value
    ):
        return cell_name(value[0], value[1])
    return str(value)


def _building(event: Mapping) -> str:
    res = resource_label(str(event.get("resource", "")))
    number = event.get("number")
    return f"{res} {number}" if number is not None else res


def _cost(rules: Mapping, space) -> str:
    """The cost of a village space, from the rule data; "" if unknown."""
    village = (rules or {}).get("village", {})
    if not (isinstance(space, list | tuple) and len(space) == 2
            and all(isinstance(v, int) for v in space)):
        return ""
    row, col = space
    costs = village.get("space_costs")
    if costs and 0 <= row < len(costs) and 0 <= col < len(costs[row]):
        return str(costs[row][col])
    row_costs = village.get("row_costs") or []
    return str(row_costs[row]) if 0 <= row < len(row_costs) else ""


def event_text(event: Mapping, names: Mapping[int, str], rules: Mapping | None = None) -> str:
    """One log line (the event types of ``games/engines/newhaven/events.py``); an unknown
    type still gives a readable line."""
    seat = event.get("seat")
    who = names.get(seat, _("Seat %(n)s") % {"n": seat}) if isinstance(seat, int) else ""
    kind = event.get("type")
    took = event.get("building")
    taken = (
        " " + _("and took %(building)s from the clearing") % {"building": _building(took)}
        if isinstance(took, Mapping)
        else ""
    )
    if kind == "harvested":
        squares = ", ".join(resource_label(s) for s in event.get("squares") or [])
        return _("%(who)s placed a harvest tile (%(squares)s) on %(cell)s") % {
            "who": who, "squares": squares, "cell": _where(event.get("cell"))} + taken + "."
    if kind == "shipped":
        return _("%(who)s played the shipment as 4 %(res)s on %(cell)s") % {
            "who": who, "res": resource_label(str(event.get("resource", ""))),
            "cell": _where(event.get("cell"))} + taken + "."
    if kind == "built":
        space = event.get("space")
        values = {"who": who, "building": _building(event), "space": _where(space)}
        cost = _cost(rules or {}, space)
        if event.get("face_up"):
            text = _("%(who)s built %(building)s face up on %(space)s") % values
        else:
            text = _("%(who)s built %(building)s face down on %(space)s") % values
        if cost:
            text += " " + _("(cost %(cost)s)") % {"cost": cost}
        replaced = event.get("replaced")
        if isinstance(replaced, Mapping):
            text += ", " + _("replacing %(building)s") % {"building": _building(replaced)}
        return text + "."
    if kind == "ended_build":
        if event.get("built") is False:
            return _("%(who)s built nothing.") % {"who": who}
        return _("%(who)s finished building.") % {"who": who}
    if kind == "passed":
        if event.get("built"):
            return _("%(who)s finished building with the markers left.") % {"who": who}
        return _("%(who)s passed.") % {"who": who}
    if kind == "drew_market":
        return _("%(who)s took %(building)s from the market.") % {
            "who": who, "building": _building(event)}
    if kind == "drew_blind":
        return _("%(who)s drew a building blind from the bag.") % {"who": who}
    details = ", ".join(f"{k} {v}" for k, v in event.items() if k not in ("type", "seat"))
    return " ".join(part for part in (who, str(kind or ""), details) if part)
