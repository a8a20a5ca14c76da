"""Deck set-up, display, Huron knowledge, ally refresh and bonus-piece expiry."""

from __future__ import annotations

import random
from itertools import accumulate

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nf_helpers import E, edit, finish, new

from games.engines.nouvellefrance.rules import HURON
from games.engines.nouvellefrance.state import SNOWFLAKE
from games.engines.protocol import IllegalAction


@settings(max_examples=max(40, settings.default.max_examples), deadline=None)
@given(
    seed=st.integers(0, 2**32), name=st.sampled_from(["standard", "simple"]), n=st.integers(2, 4)
)
def test_snowflakes_land_in_piles_2_4_6(seed: int, name: str, n: int) -> None:
    s = new(name, n, seed)
    full = list(s.display) + list(s.deck)
    sizes = [size + (1 if p in (2, 4, 6) else 0) for p, size in enumerate(s.compiled.piles, 1)]
    ends = list(accumulate(sizes))
    assert len(full) == ends[-1] == 39
    for p in range(6):
        pile = full[(ends[p - 1] if p else 0) : ends[p]]
        assert pile.count(SNOWFLAKE) == (1 if p + 1 in (2, 4, 6) else 0)
    assert [lab for lab, c in zip(s.deck_piles, s.deck, strict=True) if c == SNOWFLAKE] == [2, 4, 6]
    assert len(s.display) == (2 if name == "standard" else 0)


def test_same_seed_same_setup_different_seed_differs() -> None:
    assert E.state_to_json(new(seed=5)) == E.state_to_json(new(seed=5))
    assert E.state_to_json(new(seed=5)) != E.state_to_json(new(seed=6))


def test_third_storm_ends_the_game() -> None:
    for seed in range(3):
        s = finish(new("standard", 3, seed), seed)
        assert s.storms == 3 and E.is_over(s) and E.winners(s)
        assert s.deck.count(SNOWFLAKE) == 0


def huron_ready(n: int = 3, seed: int = 2):
    s = new(n=n, seed=seed)
    assert s.phase == "huron"
    return s


def test_huron_window_asks_the_active_player_first_then_clockwise() -> None:
    """Rules file: "before the active player draws, every player with a ready Huron (the
    active player first, then clockwise) may use it ... Players without a ready Huron are
    never asked."  German: "Dieser Marker darf vor oder nach dem Spielzug eines
    Mitspielers eingesetzt werden." """
    s = huron_ready(n=4, seed=7)
    a = s.active
    order = [(a + j) % 4 for j in range(4)]
    asked = []
    t = s
    while t.phase == "huron":
        (seat,) = E.to_move(t)
        asked.append(seat)
        assert E.legal_actions(t, seat) == [("huron",), ("skip_huron",)]
        assert all(E.legal_actions(t, p) == [] for p in range(4) if p != seat)
        t = E.apply(t, seat, ("skip_huron",))
    assert asked == order and t.phase == "draw" and E.to_move(t) == [a]
    # Whoever has used their Huron is skipped; with nobody left the turn starts at the draw.
    used = tuple((True, True, p not in (order[1], order[2])) for p in range(4))
    s2 = E.state_from_json(E.state_to_json(s))
    s2 = edit(s2, ready=used, huron_queue=(), active=order[3])
    s2 = edit(s2, phase="fille", points=0)
    t2 = E.apply(s2, order[3], ("no_ally",))  # ends the turn of order[3]: order[0] is next
    assert t2.active == order[0] and t2.huron_queue == (order[0], order[3])
    assert E.to_move(t2) == [order[0]]
    nobody = edit(s2, ready=tuple((True, True, False) for _ in range(4)))
    t3 = E.apply(nobody, order[3], ("no_ally",))
    assert t3.phase == "draw" and t3.huron_queue == ()


