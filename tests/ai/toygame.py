"""A tiny hidden-information game implementing the engine protocol, for the AI tests.

*Blind auction* (2–4 players).  Every player owns the same deck of cards
1..7 and is dealt ``hand`` of them (private); the rest are set aside unseen.  Prize cards 1..10 are
shuffled (hidden order).  Each round the top prize is turned up, and every
player, starting with the round's starter (rotating), bids one hand card face
down (``("bid", value)``).  When all have bid, the bids are shown: the single
highest bid wins the prize's points; a tie for highest wins nothing.  After
``hand`` rounds the most points wins (ties share the win).

Hidden: other hands and set-aside cards, face-down bids of this round, the
prize order.  A good player bids high on big prizes and dumps low cards on
small ones, which beats random and greedy play clearly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from games.engines.protocol import IllegalAction, InvalidVariant

CARD_VALUES = tuple(range(1, 8))
PRIZES = tuple(range(1, 11))


@dataclass(frozen=True)
class ToyState:
    """Everything about a game, hidden parts included."""

    n: int
    hands: tuple[tuple[int, ...], ...]  # sorted per seat
    stock: tuple[tuple[int, ...], ...]  # each seat's set-aside cards (only it knows them)
    prizes: tuple[int, ...]  # prize deck, next first (hidden order)
    prize: int | None  # the prize up for auction; None once over
    bids: tuple[int | None, ...]  # this round's face-down bids
    scores: tuple[int, ...]
    starter: int
    turn: int
    history: tuple[tuple[int, tuple[int, ...]], ...]  # (prize, bids) of finished rounds


class ToyEngine:
    """The blind-auction engine (protocol: ``games.engines.protocol.Engine``)."""

    name = "toy"
    min_players = 2
    max_players = 4

    def default_variants(self) -> dict[str, dict]:
        return {"standard": {"hand": 5}}

    def variant_schema(self) -> dict:
        return {"type": "object", "properties": {"hand": {"type": "integer"}}}

    def validate_variant(self, variant: dict) -> list[str]:
        hand = variant.get("hand")
        if not isinstance(hand, int) or not 1 <= hand <= 6:
            return ["hand: an integer from 1 to 6"]
        return []

    def new_game(self, variant: dict, num_players: int, seed: int) -> ToyState:
        problems = self.validate_variant(variant)
        if problems:
            raise InvalidVariant(problems)
        rng = random.Random(seed)
        hand = variant["hand"]
        hands = []
        stock = []
        for _seat in range(num_players):
            deck = list(CARD_VALUES)
            rng.shuffle(deck)
            hands.append(tuple(sorted(deck[:hand])))
            stock.append(tuple(sorted(deck[hand:])))
        prizes = list(PRIZES)
        rng.shuffle(prizes)
        starter = rng.randrange(num_players)
        return ToyState(
            n=num_players,
            hands=tuple(hands),
            stock=tuple(stock),
            prizes=tuple(prizes[1:hand]),
            prize=prizes[0],
            bids=(None,) * num_players,
            scores=(0,) * num_players,
            starter=starter,
            turn=starter,
            history=(),
        )

    def to_move(self, state: ToyState) -> list[int]:
        return [] if state.prize is None else [state.turn]

    def legal_actions(self, state: ToyState, seat: int) -> list[tuple[str, int]]:
        if state.prize is None or seat != state.turn:
            return []
        return [("bid", v) for v in sorted(set(state.hands[seat]))]

    def apply(self, state: ToyState, seat: int, action: Any) -> ToyState:
        if state.prize is None:
            raise IllegalAction("The game is over.")
        if seat != state.turn:
            raise IllegalAction("It is not your turn.")
        if (
            not isinstance(action, tuple)
            or len(action) != 2
            or action[0] != "bid"
            or action[1] not in state.hands[seat]
        ):
            raise IllegalAction("Bid a card from your hand.")
        value = action[1]
        hand = list(state.hands[seat])
        hand.remove(value)
        hands = (*state.hands[:seat], tuple(hand), *state.hands[seat + 1:])
        bids = (*state.bids[:seat], value, *state.bids[seat + 1:])
        nxt = (seat + 1) % state.n
        if nxt != state.starter:
            return replace(state, hands=hands, bids=bids, turn=nxt)
        # Everyone has bid: resolve the round.
        top = max(bids)  # type: ignore[type-var]
        scores = list(state.scores)
        if bids.count(top) == 1:
            scores[bids.index(top)] += state.prize
        history = (*state.history, (state.prize, tuple(bids)))  # type: ignore[arg-type]
        starter = (state.starter + 1) % state.n
        over = not hands[0]
        return replace(
            state,
            hands=hands,
            bids=(None,) * state.n,
            scores=tuple(scores),
            prize=None if over else state.prizes[0],
            prizes=state.prizes if over else state.prizes[1:],
            starter=starter,
            turn=starter,
            history=history,
        )

    def is_over(self, state: ToyState) -> bool:
        return state.prize is None

    def scores(self, state: ToyState) -> list[int]:
        return list(state.scores)

    def winners(self, state: ToyState) -> list[int]:
        if state.prize is not None:
            return []
        top = max(state.scores)
        return [s for s in range(state.n) if state.scores[s] == top]

    def observe(self, state: ToyState, seat: int | None) -> dict:
        view = {
            "prize": state.prize,
            "scores": list(state.scores),
            "hand_sizes": [len(h) for h in state.hands],
            "has_bid": [b is not None for b in state.bids],
            "history": [[p, list(b)] for p, b in state.history],
            "prizes_left": len(state.prizes),
            "to_move": self.to_move(state),
        }
        if seat is not None:
            view["hand"] = list(state.hands[seat])
            view["my_bid"] = state.bids[seat]
            view["set_aside"] = list(state.stock[seat])
        return view

    def determinize(self, state: ToyState, seat: int | None, rng: random.Random) -> ToyState:
        # Each other seat's unseen cards (hand, set-aside, face-down bid) are pooled, sorted
        # (the result must not depend on how the true state orders hidden cards), shuffled
        # and dealt back in the same sizes.
        hands = list(state.hands)
        stock = list(state.stock)
        bids = list(state.bids)
        for other in range(state.n):
            if other == seat:
                continue
            pool = sorted(hands[other] + stock[other])
            if bids[other] is not None:
                pool.append(bids[other])
                pool.sort()
            rng.shuffle(pool)
            size = len(hands[other])
            hands[other] = tuple(sorted(pool[:size]))
            del pool[:size]
            if bids[other] is not None:
                bids[other] = pool.pop()
            stock[other] = tuple(sorted(pool))
        prizes = sorted(state.prizes)
        rng.shuffle(prizes)
        return replace(
            state, hands=tuple(hands), bids=tuple(bids), stock=tuple(stock), prizes=tuple(prizes)
        )

    def state_to_json(self, state: ToyState) -> dict:
        return {
            "n": state.n,
            "hands": [list(h) for h in state.hands],
            "stock": [list(h) for h in state.stock],
            "prizes": list(state.prizes),
            "prize": state.prize,
            "bids": list(state.bids),
            "scores": list(state.scores),
            "starter": state.starter,
            "turn": state.turn,
            "history": [[p, list(b)] for p, b in state.history],
        }

    def state_from_json(self, data: dict) -> ToyState:
        return ToyState(
            n=data["n"],
            hands=tuple(tuple(h) for h in data["hands"]),
            stock=tuple(tuple(h) for h in data["stock"]),
            prizes=tuple(data["prizes"]),
            prize=data["prize"],
            bids=tuple(data["bids"]),
            scores=tuple(data["scores"]),
            starter=data["starter"],
            turn=data["turn"],
            history=tuple((p, tuple(b)) for p, b in data["history"]),
        )

    def action_to_json(self, action: Any) -> Any:
        return list(action)

    def action_from_json(self, data: Any) -> Any:
        if isinstance(data, list) and len(data) == 2 and data[0] == "bid":
            return ("bid", data[1])
        raise IllegalAction("Not a bid.")

    def describe_action(self, state: ToyState, action: Any) -> str:
        return "bids a card face down"


ENGINE = ToyEngine()
