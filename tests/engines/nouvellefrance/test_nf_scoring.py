"""Placement points, allies, snowstorms, characters and tie-breaks."""

from __future__ import annotations

import pytest
from nf_helpers import E, edit, new, orientation_index, with_cubes

from games.engines.nouvellefrance.state import BONUS_USED, SNOWFLAKE
from games.engines.protocol import IllegalAction

W, B, Y, U = 0, 1, 2, 3  # white, brown, yellow, blue


def placing(s, shape: str, copy: int, active: int = 0):
    """``s`` at the place step with ``shape`` (copy ``copy``) chosen by ``active``."""
    i = s.compiled.shape_index[shape]
    return edit(s, active=active, display=(i,), pending_card=0, pending_copy=copy, phase="place")


def scythe_upright(s, copy: int = 0) -> int:
    """Orientation: L standing along x, foot up at x=0: colours c0..c3 on level 1, c4 above."""
    kind = s.compiled.shapes[s.compiled.shape_index["scythe"]]
    c = s.compiled.copies[copy]
    cubes = {(0, 0, 0, c[0]), (1, 0, 0, c[1]), (2, 0, 0, c[2]), (3, 0, 0, c[3]), (0, 0, 1, c[4])}
    return orientation_index(kind, c, cubes)


def peg(s, seat: int, site: str, x: int, y: int):
    return E.apply(edit(s, active=seat, phase="draw"), seat, ("bonus", "peg", site, 0, x, y))


def test_own_colour_cubes_and_adjacency() -> None:
    s = placing(new(n=2, seed=1), "scythe", 0)
    t = E.apply(s, 0, ("place", "church", scythe_upright(s), 0, 0))
    assert t.points == 2 and t.scores[0] == 2  # two white cubes, nothing earlier
    assert t.cubes[0][(0, 0, 1)] == W and t.cubes[0][(0, 0, 2)] == U
    s2 = with_cubes(s, "church", {(0, 1, 1): W, (1, 0, 2): W})
    s2 = edit(s2, heights=s.heights)  # heights only matter for lowering; keep the ground
    t2 = E.apply(s2, 0, ("place", "church", scythe_upright(s), 0, 0))
    # (0,0,1) touches (0,1,1); (1,0,1) touches (1,0,2) from below: 2 + 2.
    assert t2.points == 4
    # Brown (seat 1) placing the same piece scores its single brown cube.
    t3 = E.apply(
        placing(new(n=2, seed=1), "scythe", 0, active=1),
        1,
        ("place", "church", scythe_upright(s), 0, 0),
    )
    assert t3.points == 1


def _bend(s):
    """The redoubt's two bend cells, the one on the first arm first."""
    redoubt = s.compiled.sites[s.compiled.site_index["redoubt"]]
    ((a, b),) = {tuple(sorted((k, v[0]))) for k, v in redoubt.extra.items()}
    return a, b


def test_redoubt_bend_adjacency() -> None:
    """German rulebook: "Bei der Schanze zählt das oben abgebildete, geknickte Feld als ein
    Feld. Von daher gelten hier für die Punktwertung auch Würfelflächen als angrenzend, die
    sich nicht zwangsläufig berühren." Rules file: an extra adjacency pair ((9,0),(10,1))
    that holds on every level."""
    s = new(n=2, seed=2)
    (ax, ay), (bx, by) = _bend(s)
    touching = peg(with_cubes(s, "redoubt", {(bx, by, 1): W}), W, "redoubt", ax, ay)
    assert touching.points == 2
    apart = peg(with_cubes(s, "redoubt", {(bx, by + 1, 1): W}), W, "redoubt", ax, ay)
    assert apart.points == 1
    # The bend joins cubes on every level.
    high = with_cubes(s, "redoubt", {(bx, by, 1): B, (bx, by, 2): W, (ax, ay, 1): B})
    assert peg(high, W, "redoubt", ax, ay).points == 2
    # No such link on the mill, whose corners are ordinary cells.
    mill = with_cubes(s, "mill", {(1, 0, 1): W})
    assert peg(mill, W, "mill", 0, 0).points == 2
    assert peg(with_cubes(s, "mill", {(2, 0, 1): W}), W, "mill", 0, 0).points == 1


def test_covered_cubes_ignored() -> None:
    s = edit(new(n=2, seed=3), storms=1)
    s = with_cubes(s, "church", {(0, 0, 1): W, (2, 0, 1): W})
    assert peg(s, W, "church", 0, 0).points == 1  # level 2: the white below is buried
    assert peg(s, W, "church", 1, 0).points == 0  # level 1 itself is buried
    s2 = with_cubes(edit(s, storms=2), "church", {(0, 0, 1): W, (0, 0, 2): W})
    assert peg(s2, W, "church", 0, 0).points == 1  # level 3 counts, level 2 below does not
    assert peg(s2, W, "church", 1, 0).points == 0


def test_fille_du_roy_doubles() -> None:
    s = placing(new(n=2, seed=1), "scythe", 0)
    t = E.apply(s, 0, ("place", "church", scythe_upright(s), 0, 0))
    assert t.phase == "fille" and E.to_move(t) == [0]
    assert set(E.legal_actions(t, 0)) == {("fille_du_roy",), ("no_ally",)}
    u = E.apply(t, 0, ("fille_du_roy",))
    assert u.scores[0] == 4 and u.breakdown[0][:2] == (2, 2)
    assert u.ready[0][0] is False and u.allies_used[0] == 1
    # Coureur des bois of seat 1 is offered half the undoubled points: 1.
    assert E.to_move(u) == [1]
    v = E.apply(u, 1, ("coureur",))
    assert v.scores == (4, 1) and v.active == 1 and v.phase in ("huron", "draw")


