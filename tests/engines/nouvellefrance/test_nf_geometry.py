"""Pieces, rotations and placement by lowering."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nf_helpers import (
    E,
    edit,
    heights_of,
    new,
    orientation_index,
    rotation_index,
    variant,
    with_cubes,
)

from games.engines.nouvellefrance.geometry import (
    Site,
    _rest_level,
    _rest_table,
    _scan,
    _vector,
)
from games.engines.nouvellefrance.variant import compile_variant
from games.engines.protocol import IllegalAction

CV = compile_variant(variant("standard"))
SHAPES = {k.name: k for k in CV.shapes}
BONUS = {k.name: k for k in CV.bonus}
CHURCH = CV.sites[CV.site_index["church"]]
REDOUBT = CV.sites[CV.site_index["redoubt"]]
BEAM_X = rotation_index(BONUS["beam"], {(0, 0, 0), (1, 0, 0), (2, 0, 0)})
BEAM_UP = rotation_index(BONUS["beam"], {(0, 0, 0), (0, 0, 1), (0, 0, 2)})


def test_distinct_rotation_counts() -> None:
    """X: 3 (flat, or standing in the x-z or y-z plane) because its 8 plane symmetries
    are realised by 3-D rotations, so 24 / 8 = 3; F has no symmetry: 24; the mirror
    symmetric U, W, V, T have 12; N, P, L have none (a mirror image counts once because
    flipping a flat piece is itself a 3-D rotation)."""
    counts = {name: len(k.rotations) for name, k in SHAPES.items()}
    assert counts == {
        "cross": 3,
        "horseshoe": 12,
        "stairs": 12,
        "square": 12,
        "eel": 24,
        "cannon": 24,
        "plough": 24,
        "scythe": 24,
        "weathervane": 12,
    }
    assert counts["cross"] < counts["plough"]
    assert [len(BONUS[b].rotations) for b in ("beam", "post", "peg")] == [3, 3, 1]
    flat = [r for r in SHAPES["cross"].rotations if all(c[2] == 0 for c in r.cubes)]
    assert len(flat) == 1


def test_coloured_orientations_distinguish_colour_layouts() -> None:
    """A quarter turn of the X keeps its shape but moves its colours: 24 coloured ones."""
    for pattern in CV.copies:
        orients = SHAPES["cross"].orientations(pattern)
        assert len(orients) == 24
        assert {r for r, _ in orients} == {0, 1, 2}
    assert len(BONUS["beam"].orientations((1, 1, 1))) == 3


def test_rotations_computed_once_per_variant() -> None:
    assert compile_variant(variant("standard")) is CV
    assert SHAPES["plough"].orientations(CV.copies[0]) is SHAPES["plough"].orientations(
        CV.copies[0]
    )
    h = heights_of(new(), "church", {})
    assert CHURCH.placements(h, SHAPES["eel"]) is CHURCH.placements(h, SHAPES["eel"])


def test_lowering_onto_uneven_stacks() -> None:
    beam = BONUS["beam"]
    # Supported at both ends by stacks of 2: rests on level 3, bridging the gap.
    h = heights_of(new(), "church", {(0, 0): 2, (2, 0): 2})
    assert CHURCH.placements(h, beam)[(BEAM_X, 0, 0)] == 3
    # Balanced on a middle stack of 2, centre over the support: stable at level 3.
    h = heights_of(new(), "church", {(0, 0): 1, (1, 0): 2})
    assert CHURCH.placements(h, beam)[(BEAM_X, 0, 0)] == 3
    # Resting on one end only: the centre (x = 1.5) lies outside the cell [0, 1]: unstable.
    h = heights_of(new(), "church", {(0, 0): 2})
    assert (BEAM_X, 0, 0) not in CHURCH.placements(h, beam)
    # On flat ground it simply lies on level 1.
    assert CHURCH.placements(heights_of(new(), "church", {}), beam)[(BEAM_X, 0, 0)] == 1


def test_upside_down_horseshoe_straddles_a_stack() -> None:
    u = SHAPES["horseshoe"]
    r = rotation_index(u, {(0, 0, 0), (2, 0, 0), (0, 0, 1), (1, 0, 1), (2, 0, 1)})
    # Middle column taller than the gap under the arch: rests on it, legs hang (stable).
    h = heights_of(new(), "church", {(1, 0): 2})
    assert CHURCH.placements(h, u)[(r, 0, 0)] == 2
    # The gap under the arch fits a stack of 1: the legs reach the ground.
    h = heights_of(new(), "church", {(1, 0): 1})
    assert CHURCH.placements(h, u)[(r, 0, 0)] == 1


def test_height_limit() -> None:
    beam = BONUS["beam"]
    assert CHURCH.placements(heights_of(new(), "church", {}), beam)[(BEAM_UP, 0, 0)] == 1
    h = heights_of(new(), "church", {(0, 0): 1})
    assert (BEAM_UP, 0, 0) not in CHURCH.placements(h, beam)
    full = heights_of(new(), "church", dict.fromkeys(CHURCH.cells, 3))
    assert CHURCH.placements(full, BONUS["peg"]) == {}


def test_outside_footprint_refused_and_state_unchanged() -> None:
    s = new(seed=3)
    s = edit(s, phase="draw")
    peg = BONUS["peg"]
    seat = s.active
    before = E.state_to_json(s)
    xs = [x for x, _y in CHURCH.cells]
    for x, y in [(1, 1), (max(xs) + 1, 0), (-1, 0), (2, 2)]:
        with pytest.raises(IllegalAction):
            E.apply(s, seat, ("bonus", "peg", "church", 0, x, y))
    # The redoubt bend: no piece may span its two cells, nor fill the missing corner.
    ((a, b),) = {tuple(sorted((k, v[0]))) for k, v in REDOUBT.extra.items()}
    corner = (b[0], a[1])
    assert corner not in REDOUBT.index
    with pytest.raises(IllegalAction):
        E.apply(s, seat, ("bonus", "peg", "redoubt", 0, *corner))
    assert E.state_to_json(s) == before
    assert (0, 0, 0) in {(r, x, y) for (r, x, y) in CHURCH.placements(s.heights[0], peg)}


def test_unstable_bonus_refused_through_apply() -> None:
    s = new(seed=5)
    seat = s.active
    s = edit(s, phase="draw")
    s = with_cubes(s, "church", {(0, 0, 1): 3, (0, 0, 2): 3})
    o = orientation_index(
        BONUS["beam"], (seat,) * 3, {(0, 0, 0, seat), (1, 0, 0, seat), (2, 0, 0, seat)}
    )
    with pytest.raises(IllegalAction, match="stand freely"):
        E.apply(s, seat, ("bonus", "beam", "church", o, 0, 0))
    t = E.apply(s, seat, ("bonus", "beam", "church", o, 1, 0))  # on the ground, stable
    assert {(1, 0, 1), (2, 0, 1), (3, 0, 1)} <= set(t.cubes[0])


# -- the support-hull rule -------------------------------------------------------------
#
# Rules file: "it is stable ("must stand freely"): the centre of mass of its cubes, seen
# from above, lies strictly inside the convex hull of the top faces it rests on (each
# resting cube's full 1x1 cell; the ground counts as support). A piece whose centre lies
# on the hull's edge, or over empty space beside its supports, falls and is illegal."
# German rulebook: "Die Bausteine müssen frei stehen können und dürfen nicht durch andere
# Bausteine oder Schneewehen gestützt werden."

FLOOR = Site("floor", "nobody", [(x, y) for x in range(4) for y in range(4)], 3, [], {})


def _floor(levels: dict[tuple[int, int], int]) -> tuple[int, ...]:
    return tuple(levels.get(c, 0) for c in FLOOR.cells)


def test_centre_on_the_edge_of_the_support_falls() -> None:
    """A post lying flat on one cube: its centre is on that cube's edge, so it falls."""
    post = BONUS["post"]
    flat = rotation_index(post, {(0, 0, 0), (1, 0, 0)})
    assert (flat, 0, 0) not in FLOOR.placements(_floor({(0, 0): 1}), post)
    assert (flat, 0, 0) not in FLOOR.placements(_floor({(1, 0): 1}), post)
    # Resting on both cubes, or on the ground, it stands.
    assert FLOOR.placements(_floor({(0, 0): 1, (1, 0): 1}), post)[(flat, 0, 0)] == 2
    assert FLOOR.placements(_floor({}), post)[(flat, 0, 0)] == 1


