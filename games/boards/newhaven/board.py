"""The New Haven board: presenter (observe + rule data + legal actions -> template context)
and the action-picking flow.

Picking, step by step (the selection lives in the page's query string, so every step is a
plain link that works without JavaScript and HTMX merely avoids the reload):

* harvest: pick a tile in hand (``?tile=i``), rotate it (``&rot=k``), then press one of the
  highlighted cells (the action); or pick the shipment's resource (``?ship=wheat``), then a
  cell;
* build (and share): pick a building in hand (``?b=wheat-4``), then a village space: its
  top half builds face up, its bottom half face down (one full button when only one is
  legal);
* End building / Pass, and the draws (market buildings, the bag) are actions at once.

Only legal actions become buttons: the engine's ``legal_actions`` decide everything, the
board only groups them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.boards import Board, Choice, Pick, Scene
from games.boards.newhaven import drawing
from games.boards.newhaven.drawing import cell_name, resource_label
from games.boards.newhaven.events import event_text

#: How many of the next buildings out of the bag the revealed panel shows.
NEXT_SHOWN = 5

PHASES = {
    "harvest": gettext_lazy("Harvest: place a harvest tile or the shipment"),
    "build": gettext_lazy("Build"),
    "share": gettext_lazy("Share: the others may build with what is left"),
    "draw": gettext_lazy("Draw buildings"),
    "over": gettext_lazy("Game over"),
}


class Selection:
    """What the player has picked but not played yet, read from the query string.

    Anything malformed or not offered by the legal actions is dropped, never an error.
    """

    def __init__(self, params: Mapping[str, str], resources: list[str]) -> None:
        self.tile: int | None = None
        self.rot = 0
        self.ship: str | None = None
        self.building: tuple[str, int] | None = None
        tile = params.get("tile")
        if tile not in (None, ""):
            try:
                self.tile = int(tile)
                self.rot = int(params.get("rot") or 0) % 4
            except (TypeError, ValueError):
                self.tile, self.rot = None, 0
        ship = params.get("ship")
        if ship in resources:
            self.ship = ship
        res, _sep, number = (params.get("b") or "").rpartition("-")
        if res in resources and number.isdigit():
            self.building = (res, int(number))
        #: The face the selected building goes on with (when it may go either way).
        self.face: str | None = params.get("face") if params.get("face") in ("up", "down") else None


def _by_type(legal: tuple | list) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for action in legal:
        if isinstance(action, dict):
            out.setdefault(action.get("type"), []).append(action)
    return out


def _village_numbers(rules: dict, village: list) -> tuple[list, list, list]:
    spec = rules.get("village", {})
    rows = len(village) or spec.get("rows", 0)
    cols = len(village[0]) if village else spec.get("cols", 0)
    row_costs = list(spec.get("row_costs", []))[:rows]
    row_values = list(spec.get("row_values", row_costs))[:rows]
    col_values = list(spec.get("col_values", []))[:cols]
    return row_costs, row_values, col_values


class NewHavenBoard(Board):
    """New Haven in the browser."""

    name = "newhaven"
    template = "boards/newhaven/board.html"
    layout = "layout"
    fragments = ("board", "track", "hand", "village", "villages")
    final = "final"
    revealed = "revealed"
    stylesheets = ("css/boards/newhaven.css",)
    log_in_layout = True

    def event_text(self, event: dict, names: Mapping[int, str], rules: Mapping | None = None
                   ) -> str:
        """The log line of a New Haven event (see ``events.py``)."""
        return event_text(event, names, rules)

    # -- the presenter ----

    def present(self, scene: Scene) -> dict:
        view = scene.view
        rules = scene.rules
        resources = list(rules.get("resources") or view.get("markers", {}).keys())
        looks = drawing.looks(resources)
        seat = scene.seat
        names = scene.names
        legal = list(scene.legal) if scene.interactive else []
        by_type = _by_type(legal)
        selection = Selection(scene.selection, resources)
        over = bool(view.get("is_over"))
        to_move = view.get("to_move", [])
        my_turn = seat is not None and seat in to_move and not over and bool(legal)

        placing = self._placing(view, by_type, selection, looks)
        building = self._building(view, rules, by_type, selection, seat)
        players = self._players(view, rules, scene, looks, building)
        me = players[seat] if seat is not None and seat < len(players) else None

        phase = view.get("phase", "")
        headline = str(PHASES.get(phase, phase))
        if phase == "share" and view.get("sharing") is not None and not over:
            headline = _("Share: %(name)s may build with the markers left") % {
                "name": names.get(view["sharing"], "")}
        if phase == "draw" and not over:
            headline += f" ({view.get('draws_done', 0)}/{view.get('draws_owed', 0)})"
        active = view.get("active")
        sharing = view.get("sharing")
        market, bag_choice = self._draws(view, by_type, looks)
        markers = [
            {"look": looks.get(r) or drawing.looks([r])[r], "value": v}
            for r, v in view.get("markers", {}).items()
        ]
        buttons = [Choice(a, _("End building"), css="primary", focus="end-build")
                   for a in by_type.get("end_build", [])]
        buttons += [Choice(a, _("Pass"), css="primary", focus="pass")
                    for a in by_type.get("pass", [])]
        draws_open = bool(market and any(m["choice"] for m in market)) or bool(bag_choice)
        known = {"harvest", "ship", "build", "end_build", "pass", "draw_market", "draw_bag"}
        other = [Choice(a, str(a)) for t, acts in by_type.items() if t not in known for a in acts]
        return {
            "headline": headline,
            "turn": (
                # The engine counts every player's turns (turn 16 of a 2-player game is the
                # 8th round): "of" all of them, not of one player's (it read "16 of 10").
                _("Turn %(turn)s of %(total)s")
                % {"turn": view.get("turn"),
                   "total": (view.get("turns_per_player") or 0) * (view.get("num_players") or 1)}
                if not over
                else ""
            ),
            "prompt": self._prompt(phase, my_turn, placing, building, by_type, view),
            "scores": view.get("scores", []),
            "my_turn": my_turn,
            # A replay shows the hand and village of the seat whose view it is, not "yours".
            "replay": not scene.interactive,
            # The replay's revealed perspective (``engine.reveal``): the hands are in the
            # revealed panel, not "hidden from spectators".
            "everything": "revealed" in view,
            "over": over,
            "phase": phase,
            "active_name": names.get(active, "") if active is not None else "",
            "sharing_name": names.get(sharing, "") if sharing is not None else "",
            "looks": list(looks.values()),
            "village_ratio": self._village_ratio(view),
            "defs_svg": drawing.defs_svg(looks),
            "board_svg": drawing.board_svg(
                view, looks, cells=self._cells(rules),
                targets={(a["row"], a["col"]) for a in placing["actions"]},
            ),
            "placing": placing,
            "building": building,
            "markers": markers,
            "market": market,
            "bag_choice": bag_choice,
            "draws_open": draws_open,
            # The part of the page that needs the player now (data-act: the play page keeps
            # it in view after every update): the cell to place on, the village space, the
            # market, else the hand with the prompt and its buttons.
            "act": (
                ""
                if not my_turn
                else "placing"
                if placing["active"]
                else "building"
                if building["active"]
                else "draws"
                if draws_open
                else "hand"
            ),
            "draws_text": _("Draw %(done)s of %(owed)s")
            % {"done": view.get("draws_done", 0) + 1, "owed": view.get("draws_owed", 0)},
            "bag_count": view.get("bag_count", 0),
            "pool_count": view.get("pool_count", 0),
            "players": players,
            "me": me,
            "others": [p for p in players if not p["is_me"]],
            "hand": self._hand(view, by_type, selection, placing, building, looks) if me else None,
            "buttons": buttons,
            "other_choices": other,
            "standings": sorted(
                players, key=lambda p: (-p["score"], p["empty_spaces"], p["buildings_in_hand"])
            ),
            "winners": scene.winning_seats(),
        }

    # -- everything revealed (the replay of a finished game) ----

    def present_revealed(self, scene: Scene) -> dict:
        """What was hidden at this step, drawn as the board draws it: each seat's harvest
        tiles, buildings (those drawn blind ringed) and unplayed shipment; the bag as a
        count per building with the next ones out; the pool's tiles, next drawn first.

        Reads ``engine.reveal``'s ``revealed`` (``pool``, ``bag``, ``hands``,
        ``shipments``): the replay calls it only for a finished game.
        """
        view = scene.view
        hidden = view.get("revealed") or {}
        rules = scene.rules
        resources = list(rules.get("resources") or view.get("markers", {}).keys())
        looks = drawing.looks(resources)

        def token(b: dict, blind: bool = False) -> dict:
            look = looks.get(b["resource"]) or drawing.looks([b["resource"]])[b["resource"]]
            return {**b, "blind": blind, "look": look, "label": resource_label(b["resource"])}

        def tile(squares: list[str]) -> Any:
            return drawing.tile_svg(squares, looks, label=_tile_label(squares))

        shipments = hidden.get("shipments") or []
        seats = []
        for i, hand in enumerate(hidden.get("hands") or []):
            ship = shipments[i] if i < len(shipments) else None
            cell = (ship or {}).get("cell")
            seats.append({
                "seat": i,
                "name": scene.distinct_name(i),
                "tiles": [tile(squares) for squares in hand.get("tiles", [])],
                "buildings": [token(b) for b in hand.get("public_buildings", [])]
                + [token(b, blind=True) for b in hand.get("private_buildings", [])],
                "shipment": tile(ship["squares"]) if ship else None,
                "shipment_cell": cell_name(*cell) if cell else "",
            })
        bag = hidden.get("bag") or []
        counts = Counter((b["resource"], b["number"]) for b in bag)
        numbers = sorted({n for _res, n in counts}
                         | set(range(1, max((n for _res, n in counts), default=0) + 1)))
        in_bag = [r for r in looks if any(counts[(r, n)] for n in numbers)]
        in_bag += [r for r, _n in counts if r not in in_bag]
        bag_rows = [
            {
                "look": looks.get(r) or drawing.looks([r])[r],
                "label": resource_label(r),
                "counts": [counts[(r, n)] for n in numbers],
                "total": sum(counts[(r, n)] for n in numbers),
            }
            for r in dict.fromkeys(in_bag)
        ]
        pool = hidden.get("pool") or []
        return {
            "seats": seats,
            "bag_count": len(bag),
            "bag_numbers": numbers,
            "bag_rows": bag_rows,
            "bag_next": [token(b) for b in bag[:NEXT_SHOWN]],
            "pool_count": len(pool),
            "pool": [tile(squares) for squares in pool],
        }

    @staticmethod
    def _village_ratio(view: dict) -> str:
        """The CSS aspect ratio of the villages' drawings (their size is the variant's)."""
        village = (view.get("players") or [{}])[0].get("village") or [[None]]
        width, height = drawing.village_extent(len(village), len(village[0]))
        return f"{width} / {height}"

    @staticmethod
    def _cells(rules: dict) -> set | None:
        board = rules.get("board") or {}
        cells = board.get("cells")
        return {tuple(c) for c in cells} if cells else None

    # -- harvest: tile or shipment, then a cell ----

    def _placing(self, view: dict, by_type: dict, sel: Selection, looks: dict) -> dict:
        """The tile (or shipment) being placed, its rotations and the cells it may go on."""
        size = view["board"]["size"]
        rotations: dict[int, list[int]] = {}
        for a in by_type.get("harvest", []):
            rots = rotations.setdefault(a["tile"], [])
            if a["rotation"] not in rots:
                rots.append(a["rotation"])
        ship_resources: list[str] = []
        for a in by_type.get("ship", []):
            if a["resource"] not in ship_resources:
                ship_resources.append(a["resource"])
        out: dict[str, Any] = {
            "active": False,
            "rotations": rotations,
            "ship_resources": ship_resources,
            "targets": [],
            "actions": [],
            "tile": None,
            "ship": None,
        }
        hand = view.get("hand") or {}
        tiles = {t["index"]: t for t in hand.get("tiles", [])}
        if sel.tile is not None and sel.tile in rotations and sel.tile in tiles:
            rots = rotations[sel.tile]
            rot = sel.rot if sel.rot in rots else rots[0]
            squares = drawing.rotate_squares(tiles[sel.tile]["squares"], rot)
            actions = [a for a in by_type["harvest"]
                       if a["tile"] == sel.tile and a["rotation"] == rot]
            out.update(
                active=True,
                tile=sel.tile,
                rot=rot,
                actions=actions,
                preview=drawing.tile_svg(squares, looks, label=_tile_label(squares)),
                title=_("Placing a harvest tile"),
                rotate=(
                    Pick({"tile": sel.tile, "rot": rots[(rots.index(rot) + 1) % len(rots)]},
                         _("Rotate the tile a quarter turn"), text=_("Rotate"),
                         focus=f"tile-{sel.tile}")
                    if len(rots) > 1
                    else None
                ),
                focus=f"tile-{sel.tile}",
                targets=[
                    Choice(a, _("Place the tile on %(cell)s") % {"cell": cell_name(a["row"],
                                                                                     a["col"])},
                           text=cell_name(a["row"], a["col"]),
                           pos=drawing.cell_box(a["row"], a["col"], size),
                           css="cell-target", focus=f"cell-{cell_name(a['row'], a['col'])}")
                    for a in actions
                ],
            )
        elif sel.ship is not None and sel.ship in ship_resources:
            actions = [a for a in by_type["ship"] if a["resource"] == sel.ship]
            label = resource_label(sel.ship)
            out.update(
                active=True,
                ship=sel.ship,
                actions=actions,
                preview=drawing.tile_svg([sel.ship] * 4, looks, label=label),
                title=_("Playing the shipment as 4 %(res)s") % {"res": label},
                rotate=None,
                focus=f"ship-{sel.ship}",
                targets=[
                    Choice(a, _("Play the shipment as 4 %(res)s on %(cell)s")
                           % {"res": label, "cell": cell_name(a["row"], a["col"])},
                           text=cell_name(a["row"], a["col"]),
                           pos=drawing.cell_box(a["row"], a["col"], size),
                           css="cell-target", focus=f"cell-{cell_name(a['row'], a['col'])}")
                    for a in actions
                ],
            )
        if out["active"]:
            out["cancel"] = Pick({}, _("Cancel: pick another tile"), text=_("Cancel"),
                                 focus="cancel-placing")
        return out

    # -- build: a building, then a space ----

    def _building(self, view: dict, rules: dict, by_type: dict, sel: Selection,
                  seat: int | None) -> dict:
        """The buildings that can be built now (and face up?), the space targets of the
        selected one."""
        buildable: dict[tuple[str, int], bool] = {}
        for a in by_type.get("build", []):
            pair = (a["resource"], a["number"])
            buildable[pair] = buildable.get(pair, False) or bool(a["face_up"])
        out: dict[str, Any] = {"buildable": buildable, "active": False, "targets": [],
                               "selected": None}
        if sel.building is None or sel.building not in buildable or seat is None:
            return out
        res, number = sel.building
        village = view["players"][seat]["village"]
        rows = len(village)
        cols = len(village[0]) if village else 0
        row_costs, _values, _cols = _village_numbers(rules, village)
        spaces: dict[tuple[int, int], list[dict]] = {}
        for a in by_type["build"]:
            if a["resource"] == res and a["number"] == number:
                spaces.setdefault((a["row"], a["col"]), []).append(a)
        label = resource_label(res)
        space_costs = rules.get("village", {}).get("space_costs") or []
        # Face up or down: when the building may go either way, the player picks the face
        # first (two picks above the village), and each space is one whole target of that
        # face: a phone's thumb could not hit half a space.
        ups = {bool(a["face_up"]) for acts in spaces.values() for a in acts}
        face = (sel.face if sel.face and (sel.face == "up") in ups
                else "up" if True in ups else "down")
        code = f"{res}-{number}"
        faces = [
            Pick({"b": code, "face": f}, text, text=short, focus=f"face-{f}",
                 current=f == face, data={"face": f})
            for f, text, short in (
                ("up", _("Build it face up"), _("▲ Face up")),
                ("down", _("Build it face down"), _("▼ Face down")),
            )
        ] if len(ups) > 1 else []
        targets = []
        for (r, c), acts in spaces.items():
            acts = [a for a in acts if bool(a["face_up"]) == (face == "up")]
            both = False
            if r < len(space_costs) and c < len(space_costs[r]):
                cost = space_costs[r][c]
            else:
                cost = row_costs[r] if r < len(row_costs) else "?"
            for a in sorted(acts, key=lambda a: not a["face_up"]):
                where = {"res": label, "num": number, "space": cell_name(r, c), "cost": cost}
                if a["face_up"]:
                    text = _("Build %(res)s %(num)s face up on %(space)s (cost %(cost)s)")
                    part, css, short = ("top" if both else "full"), "space-target up", "▲"
                else:
                    text = _("Build %(res)s %(num)s face down on %(space)s (cost %(cost)s)")
                    part, css, short = ("bottom" if both else "full"), "space-target down", "▼"
                targets.append(
                    Choice(a, text % where, text=short, css=css,
                           pos=drawing.space_box(r, c, rows, cols, part),
                           focus=f"space-{cell_name(r, c)}-{'up' if a['face_up'] else 'down'}")
                )
        out.update(
            active=True,
            selected=sel.building,
            targets=targets,
            title=_("Building %(res)s %(num)s") % {"res": label, "num": number},
            face=face,
            faces=faces,
            cancel=Pick({}, _("Cancel: pick another building"), text=_("Cancel"),
                        focus="cancel-building"),
        )
        return out

    # -- the hand ----

    def _hand(self, view: dict, by_type: dict, sel: Selection, placing: dict, building: dict,
              looks: dict) -> dict:
        hand = view.get("hand") or {}
        rotations = placing["rotations"]
        tiles = []
        for t in hand.get("tiles", []):
            idx = t["index"]
            selected = placing.get("tile") == idx
            rot = placing.get("rot", 0) if selected else 0
            squares = drawing.rotate_squares(t["squares"], rot)
            playable = idx in rotations
            tiles.append(
                {
                    "index": idx,
                    "marker": ",".join(t["squares"]),
                    "selected": selected,
                    "playable": playable,
                    "svg": drawing.tile_svg(squares, looks, label=_tile_label(squares)),
                    "pick": (
                        Pick({"tile": idx, "rot": rotations[idx][0]},
                             _("Place this tile: %(squares)s") % {"squares": _squares(squares)},
                             text=_("Place"), css="primary", focus=f"tile-{idx}")
                        if playable and not selected
                        else None
                    ),
                }
            )
        ship = [
            {
                "resource": r,
                "look": looks.get(r) or drawing.looks([r])[r],
                "pick": Pick({"ship": r},
                             _("Play the shipment as 4 %(res)s") % {"res": resource_label(r)},
                             text=resource_label(r), focus=f"ship-{r}",
                             current=placing.get("ship") == r),
            }
            for r in placing["ship_resources"]
        ]
        buildable = building["buildable"]
        buildings = []
        public = [(b, False) for b in hand.get("public_buildings", [])]
        private = [(b, True) for b in hand.get("private_buildings", [])]
        seen: dict[str, int] = {}
        building_phase = bool(by_type.get("build") or by_type.get("end_build")
                              or by_type.get("pass"))
        for b, blind in public + private:
            pair = (b["resource"], b["number"])
            code = f"{b['resource']}-{b['number']}"
            seen[code] = seen.get(code, 0) + 1
            label = resource_label(b["resource"])
            can = pair in buildable
            face_up = buildable.get(pair, False)
            if can:
                how = (_("can be built face up or face down") if face_up
                       else _("can be built face down only"))
            elif building_phase:
                how = _("cannot be built now")
            else:
                how = ""
            title = f"{label} {b['number']}" + (f": {how}" if how else "")
            buildings.append(
                {
                    **b,
                    "blind": blind,
                    "code": code,
                    "look": looks.get(b["resource"]),
                    "label": label,
                    "title": title,
                    "state": ("up" if face_up else "down") if can else (
                        "no" if building_phase else ""),
                    "pick": (
                        Pick({"b": code}, _("Build %(res)s %(num)s (%(how)s)")
                             % {"res": label, "num": b["number"], "how": how},
                             text=str(b["number"]), focus=f"bld-{code}-{seen[code]}",
                             current=building.get("selected") == pair)
                        if can
                        else None
                    ),
                }
            )
        return {
            "tiles": tiles,
            "ship": ship,
            "buildings": buildings,
            "has_buildable": bool(buildable),
            "building_phase": building_phase,
        }

    # -- draws ----

    def _draws(self, view: dict, by_type: dict, looks: dict) -> tuple[list[dict], Choice | None]:
        takes: dict[tuple[str, int], dict] = {}
        for a in by_type.get("draw_market", []):
            takes.setdefault((a["resource"], a["number"]), a)
        market = []
        offered: set[tuple[str, int]] = set()
        for i, b in enumerate(view.get("market", [])):
            pair = (b["resource"], b["number"])
            action = takes.get(pair) if pair not in offered else None
            offered.add(pair)
            label = resource_label(b["resource"])
            market.append(
                {
                    **b,
                    "look": looks.get(b["resource"]),
                    "label": label,
                    "choice": (
                        Choice(action, _("Take %(res)s %(num)s from the market")
                               % {"res": label, "num": b["number"]},
                               text=str(b["number"]), focus=f"market-{i}")
                        if action
                        else None
                    ),
                }
            )
        bag = next(iter(by_type.get("draw_bag", [])), None)
        # The button says what its accessible name says (axe: label-content-name-mismatch).
        bag_choice = (Choice(bag, _("Draw a building blind from the bag"), focus="bag")
                      if bag is not None else None)
        return market, bag_choice

    # -- players and villages ----

    def _players(self, view: dict, rules: dict, scene: Scene, looks: dict, building: dict
                 ) -> list[dict]:
        breakdowns = view.get("breakdown") or []
        to_move = view.get("to_move", [])
        over = bool(view.get("is_over"))
        players = []
        for p in view.get("players", []):
            i = p["seat"]
            info = scene.player(i)
            bd = breakdowns[i] if i < len(breakdowns) else None
            row_costs, row_values, col_values = _village_numbers(rules, p["village"])
            players.append(
                {
                    **p,
                    "name": info.name,
                    "is_me": i == scene.seat,
                    "is_ai": info.is_ai,
                    "to_move": i in to_move and not over,
                    "winner": i in scene.winning_seats(),
                    "breakdown": bd,
                    "revealed_tiles": [
                        drawing.tile_svg(squares, looks, label=_tile_label(squares))
                        for squares in (p.get("revealed_hand") or {}).get("tiles", [])
                    ],
                    "revealed_buildings": [
                        {**b, "look": looks.get(b["resource"]),
                         "label": resource_label(b["resource"])}
                        for b in (p.get("revealed_hand") or {}).get("buildings", [])
                    ],
                    "public": [
                        {**b, "look": looks.get(b["resource"]),
                         "label": resource_label(b["resource"])}
                        for b in p.get("public_buildings", [])
                    ],
                    "svg": drawing.village_svg(
                        p["village"], looks,
                        row_costs=row_costs, row_values=row_values, col_values=col_values,
                        completed_rows={x["row"] for x in bd["rows"]} if bd else set(),
                        completed_cols={x["col"] for x in bd["cols"]} if bd else set(),
                        label=_("Village of %(name)s") % {"name": info.name},
                    ),
                }
            )
        return players

    # -- what to do now ----

    def _prompt(self, phase: str, my_turn: bool, placing: dict, building: dict, by_type: dict,
                view: dict) -> str:
        if not my_turn:
            return ""
        if placing["active"]:
            return _("Choose a highlighted cell of the board.")
        if building["active"]:
            return _("Choose a space of your village (and, where the building may go either "
                     "way, face up or face down first).")
        if by_type.get("harvest") or by_type.get("ship"):
            return _("Pick a harvest tile from your hand (or the shipment), then a cell.")
        if by_type.get("build") and by_type.get("pass"):
            return _("You may build with the markers left: pick a building, then a space. "
                     "Or pass.")
        if by_type.get("build"):
            return _("Build: pick a building from your hand, then a space. Or end building.")
        if by_type.get("end_build") or by_type.get("pass"):
            if phase == "share":
                return _("Nothing of yours can be built with these markers: pass.")
            return _("Nothing can be built now: end building.")
        if by_type.get("draw_market") or by_type.get("draw_bag"):
            owed = view.get("draws_owed", 0)
            return ngettext(
                "Draw %(n)s building: take one from the market.",
                "Draw %(n)s buildings: the first from the market, the others from the market "
                "or the bag.",
                owed,
            ) % {"n": owed}
        return _("Your move.")


def _squares(squares: list[str]) -> str:
    return ", ".join(resource_label(s) for s in squares)


def _tile_label(squares: list[str]) -> str:
    return _("Harvest tile: %(squares)s") % {"squares": _squares(squares)}


BOARD = NewHavenBoard()
