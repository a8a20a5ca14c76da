"""Pieces, 3-D rotations and placement by lowering, precomputed once per variant.

Coordinates: a site is a set of ground cells ``(x, y)``; cubes stack on them at
levels ``1, 2, 3 ...`` (1 = on the ground).  A piece is given as cells ``(x, z)``
of the piece standing upright (``y = 0``), so a cube offset is ``(dx, dy, dz)``.

Two notions of "rotation" exist and both are computed once per variant:

* a *geometric rotation* (``PieceKind.rotations``) is a distinct placement of the
  piece's cube set, ignoring colours.  The X pentomino has 3 (lying flat, and
  standing in the x-z or the y-z plane: its 8 in-plane symmetries, realised in 3-D
  by in-plane turns and half turns about in-plane axes, make the other 21 of the 24
  cube rotations repeats), the asymmetric F has all 24.  Legality only depends on
  geometry, so the placement cache is keyed by geometric rotations.
* an *orientation* (``orientations(kind, colours)``) is a distinct placement of a
  *coloured* copy: turning an X a quarter inside its plane leaves its shape alone
  but moves its colours, and the colours decide the score.  The ``place`` action
  names an orientation; each orientation points at its geometric rotation.

Placement (see ``Site.placements``): the piece is lowered straight down, so it
rests at ``base = max over its columns (height[column] - lowest dz of the column)
+ 1``; a heightmap is therefore enough and a piece can never end up under a cube.
It is legal when its top level is within the site's height limit and it is
stable: the centre of its cubes seen from above lies inside (borders included)
the rectangle spanned by the full 1x1 cells of the cubes resting on something.
Only the lowest cube of each column can rest on something: the ground
(``base + dz == 1``) or the top cube of that column (``base + dz == height + 1``);
a cube on top of the piece's own cube does not count, a piece cannot prop itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations, product
from operator import itemgetter

Offset = tuple[int, int, int]

#: Placement cache size per site before it is flushed (keeps memory bounded).
_CACHE_LIMIT = 20000


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


def _rotate_all(cells: list[tuple[int, int]]) -> list[tuple[Offset, ...]]:
    """Every rotated copy of upright cells (x, z), cube order kept, normalised to min 0."""
    cubes = [(x, 0, z) for x, z in cells]
    out = []
    for m in ROTATIONS:
        rot = [tuple(sum(m[r][c] * v[c] for c in range(3)) for r in range(3)) for v in cubes]
        mins = [min(p[i] for p in rot) for i in range(3)]
        out.append(tuple((p[0] - mins[0], p[1] - mins[1], p[2] - mins[2]) for p in rot))
    return out


@dataclass(frozen=True)
class Rotation:
    """One geometric rotation: cube offsets plus the data the hot path needs."""

    cubes: tuple[Offset, ...]  # sorted offsets
    columns: tuple[tuple[int, int], ...]  # distinct (dx, dy), sorted
    bottoms: tuple[int, ...]  # lowest dz per column
    top: int  # highest dz
    stable: tuple[bool, ...]  # indexed by bitmask of resting columns


def _make_rotation(cubes: tuple[Offset, ...]) -> Rotation:
    cubes = tuple(sorted(cubes))
    lowest: dict[tuple[int, int], int] = {}
    for dx, dy, dz in cubes:
        key = (dx, dy)
        lowest[key] = min(dz, lowest.get(key, dz))
    columns = tuple(sorted(lowest))
    n = len(cubes)
    # Centre of mass times 2n, kept in integers: sum of (2*dx + 1).
    sx = sum(2 * c[0] + 1 for c in cubes)
    sy = sum(2 * c[1] + 1 for c in cubes)
    stable = []
    for mask in range(1 << len(columns)):
        rest = [columns[i] for i in range(len(columns)) if mask >> i & 1]
        if not rest:
            stable.append(False)
            continue
        x0, x1 = min(c[0] for c in rest), max(c[0] for c in rest) + 1
        y0, y1 = min(c[1] for c in rest), max(c[1] for c in rest) + 1
        stable.append(2 * n * x0 <= sx <= 2 * n * x1 and 2 * n * y0 <= sy <= 2 * n * y1)
    return Rotation(
        cubes=cubes,
        columns=columns,
        bottoms=tuple(lowest[c] for c in columns),
        top=max(c[2] for c in cubes),
        stable=tuple(stable),
    )


@dataclass
class PieceKind:
    """A piece shape (or bonus piece): its geometric rotations and orientation cache."""

    name: str
    cells: tuple[tuple[int, int], ...]
    rotations: tuple[Rotation, ...] = ()
    _labelled: tuple[tuple[int, tuple[Offset, ...]], ...] = ()
    _orient_cache: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        index: dict[frozenset, int] = {}
        rots: list[Rotation] = []
        labelled = []
        for placed in _rotate_all(list(self.cells)):
            key = frozenset(placed)
            if key not in index:
                index[key] = len(rots)
                rots.append(_make_rotation(placed))
            labelled.append((index[key], placed))
        self.rotations = tuple(rots)
        self._labelled = tuple(labelled)

    def orientations(self, colours: tuple[int, ...]) -> tuple[tuple[int, tuple], ...]:
        """Distinct coloured orientations: ``(rotation index, ((dx, dy, dz, colour), ...))``.

        Computed once per colour pattern, ordered by rotation then cube layout.
        """
        cached = self._orient_cache.get(colours)
        if cached is not None:
            return cached
        seen = {}
        for rot, placed in self._labelled:
            coloured = zip(placed, colours, strict=True)
            cubes = tuple(sorted((p[0], p[1], p[2], c) for p, c in coloured))
            seen.setdefault((rot, cubes), None)
        result = tuple(sorted(seen))
        self._orient_cache[colours] = result
        return result


class Site:
    """A construction site: footprint, limits, candidate positions per rotation and a cache."""

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
        self.cells: tuple[tuple[int, int], ...] = tuple(sorted(footprint))
        self.index = {c: i for i, c in enumerate(self.cells)}
        self.height_limit = height_limit
        self.character_bonus = dict(character_bonus)
        extra: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for a, b in extra_adjacency:
            extra.setdefault(a, []).append(b)
            extra.setdefault(b, []).append(a)
        self.extra = {k: tuple(v) for k, v in extra.items()}
        # Per (kind name, rotation index): candidate positions (x, y, column cell indices).
        self._candidates: dict[tuple[str, int], tuple] = {}
        # Per (kind name, rotation index): (x, y, getter of the column heights) for the hot path.
        self._getters: dict[tuple[str, int], tuple] = {}
        # Per (kind name, rotation index): column heights -> rest level (0 = illegal).  The
        # outcome of a placement depends only on the heights under its columns, and with
        # levels 0..3 there are few distinct tuples, so this memo is small and hot.
        self._memo: dict[tuple[str, int], dict] = {}
        self._cache: dict[tuple, dict] = {}
        self._any: dict[tuple, bool] = {}

    def candidates(self, kind: PieceKind, r: int) -> tuple:
        """Positions where rotation ``r``'s top-view footprint lies inside the site."""
        key = (kind.name, r)
        found = self._candidates.get(key)
        if found is None:
            rot = kind.rotations[r]
            dx0, dy0 = rot.columns[0]
            out = []
            for fx, fy in self.cells:
                x, y = fx - dx0, fy - dy0
                idx = []
                for dx, dy in rot.columns:
                    i = self.index.get((x + dx, y + dy))
                    if i is None:
                        break
                    idx.append(i)
                else:
                    out.append((x, y, tuple(idx)))
            found = tuple(out)
            self._candidates[key] = found
        return found

    def rest_level(self, rot: Rotation, column_heights: tuple[int, ...]) -> int:
        """Level of the piece's lowest layer when lowered onto these columns; 0 if illegal."""
        vals = [h - b for h, b in zip(column_heights, rot.bottoms, strict=True)]
        m = max(vals)
        if m + 1 + rot.top > self.height_limit:
            return 0
        mask = 0
        for j, v in enumerate(vals):
            if v == m:
                mask |= 1 << j
        return m + 1 if rot.stable[mask] else 0

    def _hot(self, kind: PieceKind, r: int) -> tuple[tuple, dict]:
        key = (kind.name, r)
        getters = self._getters.get(key)
        if getters is None:
            getters = tuple((x, y, _getter(idx)) for x, y, idx in self.candidates(kind, r))
            self._getters[key] = getters
            self._memo[key] = {}
        return getters, self._memo[key]

    def _scan(self, heights: tuple[int, ...], kind: PieceKind, first_only: bool) -> dict:
        found = {}
        for r, rot in enumerate(kind.rotations):
            getters, memo = self._hot(kind, r)
            for x, y, get in getters:
                hs = get(heights)
                base = memo.get(hs)
                if base is None:
                    base = self.rest_level(rot, hs)
                    memo[hs] = base
                if base:
                    found[(r, x, y)] = base
                    if first_only:
                        return found
        return found

    def placements(self, heights: tuple[int, ...], kind: PieceKind) -> dict:
        """Legal placements ``{(rotation, x, y): base level}`` on this heightmap (cached)."""
        key = (heights, kind.name)
        found = self._cache.get(key)
        if found is None:
            found = self._scan(heights, kind, False)
            if len(self._cache) > _CACHE_LIMIT:
                self._cache.clear()
            self._cache[key] = found
        return found

    def can_place(self, heights: tuple[int, ...], kind: PieceKind) -> bool:
        """Whether any legal placement exists (stops at the first one; cached)."""
        key = (heights, kind.name)
        full = self._cache.get(key)
        if full is not None:
            return bool(full)
        ok = self._any.get(key)
        if ok is None:
            ok = bool(self._scan(heights, kind, True))
            if len(self._any) > _CACHE_LIMIT:
                self._any.clear()
            self._any[key] = ok
        return ok


def _getter(idx: tuple[int, ...]):
    """A callable returning the heights at ``idx`` as a tuple (fast C itemgetter)."""
    if len(idx) == 1:
        i = idx[0]
        return lambda h: (h[i],)
    return itemgetter(*idx)