def test_centre_over_empty_space_between_diagonal_supports_falls() -> None:
    """Inside the rectangle the supports span but outside their convex hull: it falls.

    The flat F rests on (0, 1) and (1, 2); its centre (1.5, 1.3) lies below the hull
    edge from (1, 1) to (2, 2), over the empty cell (1, 1).
    """
    plough = SHAPES["plough"]
    cubes = {(0, 1, 0), (1, 0, 0), (1, 1, 0), (1, 2, 0), (2, 0, 0)}
    r = rotation_index(plough, cubes)
    supports = {(0, 1): 1, (1, 2): 1}
    assert (r, 0, 0) not in FLOOR.placements(_floor(supports), plough)
    # One more support under (1, 0) puts the centre strictly inside: it stands.
    assert FLOOR.placements(_floor(supports | {(1, 0): 1}), plough)[(r, 0, 0)] == 2


def test_centre_exactly_on_a_diagonal_hull_edge_falls() -> None:
    """The flat X on two neighbouring arms: the centre (1.5, 1.5) is on the edge x+y=3."""
    cross = SHAPES["cross"]
    flat = next(i for i, rot in enumerate(cross.rotations) if rot.top == 0)
    assert (flat, 0, 0) not in FLOOR.placements(_floor({(0, 1): 1, (1, 0): 1}), cross)
    # On the centre cube alone it balances (strictly inside the centre cell).
    assert FLOOR.placements(_floor({(1, 1): 1}), cross)[(flat, 0, 0)] == 2


