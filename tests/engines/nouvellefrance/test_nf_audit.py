"""Rule-by-rule audit against the rules file: components, set-up, placement, scoring,
hidden information and the legal/apply agreement, each point guarded by a test."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from nf_helpers import (
    E,
    edit,
    new,
    orientation_index,
    play_random,
    rotation_index,
    variant,
    with_cubes,
)

from games.engines.nouvellefrance.state import SNOWFLAKE
from games.engines.nouvellefrance.variant import compile_variant
from games.engines.protocol import IllegalAction

CV = compile_variant(variant("standard"))
SITES = {s.name: s for s in CV.sites}
SHAPES = {k.name: k for k in CV.shapes}
BONUS = {k.name: k for k in CV.bonus}
W, B, Y, U = 0, 1, 2, 3


# -- components --------------------------------------------------------------------


def _ring(w: int, h: int) -> set[tuple[int, int]]:
    return {(x, y) for x in range(w) for y in range(h) if x in (0, w - 1) or y in (0, h - 1)}


def test_site_footprints_characters_and_heights() -> None:
    """Rules file: "`church` ... the ring of a 10x6 rectangle, x 0..9, y 0..5, border cells
    only (28 cells). `mill` ...: the ring of a 7x7 square (24 cells). `redoubt` ...: arm 1
    cells (0..9, 0), arm 2 cells (10, 1..10) (20 cells) ... an *extra adjacency* pair
    ((9,0),(10,1)) that holds on every level", then "tune the numbers above by simulation
    if they miss the target, and record the tuning": the mill grew to an 8x8 ring and the
    redoubt's arms to 15 cells each (see the tuning log in ``variant``)."""
    church, mill, redoubt = SITES["church"], SITES["mill"], SITES["redoubt"]
    assert set(church.cells) == _ring(10, 6) and len(church.cells) == 28
    assert set(mill.cells) == _ring(8, 8) and len(mill.cells) == 28
    assert set(redoubt.cells) == {(x, 0) for x in range(15)} | {(15, y) for y in range(1, 16)}
    assert len(redoubt.cells) == 30
    assert (church.character, mill.character, redoubt.character) == (
        "priest",
        "colonist",
        "soldier",
    )
    assert all(s.height_limit == 3 for s in CV.sites)
    assert redoubt.extra == {(14, 0): ((15, 1),), (15, 1): ((14, 0),)}
    assert church.extra == {} and mill.extra == {}
    # Walls one cube thick: every cell has at most two face neighbours in its site.
    for site in CV.sites:
        for x, y in site.cells:
            near = {(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)} & set(site.cells)
            assert len(near) <= 2


# -- acceptance of footprint data -----------------------------------------------------
#
# Rules file: "in 4-player self-play by the greedy bot, at most 5% of the building pieces
# drawn are unplaceable, and at the 1st storm level 1 is on average at least 40% full per
# site".  The bots fill level 1 by the symbol of the stick a site was dealt (x2 site ~0.95,
# - site ~0.33, + site ~0.14: step 3 of the tuning log in ``variant``), so "on average" is
# over the games, per site; it judges the footprints without the luck of the sticks.
# The quick sample deals every site every stick equally often (each of the six deals the
# same number of times), so its per-site means carry no stick luck either; the long test
# is the acceptance run itself (the command in the ``variant`` docstring).

SITE_NAMES = [site.name for site in CV.sites]
GREEDY_SAMPLE_PER_DEAL = 2  # 6 deals x 2 = 12 games


def _stick_balanced_seeds(per_deal: int) -> list[int]:
    """The first seeds of 4-player games giving each deal of the sticks ``per_deal`` times."""
    seeds: list[int] = []
    counts: Counter = Counter()
    seed = 0
    while len(seeds) < 6 * per_deal:
        deal = new("standard", 4, seed).sticks
        if counts[deal] < per_deal:
            counts[deal] += 1
            seeds.append(seed)
        seed += 1
    return seeds


