"""The rules: set-up, the phases of a turn, scoring, snowstorms and the end.

A turn is a chain of small decisions (``State.phase``, one of ``state.PHASES``):

``huron``        the Huron window before the draw (rules file: "before the active player
                 draws, every player with a ready Huron (the active player first, then
                 clockwise) may use it").  The seat first in ``huron_queue`` answers
                 ``("huron",)`` (peek at the top cards) or ``("skip_huron",)``.  Players
                 without a ready Huron are never asked; with nobody to ask the turn
                 starts at ``draw``.
``huron_order``  the same seat answers ``("order", i, j, k)``: the new top-first order, as
                 positions of the peeked cards (a permutation of ``0..k-1``).
``draw``         the active seat: ``("draw",)`` or ``("bonus", piece, site, orientation,
                 x, y)``.
``card``         ``("card", i)`` picks display card ``i``; when no card is playable,
                 ``("discard", i, k)`` instead: card ``i`` goes to the discard pile, copy
                 ``k`` of its shape goes back in the box (``("discard", i)`` when no copy
                 of it is left), and the player draws again.  Variant simple: only the
                 drawn card counts, and a playable drawn card is taken automatically
                 (phase ``copy`` directly).
``copy``         ``("copy", k)``: which copy (colour pattern) of the shape to take.
``place``        ``("place", site, orientation, x, y)``.
``fille``        ``("fille_du_roy",)`` or ``("no_ally",)`` (only offered when it can help).
``coureur``      the seat first in ``coureur_queue`` answers ``("coureur",)`` or
                 ``("decline",)``.
``over``         after the last snowstorm.

Decisions where the rules are silent (the rules file is followed where it and the
German rulebook differ, see the package docstring):

* The Huron window opens once per turn, before the turn's first draw: not again
  before the extra draws after a snowstorm or a discard (allies cannot be used
  during a storm, and those draws belong to the same turn).
* A Huron peek shows ``min(huron_peek, cards left)`` cards.  A reorder by one player
  wipes the others' knowledge of the order (they saw an order that may have
  changed); a player who only skips keeps what they know.
* A fourth card never reaches a display of 3 with the default data (2 face up, +1
  drawn, -1 played or discarded every turn).  Should a variant overfill it, the oldest
  face-up card goes to the discard pile.
* In variant simple the discard also lets the player choose the copy that goes back
  in the box ("there is no choice" is about the card: the drawn card is the card).
* The Fille du Roy is offered only when the turn scored at least 1 point and the
  Coureur des bois only when half the points is at least 1: using them otherwise
  would only spend the ally (and lose the tie-break).  Both apply to bonus pieces
  too (a bonus placement is scored like any other).
* Cubes are face-adjacent across levels too (a cube on top of an own-colour cube
  scores the adjacency point); the extra adjacency of a site holds on every level.
* The snowflake that triggers a storm leaves the card flow (counted as removed);
  after the last storm the game ends at once, even in the middle of a turn.
* Tie-break "still has the peg" means: never placed it (it expires at storm 3).
* The first player is chosen at random from the seed.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import chain, compress, permutations

from ..protocol import IllegalAction
from .geometry import PieceKind, Site
from .state import BONUS_EXPIRED, BONUS_READY, BONUS_USED, SNOWFLAKE, State
from .variant import Compiled

FILLE, COUREUR, HURON = 0, 1, 2

#: Every action tag with the names of its arguments (``order`` takes one position per
#: peeked card; ``discard`` drops ``copy`` when no copy of the shape is left).
ACTIONS: dict[str, tuple[str, ...]] = {
    "huron": (),
    "skip_huron": (),
    "order": ("position", "..."),
    "draw": (),
    "bonus": ("piece", "site", "orientation", "x", "y"),
    "card": ("index",),
    "discard": ("index", "copy"),
    "copy": ("copy",),
    "place": ("site", "orientation", "x", "y"),
    "fille_du_roy": (),
    "no_ally": (),
    "coureur": (),
    "decline": (),
}


# -- set-up -------------------------------------------------------------------


def new_state(compiled: Compiled, variant: dict, num_players: int, seed: int) -> State:
    """The initial position; all chance comes from ``random.Random(seed)`` here.

    ``variant`` is the data ``compiled`` was made from (the state keeps the compiled
    form only; the argument keeps the signature the same in every engine).
    """
    del variant
    cv = compiled
    rng = random.Random(seed)
    cards = [i for i, k in enumerate(cv.cards_per_shape) for _ in range(k)]
    rng.shuffle(cards)
    deck: list[int] = []
    piles: list[int] = []
    pos = 0
    for p, size in enumerate(cv.piles, start=1):
        pile = cards[pos : pos + size]
        pos += size
        if p in cv.snowflake_piles:
            pile.append(SNOWFLAKE)
            rng.shuffle(pile)
        deck.extend(pile)
        piles.extend([p] * len(pile))
    sticks = list(range(len(cv.sticks)))
    rng.shuffle(sticks)
    first = rng.randrange(num_players)
    s = State.__new__(State)
    s.compiled = cv
    s.num_players = num_players
    s.heights = tuple((0,) * len(site.cells) for site in cv.sites)
    s.cubes = tuple({} for _ in cv.sites)
    k = cv.initial_face_up
    s.display = tuple(deck[:k])
    s.deck = tuple(deck[k:])
    s.deck_piles = tuple(piles[k:])
    s.discard = ()
    s.supply = tuple(tuple(True for _ in cv.copies) for _ in cv.shapes)
    s.removed_pieces = ()
    s.placed = ()
    s.scores = (0,) * num_players
    s.breakdown = ((0, 0, 0, 0, 0),) * num_players
    s.ready = (cv.allies_enabled,) * num_players
    s.allies_used = (0,) * num_players
    s.bonus = ((BONUS_READY,) * len(cv.bonus),) * num_players
    s.holders = (-1,) * len(cv.sites)
    s.sticks = tuple(sticks)
    s.storms = 0
    s.active = first
    s.pending_card = -1
    s.pending_copy = -1
    s.points = 0
    s.coureur_queue = ()
    s.huron_queue = ()
    s.known = (0,) * num_players
    s.reordered = 0
    s.over = False
    s.turn = 1
    _start_turn(s)
    return s


def _start_turn(s: State) -> None:
    n = s.num_players
    s.pending_card = -1
    s.pending_copy = -1
    s.points = 0
    s.coureur_queue = ()
    s.huron_queue = tuple(p for p in ((s.active + j) % n for j in range(n)) if s.ready[p][HURON])
    s.phase = "huron" if s.huron_queue else "draw"


# -- helpers ------------------------------------------------------------------


def shape_playable(s: State, shape: int) -> bool:
    """A copy of ``shape`` is in the supply and it fits somewhere."""
    if not any(s.supply[shape]):
        return False
    kind = s.compiled.shapes[shape]
    return any(site.can_place(s.heights[i], kind) for i, site in enumerate(s.compiled.sites))


def card_candidates(s: State) -> tuple[int, ...]:
    """Display indices the player may use (only the drawn card in variant simple)."""
    if s.compiled.simple:
        return (len(s.display) - 1,) if s.display else ()
    return tuple(range(len(s.display)))


def bonus_colours(kind: PieceKind, seat: int) -> tuple[int, ...]:
    """A bonus piece is all in its owner's colour."""
    return (seat,) * len(kind.cells)


