"""The New Haven engine object: the protocol on top of ``rules``, views and serialisation."""

from __future__ import annotations

import json
import random
from functools import lru_cache
from typing import Any

from ..protocol import EngineError, IllegalAction, InvalidVariant, Seat
from . import rules
from .state import (
    CELL_KINDS,
    OVER,
    PHASE_NAMES,
    POND_CELL,
    PRINTED,
    SHIP_DOWN,
    SHIP_UP,
    Player,
    State,
)
from .variants import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Compiled,
    canonical,
    compile_variant,
    default_variants,
    validate_variant,
    variant_schema,
)

__all__ = ["NewHavenEngine"]

STATE_FORMAT = 1


@lru_cache(maxsize=64)
def _problems_cached(key: str) -> tuple[str, ...]:
    return tuple(validate_variant(json.loads(key)))


def cell_name(cv: Compiled, cell: int) -> str:
    """``(row 3, col 2)`` -> ``'C4'``: column letter, row number from 1."""
    r, c = divmod(cell, cv.size)
    return f"{chr(65 + c)}{r + 1}"


def _bld(cv: Compiled, code: int) -> dict:
    return {"resource": cv.resources[cv.code_res[code]], "number": cv.code_num[code]}


def _revealed_hand(cv: Compiled, player: Any) -> dict:
    """A player's whole hand, shown to everyone once the game is over."""
    res = cv.resources
    return {
        "tiles": [[res[x] for x in cv.tiles[t]] for t in player.tiles],
        "buildings": [_bld(cv, c) for c in (*player.pub, *player.priv)],
        "unplayed_shipment_squares": (
            [res[x] for x in cv.tiles[player.ship]] if player.ship >= 0 else None
        ),
    }


