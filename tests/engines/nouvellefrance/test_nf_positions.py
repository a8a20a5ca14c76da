"""Constructed positions (``positions``): pieces taken out by the rules' own means, the
result checked like a stored state, and a card choice where only a discard is left."""

from __future__ import annotations

import random

import pytest
from nf_helpers import E, new, play_random

from games.engines.nouvellefrance.positions import nothing_playable, without_copies
from games.engines.nouvellefrance.state import State
from games.engines.protocol import EngineError


def _card_choice(seed: int, *, placed: int = 0) -> State:
    """A card choice (phase ``card``) after at least ``placed`` pieces were placed."""
    s = new("standard", 3, seed)
    for _b, _seat, _a, t in play_random(s, random.Random(seed)):
        if t.phase == "card" and len(t.placed) >= placed:
            return t
    raise AssertionError("no such position")


def _where(s: State) -> list[str]:
    """Where each copy of each shape is: supply, placed or removed (exactly one)."""
    placed = {(shape, k) for shape, k, _site in s.placed}
    removed = set(s.removed_pieces)
    return [("supply" if left else "") + ("placed" if (shape, k) in placed else "")
            + ("removed" if (shape, k) in removed else "")
            for shape, copies in enumerate(s.supply) for k, left in enumerate(copies)]


def test_without_copies_takes_the_supply_out_of_the_game() -> None:
    s = _card_choice(3, placed=2)
    shape = s.placed[0][0]  # a shape with a copy on a site already
    left = [k for k, ok in enumerate(s.supply[shape]) if ok]
    assert left  # the test needs copies to take out
    before = E.state_to_json(s)
    t = without_copies(s, [shape, shape])
    assert not any(t.supply[shape])
    assert t.removed_pieces == (*s.removed_pieces, *((shape, k) for k in left))
    assert (shape, s.placed[0][1], s.placed[0][2]) in t.placed  # the placed copy stays
    assert all(w in ("supply", "placed", "removed") for w in _where(t))
    assert E.state_to_json(s) == before  # the given state is left as it was
    # Nothing else changed: only the supply and the removed pieces.
    changed = {k for k, v in E.state_to_json(t).items() if before[k] != v}
    assert changed == {"supply", "removed_pieces"}
    assert E.state_from_json(E.state_to_json(t)) == t


def test_without_copies_refuses_what_the_variant_does_not_have() -> None:
    s = _card_choice(1)
    for shape in (len(s.compiled.shapes), -1, "church", True):
        with pytest.raises(EngineError, match="no shape"):
            without_copies(s, [shape])


def test_without_copies_refuses_a_piece_out_twice() -> None:
    s = _card_choice(3, placed=1)
    t = s.copy()
    t.removed_pieces = (*t.removed_pieces, t.placed[0][:2])  # placed and removed
    with pytest.raises(EngineError, match="twice"):
        without_copies(t, [])


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_nothing_playable_leaves_only_discards(seed: int) -> None:
    s = _card_choice(seed)
    assert any(a[0] == "card" for a in E.legal_actions(s, s.active))
    t = nothing_playable(s)
    legal = E.legal_actions(t, t.active)
    assert legal == [("discard", i) for i in range(len(t.display))]
    # The discard is played by the rules: the card goes, the player draws again.
    after = E.apply(t, t.active, legal[0])
    assert after.discard == (*t.discard, t.display[0]) and len(after.deck) < len(t.deck)


def test_nothing_playable_needs_a_card_choice() -> None:
    s = new("standard", 2, 0)
    assert s.phase != "card"
    with pytest.raises(EngineError, match="card choice"):
        nothing_playable(s)