def test_stability_table_is_the_hull_rule() -> None:
    """Every rotation's precomputed table equals the rule computed from scratch."""
    for kind in (*CV.shapes, *CV.bonus):
        for rot in kind.rotations:
            for mask, stable in enumerate(rot.stable):
                resting = [c for i, c in enumerate(rot.columns) if mask >> i & 1]
                assert stable == _hull_rule(rot.cubes, resting)


def _hull_rule(cubes, resting) -> bool:
    """Independent float version: the centre is strictly inside the convex hull of the
    resting cells' corners when the corners seen from it leave no angular gap of half a
    turn or more (a gap of exactly half a turn puts it on an edge)."""
    if not resting:
        return False
    cx = sum(c[0] + 0.5 for c in cubes) / len(cubes)
    cy = sum(c[1] + 0.5 for c in cubes) / len(cubes)
    corners = {(x + i, y + j) for x, y in resting for i in (0, 1) for j in (0, 1)}
    angles = sorted(math.atan2(py - cy, px - cx) for px, py in corners if (px, py) != (cx, cy))
    gaps = [b - a for a, b in itertools.pairwise(angles)]
    gaps.append(angles[0] + 2 * math.pi - angles[-1])
    return max(gaps) < math.pi - 1e-9


def _brute_force(site, heights, kind):
    """Independent re-implementation with explicit lowering and float centre of mass."""
    h = dict(zip(site.cells, heights, strict=True))
    found = {}
    xs = [c[0] for c in site.cells]
    ys = [c[1] for c in site.cells]
    for r, rot in enumerate(kind.rotations):
        for x in range(min(xs) - 4, max(xs) + 5):
            for y in range(min(ys) - 4, max(ys) + 5):
                cols = {(x + dx, y + dy) for dx, dy, _ in rot.cubes}
                if not cols <= set(site.cells):
                    continue
                base = 30
                while base > 1 and all(
                    base - 1 + dz > h[(x + dx, y + dy)] for dx, dy, dz in rot.cubes
                ):
                    base -= 1
                cubes = [(x + dx, y + dy, base + dz) for dx, dy, dz in rot.cubes]
                if max(c[2] for c in cubes) > site.height_limit:
                    continue
                own = set(cubes)
                resting = [
                    c[:2]
                    for c in cubes
                    if c[2] == 1 or ((c[0], c[1], c[2] - 1) not in own and h[c[:2]] == c[2] - 1)
                ]
                rel = [(cx - x, cy - y) for cx, cy in resting]
                offsets = [(dx, dy) for dx, dy, _dz in rot.cubes]
                if _hull_rule([(dx, dy, 0) for dx, dy in offsets], rel):
                    found[(r, x, y)] = base
    return found


@settings(max_examples=max(30, settings.default.max_examples), deadline=None)
@given(
    site=st.sampled_from((*CV.sites, FLOOR)),
    kind=st.sampled_from(CV.shapes + CV.bonus),
    data=st.data(),
)
def test_placements_match_brute_force(site, kind, data) -> None:
    heights = tuple(data.draw(st.integers(0, 3)) for _ in site.cells)
    fast = site.placements(heights, kind)
    assert fast == _brute_force(site, heights, kind)
    for (r, x, y), base in fast.items():
        for dx, dy, dz in kind.rotations[r].cubes:
            j = site.index[(x + dx, y + dy)]
            # never under (or inside) an existing cube, never above the limit
            assert heights[j] < base + dz <= site.height_limit


