"""Determinize hides which building card was dealt into which pile.

Rules file (set-up): the 36 building cards are shuffled and dealt into six piles; the
snowflakes are shuffled into piles 2, 4 and 6.  What is public: the piles' sizes and which
piles hold a snowflake; which building card lies in which pile is not ("Nobody knows the
order of the deck").  A determinized world that keeps every card in its true pile tells
the AI (and the analysis) which shapes come with the next pile.
"""

from __future__ import annotations

import random
from collections import Counter

from nf_helpers import E, new

from games.engines.nouvellefrance.state import SNOWFLAKE


def test_a_spectator_world_may_deal_the_unseen_building_cards_to_any_pile() -> None:
    s = new("standard", 3, 7)

    def pile_contents(state) -> tuple:
        """Each pile's building cards (shape ids repeat, so as sorted tuples)."""
        piles: dict[int, list[int]] = {}
        for card, pile in zip(state.deck, state.deck_piles, strict=True):
            if card != SNOWFLAKE:
                piles.setdefault(pile, []).append(card)
        return tuple(tuple(sorted(cards)) for _pile, cards in sorted(piles.items()))

    deals = set()
    for k in range(50):
        world = E.determinize(s, None, random.Random(k))
        assert Counter(world.deck) == Counter(s.deck)
        assert world.deck_piles == s.deck_piles
        # The snowflakes stay in their piles (that much is public).
        assert Counter(p for c, p in zip(world.deck, world.deck_piles, strict=True)
                       if c == SNOWFLAKE) == Counter(
            p for c, p in zip(s.deck, s.deck_piles, strict=True) if c == SNOWFLAKE)
        assert E.observe(world, None) == E.observe(s, None)
        deals.add(pile_contents(world))
    # Not always the true deal: which shapes were dealt into which pile is hidden.
    assert len(deals) > 40, "every world keeps the true piles' contents"


def test_snowflakes_move_within_their_pile() -> None:
    s = new("standard", 2, 3)
    positions = set()
    for k in range(200):
        world = E.determinize(s, 0, random.Random(k))
        positions.update(i for i, c in enumerate(world.deck) if c == SNOWFLAKE)
    piles = {s.deck_piles[i] for i in positions}
    assert piles == {s.deck_piles[i] for i, c in enumerate(s.deck) if c == SNOWFLAKE}
    assert len(positions) > len(piles)  # not pinned to the true positions