def placements(s: State, kind: PieceKind, colours: tuple[int, ...]) -> list[tuple]:
    """Every legal placement ``(site name, orientation, x, y, level)`` of a coloured piece."""
    by_rot = kind.orientations_by_rotation(colours)
    out: list[tuple] = []
    for i, site in enumerate(s.compiled.sites):
        name = site.name
        for (r, x, y), level in site.placements(s.heights[i], kind).items():
            for o in by_rot[r]:
                out.append((name, o, x, y, level))
    return out


def _actions(s: State, prefix: tuple, kind: PieceKind, colours: tuple[int, ...]) -> list[tuple]:
    """``(*prefix, site name, orientation, x, y)`` for every legal placement (hot path).

    Each candidate's actions are built once (:func:`_candidate_actions`); a call keeps
    those of the legal candidates (``Site.legal_bases``), in scan order, without making
    a tuple.
    """
    out: list[tuple] = []
    for i, site in enumerate(s.compiled.sites):
        bases = site.legal_bases(s.heights[i], kind)
        if bases is not None:
            out += chain.from_iterable(
                compress(_candidate_actions(site, kind, colours, prefix), bases)
            )
            continue
        by_rot = kind.orientations_by_rotation(colours)
        found = site.placements(s.heights[i], kind)
        out += [(*prefix, site.name, o, x, y) for (r, x, y) in found for o in by_rot[r]]
    return out