def test_a_non_active_huron_peek_is_private_to_that_player() -> None:
    """Rules file: "look at the top 3 cards of the deck and put them back in any order
    (the order is now known to that player only)"."""
    s = huron_ready(n=3, seed=2)
    a = s.active
    s = E.apply(s, a, ("skip_huron",))
    b = E.to_move(s)[0]
    assert b == (a + 1) % 3
    t = E.apply(s, b, ("huron",))
    names = [("snowflake" if c == SNOWFLAKE else s.compiled.shapes[c].name) for c in s.deck[:3]]
    assert E.observe(t, b)["huron_known"] == names
    for p in [a, (a + 2) % 3, None]:
        assert E.observe(t, p)["huron_known"] == []
        assert E.observe(t, p) == E.observe(E.determinize(t, p, random.Random(1)), p)
    u = E.apply(t, b, ("order", 1, 2, 0))
    assert u.deck[:3] == (s.deck[1], s.deck[2], s.deck[0])
    assert u.ready[b][HURON] is False and u.allies_used[b] == 1 and u.ready[a][HURON]
    assert E.to_move(u) == [(a + 2) % 3]
    v = E.apply(u, (a + 2) % 3, ("skip_huron",))
    assert v.phase == "draw" and E.to_move(v) == [a]
    w = E.apply(v, a, ("draw",))
    if w.storms == 0:  # the active player drew the card that b put on top
        assert w.display[-1] == s.deck[1]
        assert E.observe(w, b)["huron_known"] == names[2:] + names[:1]


def test_huron_peek_is_private() -> None:
    s = huron_ready()
    me = s.active
    t = E.apply(s, me, ("huron",))
    names = [("snowflake" if c == SNOWFLAKE else s.compiled.shapes[c].name) for c in s.deck[:3]]
    assert E.observe(t, me)["huron_known"] == names
    others = [p for p in range(3) if p != me] + [None]
    for p in others:
        view = E.observe(t, p)
        assert view["huron_known"] == []
        # nothing in another view depends on the deck order
        assert view == E.observe(E.determinize(t, p, random.Random(1)), p)
    event = E.describe_action(s, ("huron",))
    assert event == {"type": "huron", "seat": me, "cards": 3}
    # Put them back reversed; the user knows the new order, and it shrinks as cards are drawn.
    assert len(E.legal_actions(t, me)) == 6
    u = E.apply(t, me, ("order", 2, 1, 0))
    assert E.observe(u, me)["huron_known"] == names[::-1]
    assert u.deck[:3] == s.deck[:3][::-1]
    assert u.ready[me][HURON] is False and u.allies_used[me] == 1
    while u.phase == "huron":
        u = E.apply(u, E.to_move(u)[0], ("skip_huron",))
    v = E.apply(u, me, ("draw",))
    if v.storms == 0:
        assert E.observe(v, me)["huron_known"] == names[::-1][1:]
    for p in others:
        assert E.observe(v, p)["huron_known"] == []


def test_another_huron_erases_older_knowledge() -> None:
    s = huron_ready(n=2, seed=3)
    a = s.active
    b = 1 - a
    t = E.apply(E.apply(s, a, ("huron",)), a, ("order", 0, 1, 2))
    assert t.known[a] == 3 and E.to_move(t) == [b]
    # Skipping leaves the others' knowledge alone; a reorder wipes it.
    assert E.apply(t, b, ("skip_huron",)).known[a] == 3
    t = E.apply(E.apply(t, b, ("huron",)), b, ("order", 1, 0, 2))
    assert t.known == tuple(3 if p == b else 0 for p in range(2))
    assert t.phase == "draw" and E.to_move(t) == [a]


def test_the_window_opens_once_per_turn() -> None:
    """The draws after a snowstorm belong to the same turn: no new Huron window."""
    s = new(n=2, seed=4)
    me = s.active
    s = edit(
        s,
        phase="draw",
        huron_queue=(),
        deck=(SNOWFLAKE, *s.deck),
        deck_piles=(2, *s.deck_piles),
        discard=(),
    )
    t = E.apply(s, me, ("draw",))
    assert t.storms == 1 and t.phase in ("card", "copy") and t.huron_queue == ()


def test_skip_huron_and_no_window_when_used() -> None:
    s = huron_ready()
    t = E.apply(s, s.active, ("skip_huron",))
    assert t.phase == "huron" and E.to_move(t) == [(s.active + 1) % 3]
    used = edit(s, ready=tuple((True, True, False) for _ in range(3)), phase="draw")
    assert ("huron",) not in E.legal_actions(used, s.active)