def test_coureur_first_claim_wins_clockwise() -> None:
    s = new(n=4, seed=4)
    s = with_cubes(s, "church", {(0, 1, 1): W, (1, 0, 2): W})
    s = edit(s, heights=new(n=4, seed=4).heights)
    s = placing(s, "scythe", 0, active=0)
    t = E.apply(s, 0, ("place", "church", scythe_upright(s), 0, 0))
    assert t.points == 4
    t = E.apply(t, 0, ("no_ally",))
    assert E.to_move(t) == [1]
    with pytest.raises(IllegalAction):
        E.apply(t, 2, ("coureur",))  # not seat 2's turn to answer yet
    t = E.apply(t, 1, ("decline",))
    assert E.to_move(t) == [2]
    t = E.apply(t, 2, ("coureur",))
    assert t.scores == (4, 0, 2, 0)  # only the first claimant; seat 3 is never asked
    assert t.active == 1 and t.phase != "coureur"


def test_no_offer_when_it_cannot_help() -> None:
    s = placing(new(n=2, seed=1), "scythe", 1)  # copy 1: one white cube -> 1 point
    t = E.apply(s, 0, ("place", "church", scythe_upright(s, 1), 0, 0))
    assert t.scores[0] == 1 and t.phase == "fille"
    u = E.apply(t, 0, ("fille_du_roy",))
    assert u.scores[0] == 2 and u.active == 1  # half of 1 is 0: no Coureur offer


def storm_state(n: int = 2, storms: int = 0):
    s = new(n=n, seed=9)
    s = edit(
        s,
        sticks=(0, 1, 2),
        storms=storms,
        phase="draw",
        deck=(SNOWFLAKE, *s.deck),
        deck_piles=(2, *s.deck_piles),
    )
    return s


def test_storm_scoring_plus_double_minus_and_negative() -> None:
    s = storm_state()
    # church stick A (+, x2, -), mill B (x2, -, +), redoubt C (-, +, x2)
    s = with_cubes(s, "church", {(0, 0, 1): W, (1, 0, 1): W, (2, 0, 1): B, (3, 0, 2): W})
    s = with_cubes(s, "mill", {(0, 0, 1): W, (1, 0, 1): Y})
    _a, (bx, by) = _bend(s)
    s = with_cubes(s, "redoubt", {(x, 0, 1): W for x in range(5)} | {(bx, by, 1): B})
    t = E.apply(s, s.active, ("draw",))
    assert t.storms == 1
    # white: +2 (church) +2 (mill x2) -5 (redoubt) = -1; brown +1 -1 = 0
    assert t.scores == (-1, 0)
    assert t.breakdown[0][3] == -1
    assert t.phase in ("card", "copy") and len(t.display) == 3  # drew again


def test_storm_two_scores_level_two_only() -> None:
    s = storm_state(storms=1)
    s = with_cubes(s, "church", {(0, 0, 1): W, (0, 0, 2): W, (1, 0, 2): B})
    s = with_cubes(s, "mill", {(0, 0, 1): B, (0, 0, 2): B})
    t = E.apply(s, s.active, ("draw",))
    # church level 2 is x2: white +2, brown +2; mill level 2 is -: brown -1
    assert t.storms == 2 and t.scores == (2, 1)


def test_third_storm_ends_game_with_character_bonuses() -> None:
    s = storm_state(storms=2)
    s = with_cubes(s, "redoubt", {(0, 0, 1): W, (0, 0, 2): W, (0, 0, 3): W, (1, 0, 3): B})
    s = edit(s, holders=(1, 0, -1))  # church (stick A ends "-": 8), mill (B ends "+": 6)
    t = E.apply(s, s.active, ("draw",))
    assert E.is_over(t) and E.to_move(t) == [] and E.legal_actions(t, 0) == []
    # redoubt stick C level 3 is x2: white 2, brown 2; then characters
    assert t.scores == (2 + 6, 2 + 8)
    assert E.winners(t) == [1]
    view = E.observe(t, None)
    assert view["breakdown"][1] == {
        "placement": 0,
        "fille_du_roy": 0,
        "coureur_des_bois": 0,
        "snowstorms": 2,
        "characters": 8,
    }


def test_completing_a_site_gives_its_character() -> None:
    s = new(n=2, seed=6)
    church = s.compiled.sites[0]
    last = church.cells[len(church.cells) // 2]
    cubes = {(x, y, 1): Y for (x, y) in church.cells if (x, y) != last}
    s = with_cubes(s, "church", cubes)
    t = peg(s, B, "church", *last)
    assert t.holders[0] == B
    assert E.observe(t, None)["players"][B]["characters"] == ["priest"]
    # A second placement on the completed site does not move the character.
    t2 = peg(edit(t, bonus=((("ready",) * 3),) * 2), W, "church", *last)
    assert t2.holders[0] == B


def _over(s, **fields):
    return edit(s, over=True, phase="over", **fields)


def test_tie_breaks() -> None:
    s = new(n=3, seed=1)
    assert E.winners(s) == []
    assert E.winners(_over(s, scores=(5, 9, 7))) == [1]
    tied = _over(s, scores=(9, 9, 7), allies_used=(2, 1, 0))
    assert E.winners(tied) == [1]  # fewest allies used
    used_peg = (("expired", "used", BONUS_USED), ("expired", "used", "expired"), s.bonus[2])
    tied2 = _over(s, scores=(9, 9, 7), allies_used=(1, 1, 0), bonus=used_peg)
    assert E.winners(tied2) == [1]  # seat 1 never placed its peg
    tied3 = _over(s, scores=(9, 9, 9), allies_used=(1, 1, 1))
    assert E.winners(tied3) == [0, 1, 2]  # shared
