"""Variant data: loading the defaults, validating, and compiling once per variant.

All component data (sites, shapes, colour patterns, deck, sticks ...) lives in the
JSON files in ``variants/``; nothing game-specific is hard-coded here except the
three ally names, whose *effects* are rules.

Decisions on top of the rules file (enforced by ``validate_variant``):

* snowflakes may not go into pile 1, and ``initial_face_up`` cards must fit in
  pile 1, so setting up the display never meets a snowflake;
* ``initial_face_up <= display.size - 1`` so a drawn card always has room at the
  start of a turn (the display then returns to its initial size after every turn);
* the number of snowstorms is the number of snowflakes; every stick has one symbol
  per storm (storm k scores level k) and the character bonus is read from the
  symbol of the stick's last level;
* every shape has as many cubes as a colour pattern in ``copies`` has entries;
* capacity (rules file: "The validator rejects data whose capacity (cells x 3) is
  below the cubes that a game deals"): the sites together must have room for at
  least every cube a game can deal, ``sum(cells x height limit) >= (pieces that can
  be taken: per shape min(cards, copies)) x cubes per piece + 4 players x the cubes
  of the bonus pieces``.  Room is necessary, not sufficient (one-cube-thick walls
  leave gaps), so the default data is also tuned by simulation: see below.

Default footprints and their tuning
-----------------------------------
The rules file's acceptance of footprint data: "in 4-player self-play by the greedy
bot, at most 5% of the building pieces drawn are unplaceable, and level 1 of every
site is at least half full at the 1st storm".  Measured with::

    nice -n 10 .venv/bin/python -m tools.simulate nouvellefrance \\
        --variant standard --players 4 --games 200 --bots greedy --jobs 2

(the figures are means over the 200 games; ``level1_fill_at_first_storm`` is the
fill of the least full site in each game).

Step 0, the rules file's data: church ring 10x6 (28 cells), mill ring 7x7 (24),
redoubt arms (0..9, 0) + (10, 1..10) (20): 72 cells, room for 216 cubes.  200 games:
``unplaceable_share`` 0.175 (0.584 of the cards drawn after the 2nd storm),
``level1_fill_at_first_storm`` 0.198 (per site: church 0.544, mill 0.546, redoubt
0.565), ``sites_completed`` 1.58, ``fill_at_end`` 0.707.  Misses both targets: walls
one cube thick take upright pentominoes in a 3-high strip, and by the 3rd period the
gaps left (single cells, steps) fit no piece although 29% of the room is empty.

Step 1, exploration (``simulate.run`` with ``seed=1000``, 100 games unless noted;
unplaceable share, least full site, per-site level-1 fill):

==========================================  =====  ======  ======  ================
footprints (church, mill, redoubt)          cells  unpl.   least   per site
==========================================  =====  ======  ======  ================
rings 9x6, 7x6; arms 10 (40 games)          68     0.221   0.231   0.56 0.59 0.56
rings 11x7, 8x8; arms 12                    84     0.049   0.125   0.42 0.48 0.55
rings 10x6, 8x8; arms 14                    84     0.045   0.105   0.42 0.48 0.53
rings 11x6, 8x8; arms 14                    86     0.032   0.104   0.41 0.47 0.52
rings 10x6, 8x8; arms 15                    86     0.030   0.099   0.41 0.47 0.51
rings 12x7, 8x8; arms 13                    88     0.019   0.102   0.40 0.44 0.53
rings 12x7, 9x9; arms 13 (40 games)         92     0.007   0.093   0.42 0.44 0.46
2-thick rings 7x5, 5x5; arms 6+4 (40 g.)   76     0.132   0.136   0.47 0.57 0.49
2-thick rings 8x5, 6x6; arms 8+6 (40 g.)   96     0.003   0.069   0.38 0.42 0.41
floors 6x5, 5x5; 2-thick arms (40 g.)      79     0.107   0.110   0.50 0.51 0.47
==========================================  =====  ======  ======  ================

The unplaceable share falls with the room (5% needs about 84 cells); level-1 fill
falls with it too, so the two targets pull apart, and the shape of the walls (rings,
straight walls, two-thick walls, floors) moves the curve little.  The least full site
stays between 0.07 and 0.23 for every footprint: the greedy bot fills level 1 by the
stick's symbol for level 1, not by the footprints (spec data, 30 games: ``x2`` site
0.99, ``-`` site 0.44, ``+`` site 0.21; three identical 10x6 rings: 0.96, 0.39, 0.11).
"Level 1 of every site at least half full at the 1st storm" is therefore not reachable
by footprint data with this bot; it is reported, not met (an xfail test records it).

Step 2, the chosen data: church ring 10x6 (28, unchanged), mill ring 8x8 (28), redoubt
arms (0..14, 0) + (15, 1..15) with the bend pair ((14, 0), (15, 1)) (30): 86 cells,
room for 258 cubes.  The command above, 200 games: ``unplaceable_share`` 0.038 (0 before
the 2nd storm, 0.121 after it), ``level1_fill_at_first_storm`` 0.118 (per site: church
0.476, mill 0.466, redoubt 0.481), ``sites_completed`` 1.33, ``fill_at_end`` 0.682,
30.4 building pieces placed of 33.7 drawn, 43.4 turns.  Variant ``simple`` uses the
same footprints.

Step 3 (issue 8), why the least full site stays far below half, on the chosen data.
The command above, 200 games, with the figures by stick and at the 1st storm:

* The 1st storm comes with pile 2, after pile 1's 11 cards and on average 2.5 more,
  in turn 24-25: by then the greedy players have placed 11.6 building pieces and all
  12 of their bonus pieces (they score at once), about 82 cubes for 86 level-1 cells,
  and about 41 of those cubes (half) stand on level 1.
* Which site stays empty is decided by the stick it was dealt, not by its footprint:
  level-1 fill at the 1st storm of the site with stick B (``x2`` on level 1) 0.948,
  stick C (``-``) 0.331, stick A (``+``) 0.143 (max 0.47 in 200 games).  On A's site
  level 2 scores ``x2``, so the bot stands pieces upright on one or two ground cubes to
  get three cubes onto level 2 (40 games: 4.2 cubes on level 1, 6.1 on level 2, 5.3 on
  level 3, from 3.1 pieces and some bonus pieces); on C's site it keeps its own cubes
  off the ``-`` level.  The least full site of a game is A's in 4 games of 5 and C's in
  the others: mean 0.118, max 0.30, so not one of the 200 games had every site half
  full.  A's site would need three times the level-1 cubes the bot gives it.
* Footprints do not move it (60 games each, ``seed=1000``): at 86 cells, moving cells
  between the sites (rings 12x4, 13x3, 9x6, 8x6 with 8x8, 10x6, 7x7, 7x6 and arms of
  15..20) keeps the least full site at 0.098-0.130 and every per-site mean at 0.44-0.50;
  fewer cells raise the per-site means slowly and the unplaceable share fast: rings
  12x4, 10x6, arms 14 (84 cells) 0.052 unplaceable, per-site 0.45-0.50; rings 11x4,
  9x6, arms 14 (80 cells) 0.079, per-site 0.46-0.53; rings 9x6, 7x7, arms 13 (76
  cells) 0.136, per-site 0.51-0.53.
* Nor does the reading of the metric: ``level1_fill_at_first_storm`` (the least full
  site of each game, averaged over the games) is the sentence's "every site", game by
  game.  The laxer reading, each site's fill averaged over the games (stick luck
  averaged out), is no more reachable together with the 5 %: it needs fewer than
  about 80 cells, where 8 % or more of the pieces drawn are unplaceable.
* Nor do the greedy bot's tie-breaks: of 145 greedy decisions before the 1st storm (6
  games), 90 had several best actions, but only 10 of those ties mixed actions with a
  different number of cubes on level 1; the bot picks by value, and no tie-break can
  add the ~10 level-1 cubes per game that A's site lacks.

So "level 1 of every site is at least half full at the 1st storm" cannot hold for this
bot together with "at most 5 % unplaceable"; the data stays as chosen in step 2 (it
meets the 5 %), the level-1 figure is reported and its test is a strict xfail.  The
spec change proposed for issue 8: "on average over the games, level 1 of each site is
at least 40 % full at the 1st storm" (now 0.466-0.481), which judges the footprints
without the luck of the sticks.

Step 4 (issue 22): the rules file took that criterion ("at the 1st storm level 1 is on
average at least 40% full per site"); test_nf_audit checks it, and the 5 %, on 12 games
balanced over the deals of the sticks (0.041 unplaceable; per site 0.509, 0.461, 0.458),
and on the 200-game run above in ``make test-long``.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path

import jsonschema

from games.engines.problems import FieldRef, Problem, Templates, schema_problem

from .geometry import PieceKind, Site

__all__ = [
    "ALLIES",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PROBLEM_TEMPLATES",
    "Compiled",
    "compile_variant",
    "default_variants",
    "dump_variant",
    "validate_variant",
    "variant_key",
    "variant_schema",
]

_HERE = Path(__file__).resolve().parent / "variants"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
ALLIES = ("fille_du_roy", "coureur_des_bois", "huron")
#: The default variants, in the order they are offered.
DEFAULT_NAMES = ("standard", "simple")


@cache
def _load(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


def variant_schema() -> dict:
    """The JSON Schema of variant data (fresh copy)."""
    return json.loads(_load("schema.json"))


def default_variants() -> dict[str, dict]:
    """``standard`` and ``simple``, fresh deep copies."""
    return {n: json.loads(_load(f"{n}.json")) for n in DEFAULT_NAMES}


def variant_key(variant: dict) -> str:
    """The canonical JSON of a variant: the key of every per-variant cache."""
    return json.dumps(variant, sort_keys=True, separators=(",", ":"))


# -- the JSON layout of the variant files ------------------------------------------

_WIDTH = 96


def dump_variant(variant: dict) -> str:
    """Variant data as the files in ``variants/`` are written: indented objects, short
    lists (a cell ``[x, y]``, a colour pattern) on one line, long lists of short items
    filled line by line."""
    return _layout(variant, 0) + "\n"


def _layout(value: object, indent: int) -> str:
    flat = json.dumps(value, ensure_ascii=False)
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        if indent + len(flat) <= _WIDTH - 16 or not value:
            return flat
        items = [f"{pad}{json.dumps(k)}: {_layout(v, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list):
        if indent + len(flat) <= _WIDTH - 16 or not value:
            return flat
        parts = [json.dumps(v, ensure_ascii=False) for v in value]
        if all(len(p) <= 24 and not isinstance(v, dict) for p, v in zip(parts, value, strict=True)):
            lines, line = [], ""
            for p in parts:
                if line and len(pad) + len(line) + len(p) + 2 > _WIDTH:
                    lines.append(line + ",")
                    line = p
                else:
                    line = f"{line}, {p}" if line else p
            lines.append(line)
            return "[\n" + "\n".join(pad + ln for ln in lines) + "\n" + " " * indent + "]"
        items = [pad + _layout(v, indent + 2) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return flat


# -- validation --------------------------------------------------------------------


def _field(parts) -> str:
    """A JSON path as ``sites[2].footprint``."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(variant)"


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


