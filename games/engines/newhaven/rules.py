"""The New Haven rules: the set-up, legal actions, their effects and the scoring.

Decisions where the rules are silent (documented here once, referred to elsewhere):

* **First player**: seat 0.  Seats are given in clockwise order by the table's creator,
  who thereby chooses who starts (the rulebook says "the youngest player").
* **A turn is a sequence of small actions** of the active player P, with automatic
  transitions: harvest (``harvest`` or ``ship``) -> build (any number of ``build``, then
  ``end_build``) -> share (each other seat, clockwise from P's left, may ``build`` any number
  of times and then ``pass``) -> draw (``draw_market`` / ``draw_bag`` until the owed number
  of buildings is drawn) -> end of turn (automatic).
* **Share step**: skipped when every marker is 0 after P's build; it also stops as soon as
  every marker is 0 during sharing (nobody could build anything, only pass).  A sharing
  player who cannot build anything is still asked and is offered only ``pass``.
* **Draw step**: the number owed is the number of markers at 0 when the step starts.  The
  first building must come from the market if the market holds any; a blind bag draw is
  allowed only after that or when the market is empty.  Market draws name the building
  (resource, number), not a market slot, so identical buildings give one action.  The
  market is refilled after the last draw; with nothing left to draw the step ends early.
* **Hand tile identity**: a harvest action names a tile by its index in the hand.  Only the
  first (tile index, rotation) giving a set of squares is legal (``legal_actions`` lists one
  action per distinct placement); ``apply`` refuses the equivalent duplicates.
* **Building from hand**: if a player holds the same building both publicly (taken from the
  market/a clearing) and privately (drawn blind), the public copy is used first: this keeps
  the others' knowledge exact and reveals nothing new.  A face-down building's number is
  known to the others only if it came from the public part of the hand.
* **Rebuild**: a building removed by rebuilding leaves the game (``removed``), its number
  public only when it was public in the village.  Which space was built over is public
  (everybody at the table sees it): every space counts the buildings built on it.
* **Harvest tile draws**: the tile is drawn at the end of the turn (after building); an
  empty pool simply gives nothing (validation makes that impossible for valid variants).
* **Side B**: the pieces are dealt onto the settlement cells in the order the variant
  lists the cells; see ``new_state`` for the rulebook's order of the set-up.
* **Shipment**: its rotation once face up is drawn at set-up (a face-down tile has no
  orientation, so when it is drawn does not matter; drawing it then keeps every chance
  event in ``new_state``).
"""

from __future__ import annotations

import random

from ..protocol import IllegalAction
from .state import (
    BUILD,
    DRAW,
    HARVEST,
    OVER,
    POND,
    POND_CELL,
    PRINTED,
    SHARE,
    SHIP_DOWN,
    SHIP_UP,
    TILE,
    Player,
    State,
    squares_of,
)
from .variant import Compiled

END_BUILD = ("end_build",)
PASS = ("pass",)
DRAW_BAG = ("draw_bag",)


