"""The New Haven engine object: the protocol on top of ``rules``, ``state`` and ``events``."""

from __future__ import annotations

import json
import random
import statistics
from collections import Counter
from functools import lru_cache
from typing import Any

from ..protocol import EngineError, IllegalAction, InvalidVariant, Seat
from . import events, rules
from .state import (
    CELL_KINDS,
    OVER,
    POND_CELL,
    PRINTED,
    SHIP_DOWN,
    SHIP_UP,
    Player,
    State,
    state_from_json,
    state_to_json,
)
from .variant import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PROBLEM_TEMPLATES,
    Compiled,
    canonical,
    compiled_of,
    default_variants,
    validate_variant,
    variant_problems,
    variant_schema,
)

__all__ = ["NewHavenEngine"]


def _key_of(variant: Any) -> str:
    """The canonical JSON of a playable variant; ``InvalidVariant`` otherwise."""
    try:
        key = canonical(variant)
    except (TypeError, ValueError):
        raise InvalidVariant(["(variant): must be JSON data"]) from None
    problems = variant_problems(key)
    if problems:
        raise InvalidVariant(list(problems))
    return key


def _rc(cv: Compiled, cell: int) -> list[int]:
    return list(cv.cell_row_col[cell])


@lru_cache(maxsize=64)
def _rule_data_json(key: str) -> str:
    """``rule_data`` of the variant with canonical JSON ``key``, as JSON text (cached)."""
    cv, v = compiled_of(key)
    board = v["board"]
    compositions: Counter = Counter(tuple(t) for t in v["harvest_tiles"])
    counts = [str(n) for n in cv.player_counts]
    data = {
        "game": NewHavenEngine.name,
        "title": NewHavenEngine.title,
        "variant": v["name"],
        "description": v.get("description", ""),
        "player_counts": list(cv.player_counts),
        "resources": list(cv.resources),
        "buildings": {
            "numbers": list(cv.numbers),
            "copies": cv.copies,
            "removed_copies": {n: cv.removals.get(int(n), 0) for n in counts},
            "in_bag": {n: cv.num_codes * (cv.copies - cv.removals.get(int(n), 0)) for n in counts},
        },
        "village": {
            "rows": cv.village_rows,
            "cols": cv.village_cols,
            "row_costs": list(cv.row_costs),
            "row_values": list(cv.row_values),
            "col_values": list(cv.col_values),
            "space_costs": [
                [cv.space_cost[r * cv.village_cols + c] for c in range(cv.village_cols)]
                for r in range(cv.village_rows)
            ],
            "face_up_line_multiplier": 2,
        },
        "board": {
            "side": cv.side,
            "size": cv.size,
            "exclude_corners": cv.exclude_corners,
            "cells": [
                [r, c]
                for r in range(cv.size)
                for c in range(cv.size)
                if not (cv.exclude_corners and r in (0, cv.size - 1) and c in (0, cv.size - 1))
            ],
            "play_area": {str(n): [_rc(cv, c) for c in cells] for n, cells in cv.play_area.items()},
            "printed_areas": [
                {"cell": list(a["cell"]), "squares": list(a["squares"])}
                for a in board["printed_areas"]
            ],
            "settlements": [list(c) for c in board["settlements"]],
            "clearings": [list(c) for c in board["clearings"]],
            "ponds": list(cv.ponds),
            "settlement_tiles": cv.settlement_tiles,
        },
        "harvest_tiles": {
            "count": len(cv.tiles),
            "square_order": ["NW", "NE", "SE", "SW"],
            "rotation": "quarter turns clockwise: NW to NE to SE to SW",
            "tiles": [list(t) for t in v["harvest_tiles"]],
            "compositions": [
                {"squares": list(squares), "copies": copies}
                for squares, copies in compositions.items()
            ],
        },
        "hand": {
            "buildings": cv.hand_buildings,
            "tiles": cv.hand_tiles,
            "shipments": cv.shipments,
        },
        "shipment_squares": 4,
        "market_size": cv.market_size,
        "turns_per_player": dict.fromkeys(counts, cv.turns_per_player),
        "rebuild": cv.rebuild,
        "actions": {kind: list(fields) for kind, fields in _FIELDS.items()},
        "events": {kind: list(fields) for kind, fields in events.EVENT_TYPES.items()},
    }
    return json.dumps(data)