def storm_next(name: str, storms: int = 0):
    s = new(name, 2, 4)
    return edit(
        s,
        phase="draw",
        huron_queue=(),
        storms=storms,
        deck=(SNOWFLAKE, *s.deck),
        deck_piles=(2, *s.deck_piles),
        ready=((False, False, False), (False, True, False)),
    )


def test_allies_refresh_after_storm_standard_only() -> None:
    t = E.apply(storm_next("standard"), storm_next("standard").active, ("draw",))
    assert t.ready == ((True, True, True), (True, True, True))
    s = storm_next("simple")
    t = E.apply(s, s.active, ("draw",))
    assert t.ready == ((False, False, False), (False, True, False))
    assert t.storms == 1


def test_bonus_pieces_expire_at_their_storm() -> None:
    s = storm_next("standard")
    s = edit(s, bonus=(("ready", "ready", "ready"), ("used", "ready", "ready")))
    t = E.apply(s, s.active, ("draw",))
    assert t.bonus == (("expired", "ready", "ready"), ("used", "ready", "ready"))
    t2 = E.apply(edit(storm_next("standard", 1), bonus=t.bonus), s.active, ("draw",))
    assert t2.bonus == (("expired", "expired", "ready"), ("used", "expired", "ready"))
    u = edit(t2, phase="draw", active=0)
    pieces = {a[1] for a in E.legal_actions(u, u.active) if a[0] == "bonus"}
    assert pieces == {"peg"}
    with pytest.raises(IllegalAction, match="expired"):
        E.apply(u, u.active, ("bonus", "beam", "church", 0, 0, 0))


def test_display_draw_and_choice() -> None:
    s = edit(new(seed=8), phase="draw", huron_queue=())
    t = E.apply(s, s.active, ("draw",))
    assert len(t.display) == 3 and len(t.deck) == len(s.deck) - 1
    acts = E.legal_actions(t, t.active)
    assert acts and all(a[0] == "card" for a in acts)
    u = E.apply(t, t.active, acts[0])
    assert u.phase == "copy"
    assert E.legal_actions(u, u.active) == [("copy", k) for k in range(4)]


def test_simple_drawn_card_is_the_card() -> None:
    s = edit(new("simple", 2, 8), phase="draw", huron_queue=())
    t = E.apply(s, s.active, ("draw",))
    assert len(t.display) == 1 and t.phase == "copy" and t.pending_card == 0


def test_no_playable_card_discard_and_draw_again() -> None:
    s = edit(new(seed=8), phase="draw", huron_queue=())
    t = E.apply(s, s.active, ("draw",))
    shapes = set(t.display)
    t = edit(t, supply=tuple((False,) * 4 if i in shapes else c for i, c in enumerate(t.supply)))
    acts = E.legal_actions(t, t.active)
    assert acts == [("discard", i) for i in range(3)]  # no copy of these shapes is left
    first = t.display[0]
    u = E.apply(t, t.active, ("discard", 0))
    assert u.discard[-1] == first and u.phase in ("card", "copy")
    assert len(u.display) == 3 and u.removed_pieces == ()  # no copy was left to remove
    # with copies left, one of them leaves the game
    t2 = edit(
        t,
        supply=tuple(
            (False, True, True, True) if i == first else c for i, c in enumerate(t.supply)
        ),
    )
    t2 = edit(t2, heights=tuple((3,) * len(h) for h in t2.heights))  # nothing fits anywhere
    u2 = E.apply(t2, t2.active, ("discard", 0, 2))
    assert u2.removed_pieces == ((first, 2),)
    assert u2.supply[first] == (False, True, False, True)


def test_full_display_drops_its_oldest_card() -> None:
    s = new(seed=8)
    s = edit(s, phase="draw", huron_queue=(), display=(0, 1, 2))
    t = E.apply(s, s.active, ("draw",))
    if t.storms == 0:
        assert t.display[:2] == (1, 2) and t.discard == (0,)
