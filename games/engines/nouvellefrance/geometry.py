"""Pieces, 3-D rotations and placement by lowering, computed once per variant.

Coordinates: a site is a set of ground cells ``(x, y)``; cubes stack on them at
levels ``1, 2, 3 ...`` (1 = on the ground).  A piece is given as cells ``(x, z)``
of the piece standing upright (``y = 0``), so a cube offset is ``(dx, dy, dz)``.

Two notions of "rotation" exist:

* a *geometric rotation* (``PieceKind.rotations``) is a distinct placement of the
  piece's cube set, ignoring colours.  The X pentomino has 3 (lying flat, and
  standing in the x-z or the y-z plane: its 8 in-plane symmetries, realised in 3-D
  by in-plane turns and half turns about in-plane axes, make the other 21 of the 24
  cube rotations repeats), the asymmetric F has all 24.  Legality only depends on
  geometry, so placements are computed per geometric rotation.
* an *orientation* (``PieceKind.orientations(colours)``) is a distinct placement of a
  *coloured* copy: turning an X a quarter inside its plane leaves its shape alone
  but moves its colours, and the colours decide the score.  The ``place`` action
  names an orientation; each orientation points at its geometric rotation.

Placement (see ``Site.placements``): the piece is lowered straight down, so it
rests at ``base = max over its columns (height[column] - lowest dz of the column)
+ 1``; a heightmap is therefore enough and a piece can never end up under a cube.
It is legal when its top level is within the site's height limit and it is
stable (rules file: "the centre of mass of its cubes, seen from above, lies
strictly inside the convex hull of the top faces it rests on (each resting cube's
full 1x1 cell; the ground counts as support)").  Only the lowest cube of each
column can rest on something: the ground (``base + dz == 1``) or the top cube of
that column (``base + dz == height + 1``); a cube on top of the piece's own cube
does not count, a piece cannot prop itself.

Caching is the standard library's only: the per-rotation stability table and the
per-site candidate positions are computed once (``functools.cache`` on pure
helpers), and the placements of a piece on a heightmap are memoised by a bounded
``functools.lru_cache``.

Speed (the hot path of every search): a heightmap is scored for all candidate
positions of all rotations at once (:func:`_vector`): each candidate's column heights
are packed into one integer code, all codes are one big-integer sum of per-cell rows,
and a complete ``bytes`` table per shape and height limit, built from the legal codes
only (:func:`_legal_codes`), turns a code into the rest level by indexing (one C-level
gather).  ``Site.legal_bases`` keeps those levels in scan order, and the ``place``
actions are prebuilt per candidate and kept with ``itertools.compress``
(``rules._actions``).  The order is always the scan's: rotation, then position.
Nothing of this lives in a state; ``can_place``'s remembered last legal candidate
(``witness``) is only a hint tried first, never an answer.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from functools import cache, lru_cache, partial
from itertools import compress, count, permutations, product
from operator import getitem, itemgetter

Offset = tuple[int, int, int]

#: Heightmaps remembered per process (placements and "can it go anywhere" answers).
PLACEMENT_CACHE_SIZE = 1 << 15


def _rotation_matrices() -> list[tuple[tuple[int, int, int], ...]]:
    """The 24 proper rotations of the cube as signed permutation matrices."""
    mats = []
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            m = tuple(tuple(signs[r] if perm[r] == c else 0 for c in range(3)) for r in range(3))
            det = (
                m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
            )
            if det == 1:
                mats.append(m)
    return mats


ROTATIONS = _rotation_matrices()


def _rotate_all(cells: tuple[tuple[int, int], ...]) -> list[tuple[Offset, ...]]:
    """Every rotated copy of upright cells (x, z), cube order kept, normalised to min 0."""
    cubes = [(x, 0, z) for x, z in cells]
    out = []
    for m in ROTATIONS:
        rot = [tuple(sum(m[r][c] * v[c] for c in range(3)) for r in range(3)) for v in cubes]
        mins = [min(p[i] for p in rot) for i in range(3)]
        out.append(tuple((p[0] - mins[0], p[1] - mins[1], p[2] - mins[2]) for p in rot))
    return out


def _convex_hull(points: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """The convex hull, counter-clockwise, without collinear points (monotone chain)."""
    pts = sorted(points)

    def half(seq: list[tuple[int, int]]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for p in seq:
            while len(out) >= 2 and _cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return lower[:-1] + upper[:-1]


def _cross(o: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> int:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def stands_freely(cubes: tuple[Offset, ...], resting: list[tuple[int, int]]) -> bool:
    """The support-hull rule for one set of resting columns (exact integer arithmetic).

    The centre of mass of ``cubes`` seen from above must lie strictly inside the
    convex hull of the full 1x1 cells ``resting``; on its edge, or outside, the piece
    falls.  Coordinates are scaled by ``2 * len(cubes)`` so the centre is an integer.
    """
    if not resting:
        return False
    scale = 2 * len(cubes)
    centre = (sum(2 * c[0] + 1 for c in cubes), sum(2 * c[1] + 1 for c in cubes))
    corners = {
        ((x + ox) * scale, (y + oy) * scale) for x, y in resting for ox in (0, 1) for oy in (0, 1)
    }
    hull = _convex_hull(corners)
    return all(_cross(hull[i], hull[(i + 1) % len(hull)], centre) > 0 for i in range(len(hull)))


class Rotation:
    """One geometric rotation: cube offsets plus the tables the hot path needs."""

    __slots__ = ("bottoms", "columns", "cubes", "stable", "top")

    def __init__(self, cubes: tuple[Offset, ...]) -> None:
        #: Sorted cube offsets ``(dx, dy, dz)``.
        self.cubes: tuple[Offset, ...] = tuple(sorted(cubes))
        lowest: dict[tuple[int, int], int] = {}
        for dx, dy, dz in self.cubes:
            key = (dx, dy)
            lowest[key] = min(dz, lowest.get(key, dz))
        #: Distinct ``(dx, dy)`` columns seen from above, sorted.
        self.columns: tuple[tuple[int, int], ...] = tuple(sorted(lowest))
        #: The lowest ``dz`` of each column.
        self.bottoms: tuple[int, ...] = tuple(lowest[c] for c in self.columns)
        #: The highest ``dz``.
        self.top: int = max(c[2] for c in self.cubes)
        #: Stability by the bitmask of the columns that rest on something.
        self.stable: tuple[bool, ...] = tuple(
            stands_freely(
                self.cubes,
                [self.columns[i] for i in range(len(self.columns)) if mask >> i & 1],
            )
            for mask in range(1 << len(self.columns))
        )

    def __repr__(self) -> str:
        return f"<Rotation {self.cubes}>"


class PieceKind:
    """A piece shape (or bonus piece): its geometric rotations and coloured orientations."""

    __slots__ = ("_labelled", "cells", "name", "rotations")

    def __init__(self, name: str, cells: tuple[tuple[int, int], ...]) -> None:
        self.name = name
        self.cells = tuple(tuple(c) for c in cells)
        index: dict[frozenset, int] = {}
        rotations: list[Rotation] = []
        labelled = []
        for placed in _rotate_all(self.cells):
            key = frozenset(placed)
            if key not in index:
                index[key] = len(rotations)
                rotations.append(Rotation(placed))
            labelled.append((index[key], placed))
        self.rotations: tuple[Rotation, ...] = tuple(rotations)
        self._labelled = tuple(labelled)

    def orientations(self, colours: tuple[int, ...]) -> tuple[tuple[int, tuple], ...]:
        """Distinct coloured orientations: ``(rotation index, ((dx, dy, dz, colour), ...))``.

        Ordered by rotation, then cube layout; the ``place`` action's orientation is an
        index into this tuple.  Computed once per colour pattern.
        """
        return _orientations(self, colours)

    def orientations_by_rotation(self, colours: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
        """Orientation indices grouped by geometric rotation."""
        return _orientations_by_rotation(self, colours)

    def __repr__(self) -> str:
        return f"<PieceKind {self.name}>"


@lru_cache(maxsize=4096)
def _orientations(kind: PieceKind, colours: tuple[int, ...]) -> tuple[tuple[int, tuple], ...]:
    seen = {}
    for rot, placed in kind._labelled:
        coloured = zip(placed, colours, strict=True)
        cubes = tuple(sorted((p[0], p[1], p[2], c) for p, c in coloured))
        seen.setdefault((rot, cubes), None)
    return tuple(sorted(seen))


@lru_cache(maxsize=4096)
def _orientations_by_rotation(
    kind: PieceKind, colours: tuple[int, ...]
) -> dict[int, tuple[int, ...]]:
    groups: dict[int, list[int]] = {}
    for o, (r, _cubes) in enumerate(_orientations(kind, colours)):
        groups.setdefault(r, []).append(o)
    return {r: tuple(v) for r, v in groups.items()}


class Site:
    """A construction site: footprint, height limit, extra adjacencies, placement search."""

    __slots__ = ("cells", "character", "character_bonus", "extra", "height_limit", "index", "name")

    def __init__(
        self,
        name: str,
        character: str,
        footprint: list[tuple[int, int]],
        height_limit: int,
        extra_adjacency: list[tuple[tuple[int, int], tuple[int, int]]],
        character_bonus: dict[str, int],
    ) -> None:
        self.name = name
        self.character = character
        #: Footprint cells, sorted; a heightmap is a tuple in this order.
        self.cells: tuple[tuple[int, int], ...] = tuple(sorted(footprint))
        self.index = {c: i for i, c in enumerate(self.cells)}
        self.height_limit = height_limit
        self.character_bonus = dict(character_bonus)
        extra: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for a, b in extra_adjacency:
            extra.setdefault(a, []).append(b)
            extra.setdefault(b, []).append(a)
        #: Cell -> cells it touches through an extra adjacency (every level).
        self.extra: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {
            k: tuple(v) for k, v in extra.items()
        }

    def candidates(self, kind: PieceKind, r: int) -> tuple:
        """Positions ``(x, y, column cell indices)`` where rotation ``r`` lies over the site."""
        return _candidates(self, kind, r)

    def rest_level(self, rot: Rotation, column_heights: tuple[int, ...]) -> int:
        """Level of the piece's lowest layer when lowered onto these columns; 0 if illegal."""
        return _rest_level(rot.bottoms, rot.top, rot.stable, self.height_limit, column_heights)

    def placements(self, heights: tuple[int, ...], kind: PieceKind) -> dict:
        """Legal placements ``{(rotation, x, y): base level}`` on this heightmap (cached)."""
        return _placements(self, heights, kind)

    def candidate_keys(self, kind: PieceKind) -> tuple[tuple[int, int, int], ...] | None:
        """Every candidate ``(rotation, x, y)`` in scan order; ``None`` where placements
        are found by the plain scan (codes too wide to pack, or no candidate at all)."""
        vector = _vector(self, kind)
        return None if vector is None else vector[0]

    def legal_bases(self, heights: tuple[int, ...], kind: PieceKind) -> Sequence[int] | None:
        """The rest level of every candidate (``candidate_keys`` order, 0: illegal);
        ``None`` when ``candidate_keys`` is (cached).  ``placements`` keeps the legal ones."""
        return _legal_bases(self, heights, kind)

    def rest_at(
        self, heights: tuple[int, ...], kind: PieceKind, key: tuple[int, int, int]
    ) -> int | None:
        """``placements(heights, kind).get(key)`` without building the dictionary."""
        index = _key_index(self, kind)
        if index is None:
            return _placements(self, heights, kind).get(key)
        c = index.get(key)
        if c is None:
            return None
        return _legal_bases(self, heights, kind)[c] or None  # type: ignore[index]

    def can_place(self, heights: tuple[int, ...], kind: PieceKind) -> bool:
        """Whether any legal placement exists (stops at the first one; cached)."""
        return _can_place(self, heights, kind)

    def __repr__(self) -> str:
        return f"<Site {self.name}>"


