"""Nouvelle-France events (``engine.describe_action``) -> translated log lines with names;
and the translated names of the game's ids (shapes, sites, characters, allies, symbols).

Ground cells are named as the drawings label them: column letter (x) then row number
(y + 1), e.g. "C4"; a piece by the first and last ground cell it covers ("C1–E1").
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.boards.nouvellefrance.drawing import cells_text, colour_label


def shape_label(name: str) -> str:
    """A shape's or bonus piece's translated name (a variant's own names as they are)."""
    return {
        "cross": _("cross"),
        "horseshoe": _("horseshoe"),
        "stairs": _("stairs"),
        "square": _("square"),
        "eel": _("eel"),
        "cannon": _("cannon"),
        "plough": _("plough"),
        "scythe": _("scythe"),
        "weathervane": _("weathervane"),
        "beam": _("beam"),
        "post": _("post"),
        "peg": _("peg"),
        "snowflake": _("snowflake"),
    }.get(name, str(name).replace("_", " "))


def site_label(name: str) -> str:
    """A site's translated name."""
    return {"church": _("church"), "mill": _("mill"), "redoubt": _("redoubt")}.get(
        name, str(name).replace("_", " "))


def character_label(name: str) -> str:
    """A character's translated name."""
    return {"priest": _("priest"), "colonist": _("colonist"), "soldier": _("soldier")}.get(
        name, str(name).replace("_", " "))


def ally_label(name: str) -> str:
    """An ally's name (proper names of the game, kept as they are in every language)."""
    return {
        "fille_du_roy": _("Fille du Roy"),
        "coureur_des_bois": _("Coureur des bois"),
        "huron": _("Huron"),
    }.get(name, str(name).replace("_", " "))


def symbol_text(symbol: str, symbols: Mapping | None = None) -> str:
    """A stick symbol as shown: ``+`` -> "+1", ``x2`` -> "+2", ``-`` -> "−1" (its points per
    cube from the rule data when known, else the symbol itself)."""
    value = (symbols or {}).get(symbol)
    if isinstance(value, int):
        return f"+{value}" if value >= 0 else f"−{-value}"
    return str(symbol)


def _int(value) -> int:
    """A number of an event (0 when missing or malformed)."""
    return value if type(value) is int else 0


def _who(event: Mapping, names: Mapping[int, str]) -> str:
    seat = event.get("seat")
    return names.get(seat, _("Seat %(n)s") % {"n": seat}) if isinstance(seat, int) else ""


def _name(names: Mapping[int, str], seat) -> str:
    return names.get(seat, _("Seat %(n)s") % {"n": seat}) if isinstance(seat, int) else str(seat)


def storm_text(storm: Mapping, names: Mapping[int, str], rules: Mapping | None = None) -> str:
    """One snowstorm: what level k scored on each site, what expired, the characters."""
    symbols = (rules or {}).get("symbols")
    k = storm.get("storm")
    parts = []
    for site, per_seat in (storm.get("points") or {}).items():
        symbol = symbol_text((storm.get("symbols") or {}).get(site, ""), symbols)
        scored = ", ".join(
            f"{_name(names, seat)} {pts:+d}" for seat, pts in enumerate(per_seat or []) if pts
        ) or _("nobody scores")
        parts.append(_("%(site)s (%(symbol)s per cube): %(scored)s") % {
            "site": site_label(site), "symbol": symbol, "scored": scored})
    text = _("❄ Snowstorm %(k)s! Level %(k)s scores: %(parts)s.") % {
        "k": k, "parts": "; ".join(parts)}
    expired = storm.get("expired") or []
    if expired:
        text += " " + _("Expired: %(list)s.") % {"list": ", ".join(
            _("%(name)s's %(piece)s") % {"name": _name(names, s), "piece": shape_label(p)}
            for s, p in expired)}
    characters = storm.get("characters") or []
    if characters:
        text += " " + _("Characters: %(list)s.") % {"list": ", ".join(
            _("%(name)s's %(character)s %(points)+d") % {
                "name": _name(names, seat), "character": character_label(ch), "points": pts}
            for _site, ch, seat, pts in characters)}
    else:
        total = (rules or {}).get("storms")
        if isinstance(total, int) and isinstance(k, int) and k < total:
            text += " " + _("Level %(k)s is now under snow.") % {"k": k}
    return text


def _drawn(event: Mapping, names: Mapping[int, str], rules: Mapping | None) -> str:
    """The draw part of ``drew`` and ``discarded``: storms first, then the card."""
    parts = [storm_text(s, names, rules) for s in event.get("storms") or []]
    card = event.get("card")
    if card is not None:
        parts.append(_("%(card)s came up.") % {"card": shape_label(card).capitalize()})
    dropped = event.get("dropped")
    if dropped:
        parts.append(_("The %(card)s left the full display.") % {"card": shape_label(dropped)})
    if event.get("over"):
        parts.append(_("The game is over."))
    return " ".join(parts)


def event_text(event: Mapping, names: Mapping[int, str], rules: Mapping | None = None) -> str:
    """One log line (the event types of ``games/engines/nouvellefrance/events.py``); an
    unknown type still gives a readable line."""
    who = _who(event, names)
    kind = event.get("type")
    values = {"who": who}
    if kind == "huron":
        n = _int(event.get("cards"))
        return ngettext("%(who)s used the Huron and looked at the top card.",
                        "%(who)s used the Huron and looked at the top %(n)s cards.", n) % {
            **values, "n": n}
    if kind == "huron_skipped":
        return _("%(who)s let the Huron pass.") % values
    if kind == "huron_ordered":
        n = _int(event.get("cards"))
        return ngettext("%(who)s put the card back.",
                        "%(who)s put the %(n)s cards back in an order only they know.", n) % {
            **values, "n": n}
    if kind == "drew":
        return " ".join(filter(None, [_("%(who)s drew a card.") % values,
                                      _drawn(event, names, rules)]))
    if kind == "discarded":
        copy = event.get("copy")
        values["shape"] = shape_label(str(event.get("shape")))
        if copy is None:
            text = _("%(who)s could play no face-up card and discarded a %(shape)s.") % values
        else:
            text = _("%(who)s could play no face-up card, discarded a %(shape)s and sent copy "
                     "%(copy)s of it back to the box.") % {**values, "copy": _int(copy) + 1}
        return " ".join(filter(None, [text, _drawn(event, names, rules)]))
    if kind == "card_chosen":
        return _("%(who)s chose the %(shape)s card.") % {
            **values, "shape": shape_label(str(event.get("shape")))}
    if kind == "copy_taken":
        colours = ", ".join(colour_label(c) for c in event.get("colours") or [])
        return _("%(who)s took the %(shape)s (%(colours)s).") % {
            **values, "shape": shape_label(str(event.get("shape"))), "colours": colours}
    if kind in ("placed", "bonus_placed"):
        cubes = event.get("cubes") or []
        where = cells_text((c[0], c[1]) for c in cubes if len(c) >= 2)
        points = _int(event.get("points"))
        place = {**values, "piece": shape_label(str(event.get("piece"))),
                 "site": site_label(str(event.get("site"))), "where": where,
                 "level": event.get("level")}
        if kind == "placed":
            text = _("%(who)s placed the %(piece)s on the %(site)s at %(where)s, level "
                     "%(level)s") % place
        else:
            text = _("%(who)s placed their %(piece)s on the %(site)s at %(where)s, level "
                     "%(level)s") % place
        # One translatable pattern, not a glued ": " (French puts a space before the colon).
        text = _("%(action)s: %(points)s") % {
            "action": text, "points": ngettext("%(n)s point", "%(n)s points", points) % {
                "n": points}}
        character = event.get("character")
        if character:
            text += ", " + _("completing the site: %(who)s takes the %(character)s") % {
                **values, "character": character_label(character)}
        return text + "."
    if kind == "fille_du_roy":
        n = _int(event.get("points"))
        return ngettext("%(who)s used the Fille du Roy: %(points)+d point.",
                        "%(who)s used the Fille du Roy: %(points)+d points.", n) % {
            **values, "points": n}
    if kind == "no_ally":
        return _("%(who)s did not use the Fille du Roy.") % values
    if kind == "coureur":
        n = _int(event.get("points"))
        return ngettext("%(who)s used the Coureur des bois: %(points)+d point.",
                        "%(who)s used the Coureur des bois: %(points)+d points.", n) % {
            **values, "points": n}
    if kind == "declined":
        return _("%(who)s let the Coureur des bois pass.") % values
    details = ", ".join(f"{k} {v}" for k, v in event.items() if k not in ("type", "seat"))
    return " ".join(part for part in (who, str(kind or ""), details) if part)