def _means(records: list[dict]) -> dict[str, float]:
    """Mean over the games of the figures the acceptance reads."""
    names = ["unplaceable_share", *(f"level1_fill_at_first_storm_{n}" for n in SITE_NAMES)]
    return {n: sum(r["figures"][n] for r in records) / len(records) for n in names}


def _assert_accepted(means: dict[str, float]) -> None:
    assert means["unplaceable_share"] <= 0.05, means
    for name in SITE_NAMES:
        assert means[f"level1_fill_at_first_storm_{name}"] >= 0.40, (name, means)


@pytest.fixture(scope="module")
def greedy_self_play() -> dict[str, float]:
    """4 greedy players, 12 games balanced over the deals of the sticks: the means."""
    from tools import simulate

    greedy = [simulate.resolve_bot("greedy")] * 4
    seeds = _stick_balanced_seeds(GREEDY_SAMPLE_PER_DEAL)
    assert Counter(new("standard", 4, s).sticks for s in seeds) == Counter(
        dict.fromkeys(itertools.permutations(range(3)), GREEDY_SAMPLE_PER_DEAL)
    )
    records = [simulate.play_one(E, variant("standard"), 4, s, greedy) for s in seeds]
    assert [r.get("error") for r in records] == [None] * len(seeds)
    return _means(records)


def test_acceptance_at_most_5_percent_of_drawn_pieces_unplaceable(greedy_self_play) -> None:
    """Rules file, acceptance of footprint data: "in 4-player self-play by the greedy bot,
    at most 5% of the building pieces drawn are unplaceable".  The spec's first data (72
    cells) left 17.5% unplaceable; the earlier reconstruction (40 cells) is refused by the
    validator (test_nf_variants)."""
    assert greedy_self_play["unplaceable_share"] <= 0.05, greedy_self_play


def test_acceptance_level_1_at_least_40_percent_full_per_site_at_the_first_storm(
    greedy_self_play,
) -> None:
    """Rules file, acceptance of footprint data: "at the 1st storm level 1 is on average at
    least 40% full per site" (measured: 46-50%): each site's ``level1_fill_at_first_storm_
    <site>`` averaged over the games.  (The earlier "every site at least half full" could
    not hold: see step 3 of the tuning log in ``variant``.)"""
    for name in SITE_NAMES:
        assert greedy_self_play[f"level1_fill_at_first_storm_{name}"] >= 0.40, (
            name, greedy_self_play
        )


@pytest.mark.long
def test_acceptance_run_of_200_games() -> None:
    """The acceptance run of the ``variant`` docstring, 200 games from seed 0: both
    criteria on the means the rules file quotes."""
    from tools import simulate

    report = simulate.run("nouvellefrance", players=4, games=200, bots=["greedy"], seed=0)
    assert report["errors"] == [] and report["completed"] == 200
    _assert_accepted({name: stats["mean"] for name, stats in report["figures"].items()})


def test_no_piece_spans_the_redoubt_bend() -> None:
    """Rules file: "(9,0) and (10,1) touch only at the bend ... It joins cubes for scoring
    only; no piece can span the bend." """
    redoubt = SITES["redoubt"]
    ((a, _b),) = {tuple(sorted((k, v[0]))) for k, v in redoubt.extra.items()}
    arm1 = {c for c in redoubt.cells if c[1] == a[1]}
    arm2 = set(redoubt.cells) - arm1
    for kind in (*CV.shapes, *CV.bonus):
        for r, rot in enumerate(kind.rotations):
            for x, y, _idx in redoubt.candidates(kind, r):
                cols = {(x + dx, y + dy) for dx, dy in rot.columns}
                assert cols <= arm1 or cols <= arm2


# The twelve pentominoes drawn by letter; a shape matches a letter when some planar
# rotation or mirror image of it equals the drawing (normalised to min 0).
PICTURES = {
    "X": [".#.", "###", ".#."],
    "U": ["#.#", "###"],
    "W": ["#..", "##.", ".##"],
    "V": ["#..", "#..", "###"],
    "N": [".#", ".#", "##", "#."],
    "P": ["##", "##", "#."],
    "F": [".##", "##.", ".#."],
    "L": ["#.", "#.", "#.", "##"],
    "T": ["###", ".#.", ".#."],
    "I": ["#####"],
    "Y": [".#", "##", ".#", ".#"],
    "Z": ["##.", ".#.", ".##"],
}