# The messages of the checks below (``Problem`` templates, translated by the web layer).
_T = Templates()
NOT_OBJECT = _T("must be a JSON object")
NOT_JSON = _T("must be JSON data (strings, numbers, lists, objects)")
DUPLICATE_CELLS = _T("duplicate cells")
NEGATIVE = _T("negative coordinates")
NOT_CONNECTED = _T("the cubes are not face-connected")
FEW_COLOURS = _T("%(n)s colours but up to %(max)s players need %(max)s")
DUPLICATE_SITES = _T("duplicate site names")
HEIGHT = _T("must be at least 1")
OUTSIDE_FOOTPRINT = _T("cell outside the footprint")
NO_BONUS = _T("no bonus for symbols %(symbols)s")
DUPLICATE_SHAPES = _T("duplicate shape names")
PATTERN_SIZE = _T("%(n)s colours for shape %(shape)s of %(cubes)s cubes (%(field)s)")
COLOUR_INDEX = _T("colour index outside colours")
BONUS_NAMES = _T("names must be unique and differ from shape names")
FEW_STORMS = _T("only %(storms)s snowstorms in the deck")
UNKNOWN_BONUS = _T("unknown bonus piece %(name)s")
UNKNOWN_SHAPES = _T("unknown shapes %(names)s")
PILE_CARDS = _T("piles hold %(held)s cards but %(field)s gives %(cards)s")
DUPLICATE_PILES = _T("duplicate piles")
PILE_RANGE = _T("piles must be within 2..%(last)s")
STICKS = _T("%(sticks)s sticks for %(sites)s sites")
LEVELS = _T("%(levels)s levels but %(storms)s snowstorms")
UNKNOWN_SYMBOLS = _T("unknown symbols %(names)s")
NO_ROOM = _T("must leave room for the drawn card")
PILE_ONE = _T("more than pile 1 holds")
CAPACITY = _T(
    "room for %(capacity)s cubes (%(cells)s footprint cells x their height limits) is below "
    "the %(dealt)s cubes a game deals (%(pieces)s building pieces and %(players)s players x "
    "%(bonus)s bonus cubes): enlarge the footprints"
)
#: Every message template of ``validate_variant`` beside the schema's (for the catalogues).
PROBLEM_TEMPLATES = tuple(_T.all)