# -- set-up ------------------------------------------------------------------


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle ``items`` in place, deterministically for a given ``rng`` state.

    Sorting by ``rng.random()`` keys is a uniform shuffle several times faster than
    ``random.shuffle`` (which dominated the cost of a whole short game); Mersenne
    Twister output is the same on every platform, ties are practically impossible and
    keep the original order (a stable sort).
    """
    keys = [rng.random() for _ in items]
    order = sorted(range(len(items)), key=keys.__getitem__)
    items[:] = [items[i] for i in order]


def new_state(compiled: Compiled, variant: dict, num_players: int, seed: int) -> State:
    """The initial state; every chance event of the game is resolved here from ``seed``.

    The set-up follows the rulebook's order (``shared/rules/new-haven.md``, Setup):

    1. the pool of harvest tiles and the bag of buildings are shuffled (*careful
       harvest* removes its copies first);
    2. the market, then every player's buildings, hand tiles and face-down shipment are
       dealt;
    3. side B: the ponds and ``settlement_tiles`` tiles from the pool are shuffled and
       one goes on each settlement cell, tiles face up in a random rotation; then the
       ponds labelled above the player count come off (their cells become empty,
       playable cells).  A piece on a settlement cell outside the play area is out of
       the game, like everything outside the play area (the validator makes sure this
       cannot change the number of turns); then a building from the bag goes face up
       on each clearing cell of the play area;
    4. the rotation each shipment will show once turned face up is drawn now (from the
       same generator; nobody sees it before the flip).
    """
    cv = compiled
    n = num_players
    rng = random.Random(seed)
    pool = list(range(len(cv.tiles)))
    shuffle(rng, pool)
    removal = cv.removals.get(n, 0)
    bag = [code for code in range(cv.num_codes) for _ in range(cv.copies - removal)]
    shuffle(rng, bag)
    removed = [(code, -1) for code in range(cv.num_codes) for _ in range(removal)]

    st = State.__new__(State)
    st.compiled = cv
    st.variant = variant
    st.num_players = n
    st.market = [bag.pop() for _ in range(min(cv.market_size, len(bag)))]
    players = []
    for _ in range(n):
        p = Player()
        p.private_buildings = [bag.pop() for _ in range(min(cv.hand_buildings, len(bag)))]
        p.tiles = [pool.pop() for _ in range(cv.hand_tiles)]
        p.shipment = pool.pop() if cv.shipments else -1
        p.village = [-1] * cv.num_spaces
        p.built_turns = [-1] * cv.num_spaces
        p.build_counts = [0] * cv.num_spaces
        p.colour_masks = [0] * cv.num_resources
        players.append(p)
    st.players = tuple(players)

    cells: list = [None] * cv.num_cells
    play = cv.play_area[n]
    in_play = set(play)
    for index, (cell, _squares) in enumerate(cv.printed):
        if cell in in_play:
            cells[cell] = (PRINTED, index, 0)
    if cv.settlements:
        pieces = [(POND_CELL, label) for label in cv.ponds]
        pieces += [(TILE, pool.pop()) for _ in range(cv.settlement_tiles)]
        shuffle(rng, pieces)
        for cell, (kind, what) in zip(cv.settlements, pieces, strict=True):
            if kind == POND_CELL:
                if what <= n and cell in in_play:
                    cells[cell] = (POND_CELL, what, 0)
            else:
                rotation = rng.randrange(4)
                if cell in in_play:
                    cells[cell] = (TILE, what, rotation)
    st.clearings = {c: bag.pop() for c in cv.clearings if c in in_play and bag}
    for p in players:
        if p.shipment >= 0:
            p.shipment_rotation = rng.randrange(4)
    st.squares = squares_of(cv, cells)
    st.cells = cells
    st.empty_cells = tuple(c for c in play if cells[c] is None)
    st.pool = pool
    st.bag = bag
    st.removed = removed
    st.markers = [0] * cv.num_resources
    st.phase = HARVEST
    st.active = 0
    st.sharer = -1
    st.turn = 0
    st.draws_owed = 0
    st.draws_done = 0
    st.shipment_cell = -1
    st.last_cell = -1
    st.built = False
    return st


# -- helpers ----------------------------------------------------------------


def to_move(st: State) -> list[int]:
    """Seats that may act now."""
    if st.phase == OVER:
        return []
    return [st.sharer] if st.phase == SHARE else [st.active]


def gather(cv: Compiled, squares: bytearray, cell: int) -> list[int]:
    """Marker values after a tile was placed on ``cell``: flood fill per resource."""
    markers = [0] * cv.num_resources
    qs = cv.cell_squares[cell]
    nb = cv.square_neighbours
    done = []
    for q in qs:
        code = squares[q]
        if code in done or code == POND or not code:
            continue
        done.append(code)
        stack = [x for x in qs if squares[x] == code]
        seen = set(stack)
        while stack:
            i = stack.pop()
            for j in nb[i]:
                if squares[j] == code and j not in seen:
                    seen.add(j)
                    stack.append(j)
        markers[code - 1] = len(seen)
    return markers


def _place(ns: State, cell: int, entry: tuple, sq: tuple[int, ...]) -> None:
    cv = ns.compiled
    squares = ns.squares = bytearray(ns.squares)
    for q, r in zip(cv.cell_squares[cell], sq, strict=True):
        squares[q] = r + 1
    cells = ns.cells = list(ns.cells)
    cells[cell] = entry
    ns.empty_cells = tuple(c for c in ns.empty_cells if c != cell)


def _nb_union(cv: Compiled, mask: int) -> int:
    out = 0
    nb = cv.space_neighbours
    while mask:
        low = mask & -mask
        out |= nb[low.bit_length() - 1]
        mask ^= low
    return out


def _allowed_spaces(cv: Compiled, p: Player, r: int, value: int) -> int:
    """Bitmask of village spaces where a building of resource ``r`` may go now."""
    aff = cv.affordable[value if value < cv.max_cost else cv.max_cost]
    cm = p.colour_masks[r]
    if not cv.rebuild:
        aff &= ~p.occupied
        return aff & _nb_union(cv, cm) if cm else aff
    # Rebuild: judge each space as if it were empty (its own building does not count).
    out = 0
    m = aff
    nb = cv.space_neighbours
    while m:
        low = m & -m
        m ^= low
        rest = cm & ~low
        if not rest or nb[low.bit_length() - 1] & rest:
            out |= low
    return out


def build_actions(st: State, p: Player) -> list:
    """Every ``build`` action of player ``p`` with the current markers."""
    cv = st.compiled
    markers = st.markers
    out: list = []
    allowed_by_res: dict[int, int] = {}
    codes = sorted(set(p.public_buildings).union(p.private_buildings))
    cost = cv.space_cost
    for code in codes:
        r = cv.code_resource[code]
        value = markers[r]
        if not value:
            continue
        allowed = allowed_by_res.get(r)
        if allowed is None:
            allowed = allowed_by_res[r] = _allowed_spaces(cv, p, r, value)
        num = cv.code_number[code]
        acts = cv.build_actions[code]
        while allowed:
            low = allowed & -allowed
            allowed ^= low
            s = low.bit_length() - 1
            a = acts[s]
            out.append(a[0])
            if num == cost[s]:
                out.append(a[1])
    return out


def legal_actions(st: State, seat: int) -> list:
    """Every action ``seat`` may take now."""
    phase = st.phase
    if phase == OVER:
        return []
    cv = st.compiled
    if phase == HARVEST:
        if seat != st.active:
            return []
        p = st.players[seat]
        empty = st.empty_cells
        out: list = []
        seen: set = set()
        hacts = cv.harvest_actions
        for i, tile in enumerate(p.tiles):
            for rot, sq in cv.tile_rotations[tile]:
                if sq in seen:
                    continue
                seen.add(sq)
                if i < len(hacts):
                    row = hacts[i][rot]
                    out.extend([row[c] for c in empty])
                else:  # pragma: no cover - hands never exceed their size
                    out.extend(("harvest", i, *cv.cell_row_col[c], rot) for c in empty)
        if p.shipment >= 0:
            sacts = cv.ship_actions
            for c in empty:
                out.extend(sacts[c])
        return out
    if phase == BUILD:
        if seat != st.active:
            return []
        return [END_BUILD, *build_actions(st, st.players[seat])]
    if phase == SHARE:
        if seat != st.sharer:
            return []
        return [PASS, *build_actions(st, st.players[seat])]
    # DRAW
    if seat != st.active:
        return []
    out = [cv.market_actions[c] for c in dict.fromkeys(st.market)]
    if st.bag and (st.draws_done or not st.market):
        out.append(DRAW_BAG)
    return out


# -- transitions ---------------------------------------------------------------


def _end_turn(ns: State) -> None:
    """Markers to 0, tile draw or shipment flip, game end check, next player."""
    cv = ns.compiled
    ns.markers = [0] * cv.num_resources
    p = ns.mutable_player(ns.active)
    if ns.shipment_cell >= 0:
        # The shipment is turned face up where it lies: its real squares, in the
        # rotation drawn for it at set-up.
        cell = ns.shipment_cell
        tile = ns.cells[cell][1]
        rotation = p.shipment_rotation
        squares = ns.squares = bytearray(ns.squares)
        for q, r in zip(cv.cell_squares[cell], cv.rotate(tile, rotation), strict=True):
            squares[q] = r + 1
        cells = ns.cells = list(ns.cells)
        cells[cell] = (SHIP_UP, tile, rotation)
        p.shipment_rotation = -1
        ns.shipment_cell = -1
    elif ns.pool:
        pool = ns.pool = list(ns.pool)
        p.tiles = [*p.tiles, pool.pop()]
    p.turns += 1
    ns.turn += 1
    ns.sharer = -1
    ns.draws_owed = ns.draws_done = 0
    ns.built = False
    if len(ns.empty_cells) <= 1:
        ns.phase = OVER
        return
    nxt = (ns.active + 1) % ns.num_players
    np = ns.players[nxt]
    if not np.tiles and np.shipment < 0:  # pragma: no cover - impossible with valid variants
        ns.phase = OVER
        return
    ns.active = nxt
    ns.phase = HARVEST


def _finish_draws(ns: State) -> None:
    cv = ns.compiled
    if len(ns.market) < cv.market_size and ns.bag:
        market = ns.market = list(ns.market)
        bag = ns.bag = list(ns.bag)
        while len(market) < cv.market_size and bag:
            market.append(bag.pop())
    _end_turn(ns)


def _enter_draw(ns: State) -> None:
    ns.sharer = -1
    ns.draws_owed = ns.markers.count(0)
    ns.draws_done = 0
    ns.built = False
    if not ns.draws_owed or (not ns.market and not ns.bag):
        _finish_draws(ns)
    else:
        ns.phase = DRAW


def _advance_share(ns: State, nxt: int) -> None:
    if nxt == ns.active or not any(ns.markers):
        _enter_draw(ns)
    else:
        ns.phase = SHARE
        ns.sharer = nxt
        ns.built = False


# -- action handlers -------------------------------------------------------------


def _need_int(value, what: str) -> int:
    if type(value) is not int:
        raise IllegalAction(f"The {what} must be a whole number.")
    return value


def _shape(a: tuple, size: int, name: str) -> None:
    if len(a) != size:
        raise IllegalAction(f"A {name} action has {size - 1} values, not {len(a) - 1}.")


def _board_cell(st: State, row, col) -> int:
    cv = st.compiled
    row = _need_int(row, "row")
    col = _need_int(col, "column")
    if not (0 <= row < cv.size and 0 <= col < cv.size):
        raise IllegalAction("That cell is not on the board.")
    cell = row * cv.size + col
    if cell not in cv.play_area[st.num_players]:
        raise IllegalAction("That cell is not in the play area.")
    if st.cells[cell] is not None:
        raise IllegalAction("That cell is already taken.")
    return cell


def _harvest(st: State, seat: int, a: tuple) -> State:
    if st.phase != HARVEST:
        raise IllegalAction("You cannot place a harvest tile now.")
    _shape(a, 5, "harvest")
    cv = st.compiled
    i = _need_int(a[1], "tile index")
    p = st.players[seat]
    if not 0 <= i < len(p.tiles):
        raise IllegalAction(f"You have no harvest tile number {i}.")
    cell = _board_cell(st, a[2], a[3])
    rot = _need_int(a[4], "rotation")
    if not 0 <= rot < 4:
        raise IllegalAction("The rotation must be 0, 1, 2 or 3.")
    sq = cv.rotate(p.tiles[i], rot)
    for j in range(i + 1):
        for rot2, sq2 in cv.tile_rotations[p.tiles[j]]:
            if j == i and rot2 >= rot:
                break
            if sq2 == sq:
                raise IllegalAction(
                    f"That is the same placement as tile {j} at rotation {rot2}; use that one."
                )
    ns = st.copy()
    np = ns.mutable_player(seat)
    tiles = np.tiles = list(np.tiles)
    tile = tiles.pop(i)
    _place(ns, cell, (TILE, tile, rot), sq)
    if cell in ns.clearings:
        clearing = ns.clearings = dict(ns.clearings)
        np.public_buildings = [*np.public_buildings, clearing.pop(cell)]
    ns.markers = gather(cv, ns.squares, cell)
    ns.phase = BUILD
    ns.built = False
    ns.last_cell = cell
    return ns


def _ship(st: State, seat: int, a: tuple) -> State:
    if st.phase != HARVEST:
        raise IllegalAction("You cannot play your shipment now.")
    _shape(a, 4, "ship")
    cv = st.compiled
    p = st.players[seat]
    if p.shipment < 0:
        if p.shipment_played:
            raise IllegalAction("You have already played your shipment.")
        raise IllegalAction("There is no shipment in this game: play a harvest tile.")
    cell = _board_cell(st, a[1], a[2])
    if type(a[3]) is not str or a[3] not in cv.resource_index:
        raise IllegalAction(f"Unknown resource; choose one of {', '.join(cv.resources)}.")
    r = cv.resource_index[a[3]]
    ns = st.copy()
    np = ns.mutable_player(seat)
    tile = np.shipment
    np.shipment = -1
    np.shipment_played = True
    _place(ns, cell, (SHIP_DOWN, tile, r), (r, r, r, r))
    if cell in ns.clearings:
        clearing = ns.clearings = dict(ns.clearings)
        np.public_buildings = [*np.public_buildings, clearing.pop(cell)]
    ns.shipment_cell = cell
    ns.markers = gather(cv, ns.squares, cell)
    ns.phase = BUILD
    ns.built = False
    ns.last_cell = cell
    return ns


def check_build(st: State, seat: int, a: tuple) -> tuple[int, int, bool]:
    """Validate a ``build`` action; return (code, space, face_up)."""
    if st.phase not in (BUILD, SHARE):
        raise IllegalAction("You cannot build now.")
    _shape(a, 6, "build")
    cv = st.compiled
    _, res, num, row, col, up = a
    if type(res) is not str or res not in cv.resource_index:
        raise IllegalAction(f"Unknown resource; choose one of {', '.join(cv.resources)}.")
    num = _need_int(num, "building number")
    if num not in cv.number_index:
        raise IllegalAction(f"There is no building number {num}.")
    row = _need_int(row, "village row")
    col = _need_int(col, "village column")
    if not (0 <= row < cv.village_rows and 0 <= col < cv.village_cols):
        raise IllegalAction("That space is not in your village.")
    if type(up) is not bool:
        raise IllegalAction("Say whether the building goes face up (true) or face down (false).")
    r = cv.resource_index[res]
    code = r * len(cv.numbers) + cv.number_index[num]
    p = st.players[seat]
    if code not in p.public_buildings and code not in p.private_buildings:
        raise IllegalAction(f"You have no {res} {num} building in hand.")
    s = row * cv.village_cols + col
    cost = cv.space_cost[s]
    if st.markers[r] < cost:
        raise IllegalAction(
            f"Not enough {res}: that space costs {cost} and the {res} marker is at {st.markers[r]}."
        )
    bit = 1 << s
    if p.occupied & bit and not cv.rebuild:
        raise IllegalAction("That village space already holds a building.")
    rest = p.colour_masks[r] & ~bit
    if rest and not cv.space_neighbours[s] & rest:
        raise IllegalAction(f"A {res} building must go next to one of your {res} buildings.")
    if up and num != cost:
        raise IllegalAction(
            f"A building goes face up only on a space costing its number ({num}); "
            "build it face down instead."
        )
    return code, s, up


def _build(st: State, seat: int, a: tuple) -> State:
    code, s, up = check_build(st, seat, a)
    cv = st.compiled
    r = cv.code_resource[code]
    ns = st.copy()
    markers = ns.markers = list(ns.markers)
    markers[r] -= cv.space_cost[s]
    p = ns.mutable_player(seat)
    if code in p.public_buildings:
        p.public_buildings = hand = list(p.public_buildings)
        hand.remove(code)
        known = 1
    else:
        p.private_buildings = hand = list(p.private_buildings)
        hand.remove(code)
        known = 1 if up else 0
    # The village's lists are shared with the previous state (mutable_player): replace.
    p.village = list(p.village)
    p.built_turns = list(p.built_turns)
    p.build_counts = list(p.build_counts)
    p.colour_masks = list(p.colour_masks)
    bit = 1 << s
    old = p.village[s]
    if old >= 0:
        old_code = old >> 2
        ns.removed = [*ns.removed, (old_code, -1 if old & 1 else seat)]
        p.colour_masks[cv.code_resource[old_code]] &= ~bit
        p.face_up_mask &= ~bit
    p.village[s] = code << 2 | (2 if up else 0) | known
    p.built_turns[s] = st.turn
    p.build_counts[s] += 1
    p.colour_masks[r] |= bit
    p.occupied |= bit
    if up:
        p.face_up_mask |= bit
    ns.built = True
    return ns


def _end_build(st: State, seat: int, a: tuple) -> State:
    if st.phase != BUILD:
        if st.phase == SHARE:
            raise IllegalAction("You are sharing: pass to end your building.")
        raise IllegalAction("You cannot end a build now.")
    _shape(a, 1, "end_build")
    ns = st.copy()
    _advance_share(ns, (st.active + 1) % st.num_players)
    return ns


def _pass(st: State, seat: int, a: tuple) -> State:
    if st.phase != SHARE:
        if st.phase == BUILD:
            raise IllegalAction("It is your own turn: end the build instead of passing.")
        raise IllegalAction("You cannot pass now.")
    _shape(a, 1, "pass")
    ns = st.copy()
    _advance_share(ns, (st.sharer + 1) % st.num_players)
    return ns


def _after_draw(ns: State) -> None:
    ns.draws_done += 1
    if ns.draws_done >= ns.draws_owed or (not ns.market and not ns.bag):
        _finish_draws(ns)


def _draw_market(st: State, seat: int, a: tuple) -> State:
    if st.phase != DRAW:
        raise IllegalAction("You cannot draw buildings now.")
    _shape(a, 3, "draw_market")
    cv = st.compiled
    res, num = a[1], a[2]
    if type(res) is not str or res not in cv.resource_index:
        raise IllegalAction(f"Unknown resource; choose one of {', '.join(cv.resources)}.")
    num = _need_int(num, "building number")
    if num not in cv.number_index:
        raise IllegalAction(f"There is no building number {num}.")
    code = cv.resource_index[res] * len(cv.numbers) + cv.number_index[num]
    if code not in st.market:
        raise IllegalAction(f"There is no {res} {num} building in the market.")
    ns = st.copy()
    market = ns.market = list(ns.market)
    market.remove(code)
    p = ns.mutable_player(seat)
    p.public_buildings = [*p.public_buildings, code]
    _after_draw(ns)
    return ns


def _draw_bag(st: State, seat: int, a: tuple) -> State:
    if st.phase != DRAW:
        raise IllegalAction("You cannot draw buildings now.")
    _shape(a, 1, "draw_bag")
    if not st.bag:
        raise IllegalAction("The bag is empty: take a building from the market.")
    if not st.draws_done and st.market:
        raise IllegalAction("Your first building must come from the market.")
    ns = st.copy()
    bag = ns.bag = list(ns.bag)
    p = ns.mutable_player(seat)
    p.private_buildings = [*p.private_buildings, bag.pop()]
    _after_draw(ns)
    return ns


HANDLERS = {
    "harvest": _harvest,
    "ship": _ship,
    "build": _build,
    "end_build": _end_build,
    "pass": _pass,
    "draw_market": _draw_market,
    "draw_bag": _draw_bag,
}


def apply(st: State, seat: int, action) -> State:
    """The state after ``seat`` takes ``action``; ``IllegalAction`` otherwise."""
    if type(action) is not tuple or not action or type(action[0]) is not str:
        raise IllegalAction("That is not a New Haven action.")
    handler = HANDLERS.get(action[0])
    if handler is None:
        raise IllegalAction(f"Unknown action {action[0]!r}.")
    if st.phase == OVER:
        raise IllegalAction("The game is over.")
    if type(seat) is not int or seat not in to_move(st):
        raise IllegalAction("It is not your turn to act.")
    return handler(st, seat, action)


# -- scoring ------------------------------------------------------------------------


def breakdown(cv: Compiled, p: Player) -> dict:
    """Completed rows and columns of a village with their points."""
    rows = []
    for i, mask in enumerate(cv.row_masks):
        if p.occupied & mask == mask:
            doubled = p.face_up_mask & mask == mask
            value = cv.row_values[i]
            rows.append(
                {
                    "row": i,
                    "value": value,
                    "doubled": doubled,
                    "points": value * (2 if doubled else 1),
                }
            )
    cols = []
    for i, mask in enumerate(cv.col_masks):
        if p.occupied & mask == mask:
            doubled = p.face_up_mask & mask == mask
            value = cv.col_values[i]
            cols.append(
                {
                    "col": i,
                    "value": value,
                    "doubled": doubled,
                    "points": value * (2 if doubled else 1),
                }
            )
    total = sum(x["points"] for x in rows) + sum(x["points"] for x in cols)
    return {"rows": rows, "cols": cols, "total": total}


def score(cv: Compiled, p: Player) -> int:
    """Points of one village."""
    total = 0
    occ, up = p.occupied, p.face_up_mask
    for i, mask in enumerate(cv.row_masks):
        if occ & mask == mask:
            total += cv.row_values[i] * (2 if up & mask == mask else 1)
    for i, mask in enumerate(cv.col_masks):
        if occ & mask == mask:
            total += cv.col_values[i] * (2 if up & mask == mask else 1)
    return total


def empty_spaces(cv: Compiled, p: Player) -> int:
    """Number of empty village spaces."""
    return cv.num_spaces - p.occupied.bit_count()


def winners(st: State) -> list[int]:
    """Most points; ties: fewest empty village spaces, then fewest buildings in hand."""
    if st.phase != OVER:
        return []
    cv = st.compiled
    keys = [
        (score(cv, p), -empty_spaces(cv, p), -(len(p.public_buildings) + len(p.private_buildings)))
        for p in st.players
    ]
    best = max(keys)
    return [seat for seat, k in enumerate(keys) if k == best]