class NewHavenEngine:
    """New Haven for 2-4 players (see ``rules`` for the decisions the rules leave open)."""

    name = "newhaven"
    title = "New Haven"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    # -- variants ---------------------------------------------------------------

    def default_variants(self) -> dict[str, dict]:
        """standard, side-b, rebuild, careful-harvest (fresh deep copies)."""
        return default_variants()

    def variant_schema(self) -> dict:
        """The JSON Schema of the variant data."""
        return variant_schema()

    def validate_variant(self, variant: dict) -> list[str]:
        """Problems naming their field; ``[]`` when the variant is playable."""
        return validate_variant(variant)

    def problem_templates(self) -> tuple[str, ...]:
        """The message templates of ``validate_variant``'s own checks (beside the schema's
        ``games.engines.problems.SCHEMA_TEMPLATES``): texts for the catalogues."""
        return PROBLEM_TEMPLATES

    def rule_data(self, variant: dict) -> dict:
        """Everything a renderer, the AI or an editor needs to know of ``variant``.

        The protocol's envelope (``game``, ``title``, ``variant``, ``description``,
        ``player_counts``) and:

        * ``resources``: resource names, in the variant's order (a building's colour);
        * ``buildings``: ``numbers``, ``copies`` of every (resource, number),
          ``removed_copies`` and the buildings ``in_bag`` per player count;
        * ``village``: ``rows``, ``cols``, ``row_costs`` (every space of a row costs
          that), ``row_values``, ``col_values``, ``space_costs`` (rows x cols) and
          ``face_up_line_multiplier`` (a line all face up scores that many times);
        * ``board``: ``side``, ``size``, ``exclude_corners``, ``cells`` (every cell
          ``[row, col]`` of the board), ``play_area`` (player count -> its cells),
          ``printed_areas`` (``cell`` and ``squares``), ``settlements``,
          ``clearings``, ``ponds`` (the least player count of each pond) and
          ``settlement_tiles``;
        * ``harvest_tiles``: ``count``, ``square_order`` (``[NW, NE, SE, SW]``),
          ``rotation``, every tile's ``tiles`` squares and the deck's ``compositions``
          (distinct tiles with their copies);
        * ``hand``: ``buildings``, ``tiles`` and ``shipments`` dealt to each player;
        * ``shipment_squares``: the squares of one resource a shipment counts as;
        * ``market_size``, ``turns_per_player`` (per player count), ``rebuild``;
        * ``actions`` (action type -> its JSON fields) and ``events`` (event type ->
          its fields, see ``events``).

        ``InvalidVariant`` for unplayable data.  Cached per variant; a fresh copy each
        call.
        """
        return json.loads(_rule_data_json(_key_of(variant)))

    # -- playing ----------------------------------------------------------------

    def new_game(self, variant: dict, num_players: int, seed: int) -> State:
        """The initial state; all chance is resolved from ``seed`` at set-up."""
        compiled, data = compiled_of(_key_of(variant))
        counts = list(compiled.player_counts)
        if type(num_players) is not int or num_players not in counts:
            raise InvalidVariant(
                [f"num_players: {num_players!r} is not one of {counts} for this variant"]
            )
        if type(seed) is not int:
            raise InvalidVariant([f"seed: {seed!r} must be an integer"])
        return rules.new_state(compiled, data, num_players, seed)

    def to_move(self, state: State) -> list[int]:
        """The seat that acts now, ``[]`` once over (one seat acts at a time)."""
        return rules.to_move(state)

    def legal_actions(self, state: State, seat: int) -> list:
        """Every action of ``seat`` now (``[]`` when it is not that seat's move)."""
        return rules.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action) -> State:
        """A new state; ``IllegalAction`` (input unchanged) when not legal."""
        try:
            return rules.apply(state, seat, action)
        except IllegalAction:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            # Garbage that slipped past the checks (e.g. unhashable values).
            raise IllegalAction("That is not a valid action here.") from exc

    def is_over(self, state: State) -> bool:
        """True once the game has ended."""
        return state.phase == OVER

    def scores(self, state: State) -> list[int]:
        """Current points of every seat (completed rows and columns)."""
        return [rules.score(state.compiled, p) for p in state.players]

    def winners(self, state: State) -> list[int]:
        """Winning seats after the tie-breaks; ``[]`` while running."""
        return rules.winners(state)

    # -- information --------------------------------------------------------------

    def observe(self, state: State, seat: Seat) -> dict:
        """Everything ``seat`` may know (``None`` = spectator), as JSON-able data."""
        if seat is not None and (type(seat) is not int or not 0 <= seat < state.num_players):
            raise EngineError(f"no seat {seat!r} in this game")
        return self._view(state, seat, everything=state.phase == OVER)

    def reveal(self, state: State) -> dict:
        """The spectator's view with nothing hidden, plus ``revealed``.

        Every village number and every hand is shown (``players[i].revealed_hand``), and
        ``revealed`` holds ``pool`` and ``bag`` (next drawn first), every seat's
        ``hand`` (``tiles``, ``public_buildings``, ``private_buildings``) and its
        ``shipment`` (``squares`` as it will be turned face up, the ``cell`` it lies
        face down on or ``null``; ``null`` once face up).  For finished games and
        post-game study only.
        """
        st = state
        cv = st.compiled
        view = self._view(st, None, everything=True)
        res = cv.resources
        shipments: list[dict | None] = []
        for seat, p in enumerate(st.players):
            tile, cell = p.shipment, None
            if tile < 0 and st.shipment_cell >= 0 and seat == st.active:
                cell = st.shipment_cell
                tile = st.cells[cell][1]
            if tile < 0:
                shipments.append(None)
                continue
            shipments.append(
                {
                    "squares": list(cv.rotated_names[tile][p.shipment_rotation]),
                    "cell": _rc(cv, cell) if cell is not None else None,
                }
            )
        view["revealed"] = {
            "pool": [[res[r] for r in cv.tiles[t]] for t in reversed(st.pool)],
            "bag": [cv.building(c) for c in reversed(st.bag)],
            "hands": [
                {
                    "tiles": [[res[r] for r in cv.tiles[t]] for t in p.tiles],
                    "public_buildings": [cv.building(c) for c in p.public_buildings],
                    "private_buildings": [cv.building(c) for c in p.private_buildings],
                }
                for p in st.players
            ],
            "shipments": shipments,
        }
        return view

    def _view(self, st: State, seat: Seat, everything: bool) -> dict:
        """``observe``'s view; ``everything`` shows every number and hand (game over)."""
        cv = st.compiled
        res = cv.resources
        tiles = []
        for cell, entry in enumerate(st.cells):
            if entry is None:
                continue
            kind, what, extra = entry
            r, c = divmod(cell, cv.size)
            view: dict[str, Any] = {
                "row": r,
                "col": c,
                "cell": cv.cell_names[cell],
                "kind": CELL_KINDS[kind],
            }
            if kind == POND_CELL:
                view["squares"] = None
                view["label"] = what
            elif kind == SHIP_DOWN:
                # Face down: nobody knows its face; it counts as 4 squares of `extra`.
                view["squares"] = [res[extra]] * 4
                view["face_down"] = True
            elif kind == PRINTED:
                view["squares"] = [res[x] for x in cv.printed[what][1]]
            else:
                view["squares"] = list(cv.rotated_names[what][extra])
                if kind == SHIP_UP:
                    view["face_down"] = False
            tiles.append(view)
        in_play = set(cv.play_area[st.num_players])
        board = {
            "size": cv.size,
            "tiles": tiles,
            "clearings": [
                {"row": c // cv.size, "col": c % cv.size, "building": cv.building(code)}
                for c, code in sorted(st.clearings.items())
            ],
            "settlements": [_rc(cv, c) for c in cv.settlements if c in in_play],
        }
        over = st.phase == OVER
        players = []
        for i, p in enumerate(st.players):
            mine = seat == i
            village = []
            for r in range(cv.village_rows):
                row = []
                for c in range(cv.village_cols):
                    v = p.village[r * cv.village_cols + c]
                    if v < 0:
                        row.append(None)
                        continue
                    code = v >> 2
                    known = mine or everything or v & 1
                    row.append(
                        {
                            "resource": res[cv.code_resource[code]],
                            "number": cv.code_number[code] if known else None,
                            "face_up": bool(v & 2),
                            # The turn it went down in (as ``turn`` counts): public.
                            "turn": p.built_turns[r * cv.village_cols + c] + 1,
                            # Buildings built on the space, this one included (2 or more:
                            # built over): public too.
                            "builds": p.build_counts[r * cv.village_cols + c],
                        }
                    )
                village.append(row)
            players.append(
                {
                    "seat": i,
                    "village": village,
                    "tiles_in_hand": len(p.tiles),
                    "buildings_in_hand": len(p.public_buildings) + len(p.private_buildings),
                    "public_buildings": [cv.building(c) for c in p.public_buildings],
                    "private_building_count": len(p.private_buildings),
                    "shipment_played": p.shipment_played,
                    "has_shipment": p.shipment >= 0,
                    "turns_taken": p.turns,
                    "score": rules.score(cv, p),
                    "empty_spaces": rules.empty_spaces(cv, p),
                    # The game is over: nothing is secret any more.
                    "revealed_hand": _revealed_hand(cv, p) if everything else None,
                }
            )
        hand = None
        if seat is not None:
            p = st.players[seat]
            hand = {
                "tiles": [
                    {"index": i, "squares": [res[x] for x in cv.tiles[t]]}
                    for i, t in enumerate(p.tiles)
                ],
                "buildings": [cv.building(c) for c in (*p.public_buildings, *p.private_buildings)],
                "public_buildings": [cv.building(c) for c in p.public_buildings],
                "private_buildings": [cv.building(c) for c in p.private_buildings],
            }
        removed = []
        for code, owner in st.removed:
            b = cv.building(code)
            if owner >= 0 and owner != seat and not everything:
                b["number"] = None
            removed.append(b)
        return {
            "game": self.name,
            "variant": cv.name,
            "num_players": st.num_players,
            "side": cv.side,
            "rebuild": cv.rebuild,
            "you": seat,
            "hand": hand,
            "turn": st.turn + (0 if over else 1),
            "turns_per_player": cv.turns_per_player,
            "to_move": rules.to_move(st),
            "phase": st.phase,
            "active": st.active,
            "sharing": st.sharer if st.sharer >= 0 else None,
            "draws_owed": st.draws_owed,
            "draws_done": st.draws_done,
            "last_cell": _rc(cv, st.last_cell) if st.last_cell >= 0 else None,
            "board": board,
            "play_area": [_rc(cv, c) for c in cv.play_area[st.num_players]],
            "empty_cells": [_rc(cv, c) for c in st.empty_cells],
            "market": [cv.building(c) for c in st.market],
            "markers": {name: st.markers[i] for i, name in enumerate(res)},
            "bag_count": len(st.bag),
            "pool_count": len(st.pool),
            "removed": removed,
            "players": players,
            "is_over": over,
            "scores": self.scores(st),
            "winners": rules.winners(st) if over else [],
            "breakdown": [rules.breakdown(cv, p) for p in st.players] if over else None,
        }

    def variant_key(self, state: State) -> str:
        """The canonical JSON of the state's variant (public; one string per variant)."""
        return state.compiled.key

    def determinize(self, state: State, seat: Seat, rng: random.Random) -> State:
        """Resample what ``seat`` cannot see, keeping every count and every visible fact.

        Hidden from ``seat``: the pool order, every unplayed (or still face-down)
        shipment and the rotation it will be turned up in, the other players' hand tiles
        and blind-drawn buildings, the bag, and the numbers of other players' face-down
        buildings (and removed ones) that came from hidden hands.  The last kind keeps
        its colour: it is re-dealt from the hidden buildings of the same resource.
        """
        st = state
        if st.phase == OVER:
            return st  # the end reveals every hand: nothing is left to resample
        cv = st.compiled
        ns = st.copy()
        players = [p.copy() for p in st.players]
        others = [i for i in range(st.num_players) if i != seat]

        # Harvest tiles.
        hidden_tiles = list(st.pool)
        for p in players:
            if p.shipment >= 0:
                hidden_tiles.append(p.shipment)
        if st.shipment_cell >= 0:
            hidden_tiles.append(st.cells[st.shipment_cell][1])
        for i in others:
            hidden_tiles.extend(players[i].tiles)
        # Sorting first makes the result depend only on what ``seat`` can tell apart (and
        # ``rng``): two states that differ only in hidden orders give the same worlds.
        hidden_tiles.sort()
        rules.shuffle(rng, hidden_tiles)
        for i in others:
            k = len(players[i].tiles)
            players[i].tiles = [hidden_tiles.pop() for _ in range(k)]
        for p in players:
            if p.shipment >= 0:
                p.shipment = hidden_tiles.pop()
            if p.shipment_rotation >= 0:
                p.shipment_rotation = rng.randrange(4)
        if st.shipment_cell >= 0:
            cells = ns.cells = list(st.cells)
            kind, _tile, extra = cells[st.shipment_cell]
            cells[st.shipment_cell] = (kind, hidden_tiles.pop(), extra)
        ns.pool = hidden_tiles

        # Buildings.
        hidden = list(st.bag)
        for i in others:
            hidden.extend(players[i].private_buildings)
        slots: list[tuple[int, int]] = []  # (seat, space) of face-down unknown numbers
        for i in others:
            for s, v in enumerate(players[i].village):
                if v >= 0 and not v & 1:
                    slots.append((i, s))
                    hidden.append(v >> 2)
        removed_slots = [
            k for k, (_code, owner) in enumerate(st.removed) if owner >= 0 and owner != seat
        ]
        hidden.extend(st.removed[k][0] for k in removed_slots)
        hidden.sort()  # see above: canonical order before the shuffle
        rules.shuffle(rng, hidden)

        def take_of_resource(r: int) -> int:
            choices = [k for k, code in enumerate(hidden) if cv.code_resource[code] == r]
            k = rng.choice(choices)
            code = hidden[k]
            hidden[k] = hidden[-1]
            hidden.pop()
            return code

        for i, s in slots:
            v = players[i].village[s]
            code = take_of_resource(cv.code_resource[v >> 2])
            players[i].village[s] = code << 2 | (v & 3)
        if removed_slots:
            removed = list(st.removed)
            for k in removed_slots:
                code, owner = removed[k]
                removed[k] = (take_of_resource(cv.code_resource[code]), owner)
            ns.removed = removed
        for i in others:
            k = len(players[i].private_buildings)
            players[i].private_buildings = [hidden.pop() for _ in range(k)]
        ns.bag = hidden
        ns.players = tuple(players)
        return ns

    # -- serialisation -------------------------------------------------------------

    def state_to_json(self, state: State) -> dict:
        """The full state, hidden parts included (never send this to a player)."""
        return state_to_json(state)

    def state_from_json(self, data: dict) -> State:
        """Inverse of ``state_to_json``; ``EngineError`` on malformed data or format."""
        return state_from_json(data)

    def action_to_json(self, action) -> Any:
        """A tuple action as a JSON object with a ``type`` key."""
        if type(action) is not tuple or not action:
            raise IllegalAction("That is not a New Haven action.")
        kind = action[0]
        fields = _FIELDS.get(kind) if type(kind) is str else None
        if fields is None or len(action) != len(fields) + 1:
            raise IllegalAction("That is not a New Haven action.")
        out = {"type": kind}
        out.update(zip(fields, action[1:], strict=True))
        return out

    def action_from_json(self, data: Any) -> tuple:
        """Inverse of ``action_to_json``; ``IllegalAction`` on anything malformed."""
        if not isinstance(data, dict):
            raise IllegalAction("An action must be a JSON object.")
        kind = data.get("type")
        fields = _FIELDS.get(kind) if type(kind) is str else None
        if fields is None:
            raise IllegalAction(f"Unknown action type {kind!r}.")
        if set(data) != {"type", *fields}:
            raise IllegalAction(
                f"A {kind} action needs exactly the fields {', '.join(fields) or '(none)'}."
            )
        values = []
        for field in fields:
            value = data[field]
            want = _TYPES[field]
            if type(value) is not want:
                raise IllegalAction(f"The field {field} must be a {want.__name__}.")
            values.append(value)
        return (kind, *values)

    def describe_action(self, state: State, action) -> dict:
        """The event of ``action`` (see ``events``); ``IllegalAction`` when not legal."""
        return events.describe(state, action)

    # -- simulation ------------------------------------------------------------------

    def figures(self, events: list[dict], state: State) -> dict[str, float]:
        """Figures of one finished game for an admin tuning a variant.

        * ``turns``: turns played, all seats together;
        * ``empty_village_spaces``: empty village spaces at the end, mean over seats (a
          village too big or too dear for the game's length leaves many);
        * ``completed_rows``, ``completed_cols``, ``doubled_lines``: completed rows,
          columns, and lines of either kind scored double (all face up), mean per seat;
        * ``buildings_built``: builds per seat; ``face_down_share``: share of builds
          face down (numbers that rarely match the costs push it up);
          ``shared_build_share``: share of builds made in another player's turn;
        * ``harvest_value``: markers gathered per harvest (all resources together);
        * ``blind_draw_share``: share of building draws taken blind from the bag;
        * ``buildings_left_in_hand``: buildings in hand at the end, mean per seat;
        * ``unplayed_shipments``: share of seats that never played their shipment;
        * ``clearing_buildings``: buildings taken from clearings in the game;
        * ``winning_margin``: the winner's points minus the runner-up's.
        """
        cv = state.compiled
        players = state.players
        n = len(players)
        harvests = [e for e in events if e["type"] in ("harvested", "shipped")]
        builds = [e for e in events if e["type"] == "built"]
        draws = [e for e in events if e["type"] in ("drew_market", "drew_blind")]
        shared = 0
        active = None
        for e in events:
            if e["type"] in ("harvested", "shipped"):
                active = e["seat"]
            elif e["type"] == "built" and e["seat"] != active:
                shared += 1
        rows = cols = doubled = 0
        for p in players:
            bd = rules.breakdown(cv, p)
            rows += len(bd["rows"])
            cols += len(bd["cols"])
            doubled += sum(1 for x in (*bd["rows"], *bd["cols"]) if x["doubled"])
        scores = sorted((rules.score(cv, p) for p in players), reverse=True)
        return {
            "turns": len(harvests),
            "empty_village_spaces": statistics.fmean(rules.empty_spaces(cv, p) for p in players),
            "completed_rows": rows / n,
            "completed_cols": cols / n,
            "doubled_lines": doubled / n,
            "buildings_built": len(builds) / n,
            "face_down_share": (
                sum(1 for e in builds if not e["face_up"]) / len(builds) if builds else 0.0
            ),
            "shared_build_share": shared / len(builds) if builds else 0.0,
            "harvest_value": (
                statistics.fmean(sum(e["markers"].values()) for e in harvests) if harvests else 0.0
            ),
            "blind_draw_share": (
                sum(1 for e in draws if e["type"] == "drew_blind") / len(draws) if draws else 0.0
            ),
            "buildings_left_in_hand": statistics.fmean(
                len(p.public_buildings) + len(p.private_buildings) for p in players
            ),
            "unplayed_shipments": sum(1 for p in players if p.shipment >= 0) / n,
            "clearing_buildings": sum(1 for e in harvests if e["building"] is not None),
            "winning_margin": scores[0] - scores[1] if n > 1 else scores[0],
        }


def _revealed_hand(cv: Compiled, player: Player) -> dict:
    """A player's whole hand, shown to everyone once the game is over."""
    res = cv.resources
    return {
        "tiles": [[res[x] for x in cv.tiles[t]] for t in player.tiles],
        "buildings": [
            cv.building(c) for c in (*player.public_buildings, *player.private_buildings)
        ],
        "unplayed_shipment_squares": (
            [res[x] for x in cv.tiles[player.shipment]] if player.shipment >= 0 else None
        ),
    }


_FIELDS: dict[str, tuple[str, ...]] = {
    "harvest": ("tile", "row", "col", "rotation"),
    "ship": ("row", "col", "resource"),
    "build": ("resource", "number", "row", "col", "face_up"),
    "end_build": (),
    "pass": (),
    "draw_market": ("resource", "number"),
    "draw_bag": (),
}
_TYPES: dict[str, type] = {
    "tile": int,
    "row": int,
    "col": int,
    "rotation": int,
    "resource": str,
    "number": int,
    "face_up": bool,
}