def _problem(path, template: str, **params) -> Problem:
    """A problem of the field at ``path`` (keys and indices)."""
    return Problem(_field(path), path, template, params)


def _check_cells(cells: list, path: tuple, problems: list[str], connected: bool) -> None:
    tuples = [tuple(c) for c in cells]
    if len(set(tuples)) != len(tuples):
        problems.append(_problem(path, DUPLICATE_CELLS))
    if any(v < 0 for c in tuples for v in c):
        problems.append(_problem(path, NEGATIVE))
    if connected and tuples and not _connected(cells):
        problems.append(_problem(path, NOT_CONNECTED))


@cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(variant_schema())


def validate_variant(variant: object) -> list[str]:
    """Problems, each naming the field at fault; ``[]`` when playable.

    Each is a :class:`~games.engines.problems.Problem`: its English line as text, with its
    path, template and parameters for a translation.  Cached by the variant's canonical
    JSON: schema validation costs more than a whole random game, and ``new_game``
    validates every time.
    """
    if not isinstance(variant, dict):
        return [_problem((), NOT_OBJECT)]
    try:
        key = variant_key(variant)
    except (TypeError, ValueError):
        return [_problem((), NOT_JSON)]
    return list(_problems(key))


@lru_cache(maxsize=256)
def _problems(key: str) -> tuple[str, ...]:
    return tuple(_validate(json.loads(key)))