@cache
def _candidates(site: Site, kind: PieceKind, r: int) -> tuple:
    rot = kind.rotations[r]
    dx0, dy0 = rot.columns[0]
    out = []
    for fx, fy in site.cells:
        x, y = fx - dx0, fy - dy0
        idx = []
        for dx, dy in rot.columns:
            i = site.index.get((x + dx, y + dy))
            if i is None:
                break
            idx.append(i)
        else:
            out.append((x, y, tuple(idx)))
    return tuple(out)


def _rest_level(
    bottoms: tuple[int, ...],
    top: int,
    stable: tuple[bool, ...],
    height_limit: int,
    column_heights: tuple[int, ...],
) -> int:
    vals = [h - b for h, b in zip(column_heights, bottoms, strict=True)]
    m = max(vals)
    if m + 1 + top > height_limit:
        return 0
    mask = 0
    for j, v in enumerate(vals):
        if v == m:
            mask |= 1 << j
    return m + 1 if stable[mask] else 0


@cache
def _scanner(site: Site, kind: PieceKind) -> tuple:
    """Every candidate position of every rotation: ``((r, x, y), column getter, rest)``.

    The outcome of a placement depends only on the heights under its columns, and
    with few levels there are few distinct tuples: the rest level is memoised per
    rotation (``functools.cache`` around the pure ``_rest_level``; at most
    ``(height_limit + 1) ** columns`` entries).  The plain scan, used where the
    vectorised one (:func:`_vector`) cannot encode a site's heights.
    """
    out = []
    for r, rot in enumerate(kind.rotations):
        rest = cache(partial(_rest_level, rot.bottoms, rot.top, rot.stable, site.height_limit))
        out.extend(((r, x, y), _getter(idx), rest) for x, y, idx in _candidates(site, kind, r))
    return tuple(out)