def _norm(cells) -> frozenset:
    cells = list(cells)
    mx = min(c[0] for c in cells)
    my = min(c[1] for c in cells)
    return frozenset((x - mx, y - my) for x, y in cells)


def _forms(cells) -> set[frozenset]:
    out = set()
    cur = list(cells)
    for _ in range(4):
        cur = [(y, -x) for x, y in cur]
        out.add(_norm(cur))
        out.add(_norm([(-x, y) for x, y in cur]))
    return out


def _letter(cells) -> str:
    forms = _forms(cells)
    found = [
        k
        for k, pic in PICTURES.items()
        if _norm([(x, y) for y, row in enumerate(pic) for x, ch in enumerate(row) if ch == "#"])
        in forms
    ]
    assert len(found) == 1
    return found[0]


def test_the_nine_shapes_are_the_named_pentominoes() -> None:
    expected = {
        "cross": "X",
        "horseshoe": "U",
        "stairs": "W",
        "square": "V",
        "eel": "N",
        "cannon": "P",
        "plough": "F",
        "scythe": "L",
        "weathervane": "T",
    }
    assert [k.name for k in CV.shapes] == list(expected)
    for name, letter in expected.items():
        assert len(SHAPES[name].cells) == 5
        assert _letter(SHAPES[name].cells) == letter, name


def test_rotation_counts_follow_from_the_symmetry_groups() -> None:
    """24 / |planar symmetry group (mirrors included)|: a mirror is a 3-D half turn."""
    for name, kind in SHAPES.items():
        sym = sum(1 for f in _all_planar_maps() if _norm(map(f, kind.cells)) == _norm(kind.cells))
        assert len(kind.rotations) == 24 // sym, name
        # every rotation is a genuinely different cube set, and each is upright or flat
        sets = {frozenset(r.cubes) for r in kind.rotations}
        assert len(sets) == len(kind.rotations)
        for r in kind.rotations:
            assert any(len({c[i] for c in r.cubes}) == 1 for i in range(3))


def _all_planar_maps():
    return [
        lambda c: (c[0], c[1]),
        lambda c: (-c[1], c[0]),
        lambda c: (-c[0], -c[1]),
        lambda c: (c[1], -c[0]),
        lambda c: (-c[0], c[1]),
        lambda c: (c[0], -c[1]),
        lambda c: (c[1], c[0]),
        lambda c: (-c[1], -c[0]),
    ]


def test_copy_colours_bonus_pieces_cards_sticks_bonuses() -> None:
    assert CV.copies == tuple(tuple((k + d) % 4 for d in (0, 0, 1, 2, 3)) for k in range(4))
    assert CV.colours == ("white", "brown", "yellow", "blue")
    assert [(b.name, len(b.cells)) for b in CV.bonus] == [("beam", 3), ("post", 2), ("peg", 1)]
    assert set(BONUS["beam"].cells) == {(0, 0), (1, 0), (2, 0)}  # in a row
    assert CV.bonus_expiry == (1, 2, 3)
    assert CV.cards_per_shape == (4,) * 9 and CV.storms == 3 and CV.total_cards == 39
    assert dict(zip(CV.stick_names, CV.sticks, strict=True)) == {
        "A": ("+", "x2", "-"),
        "B": ("x2", "-", "+"),
        "C": ("-", "+", "x2"),
    }
    assert CV.symbols == {"+": 1, "x2": 2, "-": -1}
    for site in CV.sites:
        assert site.character_bonus == {"+": 6, "x2": 4, "-": 8}
    # bonus pieces are all in the placing player's colour
    for seat in range(4):
        s = edit(new(n=4, seed=3), active=seat, phase="draw")
        t = E.apply(s, seat, ("bonus", "beam", "mill", 0, 0, 0))
        assert set(t.cubes[1].values()) == {seat}
    # sticks are dealt at random
    assert len({new(seed=k).sticks for k in range(40)}) == 6


