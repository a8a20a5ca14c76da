"""A tiny protocol-conforming game with hidden hands, for the web layer's tests only.

Each seat is dealt ``hand_size`` cards ("c123"); in turn, a seat plays one card of its
hand by *position* (``{"play": i}``) onto the public pile and scores its value mod 10.
The game ends when every hand is empty.  The state keeps its seed (like a real engine's
generator state) so that leak tests have something to look for.
"""

from __future__ import annotations

import random
from typing import Any

from games.engines import IllegalAction, InvalidVariant

NAME = "fakegame"


class FakeEngine:
    name = NAME
    title = "Fake Game"
    min_players = 2
    max_players = 4

    def default_variants(self) -> dict[str, dict]:
        return {"basic": {"hand_size": 3}}

    def variant_schema(self) -> dict:
        return {"type": "object", "properties": {"hand_size": {"type": "integer"}}}

    def validate_variant(self, variant: dict) -> list[str]:
        size = variant.get("hand_size") if isinstance(variant, dict) else None
        if not isinstance(size, int) or not 1 <= size <= 12:
            return ["hand_size: an integer from 1 to 12 is required"]
        return []

    def rule_data(self, variant: dict) -> dict:
        problems = self.validate_variant(variant)
        if problems:
            raise InvalidVariant(problems)
        return {"game": NAME, "title": self.title, "variant": "basic", "description": "",
                "player_counts": [2, 3, 4], "hand_size": variant["hand_size"]}

    # -- playing -----------------------------------------------------------------------

    def new_game(self, variant: dict, num_players: int, seed: int) -> dict:
        problems = self.validate_variant(variant)
        if problems:
            raise InvalidVariant(problems)
        rng = random.Random(seed)
        size = variant["hand_size"]
        deck = [f"c{v}" for v in rng.sample(range(100, 1000), size * num_players)]
        hands = [deck[i * size : (i + 1) * size] for i in range(num_players)]
        return {"seed": seed, "hands": hands, "pile": [], "turn": 0,
                "scores": [0] * num_players}

    def to_move(self, state: dict) -> list[int]:
        return [] if self.is_over(state) else [state["turn"]]

    def legal_actions(self, state: dict, seat: int) -> list[tuple]:
        if seat not in self.to_move(state):
            return []
        return [("play", i) for i in range(len(state["hands"][seat]))]

    def apply(self, state: dict, seat: int, action: Any) -> dict:
        if seat not in self.to_move(state):
            raise IllegalAction("It is not your turn.")
        if (not isinstance(action, tuple) or len(action) != 2 or action[0] != "play"
                or not isinstance(action[1], int)
                or not 0 <= action[1] < len(state["hands"][seat])):
            raise IllegalAction("You do not have that card.")
        hands = [list(h) for h in state["hands"]]
        card = hands[seat].pop(action[1])
        scores = list(state["scores"])
        scores[seat] += int(card[1:]) % 10
        n = len(hands)
        turn = seat
        for step in range(1, n + 1):
            if hands[(seat + step) % n]:
                turn = (seat + step) % n
                break
        return {**state, "hands": hands, "pile": [*state["pile"], [seat, card]],
                "turn": turn, "scores": scores}

    def is_over(self, state: dict) -> bool:
        return not any(state["hands"])

    def scores(self, state: dict) -> list[int]:
        return list(state["scores"])

    def winners(self, state: dict) -> list[int]:
        if not self.is_over(state):
            return []
        best = max(state["scores"])
        return [i for i, s in enumerate(state["scores"]) if s == best]

    # -- information -------------------------------------------------------------------

    def observe(self, state: dict, seat: int | None) -> dict:
        view = {
            "pile": [list(p) for p in state["pile"]],
            "hand_sizes": [len(h) for h in state["hands"]],
            "scores": list(state["scores"]),
            "to_move": self.to_move(state),
        }
        if seat is not None:
            view["you"] = {"seat": seat, "hand": list(state["hands"][seat])}
        return view

    def determinize(self, state: dict, seat: int | None, rng: random.Random) -> dict:
        hidden = [c for i, h in enumerate(state["hands"]) if i != seat for c in h]
        rng.shuffle(hidden)
        hands = []
        for i, h in enumerate(state["hands"]):
            if i == seat:
                hands.append(list(h))
            else:
                hands.append(hidden[: len(h)])
                hidden = hidden[len(h):]
        return {**state, "hands": hands, "seed": 0}

    # -- serialisation -----------------------------------------------------------------

    def state_to_json(self, state: dict) -> dict:
        return {**state, "hands": [list(h) for h in state["hands"]]}

    def state_from_json(self, data: dict) -> dict:
        return {**data, "hands": [list(h) for h in data["hands"]],
                "pile": [list(p) for p in data["pile"]]}

    def action_to_json(self, action: tuple) -> Any:
        return {"play": action[1]}

    def action_from_json(self, data: Any) -> tuple:
        if (not isinstance(data, dict) or set(data) != {"play"}
                or not isinstance(data["play"], int) or isinstance(data["play"], bool)):
            raise IllegalAction("That is not an action of this game.")
        return ("play", data["play"])

    def describe_action(self, state: dict, action: tuple) -> dict:
        seat = state["turn"]
        return {"type": "play", "seat": seat, "card": state["hands"][seat][action[1]]}


ENGINE = FakeEngine()