@cache
def _candidate_actions(
    site: Site, kind: PieceKind, colours: tuple[int, ...], prefix: tuple
) -> tuple[tuple[tuple, ...], ...]:
    """Per candidate of ``site.candidate_keys(kind)``: its actions, one per orientation."""
    by_rot = kind.orientations_by_rotation(colours)
    name = site.name
    return tuple(
        tuple((*prefix, name, o, x, y) for o in by_rot[r])
        for r, x, y in site.candidate_keys(kind)  # type: ignore[union-attr]
    )


def pending_piece(s: State) -> tuple[PieceKind, tuple[int, ...]] | None:
    """The building piece being placed (phase ``place``) and its copy's colours."""
    if s.phase != "place":
        return None
    return s.compiled.shapes[s.display[s.pending_card]], s.compiled.copies[s.pending_copy]


def ready_bonus(s: State, seat: int) -> list[int]:
    """Indices of ``seat``'s bonus pieces still ready."""
    return [b for b, st in enumerate(s.bonus[seat]) if st == BONUS_READY]


# -- legal actions --------------------------------------------------------------


def legal_actions(s: State, seat: object) -> list[tuple]:
    """Every action ``seat`` may take now."""
    if s.over or type(seat) is not int:
        return []
    phase = s.phase
    if phase == "coureur":
        return [("coureur",), ("decline",)] if seat == s.coureur_queue[0] else []
    if phase == "huron":
        return [("huron",), ("skip_huron",)] if seat == s.huron_queue[0] else []
    if phase == "huron_order":
        if seat != s.huron_queue[0]:
            return []
        return [("order", *p) for p in permutations(range(s.known[seat]))]
    if seat != s.active:
        return []
    cv = s.compiled
    if phase == "draw":
        acts: list[tuple] = [("draw",)]
        for b in ready_bonus(s, seat):
            kind = cv.bonus[b]
            acts.extend(_actions(s, ("bonus", kind.name), kind, bonus_colours(kind, seat)))
        return acts
    if phase == "card":
        cands = card_candidates(s)
        playable = [i for i in cands if shape_playable(s, s.display[i])]
        if playable:
            return [("card", i) for i in playable]
        out: list[tuple] = []
        for i in cands:
            copies = s.supply[s.display[i]]
            if any(copies):
                out.extend(("discard", i, k) for k, ok in enumerate(copies) if ok)
            else:
                out.append(("discard", i))
        return out
    if phase == "copy":
        shape = s.display[s.pending_card]
        return [("copy", k) for k, ok in enumerate(s.supply[shape]) if ok]
    if phase == "place":
        kind, colours = pending_piece(s)  # type: ignore[misc]
        return _actions(s, ("place",), kind, colours)
    if phase == "fille":
        return [("fille_du_roy",), ("no_ally",)]
    return []