# -- set-up --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "piles"), [("standard", [11, 5, 5, 5, 5, 5]), ("simple", [6] * 6)]
)
def test_setup_piles_and_display(name: str, piles: list[int]) -> None:
    within: dict[int, set[int]] = {2: set(), 4: set(), 6: set()}
    for seed in range(60):
        s = new(name, 2, seed)
        face_up = 2 if name == "standard" else 0
        assert len(s.display) == face_up and SNOWFLAKE not in s.display
        labels = [1] * face_up + list(s.deck_piles)
        cards = list(s.display) + list(s.deck)
        assert labels == sorted(labels)  # pile 1 is drawn first, pile 6 last
        sizes = Counter(labels)
        for p, size in enumerate(piles, start=1):
            assert sizes[p] == size + (p in (2, 4, 6))
        assert Counter(c for c in cards if c != SNOWFLAKE) == Counter(dict.fromkeys(range(9), 4))
        for p in within:
            pile = [c for c, lab in zip(cards, labels, strict=True) if lab == p]
            within[p].add(pile.index(SNOWFLAKE))
        assert s.scores == (0, 0) and s.bonus == (("ready",) * 3,) * 2
        assert s.ready == ((True, True, True),) * 2 and s.holders == (-1, -1, -1)
    # the snowflake is shuffled into its pile, not put on top or bottom
    for p in within:
        assert len(within[p]) >= 4


# -- a turn --------------------------------------------------------------------------


def test_bonus_piece_replaces_the_draw_and_the_card() -> None:
    s = edit(new(n=2, seed=8), active=0, phase="draw")
    t = E.apply(s, 0, ("bonus", "post", "church", 0, 0, 0))
    assert t.display == s.display and t.deck == s.deck and t.discard == s.discard
    assert t.supply == s.supply and t.placed == s.placed
    assert t.phase == "fille" and t.points == 2  # two own cubes, nothing to touch
    with pytest.raises(IllegalAction):
        E.apply(t, 0, ("draw",))
    u = E.apply(E.apply(t, 0, ("no_ally",)), 1, ("coureur",))  # 2 // 2 = 1 for seat 1
    assert u.scores == (2, 1) and u.active == 1


def test_coureur_clockwise_skips_used_ones_and_never_the_active_player() -> None:
    s = edit(new(n=4, seed=4), active=2, phase="draw")
    s = edit(
        s, ready=((True, True, True), (True, True, True), (True, True, True), (True, False, True))
    )
    t = E.apply(s, 2, ("bonus", "beam", "church", 0, 0, 0))
    assert t.points == 3
    t = E.apply(t, 2, ("no_ally",))
    assert E.to_move(t) == [0]  # seat 3 (left of 2) has used its Coureur: seat 0 next
    t = E.apply(t, 0, ("decline",))
    assert E.to_move(t) == [1]
    t = E.apply(t, 1, ("decline",))
    assert t.phase != "coureur" and t.active == 3  # the active seat 2 is never asked


