"""A hint's words read only what its seat can see: a hinted move is described before it is
played, so nothing its outcome would reveal (the card a draw brings up, a snowstorm) may
show.  Checked as the other outputs are (tests/security/test_indistinguishable.py): twins of
the position that the seat cannot tell apart must get the same hint text."""

from __future__ import annotations

import random

import pytest
from replay_support import store_game

from games.engines import get_engine
from games.practice.selectors import hint_rows

pytestmark = pytest.mark.django_db


def test_a_hinted_draw_does_not_tell_the_card_it_brings(make_user) -> None:
    engine = get_engine("nouvellefrance")
    variant = engine.default_variants()["standard"]
    # Both seats pass their Huron (nobody has seen the deck's top): the first may draw.
    prefix = (["skip_huron"], ["skip_huron"])
    state = engine.new_game(variant, 2, 1)
    actions = []
    for action in prefix:
        seat = engine.to_move(state)[0]
        actions.append((seat, engine.action_from_json(action)))
        state = engine.apply(state, seat, engine.action_from_json(action))
    seat = engine.to_move(state)[0]
    assert ("draw",) in engine.legal_actions(state, seat)
    users = [None, None]
    users[seat] = make_user("ann")
    game = store_game("nouvellefrance", variant, users, 1, actions)
    found = {"status": "done", "moves": [{"action": ["draw"], "win": 0.5, "visits": 9}]}
    texts, cards = set(), set()
    for k in range(12):
        twin = engine.determinize(state, seat, random.Random(k))
        cards.add(engine.describe_action(twin, ("draw",)).get("card"))
        game.state_json = engine.state_to_json(twin)
        texts.add(hint_rows(game, found, seat)[0]["text"])
    assert len(cards) > 1  # the twins really draw different cards
    assert len(texts) == 1, texts
