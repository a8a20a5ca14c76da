"""The rules: set-up, the steps of a turn, scoring, snowstorms and the end.

A turn is a chain of small steps (``NFState.step``):

``huron``        only when the active player's Huron is ready: ``("huron",)`` peeks at
                 the top cards, ``("skip_huron",)`` does not.
``huron_order``  ``("order", i, j, k)``: the new top-first order, as positions of the
                 peeked cards (a permutation of ``0..k-1``).
``draw``         ``("draw",)`` or ``("bonus", piece, site, orientation, x, y)``.
``card``         ``("card", i)`` picks display card ``i``; when no card is playable,
                 ``("discard", i)`` instead (then a copy of its shape leaves the game and
                 the player draws again).  Variant simple: only the drawn card counts, and a
                 playable drawn card is taken automatically (step ``copy`` directly).
``copy``         ``("copy", k)``: which copy (colour pattern) of the shape to take.
``place``        ``("place", site, orientation, x, y)``.
``fille``        ``("fille_du_roy",)`` or ``("no_ally",)`` (only offered when it can help).
``coureur``      the seat in ``to_move`` answers ``("coureur",)`` or ``("decline",)``.

Decisions where the rules are silent (the rules file is followed where it and the
German rulebook differ, see the module ``__init__``):

* A fourth card never reaches a display of 3 with the default data (2 face up, +1
  drawn, -1 played or discarded every turn).  Should a variant overfill it, the oldest
  face-up card goes to the discard pile (the German strip has one slot per shape and
  lets a player choose among "the three" cards; keeping the newest keeps the drawn
  card, which is what the drawer just paid for).
* When no face-up card can be played, the discarded card's shape loses its
  lowest-numbered copy still in the supply.
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
from itertools import permutations

from ..protocol import IllegalAction
from .geometry import PieceKind
from .state import BONUS_EXPIRED, BONUS_READY, BONUS_USED, SNOWFLAKE, NFState
from .variant import Compiled

FILLE, COUREUR, HURON = 0, 1, 2
_ORIENT_BY_ROT: dict[tuple[int, str, tuple[int, ...]], dict[int, tuple[int, ...]]] = {}


# -- set-up -------------------------------------------------------------------


def new_state(cv: Compiled, n: int, seed: int) -> NFState:
    """The initial position; all chance comes from ``random.Random(seed)`` here."""
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
    first = rng.randrange(n)
    s = NFState.__new__(NFState)
    s.cv = cv
    s.n = n
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
    s.scores = (0,) * n
    s.breakdown = ((0, 0, 0, 0, 0),) * n
    s.ready = (cv.allies_enabled,) * n
    s.allies_used = (0,) * n
    s.bonus = ((BONUS_READY,) * len(cv.bonus),) * n
    s.holders = (-1,) * len(cv.sites)
    s.sticks = tuple(sticks)
    s.storms = 0
    s.active = first
    s.pending_card = -1
    s.pending_copy = -1
    s.points = 0
    s.offers = ()
    s.known = (0,) * n
    s.over = False
    s.turn = 1
    _start_turn(s)
    return s


def _start_turn(s: NFState) -> None:
    s.step = "huron" if s.ready[s.active][HURON] else "draw"
    s.pending_card = -1
    s.pending_copy = -1
    s.points = 0
    s.offers = ()


# -- helpers ------------------------------------------------------------------


def seat_name(cv: Compiled, seat: int) -> str:
    """``Player 2 (brown)``."""
    return f"Player {seat + 1} ({cv.colours[seat]})"


def orient_by_rot(kind: PieceKind, colours: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
    """Orientation indices grouped by geometric rotation (cached per kind and colours)."""
    key = (id(kind), kind.name, colours)
    found = _ORIENT_BY_ROT.get(key)
    if found is None:
        groups: dict[int, list[int]] = {}
        for o, (r, _cubes) in enumerate(kind.orientations(colours)):
            groups.setdefault(r, []).append(o)
        found = {r: tuple(v) for r, v in groups.items()}
        if len(_ORIENT_BY_ROT) > 4096:
            _ORIENT_BY_ROT.clear()
        _ORIENT_BY_ROT[key] = found
    return found


def shape_playable(s: NFState, shape: int) -> bool:
    """A copy of ``shape`` is in the supply and it fits somewhere."""
    if not any(s.supply[shape]):
        return False
    kind = s.cv.shapes[shape]
    return any(site.can_place(s.heights[i], kind) for i, site in enumerate(s.cv.sites))


def card_candidates(s: NFState) -> tuple[int, ...]:
    """Display indices the player may use (only the drawn card in variant simple)."""
    if s.cv.simple:
        return (len(s.display) - 1,) if s.display else ()
    return tuple(range(len(s.display)))


def _bonus_colours(kind: PieceKind, seat: int) -> tuple[int, ...]:
    return (seat,) * len(kind.cells)


def _placement_actions(
    s: NFState, tag: str, name: str | None, kind: PieceKind, colours: tuple[int, ...]
) -> list[tuple]:
    by_rot = orient_by_rot(kind, colours)
    out: list[tuple] = []
    for i, site in enumerate(s.cv.sites):
        for r, x, y in site.placements(s.heights[i], kind):
            for o in by_rot[r]:
                if name is None:
                    out.append((tag, site.name, o, x, y))
                else:
                    out.append((tag, name, site.name, o, x, y))
    return out


# -- legal actions --------------------------------------------------------------


def legal_actions(s: NFState, seat: object) -> list[tuple]:
    """Every action ``seat`` may take now."""
    if s.over or type(seat) is not int:
        return []
    step = s.step
    if step == "coureur":
        return [("coureur",), ("decline",)] if seat == s.offers[0] else []
    if seat != s.active:
        return []
    if step == "huron":
        return [("huron",), ("skip_huron",)]
    if step == "huron_order":
        k = s.known[seat]
        return [("order", *p) for p in permutations(range(k))]
    if step == "draw":
        acts: list[tuple] = [("draw",)]
        for b, kind in enumerate(s.cv.bonus):
            if s.bonus[seat][b] == BONUS_READY:
                acts.extend(
                    _placement_actions(s, "bonus", kind.name, kind, _bonus_colours(kind, seat))
                )
        return acts
    if step == "card":
        cands = card_candidates(s)
        playable = [i for i in cands if shape_playable(s, s.display[i])]
        if playable:
            return [("card", i) for i in playable]
        return [("discard", i) for i in cands]
    if step == "copy":
        shape = s.display[s.pending_card]
        return [("copy", k) for k, ok in enumerate(s.supply[shape]) if ok]
    if step == "place":
        shape = s.display[s.pending_card]
        return _placement_actions(s, "place", None, s.cv.shapes[shape], s.cv.copies[s.pending_copy])
    if step == "fille":
        return [("fille_du_roy",), ("no_ally",)]
    return []


def to_move(s: NFState) -> list[int]:
    """Seats that must act now."""
    if s.over:
        return []
    if s.step == "coureur":
        return [s.offers[0]]
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


def apply(s: NFState, seat: object, action: object) -> NFState:
    """A new state after ``seat`` takes ``action``; ``IllegalAction`` otherwise."""
    action = _check_shape(action)
    if s.over:
        raise IllegalAction("The game is over.")
    if type(seat) is not int or seat not in to_move(s):
        raise IllegalAction("It is not your turn to act.")
    tag = action[0]
    if tag == "place" and s.step == "place":
        return _apply_place(s, action)
    if tag == "bonus" and s.step == "draw":
        return _apply_bonus(s, seat, action)
    # ("draw",) skips the membership test: the draw step also lists every bonus placement.
    fast_draw = tag == "draw" and s.step == "draw" and len(action) == 1
    if not fast_draw and action not in legal_actions(s, seat):
        raise IllegalAction(_refusal(s, action))
    t = s.clone()
    if tag == "huron":
        t.known = tuple(
            min(t.cv.huron_peek, len(t.deck)) if i == seat else k for i, k in enumerate(t.known)
        )
        _use_ally(t, seat, HURON)
        t.step = "huron_order"
    elif tag == "skip_huron":
        t.step = "draw"
    elif tag == "order":
        perm = action[1:]
        k = len(perm)
        t.deck = tuple(t.deck[p] for p in perm) + t.deck[k:]
        t.deck_piles = tuple(t.deck_piles[p] for p in perm) + t.deck_piles[k:]
        # Others saw an order that may have changed: their knowledge is gone.
        t.known = tuple(k if i == seat else 0 for i, k in enumerate(t.known))
        t.step = "draw"
    elif tag == "draw":
        _draw(t)
    elif tag == "card":
        t.pending_card = action[1]
        t.step = "copy"
    elif tag == "discard":
        i = action[1]
        shape = t.display[i]
        t.display = t.display[:i] + t.display[i + 1 :]
        t.discard = (*t.discard, shape)
        copies = t.supply[shape]
        if any(copies):
            k = copies.index(True)
            t.supply = _set(t.supply, shape, _set(copies, k, False))
            t.removed_pieces = (*t.removed_pieces, (shape, k))
        _draw(t)
    elif tag == "copy":
        t.pending_copy = action[1]
        t.step = "place"
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
        t.offers = t.offers[1:]
        if not t.offers:
            _end_turn(t)
    return t


def _refusal(s: NFState, action: tuple) -> str:
    """A player-facing reason for refusing a well-formed but illegal action."""
    tag = action[0]
    wanted = {
        "huron": "the start of your turn (Huron or not)",
        "huron_order": "putting the peeked cards back in order",
        "draw": "drawing a card or placing a bonus piece",
        "card": "choosing a face-up card",
        "copy": "choosing which copy of the piece to take",
        "place": "placing the piece",
        "fille": "deciding on the Fille du Roy",
        "coureur": "deciding on the Coureur des bois",
    }[s.step]
    if tag == "card" and s.step == "card":
        return "That card cannot be played now (no copy left, no room, or no such card)."
    if tag == "discard" and s.step == "card":
        if any(shape_playable(s, s.display[i]) for i in card_candidates(s)):
            return "You may only discard when no face-up card can be played."
        return "There is no such face-up card to discard."
    if tag == "order" and s.step == "huron_order":
        k = s.known[s.active]
        return (
            f"Give the new order of the {k} cards you looked at as positions 0..{k - 1}, "
            "each exactly once."
        )
    if tag == "copy" and s.step == "copy":
        return "That copy of the piece is not in the supply (or there is no such copy)."
    if s.step == "coureur" and tag in ("coureur", "decline", "fille_du_roy", "no_ally"):
        if tag in ("coureur", "decline"):
            return "Answer the Coureur des bois offer with ('coureur',) or ('decline',)."
        return "The Fille du Roy decision is over; the Coureur des bois offer is pending."
    if s.step == "fille" and tag in ("fille_du_roy", "no_ally"):
        return "Answer with ('fille_du_roy',) or ('no_ally',)."
    return f"You cannot do {tag!r} now: the game is waiting for {wanted}."


def _set(t: tuple, i: int, v: object) -> tuple:
    return (*t[:i], v, *t[i + 1 :])


def _add(s: NFState, seat: int, pts: int, category: int) -> None:
    s.scores = _set(s.scores, seat, s.scores[seat] + pts)
    b = s.breakdown[seat]
    s.breakdown = _set(s.breakdown, seat, _set(b, category, b[category] + pts))


def _use_ally(s: NFState, seat: int, ally: int) -> None:
    s.ready = _set(s.ready, seat, _set(s.ready[seat], ally, False))
    s.allies_used = _set(s.allies_used, seat, s.allies_used[seat] + 1)


def _draw(s: NFState) -> None:
    """Draw the top card; snowflakes trigger storms and the drawer draws again."""
    cv = s.cv
    while True:
        card = s.deck[0]
        s.deck = s.deck[1:]
        s.deck_piles = s.deck_piles[1:]
        s.known = tuple(max(0, k - 1) for k in s.known)
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
    s.step = "card"
    if cv.simple and shape_playable(s, card):
        s.pending_card = len(s.display) - 1
        s.step = "copy"


def _storm(s: NFState) -> None:
    """Score level k on every site; bury it, expire bonus pieces, refresh allies; or end."""
    cv = s.cv
    k = s.storms + 1
    for i, cubes in enumerate(s.cubes):
        value = cv.symbols[cv.sticks[s.sticks[i]][k - 1]]
        counts = [0] * s.n
        for (_x, _y, lv), c in cubes.items():
            if lv == k and c < s.n:
                counts[c] += 1
        for seat, cnt in enumerate(counts):
            if cnt:
                _add(s, seat, cnt * value, 3)
    s.storms = k
    s.bonus = tuple(
        tuple(
            BONUS_EXPIRED if st == BONUS_READY and cv.bonus_expiry[b] <= k else st
            for b, st in enumerate(row)
        )
        for row in s.bonus
    )
    if k >= cv.storms:
        for i, holder in enumerate(s.holders):
            if holder >= 0:
                last = cv.sticks[s.sticks[i]][-1]
                _add(s, holder, cv.sites[i].character_bonus[last], 4)
        s.over = True
        s.step = "over"
        s.offers = ()
        return
    if cv.refresh:
        s.ready = (cv.allies_enabled,) * s.n


def buried_levels(s: NFState) -> int:
    """Levels under snow: storm k buries level k except the last storm (it ends the game).

    Rules file: "bury level k (k <= 2)"; after the 3rd storm level 3 is not covered.
    """
    return min(s.storms, s.cv.storms - 1)


def placement_points(
    s: NFState, site_i: int, new_cubes: list[tuple[int, int, int, int]], colour: int
) -> int:
    """Points for ``colour``: uncovered own cubes, +1 each touching an earlier own cube."""
    buried = buried_levels(s)
    old = s.cubes[site_i]
    extra = s.cv.sites[site_i].extra
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


def _put(s: NFState, site_i: int, cubes: tuple, x: int, y: int, base: int) -> None:
    """Add the cubes, score them for the active player and check completion."""
    new = [(x + dx, y + dy, base + dz, c) for dx, dy, dz, c in cubes]
    pts = placement_points(s, site_i, new, s.active)
    site = s.cv.sites[site_i]
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
        s.step = "fille"
    else:
        _offer_coureur(s)


def _offer_coureur(s: NFState) -> None:
    if s.points // 2 >= 1:
        order = [(s.active + j) % s.n for j in range(1, s.n)]
        s.offers = tuple(p for p in order if s.ready[p][COUREUR])
    else:
        s.offers = ()
    if s.offers:
        s.step = "coureur"
    else:
        _end_turn(s)


def _end_turn(s: NFState) -> None:
    s.active = (s.active + 1) % s.n
    s.turn += 1
    _start_turn(s)


def _locate(
    s: NFState,
    site_name: object,
    o: object,
    x: object,
    y: object,
    kind: PieceKind,
    colours: tuple[int, ...],
) -> tuple[int, tuple, int]:
    """Validate a placement; return (site index, coloured cubes, base level)."""
    site_i = s.cv.site_index.get(site_name) if isinstance(site_name, str) else None
    if site_i is None:
        raise IllegalAction(f"There is no construction site called {site_name!r}.")
    if not (_is_int(o) and _is_int(x) and _is_int(y)):
        raise IllegalAction("Orientation and position must be whole numbers.")
    orients = kind.orientations(colours)
    if not 0 <= o < len(orients):
        raise IllegalAction(f"The {kind.name} has orientations 0..{len(orients) - 1}.")
    rot, cubes = orients[o]
    site = s.cv.sites[site_i]
    base = site.placements(s.heights[site_i], kind).get((rot, x, y))
    if base is None:
        raise IllegalAction(
            f"The {kind.name} cannot go there on the {site.name}: it must lie over the "
            f"footprint, stay within {site.height_limit} levels and be stable."
        )
    return site_i, cubes, base


def _apply_place(s: NFState, action: tuple) -> NFState:
    if len(action) != 5:
        raise IllegalAction("A placement is ('place', site, orientation, x, y).")
    shape = s.display[s.pending_card]
    kind = s.cv.shapes[shape]
    site_i, cubes, base = _locate(s, *action[1:], kind, s.cv.copies[s.pending_copy])
    t = s.clone()
    t.display = t.display[: s.pending_card] + t.display[s.pending_card + 1 :]
    t.discard = (*t.discard, shape)
    t.supply = _set(t.supply, shape, _set(t.supply[shape], s.pending_copy, False))
    t.placed = (*t.placed, (shape, s.pending_copy, site_i))
    _put(t, site_i, cubes, action[3], action[4], base)
    return t


def _apply_bonus(s: NFState, seat: int, action: tuple) -> NFState:
    if len(action) != 6:
        raise IllegalAction("A bonus placement is ('bonus', piece, site, orientation, x, y).")
    b = s.cv.bonus_index.get(action[1]) if isinstance(action[1], str) else None
    if b is None:
        raise IllegalAction(f"There is no bonus piece called {action[1]!r}.")
    if s.bonus[seat][b] != BONUS_READY:
        why = "has expired" if s.bonus[seat][b] == BONUS_EXPIRED else "is already placed"
        raise IllegalAction(f"Your {action[1]} {why}: you cannot place it.")
    kind = s.cv.bonus[b]
    site_i, cubes, base = _locate(s, *action[2:], kind, _bonus_colours(kind, seat))
    t = s.clone()
    t.bonus = _set(t.bonus, seat, _set(t.bonus[seat], b, BONUS_USED))
    _put(t, site_i, cubes, action[4], action[5], base)
    return t


# -- end ------------------------------------------------------------------------


def winners(s: NFState) -> list[int]:
    """Most points; ties: fewest allies used, then never placed the peg; else shared."""
    if not s.over:
        return []
    tb = s.cv.tiebreak_bonus

    def key(p: int) -> tuple:
        kept = tb is not None and s.bonus[p][tb] != BONUS_USED
        return (s.scores[p], -s.allies_used[p], kept)

    best = max(key(p) for p in range(s.n))
    return [p for p in range(s.n) if key(p) == best]