def to_move(s: State) -> list[int]:
    """Seats that must act now."""
    if s.over:
        return []
    phase = s.phase
    if phase == "coureur":
        return [s.coureur_queue[0]]
    if phase == "huron" or phase == "huron_order":
        return [s.huron_queue[0]]
    return [s.active]


# -- apply ----------------------------------------------------------------------


def _is_int(v: object) -> bool:
    return type(v) is int


def _check_shape(action: object) -> tuple:
    if not isinstance(action, tuple) or not action or not isinstance(action[0], str):
        raise IllegalAction("That is not a Nouvelle-France action.")
    if not all(isinstance(v, str) or _is_int(v) for v in action[1:]):
        raise IllegalAction("Action arguments must be names or whole numbers.")
    return action


def apply(s: State, seat: object, action: object) -> State:
    """A new state after ``seat`` takes ``action``; ``IllegalAction`` otherwise."""
    action = _check_shape(action)
    if s.over:
        raise IllegalAction("The game is over.")
    if type(seat) is not int or seat not in to_move(s):
        raise IllegalAction("It is not your turn to act.")
    tag = action[0]
    phase = s.phase
    if tag == "place" and phase == "place":
        return _apply_place(s, action)
    if tag == "bonus" and phase == "draw":
        return _apply_bonus(s, seat, action)
    # ("draw",) skips the membership test: the draw phase also lists every bonus placement.
    fast_draw = tag == "draw" and phase == "draw" and len(action) == 1
    if not fast_draw and action not in legal_actions(s, seat):
        raise IllegalAction(_refusal(s, action))
    t = s.copy()
    if tag == "huron":
        t.known = _set(t.known, seat, min(t.compiled.huron_peek, len(t.deck)))
        _use_ally(t, seat, HURON)
        t.phase = "huron_order"
    elif tag == "skip_huron":
        _next_huron(t)
    elif tag == "order":
        perm = action[1:]
        k = len(perm)
        t.deck = tuple(t.deck[p] for p in perm) + t.deck[k:]
        t.deck_piles = tuple(t.deck_piles[p] for p in perm) + t.deck_piles[k:]
        # Others saw an order that may have changed: their knowledge is gone.
        t.known = tuple(k if i == seat else 0 for i, k in enumerate(t.known))
        t.reordered = max(t.reordered, k)
        _next_huron(t)
    elif tag == "draw":
        _draw(t)
    elif tag == "card":
        t.pending_card = action[1]
        t.phase = "copy"
    elif tag == "discard":
        i = action[1]
        shape = t.display[i]
        t.display = t.display[:i] + t.display[i + 1 :]
        t.discard = (*t.discard, shape)
        if len(action) == 3:
            k = action[2]
            t.supply = _set(t.supply, shape, _set(t.supply[shape], k, False))
            t.removed_pieces = (*t.removed_pieces, (shape, k))
        _draw(t)
    elif tag == "copy":
        t.pending_copy = action[1]
        t.phase = "place"
    elif tag == "fille_du_roy":
        _add(t, seat, t.points, 1)
        _use_ally(t, seat, FILLE)
        _offer_coureur(t)
    elif tag == "no_ally":
        _offer_coureur(t)
    elif tag == "coureur":
        _add(t, seat, t.points // 2, 2)
        _use_ally(t, seat, COUREUR)
        _end_turn(t)
    elif tag == "decline":
        t.coureur_queue = t.coureur_queue[1:]
        if not t.coureur_queue:
            _end_turn(t)
    return t


def _next_huron(t: State) -> None:
    t.huron_queue = t.huron_queue[1:]
    t.phase = "huron" if t.huron_queue else "draw"


#: What each phase waits for, in the refusal messages.
_WANTED = {
    "huron": "the Huron decision before the draw",
    "huron_order": "putting the peeked cards back in order",
    "draw": "drawing a card or placing a bonus piece",
    "card": "choosing a face-up card",
    "copy": "choosing which copy of the piece to take",
    "place": "placing the piece",
    "fille": "deciding on the Fille du Roy",
    "coureur": "deciding on the Coureur des bois",
}


def _refusal(s: State, action: tuple) -> str:
    """A player-facing reason for refusing a well-formed but illegal action."""
    tag = action[0]
    phase = s.phase
    if tag == "card" and phase == "card":
        return "That card cannot be played now (no copy left, no room, or no such card)."
    if tag == "discard" and phase == "card":
        cands = card_candidates(s)
        if any(shape_playable(s, s.display[i]) for i in cands):
            return "You may only discard when no face-up card can be played."
        i = action[1] if len(action) > 1 else None
        if i not in cands:
            return "There is no such face-up card to discard."
        left = [k for k, ok in enumerate(s.supply[s.display[i]]) if ok]
        if left:
            return (
                "Name the copy of that shape that goes back in the box: one of "
                f"{', '.join(map(str, left))}."
            )
        return "No copy of that shape is left: discard it with ('discard', card) alone."
    if tag == "order" and phase == "huron_order":
        k = s.known[s.huron_queue[0]]
        return (
            f"Give the new order of the {k} cards you looked at as positions 0..{k - 1}, "
            "each exactly once."
        )
    if tag == "copy" and phase == "copy":
        return "That copy of the piece is not in the supply (or there is no such copy)."
    if phase == "coureur" and tag in ("coureur", "decline", "fille_du_roy", "no_ally"):
        if tag in ("coureur", "decline"):
            return "Answer the Coureur des bois offer with ('coureur',) or ('decline',)."
        return "The Fille du Roy decision is over; the Coureur des bois offer is pending."
    if phase == "fille" and tag in ("fille_du_roy", "no_ally"):
        return "Answer with ('fille_du_roy',) or ('no_ally',)."
    if phase == "huron" and tag in ("huron", "skip_huron"):
        return "Answer the Huron offer with ('huron',) or ('skip_huron',)."
    return f"You cannot do {tag!r} now: the game is waiting for {_WANTED[phase]}."


def _set(t: tuple, i: int, v: object) -> tuple:
    return (*t[:i], v, *t[i + 1 :])


def _add(s: State, seat: int, pts: int, category: int) -> None:
    s.scores = _set(s.scores, seat, s.scores[seat] + pts)
    b = s.breakdown[seat]
    s.breakdown = _set(s.breakdown, seat, _set(b, category, b[category] + pts))


def _use_ally(s: State, seat: int, ally: int) -> None:
    s.ready = _set(s.ready, seat, _set(s.ready[seat], ally, False))
    s.allies_used = _set(s.allies_used, seat, s.allies_used[seat] + 1)


def _draw(s: State) -> None:
    """Draw the top card; snowflakes trigger storms and the drawer draws again."""
    cv = s.compiled
    while True:
        card = s.deck[0]
        s.deck = s.deck[1:]
        s.deck_piles = s.deck_piles[1:]
        s.known = tuple(max(0, k - 1) for k in s.known)
        if s.reordered:
            s.reordered -= 1
        if card == SNOWFLAKE:
            _storm(s)
            if s.over:
                return
            continue
        display = s.display
        if len(display) >= cv.display_size:
            # Full display: the oldest face-up card makes room (see module docstring).
            s.discard = (*s.discard, display[0])
            display = display[1:]
        s.display = (*display, card)
        break
    s.phase = "card"
    if cv.simple and shape_playable(s, card):
        s.pending_card = len(s.display) - 1
        s.phase = "copy"


def storm_points(s: State, k: int) -> list[list[int]]:
    """Per site, per seat: the points snowstorm ``k`` gives for the cubes on level ``k``."""
    cv = s.compiled
    out = []
    for i, cubes in enumerate(s.cubes):
        value = cv.symbols[cv.sticks[s.sticks[i]][k - 1]]
        counts = [0] * s.num_players
        for (_x, _y, lv), c in cubes.items():
            if lv == k and c < s.num_players:
                counts[c] += 1
        out.append([value * c for c in counts])
    return out


def character_points(s: State) -> list[tuple[int, int, int]]:
    """``(site, holder, bonus)`` of every character held (scored after the last storm)."""
    cv = s.compiled
    return [
        (i, holder, cv.sites[i].character_bonus[cv.sticks[s.sticks[i]][-1]])
        for i, holder in enumerate(s.holders)
        if holder >= 0
    ]


def _storm(s: State) -> None:
    """Score level k on every site; bury it, expire bonus pieces, refresh allies; or end."""
    cv = s.compiled
    k = s.storms + 1
    for per_seat in storm_points(s, k):
        for seat, pts in enumerate(per_seat):
            if pts:
                _add(s, seat, pts, 3)
    s.storms = k
    s.bonus = tuple(
        tuple(
            BONUS_EXPIRED if st == BONUS_READY and cv.bonus_expiry[b] <= k else st
            for b, st in enumerate(row)
        )
        for row in s.bonus
    )
    if k >= cv.storms:
        for _site, holder, bonus in character_points(s):
            _add(s, holder, bonus, 4)
        s.over = True
        s.phase = "over"
        s.coureur_queue = ()
        s.huron_queue = ()
        return
    if cv.refresh:
        s.ready = (cv.allies_enabled,) * s.num_players


def buried_levels(s: State) -> int:
    """Levels under snow: storm k buries level k except the last storm (it ends the game).

    Rules file: "bury level k (k <= 2)"; after the 3rd storm level 3 is not covered.
    """
    return min(s.storms, s.compiled.storms - 1)


def placement_points(
    s: State, site_i: int, new_cubes: list[tuple[int, int, int, int]], colour: int
) -> int:
    """Points for ``colour``: uncovered own cubes, +1 each touching an earlier own cube."""
    buried = buried_levels(s)
    old = s.cubes[site_i]
    extra = s.compiled.sites[site_i].extra
    pts = 0
    for x, y, lv, c in new_cubes:
        if c != colour or lv <= buried:
            continue
        pts += 1
        neigh = [
            (x + 1, y, lv),
            (x - 1, y, lv),
            (x, y + 1, lv),
            (x, y - 1, lv),
            (x, y, lv + 1),
            (x, y, lv - 1),
        ]
        for ex, ey in extra.get((x, y), ()):
            neigh.append((ex, ey, lv))
        for p in neigh:
            if p[2] > buried and old.get(p) == colour:
                pts += 1
                break
    return pts


def _put(s: State, site_i: int, cubes: tuple, x: int, y: int, base: int) -> None:
    """Add the cubes, score them for the active player and check completion."""
    new = [(x + dx, y + dy, base + dz, c) for dx, dy, dz, c in cubes]
    pts = placement_points(s, site_i, new, s.active)
    site = s.compiled.sites[site_i]
    d = dict(s.cubes[site_i])
    h = list(s.heights[site_i])
    for cx, cy, lv, c in new:
        d[(cx, cy, lv)] = c
        j = site.index[(cx, cy)]
        if lv > h[j]:
            h[j] = lv
    s.cubes = _set(s.cubes, site_i, d)
    s.heights = _set(s.heights, site_i, tuple(h))
    s.points = pts
    _add(s, s.active, pts, 0)
    if s.holders[site_i] < 0 and min(h) > 0:
        s.holders = _set(s.holders, site_i, s.active)
    s.pending_card = -1
    s.pending_copy = -1
    if s.ready[s.active][FILLE] and pts >= 1:
        s.phase = "fille"
    else:
        _offer_coureur(s)


def _offer_coureur(s: State) -> None:
    if s.points // 2 >= 1:
        order = [(s.active + j) % s.num_players for j in range(1, s.num_players)]
        s.coureur_queue = tuple(p for p in order if s.ready[p][COUREUR])
    else:
        s.coureur_queue = ()
    if s.coureur_queue:
        s.phase = "coureur"
    else:
        _end_turn(s)


def _end_turn(s: State) -> None:
    s.active = (s.active + 1) % s.num_players
    s.turn += 1
    _start_turn(s)


def locate(
    s: State,
    site_name: object,
    o: object,
    x: object,
    y: object,
    kind: PieceKind,
    colours: tuple[int, ...],
) -> tuple[int, tuple, int]:
    """Validate a placement; return (site index, coloured cube offsets, base level)."""
    cv = s.compiled
    site_i = cv.site_index.get(site_name) if isinstance(site_name, str) else None
    if site_i is None:
        raise IllegalAction(f"There is no construction site called {site_name!r}.")
    if not (_is_int(o) and _is_int(x) and _is_int(y)):
        raise IllegalAction("Orientation and position must be whole numbers.")
    orients = kind.orientations(colours)
    if not 0 <= o < len(orients):  # type: ignore[operator]
        raise IllegalAction(f"The {kind.name} has orientations 0..{len(orients) - 1}.")
    rot, cubes = orients[o]  # type: ignore[index]
    site = cv.sites[site_i]
    base = site.rest_at(s.heights[site_i], kind, (rot, x, y))
    if base is None:
        raise IllegalAction(
            f"The {kind.name} cannot go there on the {site.name}: it must lie over the "
            f"footprint, stay within {site.height_limit} levels and stand freely."
        )
    return site_i, cubes, base


def _apply_place(s: State, action: tuple) -> State:
    if len(action) != 5:
        raise IllegalAction("A placement is ('place', site, orientation, x, y).")
    shape = s.display[s.pending_card]
    kind = s.compiled.shapes[shape]
    site_i, cubes, base = locate(s, *action[1:], kind, s.compiled.copies[s.pending_copy])
    t = s.copy()
    t.display = t.display[: s.pending_card] + t.display[s.pending_card + 1 :]
    t.discard = (*t.discard, shape)
    t.supply = _set(t.supply, shape, _set(t.supply[shape], s.pending_copy, False))
    t.placed = (*t.placed, (shape, s.pending_copy, site_i))
    _put(t, site_i, cubes, action[3], action[4], base)
    return t


def _apply_bonus(s: State, seat: int, action: tuple) -> State:
    if len(action) != 6:
        raise IllegalAction("A bonus placement is ('bonus', piece, site, orientation, x, y).")
    b = s.compiled.bonus_index.get(action[1]) if isinstance(action[1], str) else None
    if b is None:
        raise IllegalAction(f"There is no bonus piece called {action[1]!r}.")
    if s.bonus[seat][b] != BONUS_READY:
        why = "has expired" if s.bonus[seat][b] == BONUS_EXPIRED else "is already placed"
        raise IllegalAction(f"Your {action[1]} {why}: you cannot place it.")
    kind = s.compiled.bonus[b]
    site_i, cubes, base = locate(s, *action[2:], kind, bonus_colours(kind, seat))
    t = s.copy()
    t.bonus = _set(t.bonus, seat, _set(t.bonus[seat], b, BONUS_USED))
    _put(t, site_i, cubes, action[4], action[5], base)
    return t


# -- end ------------------------------------------------------------------------


def winners(s: State) -> list[int]:
    """Most points; ties: fewest allies used, then never placed the peg; else shared."""
    if not s.over:
        return []
    tb = s.compiled.tiebreak_bonus

    def key(p: int) -> tuple:
        kept = tb is not None and s.bonus[p][tb] != BONUS_USED
        return (s.scores[p], -s.allies_used[p], kept)

    best = max(key(p) for p in range(s.num_players))
    return [p for p in range(s.num_players) if key(p) == best]