class NewHavenEngine:
    """New Haven for 2-4 players (see ``rules`` for the decisions the rules leave open)."""

    name = "newhaven"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    def __init__(self) -> None:
        self._recent: dict[int, tuple[dict, dict, Compiled]] = {}

    # -- variants ---------------------------------------------------------------

    def default_variants(self) -> dict[str, dict]:
        """standard, side-b, rebuild, careful-harvest (fresh deep copies)."""
        return default_variants()

    def variant_schema(self) -> dict:
        """The JSON Schema of the variant data."""
        return variant_schema()

    def validate_variant(self, variant: dict) -> list[str]:
        """Problems naming their field; ``[]`` when the variant is playable."""
        try:
            key = canonical(variant)
        except (TypeError, ValueError):
            return ["(variant): must be JSON data"]
        return list(_problems_cached(key))

    # -- playing ----------------------------------------------------------------

    def new_game(self, variant: dict, num_players: int, seed: int) -> State:
        """The initial state; all chance is resolved from ``seed`` at setup."""
        data, cv = self._prepared(variant)
        counts = sorted(cv.play_area)
        if type(num_players) is not int or num_players not in counts:
            raise InvalidVariant(
                [f"num_players: {num_players!r} is not one of {counts} for this variant"]
            )
        if type(seed) is not int:
            raise InvalidVariant([f"seed: {seed!r} must be an integer"])
        return rules.setup(data, cv, num_players, seed)

    def _prepared(self, variant: dict) -> tuple[dict, Compiled]:
        """(private copy, compiled tables) of a valid variant; ``InvalidVariant`` otherwise.

        Validation and canonical JSON cost far more than a short game's setup, so the
        last variants seen are remembered by identity and re-checked by equality (a
        caller may have mutated its dict since).
        """
        hit = self._recent.get(id(variant))
        if hit is not None and hit[0] == variant:
            return hit[1], hit[2]
        problems = self.validate_variant(variant)
        if problems:
            raise InvalidVariant(problems)
        snapshot = json.loads(canonical(variant))
        data = json.loads(canonical(variant))  # the states' copy: never mutated
        if len(self._recent) > 32:
            self._recent.clear()
        self._recent[id(variant)] = (snapshot, data, compile_variant(data))
        return data, self._recent[id(variant)][2]

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
        return [rules.score(state.cv, p) for p in state.players]

    def winners(self, state: State) -> list[int]:
        """Winning seats after the tie-breaks; ``[]`` while running."""
        return rules.winners(state)

    # -- information --------------------------------------------------------------

    def observe(self, state: State, seat: Seat) -> dict:
        """Everything ``seat`` may know (``None`` = spectator), as JSON-able data."""
        st = state
        cv = st.cv
        if seat is not None and (type(seat) is not int or not 0 <= seat < st.n):
            raise EngineError(f"no seat {seat!r} in this game")
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
                "cell": cell_name(cv, cell),
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
                view["squares"] = [res[x] for x in cv.rotate(what, extra)]
                if kind == SHIP_UP:
                    view["face_down"] = False
            tiles.append(view)
        in_play = set(cv.play_area[st.n])
        board = {
            "size": cv.size,
            "tiles": tiles,
            "clearings": [
                {"row": c // cv.size, "col": c % cv.size, "building": _bld(cv, code)}
                for c, code in sorted(st.clearing.items())
            ],
            "settlements": [list(cv.cell_rc[c]) for c in cv.settlements if c in in_play],
        }
        over = st.phase == OVER
        players = []
        for i, p in enumerate(st.players):
            mine = seat == i
            village = []
            for r in range(cv.vrows):
                row = []
                for c in range(cv.vcols):
                    v = p.village[r * cv.vcols + c]
                    if v < 0:
                        row.append(None)
                        continue
                    code = v >> 2
                    face_up = bool(v & 2)
                    known = mine or over or v & 1
                    row.append(
                        {
                            "resource": res[cv.code_res[code]],
                            "number": cv.code_num[code] if known else None,
                            "face_up": face_up,
                        }
                    )
                village.append(row)
            players.append(
                {
                    "seat": i,
                    "village": village,
                    "tiles_in_hand": len(p.tiles),
                    "buildings_in_hand": len(p.pub) + len(p.priv),
                    "public_buildings": [_bld(cv, c) for c in p.pub],
                    "private_building_count": len(p.priv),
                    "shipment_played": p.ship_played,
                    "has_shipment": p.ship >= 0,
                    "turns_taken": p.turns,
                    "score": rules.score(cv, p),
                    "empty_spaces": rules.empty_spaces(cv, p),
                    # The game is over: nothing is secret any more.
                    "revealed_hand": _revealed_hand(cv, p) if over else None,
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
                "buildings": [_bld(cv, c) for c in (*p.pub, *p.priv)],
                "public_buildings": [_bld(cv, c) for c in p.pub],
                "private_buildings": [_bld(cv, c) for c in p.priv],
            }
        removed = []
        for code, owner in st.removed:
            b = _bld(cv, code)
            if owner >= 0 and owner != seat and not over:
                b["number"] = None
            removed.append(b)
        moving = rules.to_move(st)
        out: dict[str, Any] = {
            "game": self.name,
            "variant": cv.name,
            "num_players": st.n,
            "side": cv.side,
            "rebuild": cv.rebuild,
            "you": seat,
            "hand": hand,
            "turn": st.turn + (0 if over else 1),
            "turns_per_player": cv.turns_per_player,
            "to_move": moving,
            "phase": PHASE_NAMES[st.phase],
            "active": st.active,
            "sharing": st.sharer if st.sharer >= 0 else None,
            "draws_owed": st.draws_owed,
            "draws_done": st.draws_done,
            "last_cell": list(cv.cell_rc[st.last_cell]) if st.last_cell >= 0 else None,
            "board": board,
            "play_area": [list(cv.cell_rc[c]) for c in cv.play_area[st.n]],
            "empty_cells": [list(cv.cell_rc[c]) for c in st.empty],
            "market": [_bld(cv, c) for c in st.market],
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
        return out

    def determinize(self, state: State, seat: Seat, rng: random.Random) -> State:
        """Resample what ``seat`` cannot see, keeping every count and every visible fact.

        Hidden from ``seat``: the pool order, every unplayed (or still face-down) shipment,
        the other players' hand tiles and blind-drawn buildings, the bag, and the numbers
        of other players' face-down buildings (and removed ones) that came from hidden
        hands.  The last kind keeps its colour: it is re-dealt from the hidden buildings
        of the same resource.
        """
        st = state
        if st.phase == OVER:
            return st  # the end reveals every hand: nothing is left to resample
        cv = st.cv
        ns = st.copy()
        players = [p.copy() for p in st.players]
        others = [i for i in range(st.n) if i != seat]

        # Harvest tiles.
        hidden_tiles = list(st.pool)
        for p in players:
            if p.ship >= 0:
                hidden_tiles.append(p.ship)
        if st.ship_cell >= 0:
            hidden_tiles.append(st.cells[st.ship_cell][1])
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
            if p.ship >= 0:
                p.ship = hidden_tiles.pop()
        if st.ship_cell >= 0:
            cells = ns.cells = list(st.cells)
            kind, _tile, extra = cells[st.ship_cell]
            cells[st.ship_cell] = (kind, hidden_tiles.pop(), extra)
        ns.pool = hidden_tiles

        # Buildings.
        hidden = list(st.bag)
        for i in others:
            hidden.extend(players[i].priv)
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
            choices = [k for k, code in enumerate(hidden) if cv.code_res[code] == r]
            k = rng.choice(choices)
            code = hidden[k]
            hidden[k] = hidden[-1]
            hidden.pop()
            return code

        for i, s in slots:
            v = players[i].village[s]
            code = take_of_resource(cv.code_res[v >> 2])
            players[i].village[s] = code << 2 | (v & 3)
        if removed_slots:
            removed = list(st.removed)
            for k in removed_slots:
                code, owner = removed[k]
                removed[k] = (take_of_resource(cv.code_res[code]), owner)
            ns.removed = removed
        for i in others:
            k = len(players[i].priv)
            players[i].priv = [hidden.pop() for _ in range(k)]
        ns.bag = hidden
        ns.players = tuple(players)
        return ns

    # -- serialisation -------------------------------------------------------------

    def state_to_json(self, state: State) -> dict:
        """The full state, hidden parts included (never send this to a player)."""
        st = state
        return {
            "format": STATE_FORMAT,
            "variant": st.variant,
            "num_players": st.n,
            "phase": st.phase,
            "active": st.active,
            "sharer": st.sharer,
            "turn": st.turn,
            "draws_owed": st.draws_owed,
            "draws_done": st.draws_done,
            "ship_cell": st.ship_cell,
            "last_cell": st.last_cell,
            "built": st.built,
            "squares": st.squares.hex(),
            "cells": [list(e) if e is not None else None for e in st.cells],
            "empty": list(st.empty),
            "clearing": [[c, code] for c, code in sorted(st.clearing.items())],
            "pool": list(st.pool),
            "bag": list(st.bag),
            "market": list(st.market),
            "removed": [list(x) for x in st.removed],
            "markers": list(st.markers),
            "players": [
                {
                    "tiles": list(p.tiles),
                    "ship": p.ship,
                    "ship_played": p.ship_played,
                    "public": list(p.pub),
                    "private": list(p.priv),
                    "village": list(p.village),
                    "turns": p.turns,
                }
                for p in st.players
            ],
        }

    def state_from_json(self, data: dict) -> State:
        """Inverse of ``state_to_json``; ``EngineError`` on malformed data."""
        try:
            if data.get("format") != STATE_FORMAT:
                raise ValueError("unknown state format")
            variant = data["variant"]
            cv = compile_variant(variant)
            st = State.__new__(State)
            st.cv = cv
            st.variant = json.loads(canonical(variant))
            st.n = int(data["num_players"])
            st.phase = int(data["phase"])
            st.active = int(data["active"])
            st.sharer = int(data["sharer"])
            st.turn = int(data["turn"])
            st.draws_owed = int(data["draws_owed"])
            st.draws_done = int(data["draws_done"])
            st.ship_cell = int(data["ship_cell"])
            st.last_cell = int(data["last_cell"])
            st.built = bool(data["built"])
            st.squares = bytearray.fromhex(data["squares"])
            st.cells = [tuple(int(x) for x in e) if e is not None else None for e in data["cells"]]
            st.empty = tuple(int(x) for x in data["empty"])
            st.clearing = {int(c): int(code) for c, code in data["clearing"]}
            st.pool = [int(x) for x in data["pool"]]
            st.bag = [int(x) for x in data["bag"]]
            st.market = [int(x) for x in data["market"]]
            st.removed = [(int(c), int(o)) for c, o in data["removed"]]
            st.markers = [int(x) for x in data["markers"]]
            players = []
            for pd in data["players"]:
                p = Player()
                p.tiles = [int(x) for x in pd["tiles"]]
                p.ship = int(pd["ship"])
                p.ship_played = bool(pd["ship_played"])
                p.pub = [int(x) for x in pd["public"]]
                p.priv = [int(x) for x in pd["private"]]
                p.village = [int(x) for x in pd["village"]]
                p.turns = int(pd["turns"])
                p.cm = [0] * cv.R
                for s, v in enumerate(p.village):
                    if v >= 0:
                        bit = 1 << s
                        p.occ |= bit
                        p.cm[cv.code_res[v >> 2]] |= bit
                        if v & 2:
                            p.up |= bit
                players.append(p)
            st.players = tuple(players)
            if len(players) != st.n or len(st.squares) != cv.sq_width**2:
                raise ValueError("inconsistent sizes")
            return st
        except EngineError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            raise EngineError(f"malformed New Haven state: {exc}") from exc

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

    def describe_action(self, state: State, action) -> str:
        """An English sentence for the log; reveals nothing hidden."""
        st = state
        cv = st.cv
        moving = rules.to_move(st)
        who = f"Seat {moving[0]}" if moving else "Nobody"
        if type(action) is not tuple or not action or type(action[0]) is not str:
            return f"{who} tried something that is not an action."
        kind = action[0]
        try:
            if kind == "harvest":
                _, i, r, c, _rot = action
                tile = st.players[moving[0]].tiles[i]
                names = "/".join(dict.fromkeys(cv.resources[x] for x in cv.tiles[tile]))
                text = f"{who} placed a {names} tile on {cell_name(cv, r * cv.size + c)}"
                code = st.clearing.get(r * cv.size + c)
                if code is not None:
                    text += f" and took the {cv.building_name(code)} building from the clearing"
                return text + "."
            if kind == "ship":
                _, r, c, res = action
                text = f"{who} played their shipment on {cell_name(cv, r * cv.size + c)} as 4 {res}"
                code = st.clearing.get(r * cv.size + c)
                if code is not None:
                    text += f" and took the {cv.building_name(code)} building from the clearing"
                return text + "."
            if kind == "build":
                _, res, num, row, col, up = action
                s = row * cv.vcols + col
                code = cv.res_index[res] * len(cv.numbers) + cv.num_index[num]
                p = st.players[moving[0]]
                where = f"row {row + 1}, column {col + 1} (cost {cv.space_cost[s]})"
                if up:
                    text = f"{who} built {res} {num} face up on {where}"
                elif code in p.pub:
                    text = f"{who} built {res} {num} face down on {where}"
                else:
                    text = f"{who} built a {res} building face down on {where}"
                old = p.village[s]
                if old >= 0:
                    text += (
                        ", replacing a "
                        + (
                            cv.building_name(old >> 2)
                            if old & 1
                            else cv.resources[cv.code_res[old >> 2]]
                        )
                        + " building"
                    )
                return text + "."
            if kind == "end_build":
                return f"{who} finished building."
            if kind == "pass":
                return f"{who} finished building." if st.built else f"{who} passed."
            if kind == "draw_market":
                return f"{who} took {action[1]} {action[2]} from the market."
            if kind == "draw_bag":
                return f"{who} drew a building from the bag."
        except (ValueError, TypeError, KeyError, IndexError):
            pass
        return f"{who} tried an action that is not legal."


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