def test_discard_lets_the_player_choose_the_copy_and_keeps_the_turn() -> None:
    """Rules file: "If no face-up card can be played: discard one face-up card of your
    choice, remove one copy of its shape of your choice from the game (if any is left),
    draw again and restart step 3." """
    s = new(n=2, seed=5)
    s = edit(s, phase="card", display=(0, 1, 2))
    # nothing fits anywhere: every site full to the top
    full = tuple((3,) * len(site.cells) for site in s.compiled.sites)
    s = edit(s, heights=full)
    s = edit(s, supply=tuple((i != 2, True, i != 2, True) for i in range(9)))
    me = s.active
    assert E.legal_actions(s, me) == [
        *[("discard", 0, k) for k in range(4)],
        *[("discard", 1, k) for k in range(4)],
        ("discard", 2, 1),
        ("discard", 2, 3),
    ]
    t = E.apply(s, me, ("discard", 1, 2))
    assert t.removed_pieces == ((1, 2),) and t.active == me
    assert t.supply[1] == (True, True, False, True)
    assert t.discard == (1,) and len(t.display) == 3 and t.display[:2] == (0, 2)
    with pytest.raises(IllegalAction, match="no such face-up card"):
        E.apply(s, me, ("discard", 7, 0))
    with pytest.raises(IllegalAction, match="copy of that shape that goes back in the box"):
        E.apply(s, me, ("discard", 1))
    with pytest.raises(IllegalAction, match="one of 1, 3"):
        E.apply(s, me, ("discard", 2, 0))  # copy 0 of shape 2 is gone already
    event = E.describe_action(s, ("discard", 2, 3))
    assert event["type"] == "discarded" and (event["shape"], event["copy"]) == (
        s.compiled.shapes[2].name,
        3,
    )
    # Two face-up cards of one shape are alike: the event does not say which went.
    twins = edit(s, display=(1, 1, 2))
    assert E.describe_action(twins, ("discard", 0, 2)) == E.describe_action(
        twins, ("discard", 1, 2)
    )
    # With no copy of its shape left, the card alone is discarded.
    bare = edit(s, supply=tuple((False,) * 4 if i == 0 else c for i, c in enumerate(s.supply)))
    assert ("discard", 0) in E.legal_actions(bare, me)
    u = E.apply(bare, me, ("discard", 0))
    assert u.removed_pieces == () and E.describe_action(bare, ("discard", 0))["copy"] is None


# -- placement -----------------------------------------------------------------------


def test_stability_uses_the_hull_of_the_resting_cubes() -> None:
    """Rules file: "the centre of mass of its cubes, seen from above, lies strictly inside
    the convex hull of the top faces it rests on" (more cases in test_nf_geometry)."""
    s = edit(new(n=2, seed=2), active=0, phase="draw")
    beam_x = rotation_index(BONUS["beam"], {(0, 0, 0), (1, 0, 0), (2, 0, 0)})
    beam_o = orientation_index(BONUS["beam"], (0, 0, 0), {(0, 0, 0, 0), (1, 0, 0, 0), (2, 0, 0, 0)})
    assert beam_x == BONUS["beam"].orientations((0, 0, 0))[beam_o][0]
    # resting on its end cube only: centre 1.5 outside [0, 1]
    end = with_cubes(s, "church", {(0, 0, 1): B})
    with pytest.raises(IllegalAction, match="stand freely"):
        E.apply(end, 0, ("bonus", "beam", "church", beam_o, 0, 0))
    # resting on its middle cube: centre inside [1, 2]
    mid = with_cubes(s, "church", {(1, 0, 1): B})
    assert E.apply(mid, 0, ("bonus", "beam", "church", beam_o, 0, 0)).cubes[0][(0, 0, 2)] == W
    # a flat L resting on two diagonal corners: the hull they span holds its centre
    L = SHAPES["scythe"]
    flat = {(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0), (0, 1, 0)}
    r = rotation_index(L, flat)
    church = SITES["church"]
    h = tuple({(3, 0): 1, (0, 1): 1}.get(c, 0) for c in church.cells)
    assert church.placements(h, L).get((r, 0, 0)) == 2
    # ... but not resting on one end only
    h1 = tuple({(3, 0): 1}.get(c, 0) for c in church.cells)
    assert (r, 0, 0) not in church.placements(h1, L)


