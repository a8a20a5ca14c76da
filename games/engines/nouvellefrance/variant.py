"""Variant data: loading the defaults, validating, and compiling once per variant.

All component data (sites, shapes, colour patterns, deck, sticks ...) lives in the
JSON files next to this module; nothing game-specific is hard-coded here except
the three ally names, whose *effects* are rules.

Decisions on top of the rules file (enforced by ``validate_variant``):

* snowflakes may not go into pile 1, and ``initial_face_up`` cards must fit in
  pile 1, so setting up the display never meets a snowflake;
* ``initial_face_up <= display.size - 1`` so a drawn card always has room at the
  start of a turn (the display then returns to its initial size after every turn);
* the number of snowstorms is the number of snowflakes; every stick has one symbol
  per storm (storm k scores level k) and the character bonus is read from the
  symbol of the stick's last level;
* every shape has as many cubes as a colour pattern in ``copies`` has entries.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path

import jsonschema

from .geometry import PieceKind, Site

_HERE = Path(__file__).resolve().parent / "variants"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
ALLIES = ("fille_du_roy", "coureur_des_bois", "huron")


@cache
def _load(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


def schema() -> dict:
    """The JSON Schema of variant data (fresh copy)."""
    return json.loads(_load("schema.json"))


def default_variants() -> dict[str, dict]:
    """``standard`` and ``simple``, fresh deep copies."""
    return {n: json.loads(_load(f"{n}.json")) for n in ("standard", "simple")}


def _path(err: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in err.absolute_path) or "(variant)"


def _connected(cells: list) -> bool:
    todo = [tuple(cells[0])]
    seen = {todo[0]}
    pool = {tuple(c) for c in cells}
    while todo:
        x, z = todo.pop()
        for n in ((x + 1, z), (x - 1, z), (x, z + 1), (x, z - 1)):
            if n in pool and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(pool)


def _check_cells(cells: list, field: str, problems: list[str], connected: bool) -> None:
    tuples = [tuple(c) for c in cells]
    if len(set(tuples)) != len(tuples):
        problems.append(f"{field}: duplicate cells")
    if any(v < 0 for c in tuples for v in c):
        problems.append(f"{field}: negative coordinates")
    if connected and tuples and not _connected(cells):
        problems.append(f"{field}: the cubes are not face-connected")


@cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())


_PROBLEMS: dict[str, tuple[str, ...]] = {}


def validate_variant(variant: object) -> list[str]:
    """Human-readable problems, each naming the field at fault; ``[]`` when playable.

    Results are cached by the variant's canonical JSON: schema validation costs more
    than a whole random game, and ``new_game`` validates every time.
    """
    if not isinstance(variant, dict):
        return ["(variant): must be a JSON object"]
    try:
        key = json.dumps(variant, sort_keys=True)
    except (TypeError, ValueError):
        return ["(variant): must be JSON data (strings, numbers, lists, objects)"]
    found = _PROBLEMS.get(key)
    if found is None:
        found = tuple(_validate(variant))
        if len(_PROBLEMS) > 256:
            _PROBLEMS.clear()
        _PROBLEMS[key] = found
    return list(found)


def _validate(variant: dict) -> list[str]:
    validator = _validator()
    errors = sorted(validator.iter_errors(variant), key=lambda e: list(e.absolute_path))
    if errors:
        return [f"{_path(e)}: {e.message}" for e in errors]
    v = variant
    problems: list[str] = []
    if len(v["colours"]) < MAX_PLAYERS:
        problems.append(
            f"colours: {len(v['colours'])} colours but up to {MAX_PLAYERS} players need "
            f"{MAX_PLAYERS}"
        )
    names = [s["name"] for s in v["sites"]]
    if len(set(names)) != len(names):
        problems.append("sites: duplicate site names")
    for i, s in enumerate(v["sites"]):
        f = f"sites.{i}"
        _check_cells(s["footprint"], f"{f}.footprint", problems, connected=False)
        if s["height_limit"] < 1:
            problems.append(f"{f}.height_limit: must be at least 1")
        foot = {tuple(c) for c in s["footprint"]}
        for j, pair in enumerate(s["extra_adjacency"]):
            if any(tuple(c) not in foot for c in pair):
                problems.append(f"{f}.extra_adjacency.{j}: cell outside the footprint")
        missing = set(v["symbols"]) - set(s["character_bonus"])
        if missing:
            problems.append(f"{f}.character_bonus: no bonus for symbols {sorted(missing)}")
    shape_names = [s["name"] for s in v["shapes"]]
    if len(set(shape_names)) != len(shape_names):
        problems.append("shapes: duplicate shape names")
    for i, s in enumerate(v["shapes"]):
        _check_cells(s["cells"], f"shapes.{i}.cells", problems, connected=True)
    for k, pattern in enumerate(v["copies"]):
        for i, s in enumerate(v["shapes"]):
            if len(pattern) != len(s["cells"]):
                problems.append(
                    f"copies.{k}: {len(pattern)} colours for shape {s['name']!r} of "
                    f"{len(s['cells'])} cubes (shapes.{i})"
                )
                break
        if any(c >= len(v["colours"]) for c in pattern):
            problems.append(f"copies.{k}: colour index outside colours")
    storms = len(v["deck"]["snowflake_piles"])
    bonus_names = [b["name"] for b in v["bonus_pieces"]]
    if len(set(bonus_names)) != len(bonus_names) or set(bonus_names) & set(shape_names):
        problems.append("bonus_pieces: names must be unique and differ from shape names")
    for i, b in enumerate(v["bonus_pieces"]):
        _check_cells(b["cells"], f"bonus_pieces.{i}.cells", problems, connected=True)
        if b["expires_at_storm"] > storms:
            problems.append(
                f"bonus_pieces.{i}.expires_at_storm: only {storms} snowstorms in the deck"
            )
    tb = v["tiebreak_bonus_piece"]
    if tb is not None and tb not in bonus_names:
        problems.append(f"tiebreak_bonus_piece: unknown bonus piece {tb!r}")
    deck = v["deck"]
    unknown = sorted(set(deck["cards_per_shape"]) - set(shape_names))
    if unknown:
        problems.append(f"deck.cards_per_shape: unknown shapes {unknown}")
    cards = sum(deck["cards_per_shape"].values())
    if sum(deck["piles"]) != cards:
        problems.append(
            f"deck.piles: piles hold {sum(deck['piles'])} cards but cards_per_shape gives {cards}"
        )
    sp = deck["snowflake_piles"]
    if len(set(sp)) != len(sp):
        problems.append("deck.snowflake_piles: duplicate piles")
    if any(p < 2 or p > len(deck["piles"]) for p in sp):
        problems.append(f"deck.snowflake_piles: piles must be within 2..{len(deck['piles'])}")
    if len(v["sticks"]) != len(v["sites"]):
        problems.append(f"sticks: {len(v['sticks'])} sticks for {len(v['sites'])} sites")
    for i, st in enumerate(v["sticks"]):
        if len(st["levels"]) != storms:
            problems.append(
                f"sticks.{i}.levels: {len(st['levels'])} levels but {storms} snowstorms"
            )
        bad = sorted(set(st["levels"]) - set(v["symbols"]))
        if bad:
            problems.append(f"sticks.{i}.levels: unknown symbols {bad}")
    d = v["display"]
    if d["initial_face_up"] > d["size"] - 1:
        problems.append("display.initial_face_up: must leave room for the drawn card")
    if deck["piles"] and d["initial_face_up"] > deck["piles"][0]:
        problems.append("display.initial_face_up: more than pile 1 holds")
    return problems


class Compiled:
    """Everything derived from one variant, computed once and shared by every state."""

    def __init__(self, variant: dict) -> None:
        self.variant = variant
        self.name = variant["name"]
        self.colours: tuple[str, ...] = tuple(variant["colours"])
        self.sites = tuple(
            Site(
                s["name"],
                s["character"],
                [tuple(c) for c in s["footprint"]],
                s["height_limit"],
                [(tuple(a), tuple(b)) for a, b in s["extra_adjacency"]],
                s["character_bonus"],
            )
            for s in variant["sites"]
        )
        self.site_index = {s.name: i for i, s in enumerate(self.sites)}
        self.shapes = tuple(
            PieceKind(s["name"], tuple(tuple(c) for c in s["cells"])) for s in variant["shapes"]
        )
        self.shape_index = {s.name: i for i, s in enumerate(self.shapes)}
        self.copies: tuple[tuple[int, ...], ...] = tuple(tuple(c) for c in variant["copies"])
        self.bonus = tuple(
            PieceKind(b["name"], tuple(tuple(c) for c in b["cells"]))
            for b in variant["bonus_pieces"]
        )
        self.bonus_index = {b.name: i for i, b in enumerate(self.bonus)}
        self.bonus_expiry = tuple(b["expires_at_storm"] for b in variant["bonus_pieces"])
        self.tiebreak_bonus = (
            self.bonus_index[variant["tiebreak_bonus_piece"]]
            if variant["tiebreak_bonus_piece"] is not None
            else None
        )
        deck = variant["deck"]
        self.cards_per_shape = tuple(deck["cards_per_shape"].get(s.name, 0) for s in self.shapes)
        self.piles = tuple(deck["piles"])
        self.snowflake_piles = tuple(deck["snowflake_piles"])
        self.storms = len(self.snowflake_piles)
        self.sticks = tuple(tuple(s["levels"]) for s in variant["sticks"])
        self.stick_names = tuple(s["name"] for s in variant["sticks"])
        self.symbols = dict(variant["symbols"])
        self.display_size = variant["display"]["size"]
        self.initial_face_up = variant["display"]["initial_face_up"]
        allies = variant["allies"]
        self.allies_enabled = tuple(a in allies["enabled"] for a in ALLIES)
        self.refresh = allies["refresh_after_storm"]
        self.huron_peek = allies["huron_peek"]
        self.simple = variant["simple"]
        self.total_cards = sum(self.cards_per_shape) + self.storms

    def __repr__(self) -> str:
        return f"<Compiled nouvellefrance variant {self.name!r}>"


_COMPILED: dict[str, Compiled] = {}


def compiled(variant: dict) -> Compiled:
    """The compiled form of ``variant`` (assumed valid), cached by its canonical JSON."""
    key = json.dumps(variant, sort_keys=True)
    c = _COMPILED.get(key)
    if c is None:
        if len(_COMPILED) > 64:
            _COMPILED.clear()
        c = Compiled(copy.deepcopy(variant))
        _COMPILED[key] = c
    return c