def _scan(site: Site, heights: tuple[int, ...], kind: PieceKind, first_only: bool) -> dict:
    found = {}
    for key, get, rest in _scanner(site, kind):
        base = rest(get(heights))
        if base:
            found[key] = base
            if first_only:
                break
    return found


class _Rests(dict):
    """Rest level by candidate code (see :func:`_vector`), computed on first sight."""

    __slots__ = ("kind", "limit", "radix", "width")

    def __init__(self, kind: PieceKind, limit: int, radix: int, width: int) -> None:
        super().__init__()
        self.kind, self.limit, self.radix, self.width = kind, limit, radix, width

    def __missing__(self, code: int) -> int:
        r, rest = divmod(code, self.radix**self.width)
        rot = self.kind.rotations[r]
        heights = []
        for _ in rot.columns:
            rest, h = divmod(rest, self.radix)
            heights.append(h)
        base = _rest_level(rot.bottoms, rot.top, rot.stable, self.limit, tuple(heights))
        self[code] = base
        return base


#: The most entries of a complete code -> rest level table (bytes); beyond, a lazy dict.
REST_TABLE_LIMIT = 1 << 20

_REST_TABLES: dict[tuple, bytes | _Rests] = {}


def _rest_table(kind: PieceKind, height_limit: int) -> bytes | _Rests:
    """``table[code]``: the rest level for a piece (see :func:`_vector`), shared by every site of
    one height limit and every variant with the same shape.

    A complete table (``bytes``, indexed by code: no hashing) when it is small enough,
    built from the legal codes only (:func:`_legal_codes`); otherwise a dictionary that
    computes each code on first sight.
    """
    key = (kind.cells, height_limit)
    table = _REST_TABLES.get(key)
    if table is None:
        radix = height_limit + 1
        width = max(len(rot.columns) for rot in kind.rotations)
        size = len(kind.rotations) * radix**width
        if size <= REST_TABLE_LIMIT and height_limit < 256:
            built = bytearray(size)
            for code, base in _legal_codes(kind, height_limit, width):
                built[code] = base
            table = bytes(built)
        else:
            table = _Rests(kind, height_limit, radix, width)
        _REST_TABLES[key] = table
    return table