def test_pieces_rest_at_buried_levels_and_score_nothing_there() -> None:
    s = edit(new(n=2, seed=3), storms=1, active=0, phase="draw")
    post = BONUS["post"]
    flat = orientation_index(post, (0, 0), {(0, 0, 0, 0), (1, 0, 0, 0)})
    upright = orientation_index(post, (0, 0), {(0, 0, 0, 0), (0, 0, 1, 0)})
    t = E.apply(s, 0, ("bonus", "post", "mill", flat, 0, 0))  # on the snow-covered ground
    assert set(t.cubes[1]) == {(0, 0, 1), (1, 0, 1)} and t.points == 0
    t = E.apply(s, 0, ("bonus", "post", "mill", upright, 0, 0))  # level 1 buried, level 2 not
    assert set(t.cubes[1]) == {(0, 0, 1), (0, 0, 2)} and t.points == 1


# -- scoring and the end ----------------------------------------------------------------


def test_last_storm_buries_nothing_level_three_stays_uncovered() -> None:
    s = new(n=2, seed=9)
    s = edit(s, storms=2, phase="draw", deck=(SNOWFLAKE, *s.deck), deck_piles=(6, *s.deck_piles))
    s = with_cubes(s, "church", {(0, 0, 1): W, (0, 0, 2): W, (0, 0, 3): W})
    mid = E.observe(s, None)
    assert mid["buried_levels"] == 2
    assert [c["covered"] for c in mid["sites"][0]["cubes"]] == [True, True, False]
    t = E.apply(s, s.active, ("draw",))
    assert E.is_over(t)
    view = E.observe(t, None)
    assert view["buried_levels"] == 2  # "bury level k (k <= 2)"
    assert [c["covered"] for c in view["sites"][0]["cubes"]] == [True, True, False]


def test_storm_counts_bonus_cubes_and_ignores_neutral_colours() -> None:
    s = new(n=2, seed=9)
    s = edit(
        s, sticks=(0, 1, 2), phase="draw", deck=(SNOWFLAKE, *s.deck), deck_piles=(2, *s.deck_piles)
    )
    s = with_cubes(s, "church", {(0, 0, 1): W, (1, 0, 1): Y, (2, 0, 1): U, (3, 0, 2): B})
    t = E.apply(s, s.active, ("draw",))
    assert t.scores == (1, 0)  # yellow and blue belong to nobody; brown is on level 2


# -- hidden information --------------------------------------------------------------------


def _reordered(seed: int):
    """A 3-player game where the active seat reordered a window mixing piles 1 and 2."""
    s = new("standard", 3, seed)
    # Leave two pile-1 cards on top so the Huron window holds piles 1, 1, 2.
    keep = len([p for p in s.deck_piles if p == 1]) - 2
    me = s.active
    s = edit(
        s,
        deck=s.deck[keep:],
        deck_piles=s.deck_piles[keep:],
        discard=s.deck[:keep],
        phase="huron",
        huron_queue=(me,),
    )
    t = E.apply(s, me, ("huron",))
    assert t.deck_piles[:3] == (1, 1, 2)
    return s, me, E.apply(t, me, ("order", 2, 0, 1))


def test_determinize_hides_a_huron_reorder_from_the_others() -> None:
    s, me, t = _reordered(4)
    assert t.deck_piles[:3] == (2, 1, 1)
    other = (me + 1) % 3
    windows = set()
    for k in range(40):
        d = E.determinize(t, other, random.Random(k))
        windows.add(d.deck_piles[:3])
        # The same cards, and each snowflake in its pile (which building card lies in
        # which pile is hidden: see test_nf_determinize).
        assert Counter(d.deck) == Counter(t.deck)
        assert Counter(p for p, c in zip(d.deck_piles, d.deck, strict=True) if c < 0) == \
            Counter(p for p, c in zip(t.deck_piles, t.deck, strict=True) if c < 0)
        assert sorted(d.deck_piles[:3]) == [1, 1, 2] and d.deck_piles[3:] == t.deck_piles[3:]
        assert E.observe(d, other) == E.observe(t, other)
    # the others cannot tell which of the three positions holds the pile-2 card
    assert windows == {(2, 1, 1), (1, 2, 1), (1, 1, 2)}
    for k in range(10):
        d = E.determinize(t, me, random.Random(k))
        # Its own cards stay put; the pile labels are the public ones (as dealt).
        assert d.deck[:3] == t.deck[:3] and d.deck_piles == s.deck_piles
    # without any reorder the pile labels of every position are public and kept
    fresh = new("standard", 3, 4)
    for k in range(10):
        assert E.determinize(fresh, None, random.Random(k)).deck_piles == fresh.deck_piles


