"""The Nouvelle-France board: presenter (observe + rule data + legal actions -> template
context) and the action-picking flow.

A turn is a chain of small decisions and the engine offers each as actions; the board
turns them into buttons (one form per legal action) and adds one pick of its own, the
orientation of the piece being placed.  Step by step:

* Huron window (only the seat asked): use it or let it pass; then the new order of the
  peeked cards, each order a button ("eel, snowflake, cross", top first);
* draw a card, or pick a bonus piece (``?bonus=beam``) and place it;
* choose a face-up card (or, when none can be played, the card to discard and the copy
  that goes back to the box), then a copy of its shape (its colours);
* place the piece: pick an orientation (``?o=5``; the first one that fits is preselected),
  then a landing spot: highlighted on the drawings (the board's script shows a ghost of
  the piece under the pointer and places it on a click) and listed as buttons;
* Fille du Roy / Coureur des bois: use it or not (only the seat asked).

Only legal actions become buttons; everything else comes from ``observe`` and
``rule_data``.  The selection lives in the query string, so every step works without
JavaScript.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.boards import Board, Choice, Pick, Scene
from games.boards.nouvellefrance import drawing
from games.boards.nouvellefrance.drawing import Spot, cells_text, colour_label
from games.boards.nouvellefrance.events import (
    ally_label,
    character_label,
    event_text,
    shape_label,
    site_label,
    symbol_text,
)


class Selection:
    """What the player has picked but not played: a bonus piece and an orientation.

    Anything malformed or not offered is dropped later, never an error.
    """

    def __init__(self, params: Mapping[str, str]) -> None:
        bonus = params.get("bonus")
        self.bonus: str | None = bonus if isinstance(bonus, str) and bonus else None
        try:
            self.orientation: int | None = int(params.get("o", ""))
        except (TypeError, ValueError):
            self.orientation = None
        site = params.get("site")
        #: The site shown up close while placing (phones); dropped if it has no spot.
        self.site: str | None = site if isinstance(site, str) and site else None


#: The deck's name of a snowflake card (``engine.reveal``).
SNOWFLAKE = "snowflake"


def _by_tag(legal: tuple | list) -> dict[str, list[list]]:
    out: dict[str, list[list]] = {}
    for action in legal:
        if isinstance(action, list | tuple) and action and isinstance(action[0], str):
            out.setdefault(action[0], []).append(list(action))
    return out


def _orientation_kind(cubes: list) -> str:
    """How an orientation stands, in words."""
    xs = {c[0] for c in cubes}
    ys = {c[1] for c in cubes}
    zs = {c[2] for c in cubes}
    if len(zs) == 1:
        return _("lying flat")
    if len(ys) == 1:
        return _("standing along a row")
    if len(xs) == 1:
        return _("standing along a column")
    return _("standing")


def _doubled(colours: list[str]) -> str | None:
    """The colour a copy has twice (copies differ in it), if one colour is most frequent."""
    counts = Counter(colours).most_common()
    if counts and (len(counts) == 1 or counts[0][1] > counts[1][1]):
        return counts[0][0]
    return None


class NouvelleFranceBoard(Board):
    """Nouvelle-France in the browser."""

    name = "nouvellefrance"
    template = "boards/nouvellefrance/board.html"
    layout = "layout"
    fragments = ("sites", "turn", "table", "players")
    final = "final"
    revealed = "revealed"
    stylesheets = ("css/boards/nouvellefrance.css",)
    scripts = ("js/boards/nouvellefrance.js",)
    log_in_layout = True

    def event_text(self, event: dict, names: Mapping[int, str], rules: Mapping | None = None
                   ) -> str:
        """The log line of a Nouvelle-France event (see ``events.py``)."""
        return event_text(event, names, rules)

    # -- the presenter ----

    def present(self, scene: Scene) -> dict:
        view = scene.view
        rules = scene.rules
        names = scene.names
        seat = scene.seat
        looks = drawing.looks(list(rules.get("colours") or view.get("colours") or []))
        legal = list(scene.legal) if scene.interactive else []
        by_tag = _by_tag(legal)
        sel = Selection(scene.selection)
        over = bool(view.get("is_over"))
        phase = view.get("phase", "")
        to_move = view.get("to_move", [])
        my_turn = seat is not None and seat in to_move and not over and bool(legal)
        active = view.get("active")
        seat_colours = list(view.get("colours") or [])

        placing = self._placing(view, rules, by_tag, sel, looks, seat_colours, seat)
        sites = self._sites(view, rules, looks, placing, names)
        players = self._players(view, rules, scene, looks)
        choices = self._choices(view, rules, by_tag, looks, names) if my_turn else {}
        return {
            # The part of the page that needs the player now (data-act: the play page keeps
            # it in view after every update): the sites while placing, else the turn panel.
            "act": ("placing" if placing["active"] else "turn") if my_turn else "",
            "headline": self._headline(view, names),
            "turn": "" if over else _("Turn %(turn)s") % {"turn": view.get("turn")},
            "prompt": self._prompt(phase, by_tag, placing, view) if my_turn else "",
            "scores": view.get("scores", []),
            "my_turn": my_turn,
            "over": over,
            "phase": phase,
            "active_name": names.get(active, "") if active is not None else "",
            "looks": list(looks.values()),
            "seat_looks": [
                {"seat": i, "look": looks[c]} for i, c in enumerate(seat_colours) if c in looks
            ],
            "defs_svg": drawing.defs_svg(looks),
            "sites": sites,
            "placing": placing,
            "choices": choices,
            "waiting_text": "" if my_turn or over else self._waiting(view, names, seat),
            "display": self._display(view, rules, by_tag),
            "supply": self._supply(view, rules, looks),
            "piles": self._piles(view),
            "storms": self._storms(view, rules),
            "discard": [shape_label(s) for s in view.get("discard", [])],
            "removed": [
                _("%(shape)s, copy %(copy)s") % {"shape": shape_label(r["shape"]),
                                                 "copy": r["copy"] + 1}
                for r in view.get("removed_pieces", [])
            ],
            "huron_known": [shape_label(c) for c in view.get("huron_known", [])],
            "players": players,
            "me": players[seat] if seat is not None and seat < len(players) else None,
            "standings": sorted(players, key=lambda p: (not p["winner"], -p["score"])),
            "tiebreak_piece": shape_label(str(rules.get("tiebreak_bonus_piece") or "")),
            "has_tiebreak_piece": bool(rules.get("tiebreak_bonus_piece")),
            "pending_points": (view.get("pending") or {}).get("points"),
        }

    # -- everything revealed (the replay of a finished game) ----

    def present_revealed(self, scene: Scene) -> dict:
        """What was hidden at this step, drawn as the table draws cards: the deck, top
        first, pile by pile (a run of cards from one pile; a Huron reorder may mix the top
        ones), with its snowflakes and a count per shape; and the top cards each seat knew
        from its Huron.

        Reads ``engine.reveal``'s ``revealed`` (``deck``, ``deck_piles``,
        ``huron_known``): the replay calls it only for a finished game.
        """
        view = scene.view
        hidden = view.get("revealed") or {}
        shapes = {s["name"]: s for s in scene.rules.get("shapes", [])}

        def card(name: str) -> dict:
            label = shape_label(name)
            return {
                "name": name,
                "label": label,
                "flake": name == SNOWFLAKE,
                "svg": None if name == SNOWFLAKE else drawing.flat_svg(
                    shapes.get(name, {}).get("cells", []), [], {}, label=label),
            }

        deck = list(hidden.get("deck") or [])
        piles = list(hidden.get("deck_piles") or [])
        runs: list[dict] = []
        for k, name in enumerate(deck):
            pile = piles[k] if k < len(piles) else None
            if not runs or runs[-1]["pile"] != pile:
                runs.append({"pile": pile, "cards": []})
            runs[-1]["cards"].append(card(name))
        counts = Counter(deck)
        by_shape = [
            {**card(name), "count": counts[name]}
            for name in [*shapes, *counts] if counts.get(name)
        ]
        by_shape = list({c["name"]: c for c in by_shape}.values())
        seats = [
            {
                "seat": i,
                "name": scene.distinct_name(i),
                "cards": [card(name) for name in known],
            }
            for i, known in enumerate(hidden.get("huron_known") or [])
        ]
        return {
            "deck_count": len(deck),
            "flakes": counts.get(SNOWFLAKE, 0),
            "runs": runs,
            "by_shape": [c for c in by_shape if not c["flake"]],
            "seats": seats,
        }

    # -- headline, prompt, what others are doing ----

    @staticmethod
    def _headline(view: dict, names: Mapping[int, str]) -> str:
        phase = view.get("phase")
        pending = view.get("pending") or {}
        active = names.get(view.get("active"), "")
        first = (view.get("to_move") or [None])[0]
        asked = names.get(first, "")
        shape = shape_label(str(pending.get("shape", "")))
        points = pending.get("points") or 0
        if view.get("is_over") or phase == "over":
            return _("Game over")
        texts = {
            "huron": _("Huron: %(name)s may look at the top cards") % {"name": asked},
            "huron_order": _("Huron: %(name)s puts the cards back") % {"name": asked},
            "draw": _("%(name)s draws a card or places a bonus piece") % {"name": active},
            "card": _("%(name)s chooses a face-up card") % {"name": active},
            "copy": _("%(name)s takes a %(shape)s") % {"name": active, "shape": shape},
            "place": _("%(name)s places the %(shape)s") % {"name": active, "shape": shape},
            "fille": _("Fille du Roy: %(name)s may double this turn's %(n)s points")
            % {"name": active, "n": points},
            "coureur": _("Coureur des bois: %(name)s may take %(n)s points")
            % {"name": asked, "n": points // 2},
        }
        return texts.get(phase, str(phase))

    @staticmethod
    def _waiting(view: dict, names: Mapping[int, str], seat: int | None) -> str:
        first = (view.get("to_move") or [None])[0]
        if first is None:
            return ""
        return _("Waiting for %(name)s.") % {"name": names.get(first, "")}

    @staticmethod
    def _prompt(phase: str, by_tag: dict, placing: dict, view: dict) -> str:
        if placing["active"]:
            return _("Choose how the piece stands, then a highlighted spot (or one from the "
                     "list).")
        if by_tag.get("huron"):
            return _("Use your Huron to look at the top cards before the draw?")
        if by_tag.get("order"):
            return _("Put the cards back: choose their order, top first.")
        if by_tag.get("draw"):
            return _("Draw a card, or place one of your bonus pieces instead.")
        if by_tag.get("card"):
            return _("Choose a face-up card to play.")
        if by_tag.get("discard"):
            return _("No face-up card can be played: discard one and send a copy of its "
                     "shape back to the box.")
        if by_tag.get("copy"):
            return _("Choose which copy of the piece to take (its colours).")
        if by_tag.get("fille_du_roy"):
            return _("Use your Fille du Roy to double this turn's points?")
        if by_tag.get("coureur"):
            return _("Use your Coureur des bois to take half of this turn's points?")
        return _("Your move.")

    # -- the piece being placed: orientation pick and landing spots ----

    def _placing(self, view: dict, rules: dict, by_tag: dict, sel: Selection,
                 looks: dict, seat_colours: list, seat: int | None) -> dict:
        out: dict[str, Any] = {"active": False, "spots_by_site": {}, "ghost": None,
                               "bonus_picks": []}
        shapes = {s["name"]: s for s in rules.get("shapes", [])}
        bonus_rules = {b["name"]: b for b in rules.get("bonus_pieces", [])}
        bonus_actions: dict[str, list[list]] = {}
        for a in by_tag.get("bonus", []):
            bonus_actions.setdefault(a[1], []).append(a)
        colour = seat_colours[seat] if seat is not None and seat < len(seat_colours) else None
        for name in bonus_actions:
            rule = bonus_rules.get(name, {})
            first = (rule.get("orientations") or [[]])[0]
            out["bonus_picks"].append({
                "name": name,
                "svg": drawing.piece_svg([[*c, colour] for c in first], looks),
                "pick": Pick({"bonus": name}, _("Place your %(piece)s instead of drawing")
                             % {"piece": shape_label(name)}, text=shape_label(name),
                             focus=f"bonus-{name}", current=sel.bonus == name),
            })
        pending = view.get("pending") or {}
        if by_tag.get("place") and pending.get("shape") in shapes:
            shape = shapes[pending["shape"]]
            copies = shape.get("copies") or []
            copy = pending.get("copy", 0)
            if not 0 <= copy < len(copies):
                return out
            orientations = copies[copy]["orientations"]
            actions = by_tag["place"]
            levels = {tuple(p[:4]): p[4] for p in view.get("placements", [])}
            piece, base = pending["shape"], {}
            spot_of = lambda a: (a[1], a[2], a[3], a[4])  # noqa: E731
        elif sel.bonus in bonus_actions and sel.bonus in bonus_rules:
            piece = sel.bonus
            orientations = [[[*c, colour] for c in o]
                            for o in bonus_rules[piece].get("orientations", [])]
            actions = bonus_actions[piece]
            levels = {tuple(p[:4]): p[4]
                      for p in (view.get("bonus_placements") or {}).get(piece, [])}
            base = {"bonus": piece}
            spot_of = lambda a: (a[2], a[3], a[4], a[5])  # noqa: E731
        else:
            return out
        by_orientation: dict[int, list[list]] = {}
        for a in actions:
            o = spot_of(a)[1]
            if type(o) is int and 0 <= o < len(orientations):
                by_orientation.setdefault(o, []).append(a)
        if not by_orientation:
            return out
        offered = sorted(by_orientation)
        current = sel.orientation if sel.orientation in by_orientation else offered[0]
        label = shape_label(piece)
        picks = []
        for n, o in enumerate(offered, 1):
            cubes = orientations[o]
            words = _("%(piece)s, position %(n)s of %(total)s: %(how)s") % {
                "piece": label, "n": n, "total": len(offered), "how": _orientation_kind(cubes)}
            picks.append({
                "o": o,
                "svg": drawing.piece_svg(cubes, looks),
                "pick": Pick({**base, "o": o, **({"site": sel.site} if sel.site else {})},
                             words, text=str(n), focus=f"orient-{o}",
                             current=o == current,
                             data={"orientation": o}),
                "current": o == current,
            })
        cubes = orientations[current]
        ghost = [(c[0], c[1], c[2]) for c in cubes]
        spots_by_site: dict[str, list] = {}
        site_names = [s["name"] for s in rules.get("sites", [])]
        choices_by_site: dict[str, list[Choice]] = {}
        order = {name: n for n, name in enumerate(site_names)}
        found = []
        for a in by_orientation[current]:
            site, o, x, y = spot_of(a)
            found.append((order.get(site, 99), levels.get((site, o, x, y), 1), y, x, site, o, a))
        for _n, level, y, x, site, o, a in sorted(found, key=lambda t: t[:4]):
            key = f"{site} {o} {x} {y}"
            where = cells_text((x + c[0], y + c[1]) for c in cubes)
            spots_by_site.setdefault(site, []).append(
                Spot(key=key, x=x, y=y, level=level, cubes=ghost))
            text = _("%(where)s · level %(level)s") % {"where": where, "level": level}
            choices_by_site.setdefault(site, []).append(Choice(
                a,
                _("Place the %(piece)s on the %(site)s at %(where)s, level %(level)s") % {
                    "piece": label, "site": site_label(site), "where": where,
                    "level": level},
                text=text, css="spot-choice", focus=f"spot-{site}-{o}-{x}-{y}",
                data={"spot": key},
            ))
        # One site up close (on a phone the others fold away): the one picked if it has a
        # spot for this orientation, else the first that has one.
        with_spots = [s for s in site_names if s in choices_by_site]
        zoom = sel.site if sel.site in choices_by_site else with_spots[0] if with_spots else None
        site_picks = [
            Pick({**base, "o": current, "site": s},
                 ngettext("Show the %(site)s up close: %(n)s place",
                          "Show the %(site)s up close: %(n)s places",
                          len(choices_by_site[s])) % {"site": site_label(s),
                                                      "n": len(choices_by_site[s])},
                 text=f"{site_label(s)} · {len(choices_by_site[s])}",
                 focus=f"zoom-{s}", current=s == zoom, data={"zoom": s})
            for s in with_spots
        ]
        out.update(
            active=True,
            zoom=zoom,
            site_picks=site_picks,
            piece=piece,
            bonus=base.get("bonus"),
            title=(_("Placing your %(piece)s") if base else _("Placing the %(piece)s"))
            % {"piece": label},
            preview=drawing.piece_svg(cubes, looks, label=label),
            orientations=picks,
            orientation=current,
            spots_by_site=spots_by_site,
            spot_groups=[
                {"site": s, "label": site_label(s), "choices": choices_by_site[s]}
                for s in site_names if s in choices_by_site
            ],
            spot_count=sum(len(v) for v in choices_by_site.values()),
            ghost=ghost,
            cancel=Pick({}, _("Cancel: draw a card instead"), text=_("Cancel"),
                        focus="cancel-bonus") if base else None,
        )
        return out

    # -- the sites ----

    def _sites(self, view: dict, rules: dict, looks: dict, placing: dict,
               names: Mapping[int, str]) -> list[dict]:
        symbols = rules.get("symbols") or {}
        buried = view.get("buried_levels", 0)
        storms = view.get("storms", 0)
        extents = [
            (max(c[0] for c in fp) - min(c[0] for c in fp) + max(c[1] for c in fp)
             - min(c[1] for c in fp)) if (fp := s.get("footprint")) else 0
            for s in rules.get("sites", [])
        ]
        typical = sorted(extents)[len(extents) // 2] if extents else 0
        out = []
        for i, site_rules in enumerate(rules.get("sites", [])):
            site_view = (view.get("sites") or [])[i] if i < len(view.get("sites") or []) else {}
            name = site_rules["name"]
            label = site_label(name)
            holder = site_view.get("character_holder")
            heights = site_view.get("heights") or []
            stick = site_view.get("stick") or {}
            levels = []
            for k, symbol in enumerate(stick.get("levels") or [], 1):
                levels.append({
                    "level": k,
                    "symbol": symbol_text(symbol, symbols),
                    "raw": symbol,
                    "buried": k <= buried,
                    "scored": k <= storms,
                })
            levels.reverse()  # level 3 on top
            spots = placing["spots_by_site"].get(name, []) if placing["active"] else []
            width, _height = drawing.site_extent(site_rules)
            out.append({
                "name": name,
                "label": label,
                "wide": extents[i] > 1.3 * typical,
                "character": character_label(site_rules.get("character", "")),
                "character_bonus": site_view.get("character_bonus"),
                "holder": holder,
                "holder_name": names.get(holder, "") if holder is not None else "",
                "stick": stick.get("name", ""),
                "levels": levels,
                "covered": sum(1 for h in heights if h > 0),
                "cells": len(heights),
                "spots": len(spots),
                "bend": bool(site_rules.get("extra_adjacency")),
                "zoomed": placing["active"] and placing.get("zoom") == name,
                # Up close, one cube edge is ZOOM_PX pixels: spots one cube apart are a
                # thumb apart (44 px, WCAG 2.5.5).
                "zoom_width": round(width * drawing.ZOOM_PX),
                "svg": drawing.site_svg(
                    site_rules, site_view, looks,
                    label=_("The %(site)s") % {"site": label},
                    spots=spots,
                    ghost=placing["ghost"] if placing["active"] else None,
                    snowy=buried > 0,
                ),
            })
        return out

    # -- the choices of the player to move ----

    def _choices(self, view: dict, rules: dict, by_tag: dict, looks: dict,
                 names: Mapping[int, str]) -> dict:
        buttons: list[Choice] = []
        deck_count = view.get("deck_count", 0)
        peek = min((rules.get("allies") or {}).get("huron_peek", 3), deck_count)
        pending = view.get("pending") or {}
        points = pending.get("points") or 0
        for a in by_tag.get("huron", []):
            buttons.append(Choice(a, ngettext("Use the Huron: look at the top card",
                                              "Use the Huron: look at the top %(n)s cards",
                                              peek) % {"n": peek},
                                  css="primary", focus="huron"))
        for a in by_tag.get("skip_huron", []):
            buttons.append(Choice(a, _("Let the Huron pass"), focus="skip-huron"))
        for a in by_tag.get("draw", []):
            buttons.append(Choice(a, _("Draw a card"), css="primary", focus="draw"))
        for a in by_tag.get("fille_du_roy", []):
            buttons.append(Choice(a, _("Use the Fille du Roy: %(n)+d points") % {"n": points},
                                  css="primary", focus="fille"))
        for a in by_tag.get("no_ally", []):
            buttons.append(Choice(a, _("Keep the Fille du Roy"), focus="no-ally"))
        for a in by_tag.get("coureur", []):
            buttons.append(Choice(a, _("Use the Coureur des bois: %(n)+d points")
                                  % {"n": points // 2}, css="primary", focus="coureur"))
        for a in by_tag.get("decline", []):
            buttons.append(Choice(a, _("Keep the Coureur des bois"), focus="decline"))
        known = view.get("huron_known") or []
        orders = []
        for a in by_tag.get("order", []):
            perm = a[1:]
            cards = [shape_label(known[p]) if p < len(known) else "?" for p in perm]
            text = ", ".join(cards)
            same = list(perm) == sorted(perm)
            orders.append(Choice(
                a, _("Put them back as: %(cards)s (top first)") % {"cards": text}
                + (" " + _("(unchanged)") if same else ""),
                text=text + (" " + _("(unchanged)") if same else ""),
                focus="order-" + "-".join(map(str, perm))))
        shapes = {s["name"]: s for s in rules.get("shapes", [])}
        display = view.get("display", [])
        cards = []
        for a in by_tag.get("card", []):
            i = a[1]
            shape = display[i] if 0 <= i < len(display) else ""
            cards.append(Choice(a, _("Play the %(shape)s card") % {"shape": shape_label(shape)},
                                text=shape_label(shape), css="card-choice",
                                focus=f"card-{i}", data={"card": i}))
        discards: dict[int, dict] = {}
        for a in by_tag.get("discard", []):
            i = a[1]
            shape = display[i] if 0 <= i < len(display) else ""
            group = discards.setdefault(i, {"shape": shape_label(shape), "choices": []})
            if len(a) > 2:
                copy = (shapes.get(shape, {}).get("copies") or [{}] * (a[2] + 1))[a[2]]
                colours = copy.get("colours", [])
                words = ", ".join(colour_label(c) for c in colours)
                group["choices"].append({
                    "svg": drawing.flat_svg(shapes.get(shape, {}).get("cells", []), colours,
                                            looks),
                    "choice": Choice(a, _("Discard the %(shape)s card and send copy "
                                          "%(copy)s (%(colours)s) back to the box")
                                     % {"shape": shape_label(shape), "copy": a[2] + 1,
                                        "colours": words},
                                     text=_("copy %(copy)s") % {"copy": a[2] + 1},
                                     focus=f"discard-{i}-{a[2]}"),
                })
            else:
                group["choices"].append({"svg": "", "choice": Choice(
                    a, _("Discard the %(shape)s card") % {"shape": shape_label(shape)},
                    focus=f"discard-{i}")})
        copies = []
        shape = shapes.get(pending.get("shape", ""), {})
        for a in by_tag.get("copy", []):
            k = a[1]
            copy = (shape.get("copies") or [])[k] if k < len(shape.get("copies") or []) else {}
            colours = copy.get("colours", [])
            twice = _doubled(colours)
            words = ", ".join(colour_label(c) for c in colours)
            copies.append({
                "svg": drawing.flat_svg(shape.get("cells", []), colours, looks),
                "choice": Choice(
                    a,
                    (_("Take the copy with two %(colour)s cubes (%(colours)s)")
                     % {"colour": colour_label(twice), "colours": words})
                    if twice else _("Take the copy %(colours)s") % {"colours": words},
                    text=(_("2 × %(colour)s") % {"colour": colour_label(twice)}) if twice
                    else str(k + 1),
                    css="copy-choice", focus=f"copy-{k}", data={"copy": k}),
            })
        known_tags = {"huron", "skip_huron", "draw", "fille_du_roy", "no_ally", "coureur",
                      "decline", "order", "card", "discard", "copy", "place", "bonus"}
        other = [Choice(a, " ".join(map(str, a))) for t, acts in by_tag.items()
                 if t not in known_tags for a in acts]
        return {
            "buttons": buttons,
            "orders": orders,
            "cards": cards,
            "discards": list(discards.values()),
            "copies": copies,
            "other": other,
        }

    # -- the table: display, supply, piles, storms ----

    @staticmethod
    def _display(view: dict, rules: dict, by_tag: dict) -> list[dict]:
        shapes = {s["name"]: s for s in rules.get("shapes", [])}
        playable = {a[1] for a in by_tag.get("card", [])}
        pending = (view.get("pending") or {}).get("card")
        out = []
        for i, name in enumerate(view.get("display", [])):
            cells = shapes.get(name, {}).get("cells", [])
            left = sum(1 for ok in (view.get("supply") or {}).get(name, []) if ok)
            out.append({
                "index": i,
                "name": name,
                "label": shape_label(name),
                "svg": drawing.flat_svg(cells, [], {}, label=shape_label(name)),
                "playable": i in playable,
                "chosen": pending == i,
                "left": left,
            })
        return out

    @staticmethod
    def _supply(view: dict, rules: dict, looks: dict) -> list[dict]:
        out = []
        for shape in rules.get("shapes", []):
            name = shape["name"]
            have = (view.get("supply") or {}).get(name, [])
            copies = []
            for k, copy in enumerate(shape.get("copies") or []):
                twice = _doubled(copy.get("colours", []))
                look = looks.get(twice) if twice else None
                copies.append({
                    "copy": k,
                    "left": bool(have[k]) if k < len(have) else False,
                    "look": look,
                    "label": (_("two %(colour)s") % {"colour": colour_label(twice)})
                    if twice else str(k + 1),
                })
            out.append({
                "name": name,
                "label": shape_label(name),
                "svg": drawing.flat_svg(shape.get("cells", []), [], {}),
                "copies": copies,
                "left": sum(1 for c in copies if c["left"]),
            })
        return out

    @staticmethod
    def _piles(view: dict) -> list[dict]:
        """The piles still in the deck as the engine counts them: how many cards, and
        whether a snowflake is still among them."""
        return [{"pile": p["pile"], "left": p["left"], "snowflake": p["snowflakes"] > 0}
                for p in view.get("piles") or [] if p["left"] > 0]

    @staticmethod
    def _storms(view: dict, rules: dict) -> dict:
        total = rules.get("storms") or (rules.get("deck") or {}).get("snowflakes") or 0
        done = view.get("storms", 0)
        symbols = rules.get("symbols") or {}
        rows = []
        for k in range(1, total + 1):
            parts = []
            for site in view.get("sites", []):
                levels = (site.get("stick") or {}).get("levels") or []
                symbol = levels[k - 1] if k <= len(levels) else ""
                parts.append(_("%(site)s %(symbol)s") % {
                    "site": site_label(site.get("name", "")),
                    "symbol": symbol_text(symbol, symbols)})
            per_site = ", ".join(parts)
            rows.append({
                "k": k,
                "done": k <= done,
                "next": k == done + 1,
                "text": _("Snowstorm %(k)s scores level %(k)s, per cube: %(sites)s")
                % {"k": k, "sites": per_site},
            })
        return {
            "rows": rows,
            "done": done,
            "total": total,
            "left": view.get("snowflakes_left", total - done),
            "buried": view.get("buried_levels", 0),
            "flakes": [{"n": k, "done": k <= done} for k in range(1, total + 1)],
        }

    # -- players ----

    def _players(self, view: dict, rules: dict, scene: Scene, looks: dict) -> list[dict]:
        bonus_rules = {b["name"]: b for b in rules.get("bonus_pieces", [])}
        breakdowns = view.get("breakdown") or []
        winners = view.get("winners") or []
        to_move = view.get("to_move", [])
        tiebreak = rules.get("tiebreak_bonus_piece")
        out = []
        for p in view.get("players", []):
            i = p["seat"]
            info = scene.player(i)
            bonus = []
            for name, state in (p.get("bonus_pieces") or {}).items():
                expiry = bonus_rules.get(name, {}).get("expires_at_storm")
                state_text = {"ready": _("ready"), "used": _("placed"),
                              "expired": _("expired")}.get(state, state)
                bonus.append({
                    "name": name,
                    "label": shape_label(name),
                    "state": state,
                    "state_text": state_text,
                    "cubes": len(bonus_rules.get(name, {}).get("cells", [])),
                    "deadline": (_("before snowstorm %(k)s") % {"k": expiry})
                    if expiry else "",
                })
            allies = [
                {"name": a, "label": ally_label(a), "ready": st == "ready",
                 "state_text": _("ready") if st == "ready" else _("used")}
                for a, st in (p.get("allies") or {}).items()
            ]
            bd = breakdowns[i] if i < len(breakdowns) else None
            out.append({
                "seat": i,
                "name": info.name,
                "is_me": i == scene.seat,
                "is_ai": info.is_ai,
                "look": looks.get(p.get("colour")),
                "colour": colour_label(p.get("colour", "")),
                "score": p.get("score", 0),
                "allies": allies,
                "allies_used": p.get("allies_used", 0),
                "bonus": bonus,
                "characters": [character_label(c) for c in p.get("characters", [])],
                "to_move": i in to_move and not view.get("is_over"),
                "active": i == view.get("active") and not view.get("is_over"),
                "winner": i in winners,
                "breakdown": bd,
                "kept_tiebreak": bool(tiebreak) and (p.get("bonus_pieces") or {}).get(
                    tiebreak) != "used",
            })
        return out


BOARD = NouvelleFranceBoard()