def _legal_codes(kind: PieceKind, height_limit: int, width: int):
    """Every ``(code, rest level)`` of a legal placement, by construction.

    The piece rests at ``m + 1`` with ``m = max(height - bottom)`` over its columns; for
    each ``m`` the rest level and the height limit allow and each stable set of resting
    columns (exactly those with ``height - bottom == m``), the other columns take every
    height below ``m + bottom``.  Codes not produced are illegal (rest level 0), exactly
    as :func:`_rest_level` decides.
    """
    radix = height_limit + 1
    for r, rot in enumerate(kind.rotations):
        n = len(rot.columns)
        for m in range(height_limit - rot.top):
            for mask in range(1, 1 << n):
                if not rot.stable[mask]:
                    continue
                choices = [
                    (m + b,) if mask >> j & 1 else range(m + b)
                    for j, b in enumerate(rot.bottoms)
                ]
                for heights in product(*choices):
                    code = r * radix**width
                    for j, h in enumerate(heights):
                        code += h * radix**j
                    yield code, m + 1


#: Array type codes by item size (the fields of a candidate code, see ``_vector``).
_TYPECODES = {array(t).itemsize: t for t in ("Q", "L", "I", "H")}


@cache
def _vector(site: Site, kind: PieceKind) -> tuple | None:
    """Tables to score every candidate of a piece on a site at once (``None``: too wide).

    Candidate ``c`` (scan order: rotation, then position) has the code
    ``r * K**W + sum(height[column j] * K**j)`` (``K = height_limit + 1``, ``W`` the
    most columns of a rotation), which decides its rest level.  All codes are computed
    together as one integer with a fixed-width field per candidate: the sum, over the
    site's cells, of a per-cell row (cell at height ``h`` adds ``h * K**j`` to the field
    of every candidate whose column ``j`` it is), so a scan is ~one big-integer addition
    per cell, then one gather from the rest table (no Python loop per candidate).
    Returns ``(keys, start, rows, size in bytes, type code, rest table, singles,
    witness)``: ``singles`` gives each candidate's code alone (``(r * K**W, ((cell,
    K**j), ...))``) and ``witness`` (a one-item list, the only mutable part: a hint, never
    a result) the candidate that was legal last time ``can_place`` looked.
    """
    keys: list[tuple[int, int, int]] = []
    columns: list[tuple[int, ...]] = []
    for r in range(len(kind.rotations)):
        for x, y, idx in _candidates(site, kind, r):
            keys.append((r, x, y))
            columns.append(idx)
    if not keys:
        return None
    radix = site.height_limit + 1
    width = max(len(rot.columns) for rot in kind.rotations)
    bits = (len(kind.rotations) * radix**width - 1).bit_length()
    size = next((n for n in sorted(_TYPECODES) if 8 * n >= bits), None)
    if size is None:
        return None
    shift = 8 * size
    start = sum(key[0] * radix**width << (shift * c) for c, key in enumerate(keys))
    weights = [0] * len(site.cells)
    for c, idx in enumerate(columns):
        for j, i in enumerate(idx):
            weights[i] += radix**j << (shift * c)
    rows = tuple(tuple(h * w for h in range(radix)) for w in weights)
    table = _rest_table(kind, site.height_limit)
    singles = tuple(
        (key[0] * radix**width, tuple((i, radix**j) for j, i in enumerate(idx)))
        for key, idx in zip(keys, columns, strict=True)
    )
    return tuple(keys), start, rows, size * len(keys), _TYPECODES[size], table, singles, [0]