def test_worlds_do_not_tell_which_pile_a_card_drawn_after_a_huron_came_from() -> None:
    """Two decks another seat cannot tell apart: the same cards in the same order after a
    Huron reorder, the same draw, but the drawn card from pile 1 in one and from pile 2
    in the other.  That seat's worlds (what its AI searches) are the same for both."""
    _s, me, t = _reordered(4)
    twin = edit(t, deck_piles=(1, 1, 2, *t.deck_piles[3:]))
    assert twin.deck_piles != t.deck_piles
    other = (me + 1) % 3
    drawn = [E.apply(edit(x, phase="draw", huron_queue=()), me, ("draw",)) for x in (t, twin)]
    assert drawn[0].deck == drawn[1].deck and drawn[0].deck_piles != drawn[1].deck_piles
    assert E.observe(drawn[0], other) == E.observe(drawn[1], other)
    for k in range(30):
        a, b = (E.determinize(x, other, random.Random(k)) for x in drawn)
        assert (a.deck, a.deck_piles) == (b.deck, b.deck_piles)


def test_an_old_reorder_stays_hidden_while_its_author_peeks_again() -> None:
    """The positions a reorder moved stay mixed for the others until they are drawn, even
    while the same player looks again (their fresh peek changes nothing yet)."""
    s, me, _t = _reordered(4)
    t = E.apply(E.apply(s, me, ("huron",)), me, ("order", 0, 2, 1))
    assert t.deck_piles[:3] == (1, 2, 1) and t.reordered == 3
    t = edit(t, phase="draw", huron_queue=())
    t = E.apply(t, me, ("draw",))  # the pile-1 card comes up; (2, 1) stay mixed
    assert t.deck_piles[:2] == (2, 1) and t.reordered == 2 and t.known[me] == 2
    t = edit(t, phase="huron", huron_queue=(me,), ready=((True,) * 3,) * 3)
    peeking = E.apply(t, me, ("huron",))
    assert peeking.phase == "huron_order" and peeking.known[me] == 3
    other = (me + 1) % 3
    for seat in (other, None):
        seen = {E.determinize(peeking, seat, random.Random(k)).deck_piles[:2] for k in range(30)}
        assert seen == {(2, 1), (1, 2)}
    assert {E.determinize(peeking, me, random.Random(k)).deck[:3] for k in range(5)} == {
        peeking.deck[:3]
    }


def test_huron_events_reveal_no_card_and_no_order() -> None:
    """Rules file: "the order is now known to that player only"; the events say who
    looked and how many cards, never which ones or their order."""
    s = new("standard", 2, 2)
    me = s.active
    s = edit(s, phase="huron", huron_queue=(me,))
    assert E.describe_action(s, ("huron",)) == {"type": "huron", "seat": me, "cards": 3}
    t = E.apply(s, me, ("huron",))
    events = [E.describe_action(t, a) for a in E.legal_actions(t, me)]
    assert len(events) == 6
    assert all(e == {"type": "huron_ordered", "seat": me, "cards": 3} for e in events)
    spectator = E.observe(t, None)
    assert spectator["huron_known"] == [] and "deck" not in spectator
    after = [E.observe(E.apply(t, me, a), None) for a in E.legal_actions(t, me)]
    assert all(view == after[0] for view in after)


# -- errors --------------------------------------------------------------------------------


