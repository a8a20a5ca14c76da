"""The ``Engine`` object: protocol glue, observation, determinization, descriptions."""

from __future__ import annotations

import random
from typing import Any

from ..protocol import Action, IllegalAction, InvalidVariant, Seat, State
from . import rules
from .state import BREAKDOWN, SNOWFLAKE, NFState, from_json, to_json
from .variant import (
    ALLIES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    compiled,
    default_variants,
    schema,
    validate_variant,
)


def _card_name(s: NFState, card: int) -> str:
    return "snowflake" if card == SNOWFLAKE else s.cv.shapes[card].name


def _points(n: int) -> str:
    return f"{n} point" if n in (1, -1) else f"{n} points"


class NouvelleFranceEngine:
    """Nouvelle-France: build three sites with coloured pentominoes before winter."""

    name = "nouvellefrance"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    # -- variants ---------------------------------------------------------
    def default_variants(self) -> dict[str, dict]:
        """``standard`` and ``simple`` (fresh copies)."""
        return default_variants()

    def variant_schema(self) -> dict:
        """The JSON Schema of variant data."""
        return schema()

    def validate_variant(self, variant: dict) -> list[str]:
        """Problems naming the field; ``[]`` when playable."""
        return validate_variant(variant)

    # -- playing ----------------------------------------------------------
    def new_game(self, variant: dict, num_players: int, seed: int) -> State:
        """The initial state; ``InvalidVariant`` for bad data or player count."""
        problems = validate_variant(variant)
        if type(num_players) is not int or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            problems.append(
                f"num_players: {num_players!r} is not within {MIN_PLAYERS}..{MAX_PLAYERS}"
            )
        if problems:
            raise InvalidVariant(problems)
        return rules.new_state(compiled(variant), num_players, int(seed))

    def to_move(self, state: State) -> list[int]:
        """The seat(s) that must act now."""
        return rules.to_move(state)

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every action ``seat`` may take now."""
        return rules.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: Action) -> State:
        """A new state; ``IllegalAction`` (state untouched) when not allowed."""
        return rules.apply(state, seat, action)

    def is_over(self, state: State) -> bool:
        """True after the last snowstorm."""
        return state.over

    def scores(self, state: State) -> list[int]:
        """Current scores by seat."""
        return list(state.scores)

    def winners(self, state: State) -> list[int]:
        """Winning seats after tie-breaks; ``[]`` while running."""
        return rules.winners(state)

    # -- information ------------------------------------------------------
    def observe(self, state: State, seat: Seat) -> dict:
        """Everything ``seat`` may know (``None`` = spectator), as JSON-able data."""
        s: NFState = state
        cv = s.cv
        buried = rules.buried_levels(s)
        sites = []
        for i, site in enumerate(cv.sites):
            stick = cv.sticks[s.sticks[i]]
            sites.append(
                {
                    "name": site.name,
                    "character": site.character,
                    "footprint": [list(c) for c in site.cells],
                    "height_limit": site.height_limit,
                    "extra_adjacency": sorted(
                        sorted([list(a), list(b)])
                        for a, bs in site.extra.items()
                        for b in bs
                        if a < b
                    ),
                    "stick": {"name": cv.stick_names[s.sticks[i]], "levels": list(stick)},
                    "character_bonus": site.character_bonus[stick[-1]],
                    "character_holder": None if s.holders[i] < 0 else s.holders[i],
                    "heights": list(s.heights[i]),
                    "cubes": [
                        {
                            "x": x,
                            "y": y,
                            "level": lv,
                            "colour": cv.colours[c],
                            "covered": lv <= buried,
                        }
                        for (x, y, lv), c in sorted(s.cubes[i].items())
                    ],
                    "complete": min(s.heights[i]) > 0,
                }
            )
        players = []
        for p in range(s.n):
            players.append(
                {
                    "seat": p,
                    "colour": cv.colours[p],
                    "score": s.scores[p],
                    "allies": {
                        a: ("ready" if s.ready[p][j] else "used")
                        for j, a in enumerate(ALLIES)
                        if cv.allies_enabled[j]
                    },
                    "allies_used": s.allies_used[p],
                    "bonus_pieces": {b.name: s.bonus[p][j] for j, b in enumerate(cv.bonus)},
                    "characters": [
                        cv.sites[i].character for i, h in enumerate(s.holders) if h == p
                    ],
                }
            )
        known = s.known[seat] if type(seat) is int and 0 <= seat < s.n else 0
        pending: dict[str, Any] = {}
        if s.pending_card >= 0:
            pending["card"] = s.pending_card
            pending["shape"] = cv.shapes[s.display[s.pending_card]].name
        if s.pending_copy >= 0:
            pending["copy"] = s.pending_copy
            pending["copy_colours"] = [cv.colours[c] for c in cv.copies[s.pending_copy]]
        if s.step in ("fille", "coureur"):
            pending["points"] = s.points
        if s.step == "coureur":
            pending["coureur_offer"] = s.offers[0]
        view: dict[str, Any] = {
            "game": self.name,
            "variant": cv.name,
            "num_players": s.n,
            "colours": [cv.colours[p] for p in range(s.n)],
            "sites": sites,
            "display": [cv.shapes[c].name for c in s.display],
            "discard": [cv.shapes[c].name for c in s.discard],
            "deck_count": len(s.deck),
            "snowflakes_left": cv.storms - s.storms,
            "storms": s.storms,
            "buried_levels": buried,
            "supply": {sh.name: [bool(v) for v in s.supply[i]] for i, sh in enumerate(cv.shapes)},
            "copy_colours": [[cv.colours[c] for c in pat] for pat in cv.copies],
            "removed_pieces": [
                {"shape": cv.shapes[sh].name, "copy": k} for sh, k in s.removed_pieces
            ],
            "players": players,
            "turn": {"number": s.turn, "active": s.active, "step": s.step, **pending},
            "huron_known": [_card_name(s, c) for c in s.deck[:known]],
            "to_move": rules.to_move(s),
            "is_over": s.over,
            "scores": list(s.scores),
        }
        if s.over:
            view["winners"] = rules.winners(s)
            view["breakdown"] = [dict(zip(BREAKDOWN, b, strict=True)) for b in s.breakdown]
        return view

    def determinize(self, state: State, seat: Seat, rng: random.Random) -> State:
        """Reshuffle the unseen deck within each original pile; keep ``seat``'s Huron cards."""
        s: NFState = state
        keep = s.known[seat] if type(seat) is int and 0 <= seat < s.n else 0
        deck = list(s.deck)
        piles = list(s.deck_piles)
        groups: dict[int, list[int]] = {}
        for pos in range(keep, len(deck)):
            groups.setdefault(piles[pos], []).append(pos)
        for pile in sorted(groups):
            positions = groups[pile]
            # Sorted first, so the worlds depend only on what ``seat`` can tell apart
            # (and ``rng``), never on the true hidden order.
            cards = sorted(deck[p] for p in positions)
            rng.shuffle(cards)
            for p, c in zip(positions, cards, strict=True):
                deck[p] = c
        # A Huron reorder moves cards (and so pile labels) inside the top cards: a seat
        # that did not see it only knows which piles those positions came from, not which
        # position now holds which pile's card.  Every reordered position still in the
        # deck lies within the newest reorderer's window, whose size is the largest
        # ``known`` (the active player's fresh peek does not count until it reorders).
        mixed = max(
            (k for p, k in enumerate(s.known) if not (s.step == "huron_order" and p == s.active)),
            default=0,
        )
        if keep < mixed:
            window = range(keep, mixed)
            pairs = sorted((piles[p], deck[p]) for p in window)  # canonical, as above
            rng.shuffle(pairs)
            for p, (pile, card) in zip(window, pairs, strict=True):
                deck[p] = card
                piles[p] = pile
        t = s.clone()
        t.deck = tuple(deck)
        t.deck_piles = tuple(piles)
        return t

    # -- serialisation ----------------------------------------------------
    def state_to_json(self, state: State) -> dict:
        """Full state (hidden deck included) as JSON-able data."""
        return to_json(state)

    def state_from_json(self, data: dict) -> State:
        """Inverse of ``state_to_json``."""
        return from_json(data)

    def action_to_json(self, action: Action) -> Any:
        """An action tuple as a JSON list."""
        return list(action)  # type: ignore[call-overload]

    def action_from_json(self, data: Any) -> Action:
        """A JSON list back to an action tuple; ``IllegalAction`` on garbage."""
        if not isinstance(data, list | tuple) or not data or not isinstance(data[0], str):
            raise IllegalAction("An action is a list starting with its name.")
        if len(data) > 8 or not all(isinstance(v, str) or type(v) is int for v in data):
            raise IllegalAction("Action arguments must be names or whole numbers.")
        return tuple(data)

    def describe_action(self, state: State, action: Action) -> str:
        """An English sentence for the log; reveals only what the action makes public."""
        s: NFState = state
        cv = s.cv
        seat = rules.to_move(s)[0] if rules.to_move(s) else s.active
        who = rules.seat_name(cv, seat)
        try:
            after = rules.apply(s, seat, action)
        except IllegalAction as exc:
            return f"{who} tried an illegal action: {exc}"
        tag = action[0]  # type: ignore[index]
        if tag == "huron":
            return f"{who} used the Huron and looked at the top {after.known[seat]} cards."
        if tag == "skip_huron":
            return f"{who} did not use the Huron."
        if tag == "order":
            return f"{who} put the cards back on the deck in an order of their choice."
        if tag == "draw":
            return f"{who} {self._drawn(s, after)}"
        if tag == "discard":
            shape = cv.shapes[s.display[action[1]]].name  # type: ignore[index]
            lost = (
                f"one {shape} piece leaves the game"
                if len(after.removed_pieces) > len(s.removed_pieces)
                else f"no {shape} piece was left"
            )
            return (
                f"{who} could not play any face-up card, discarded a {shape} card ({lost}) "
                f"and {self._drawn(s, after)}"
            )
        if tag == "card":
            return f"{who} chose the {cv.shapes[s.display[action[1]]].name} card."  # type: ignore[index]
        if tag == "copy":
            colours = ", ".join(cv.colours[c] for c in cv.copies[action[1]])  # type: ignore[index]
            return f"{who} took a {cv.shapes[s.display[s.pending_card]].name} ({colours})."
        if tag in ("place", "bonus"):
            if tag == "place":
                piece = cv.shapes[s.display[s.pending_card]].name
                site, x, y = action[1], action[3], action[4]  # type: ignore[index]
            else:
                piece = f"bonus {action[1]}"  # type: ignore[index]
                site, x, y = action[2], action[4], action[5]  # type: ignore[index]
            text = (
                f"{who} placed the {piece} on the {site} at ({x}, {y}) and scored "
                f"{_points(after.points)}."
            )
            i = cv.site_index[site]
            if s.holders[i] < 0 and after.holders[i] == seat:
                text += f" The {site} is complete: {who} takes the {cv.sites[i].character}."
            return text
        if tag == "fille_du_roy":
            return f"{who} used the Fille du Roy and doubled this turn's {_points(s.points)}."
        if tag == "no_ally":
            return f"{who} did not use the Fille du Roy."
        if tag == "coureur":
            return f"{who} used the Coureur des bois and gained {_points(s.points // 2)}."
        if tag == "decline":
            return f"{who} let the Coureur des bois pass."
        return f"{who} played {action!r}."

    def _drawn(self, before: NFState, after: NFState) -> str:
        parts = []
        for k in range(before.storms + 1, after.storms + 1):
            parts.append(f"drew a snowflake: snowstorm {k} scored level {k}")
        if after.over:
            parts.append("the game is over")
            return "; ".join(parts) + "."
        parts.append(f"drew a {after.cv.shapes[after.display[-1]].name} card")
        return "; then ".join(parts) + "."