def _codes(vector: tuple, heights: tuple[int, ...]) -> array:
    """The code of every candidate, in scan order."""
    start, rows, nbytes, typecode = vector[1:5]
    # Only the cells with cubes add something (adding 0 would still copy the integer).
    code = sum(compress(map(getitem, rows, heights), heights), start)
    codes = array(typecode, code.to_bytes(nbytes, "little"))
    if _BIG_ENDIAN:
        codes.byteswap()
    return codes


_BIG_ENDIAN = sys.byteorder == "big"


def _bases(vector: tuple, heights: tuple[int, ...]) -> Sequence[int]:
    """The rest level (0: illegal) of every candidate, in scan order (one C gather);
    ``bytes`` from a complete table (an eighth of a tuple's memory in the caches)."""
    codes = _codes(vector, heights)
    table = vector[5]
    found = (table[codes[0]],) if len(codes) == 1 else itemgetter(*codes)(table)
    return bytes(found) if type(table) is bytes else found


@cache
def _key_index(site: Site, kind: PieceKind) -> dict[tuple[int, int, int], int] | None:
    """Candidate ``(rotation, x, y)`` -> its index in scan order (``None``: plain scan)."""
    vector = _vector(site, kind)
    return None if vector is None else {key: c for c, key in enumerate(vector[0])}


@lru_cache(maxsize=PLACEMENT_CACHE_SIZE)
def _legal_bases(site: Site, heights: tuple[int, ...], kind: PieceKind) -> Sequence[int] | None:
    vector = _vector(site, kind)
    return None if vector is None else _bases(vector, heights)


@lru_cache(maxsize=PLACEMENT_CACHE_SIZE)
def _placements(site: Site, heights: tuple[int, ...], kind: PieceKind) -> dict:
    vector = _vector(site, kind)
    if vector is None:
        return _scan(site, heights, kind, False)
    bases = _legal_bases(site, heights, kind)
    return dict(compress(zip(vector[0], bases, strict=True), bases))


@lru_cache(maxsize=PLACEMENT_CACHE_SIZE)
def _can_place(site: Site, heights: tuple[int, ...], kind: PieceKind) -> bool:
    vector = _vector(site, kind)
    if vector is None:
        return bool(_scan(site, heights, kind, True))
    table, singles, witness = vector[5:]
    # Most placements leave the last legal candidate legal: try it alone first.
    code, columns = singles[witness[0]]
    for i, weight in columns:
        code += heights[i] * weight
    if table[code]:
        return True
    found = next(compress(count(), _legal_bases(site, heights, kind)), None)  # type: ignore[arg-type]
    if found is None:
        return False
    witness[0] = found
    return True


def _getter(idx: tuple[int, ...]):
    """A callable returning the heights at ``idx`` as a tuple (fast C itemgetter)."""
    if len(idx) == 1:
        i = idx[0]
        return lambda h: (h[i],)
    return itemgetter(*idx)