def test_refusals_explain_what_is_wrong() -> None:
    s = new("standard", 2, 2)
    me = s.active
    s = edit(s, phase="huron", huron_queue=(me,))
    t = E.apply(s, me, ("huron",))
    with pytest.raises(IllegalAction, match=r"positions 0\.\.2"):
        E.apply(t, me, ("order", 0, 0, 1))
    with pytest.raises(IllegalAction, match="waiting for putting the peeked cards"):
        E.apply(t, me, ("draw",))
    c = edit(new("standard", 2, 2), phase="copy", pending_card=0)
    shape = c.display[0]
    c = edit(
        c,
        supply=tuple(
            (False, True, True, True) if i == shape else v for i, v in enumerate(c.supply)
        ),
    )
    with pytest.raises(IllegalAction, match="not in the supply"):
        E.apply(c, c.active, ("copy", 0))
    f = edit(new("standard", 2, 2), phase="fille", points=3)
    with pytest.raises(IllegalAction, match="fille_du_roy"):
        E.apply(f, f.active, ("fille_du_roy", 1))


@pytest.mark.parametrize(
    ("path", "value", "field", "words"),
    [
        (("bonus_pieces", 1, "cells"), [[0, 0], [2, 0]], "bonus_pieces[1].cells", "face-connected"),
        (("sites", 1, "height_limit"), -2, "sites[1].height_limit", "at least 1"),
        (("deck", "snowflake_piles"), [2, 2, 6], "deck.snowflake_piles", "duplicate"),
        (("sites", 0, "footprint"), [[0, 0], [1]], "sites[0].footprint", ""),
        (
            ("shapes", 0, "cells"),
            [[0, 0], [0, 0], [1, 0], [2, 0], [3, 0]],
            "shapes[0].cells",
            "duplicate",
        ),
    ],
)
def test_more_variant_problems_name_the_field(path, value, field: str, words: str) -> None:
    v = variant("standard")
    node = v
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    problems = E.validate_variant(v)
    assert any(p.startswith(field) and words in p for p in problems), problems


# -- legal actions and apply agree, late in the game -----------------------------------------


def _late(name: str, n: int, seed: int):
    """The last position of a random game at the place step (sites crowded by then)."""
    rng = random.Random(seed)
    last = None
    for _b, _seat, _a, t in play_random(new(name, n, seed), rng):
        if t.phase == "place":
            last = t
    return last


@pytest.mark.parametrize(
    ("name", "n", "seed"), [("standard", 2, 31), ("simple", 4, 32), ("standard", 3, 33)]
)
@pytest.mark.parametrize("mode", ["place", "bonus"])
def test_apply_accepts_exactly_the_listed_placements_late_in_the_game(name, n, seed, mode) -> None:
    s = _late(name, n, seed)
    assert s is not None
    seat = E.to_move(s)[0]
    if mode == "bonus":  # the same crowded sites, every bonus piece still in hand
        s = edit(s, phase="draw", bonus=(("ready",) * 3,) * n, pending_card=-1, pending_copy=-1)
    xs = range(-2, 3 + max(x for site in s.compiled.sites for x, _y in site.cells))
    ys = range(-2, 3 + max(y for site in s.compiled.sites for _x, y in site.cells))
    legal = set(E.legal_actions(s, seat))
    if s.phase == "place":
        kind = s.compiled.shapes[s.display[s.pending_card]]
        orients = len(kind.orientations(s.compiled.copies[s.pending_copy]))
        tries = [
            ("place", site.name, o, x, y)
            for site in s.compiled.sites
            for o in range(orients)
            for x in xs
            for y in ys
        ]
    else:
        tries = [
            ("bonus", b.name, site.name, o, x, y)
            for b in s.compiled.bonus
            for site in s.compiled.sites
            for o in range(len(b.orientations((seat,) * len(b.cells))))
            for x in xs
            for y in ys
        ]
    accepted = 0
    for a in tries:
        try:
            t = E.apply(s, seat, a)
        except IllegalAction:
            assert a not in legal, a
            continue
        assert a in legal, a
        accepted += 1
        site_i = s.compiled.site_index[a[-4]]
        new_cubes = set(t.cubes[site_i]) - set(s.cubes[site_i])
        assert new_cubes and max(lv for _x, _y, lv in new_cubes) <= 3
    assert accepted > 0
    assert accepted == sum(1 for a in legal if a[0] == tries[0][0])