def dealt_cubes(variant: dict) -> tuple[int, int, int]:
    """``(cubes a game deals, building pieces, bonus cubes per player)`` of valid data."""
    copies = len(variant["copies"])
    per_shape = variant["deck"]["cards_per_shape"]
    pieces = 0
    cubes = 0
    for shape in variant["shapes"]:
        taken = min(per_shape.get(shape["name"], 0), copies)
        pieces += taken
        cubes += taken * len(shape["cells"])
    bonus = sum(len(b["cells"]) for b in variant["bonus_pieces"])
    return cubes + MAX_PLAYERS * bonus, pieces, bonus


def _validate(variant: dict) -> list[str]:
    validator = _validator()
    errors = sorted(validator.iter_errors(variant), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        return [schema_problem(e, _field(e.absolute_path)) for e in errors]
    v = variant
    problems: list[str] = []
    add = problems.append
    if len(v["colours"]) < MAX_PLAYERS:
        add(_problem(("colours",), FEW_COLOURS, n=len(v["colours"]), max=MAX_PLAYERS))
    names = [s["name"] for s in v["sites"]]
    if len(set(names)) != len(names):
        add(_problem(("sites",), DUPLICATE_SITES))
    for i, s in enumerate(v["sites"]):
        f = ("sites", i)
        _check_cells(s["footprint"], (*f, "footprint"), problems, connected=False)
        if s["height_limit"] < 1:
            add(_problem((*f, "height_limit"), HEIGHT))
        foot = {tuple(c) for c in s["footprint"]}
        for j, pair in enumerate(s["extra_adjacency"]):
            if any(tuple(c) not in foot for c in pair):
                add(_problem((*f, "extra_adjacency", j), OUTSIDE_FOOTPRINT))
        missing = set(v["symbols"]) - set(s["character_bonus"])
        if missing:
            add(_problem((*f, "character_bonus"), NO_BONUS, symbols=sorted(missing)))
    shape_names = [s["name"] for s in v["shapes"]]
    if len(set(shape_names)) != len(shape_names):
        add(_problem(("shapes",), DUPLICATE_SHAPES))
    for i, s in enumerate(v["shapes"]):
        _check_cells(s["cells"], ("shapes", i, "cells"), problems, connected=True)
    for k, pattern in enumerate(v["copies"]):
        for i, s in enumerate(v["shapes"]):
            if len(pattern) != len(s["cells"]):
                add(_problem(("copies", k), PATTERN_SIZE, n=len(pattern), shape=repr(s["name"]),
                             cubes=len(s["cells"]), field=FieldRef(_field(("shapes", i)),
                                                                   ("shapes", i))))
                break
        if any(c >= len(v["colours"]) for c in pattern):
            add(_problem(("copies", k), COLOUR_INDEX))
    storms = len(v["deck"]["snowflake_piles"])
    bonus_names = [b["name"] for b in v["bonus_pieces"]]
    if len(set(bonus_names)) != len(bonus_names) or set(bonus_names) & set(shape_names):
        add(_problem(("bonus_pieces",), BONUS_NAMES))
    for i, b in enumerate(v["bonus_pieces"]):
        _check_cells(b["cells"], ("bonus_pieces", i, "cells"), problems, connected=True)
        if b["expires_at_storm"] > storms:
            add(_problem(("bonus_pieces", i, "expires_at_storm"), FEW_STORMS, storms=storms))
    tb = v["tiebreak_bonus_piece"]
    if tb is not None and tb not in bonus_names:
        add(_problem(("tiebreak_bonus_piece",), UNKNOWN_BONUS, name=repr(tb)))
    deck = v["deck"]
    unknown = sorted(set(deck["cards_per_shape"]) - set(shape_names))
    if unknown:
        add(_problem(("deck", "cards_per_shape"), UNKNOWN_SHAPES, names=unknown))
    cards = sum(deck["cards_per_shape"].values())
    if sum(deck["piles"]) != cards:
        add(_problem(("deck", "piles"), PILE_CARDS, held=sum(deck["piles"]), cards=cards,
                     field=FieldRef("cards_per_shape", ("deck", "cards_per_shape"))))
    sp = deck["snowflake_piles"]
    if len(set(sp)) != len(sp):
        add(_problem(("deck", "snowflake_piles"), DUPLICATE_PILES))
    if any(p < 2 or p > len(deck["piles"]) for p in sp):
        add(_problem(("deck", "snowflake_piles"), PILE_RANGE, last=len(deck["piles"])))
    if len(v["sticks"]) != len(v["sites"]):
        add(_problem(("sticks",), STICKS, sticks=len(v["sticks"]), sites=len(v["sites"])))
    for i, st in enumerate(v["sticks"]):
        if len(st["levels"]) != storms:
            add(_problem(("sticks", i, "levels"), LEVELS, levels=len(st["levels"]),
                         storms=storms))
        bad = sorted(set(st["levels"]) - set(v["symbols"]))
        if bad:
            add(_problem(("sticks", i, "levels"), UNKNOWN_SYMBOLS, names=bad))
    d = v["display"]
    if d["initial_face_up"] > d["size"] - 1:
        add(_problem(("display", "initial_face_up"), NO_ROOM))
    if deck["piles"] and d["initial_face_up"] > deck["piles"][0]:
        add(_problem(("display", "initial_face_up"), PILE_ONE))
    if not problems:
        cells = sum(len({tuple(c) for c in s["footprint"]}) for s in v["sites"])
        capacity = sum(
            len({tuple(c) for c in s["footprint"]}) * s["height_limit"] for s in v["sites"]
        )
        dealt, pieces, bonus = dealt_cubes(v)
        if capacity < dealt:
            add(_problem(("sites",), CAPACITY, capacity=capacity, cells=cells, dealt=dealt,
                         pieces=pieces, players=MAX_PLAYERS, bonus=bonus))
    return problems


# -- compiled form -------------------------------------------------------------------


class Compiled:
    """Everything derived from one variant, computed once and shared by every state."""

    def __init__(self, variant: dict) -> None:
        self.variant = variant
        #: The canonical JSON of ``variant`` (compares variants cheaply).
        self.key = variant_key(variant)
        self.name: str = variant["name"]
        self.description: str = variant.get("description", "")
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

    def variant_copy(self) -> dict:
        """A fresh copy of the variant data (keys sorted)."""
        return json.loads(self.key)

    def __repr__(self) -> str:
        return f"<Compiled nouvellefrance variant {self.name!r}>"


def compile_variant(variant: dict) -> Compiled:
    """The compiled form of ``variant`` (assumed valid), cached by its canonical JSON."""
    return _compile(variant_key(variant))


@lru_cache(maxsize=64)
def _compile(key: str) -> Compiled:
    # Built from the key, not the caller's dict: later edits to that dict change nothing.
    return Compiled(json.loads(key))
