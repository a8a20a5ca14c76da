"""The greedy bot's evaluator (issue 20): a game may name a stronger one, still one ply."""

from __future__ import annotations

import random

from ai.bots import greedy_action
from ai.knowledge import get_knowledge, greedy_knowledge, search_knowledge
from tools.engines import load_engine


def test_new_haven_greedy_uses_the_strong_evaluator_and_nouvelle_france_the_base() -> None:
    newhaven, nouvellefrance = load_engine("newhaven"), load_engine("nouvellefrance")
    assert greedy_knowledge(newhaven) is search_knowledge(newhaven)
    assert greedy_knowledge(newhaven) is not get_knowledge(newhaven)
    assert greedy_knowledge(nouvellefrance) is get_knowledge(nouvellefrance)


def test_greedy_action_maximises_the_greedy_evaluator_one_ply_ahead() -> None:
    """The default is the game's greedy knowledge; an explicit one still wins; and the
    move is the best of the evaluator on the same world (no search)."""
    engine = load_engine("newhaven")
    variant = engine.default_variants()["standard"]
    state = engine.new_game(variant, 2, 5)
    strong, base = search_knowledge(engine), get_knowledge(engine)
    differ = 0
    for step in range(40):
        seat = engine.to_move(state)[0]
        actions = engine.legal_actions(state, seat)
        chosen = greedy_action(engine, state, seat, seed=step)
        assert chosen == greedy_action(engine, state, seat, seed=step, knowledge=strong)
        if len(actions) > 1:
            world = engine.determinize(state, seat, random.Random(step))
            values = {a: strong.evaluate(engine, engine.apply(world, seat, a))[seat]
                      for a in actions}
            assert values[chosen] >= max(values.values()) - 1e-9
            differ += chosen != greedy_action(engine, state, seat, seed=step, knowledge=base)
        state = engine.apply(state, seat, chosen)
    assert differ > 0  # the two evaluators do choose differently