def _plain_scan(site, heights, kind):
    """The candidate-by-candidate scan (order included) the packed one must reproduce."""
    return list(_scan(site, heights, kind, False).items())


@settings(max_examples=max(30, settings.default.max_examples), deadline=None)
@given(
    site=st.sampled_from((*CV.sites, FLOOR)),
    kind=st.sampled_from(CV.shapes + CV.bonus),
    data=st.data(),
)
def test_packed_placements_keep_the_scan_order(site, kind, data) -> None:
    """The order of ``placements`` is the order of ``legal_actions``: rotation, then
    position, exactly as the plain scan finds them."""
    heights = tuple(data.draw(st.integers(0, 3)) for _ in site.cells)
    found = site.placements(heights, kind)
    assert list(found.items()) == _plain_scan(site, heights, kind)
    keys = site.candidate_keys(kind)
    bases = site.legal_bases(heights, kind)
    assert [(k, b) for k, b in zip(keys, bases, strict=True) if b] == list(found.items())
    for key in (*keys, (0, -9, -9)):
        assert site.rest_at(heights, kind, key) == found.get(key)


@pytest.mark.parametrize("limit", [7, 12, 10**4])
def test_placements_on_tall_sites_match_brute_force(limit) -> None:
    """Wider codes (limit 7: 4-byte fields), a rest table too big to build whole (limit
    12: computed code by code) and codes too wide to pack (limit 10**4: the plain scan)
    give the same placements."""
    rng = random.Random(limit)
    site = Site("tower", "nobody", [(x, y) for x in range(3) for y in range(3)], limit, [], {})
    assert (_vector(site, SHAPES["plough"]) is None) == (limit > 12)
    for kind in (SHAPES["plough"], SHAPES["cross"], BONUS["post"]):
        for _ in range(20):
            heights = tuple(rng.randrange(min(limit, 20) + 1) for _ in site.cells)
            assert site.placements(heights, kind) == _brute_force(site, heights, kind)
            assert list(site.placements(heights, kind).items()) == _plain_scan(
                site, heights, kind
            )


@settings(max_examples=max(30, settings.default.max_examples), deadline=None)
@given(
    site=st.sampled_from((*CV.sites, FLOOR)),
    kind=st.sampled_from(CV.shapes + CV.bonus),
    data=st.data(),
)
def test_can_place_agrees_with_placements_as_a_site_fills(site, kind, data) -> None:
    """``can_place`` first tries the candidate that was legal last time: a hint that must
    never change the answer, whatever the heights were before."""
    heights = [0] * len(site.cells)
    for _ in range(data.draw(st.integers(1, 12))):
        for _ in range(data.draw(st.integers(1, 6))):
            i = data.draw(st.integers(0, len(site.cells) - 1))
            heights[i] = min(site.height_limit, heights[i] + data.draw(st.integers(1, 2)))
        h = tuple(heights)
        assert site.can_place(h, kind) == bool(site.placements(h, kind))


def test_rest_tables_built_from_the_legal_codes_equal_the_rule() -> None:
    """The complete tables list only the legal codes (by construction, per resting set):
    every code agrees with ``_rest_level`` on those column heights."""
    limit = 3
    radix = limit + 1
    for kind in (*CV.shapes, *CV.bonus):
        table = _rest_table(kind, limit)
        width = max(len(rot.columns) for rot in kind.rotations)
        for r, rot in enumerate(kind.rotations):
            for heights in itertools.product(range(radix), repeat=len(rot.columns)):
                code = r * radix**width + sum(h * radix**j for j, h in enumerate(heights))
                expected = _rest_level(rot.bottoms, rot.top, rot.stable, limit, heights)
                assert table[code] == expected, (kind.name, r, heights)


def test_a_site_too_small_for_a_piece_has_no_candidates() -> None:
    """No position at all (the plain scan's empty answer) and a single one (one code)."""
    dot = Site("dot", "nobody", [(0, 0)], 3, [], {})
    cross, peg = SHAPES["cross"], BONUS["peg"]
    assert dot.candidate_keys(cross) is None and dot.legal_bases((0,), cross) is None
    assert dot.placements((0,), cross) == {} and not dot.can_place((0,), cross)
    assert dot.rest_at((0,), cross, (0, 0, 0)) is None
    assert dot.placements((0,), peg) == {(0, 0, 0): 1} and dot.can_place((0,), peg)
    assert dot.placements((3,), peg) == {} and not dot.can_place((3,), peg)
    assert dot.rest_at((2,), peg, (0, 0, 0)) == 3
