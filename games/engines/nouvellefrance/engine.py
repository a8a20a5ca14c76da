"""The ``Engine`` object: protocol glue, observation, determinization, rule data, figures."""

from __future__ import annotations

import json
import random
from functools import lru_cache
from typing import Any

from ..protocol import Action, IllegalAction, InvalidVariant, Seat
from . import events, rules
from .state import (
    BREAKDOWN,
    PHASES,
    SNOWFLAKE,
    State,
    state_from_json,
    state_to_json,
)
from .variant import (
    ALLIES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PROBLEM_TEMPLATES,
    Compiled,
    compile_variant,
    dealt_cubes,
    default_variants,
    validate_variant,
    variant_key,
    variant_schema,
)


def _card_name(cv: Compiled, card: int) -> str:
    return "snowflake" if card == SNOWFLAKE else cv.shapes[card].name


def public_piles(cv: Any, deck_count: int, storms: int) -> list[dict[str, int]]:
    """The piles as every player sees them: ``left``, the face-down cards of each pile
    (bottom piles full: the deck was stacked pile by pile), and ``snowflakes``, those not
    yet drawn.

    Only what everyone knows counts: the deck's size and the storms so far.  After a
    Huron reorder across a pile boundary the true pile of each of the top cards is known
    to that player only, so a snowflake whose pile is used up counts with the next pile
    that still has cards (it is among the top cards).  Snowflakes are drawn pile by pile:
    the first ``storms`` snowflake piles are the ones already drawn.
    """
    flake_piles = sorted(cv.snowflake_piles)
    sizes = [n + (p in flake_piles) for p, n in enumerate(cv.piles, start=1)]
    left = [0] * len(sizes)
    remaining = deck_count
    for i in range(len(sizes) - 1, -1, -1):
        left[i] = min(sizes[i], remaining)
        remaining -= left[i]
    flakes = [0] * len(sizes)
    for p in flake_piles[storms:]:
        target = next((i for i in range(p - 1, len(sizes)) if left[i]), p - 1)
        flakes[target] += 1
    return [{"pile": i + 1, "left": left[i], "snowflakes": flakes[i]} for i in range(len(sizes))]


class NouvelleFranceEngine:
    """Nouvelle-France: build three sites with coloured pentominoes before winter."""

    name = "nouvellefrance"
    title = "Nouvelle-France"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    # -- variants ---------------------------------------------------------
    def default_variants(self) -> dict[str, dict]:
        """``standard`` and ``simple`` (fresh copies)."""
        return default_variants()

    def variant_schema(self) -> dict:
        """The JSON Schema of variant data."""
        return variant_schema()

    def validate_variant(self, variant: dict) -> list[str]:
        """Problems naming the field; ``[]`` when playable."""
        return validate_variant(variant)

    def problem_templates(self) -> tuple[str, ...]:
        """The message templates of ``validate_variant``'s own checks (beside the schema's
        ``games.engines.problems.SCHEMA_TEMPLATES``): texts for the catalogues."""
        return PROBLEM_TEMPLATES

    def rule_data(self, variant: dict) -> dict:
        """Everything a renderer, the AI or an editor needs; ``InvalidVariant`` if invalid.

        Besides the protocol's envelope (``game``, ``title``, ``variant``,
        ``description``, ``player_counts``):

        * ``colours``: colour names; seat ``i`` plays ``colours[i]``, cubes of a colour
          no seat has are neutral.
        * ``sites``: ``name``, ``character``, ``footprint`` (ground cells ``[x, y]``),
          ``height_limit`` (levels 1..limit, 1 on the ground), ``extra_adjacency``
          (pairs of cells whose cubes touch for scoring on every level though their
          faces do not), ``character_bonus`` (points by the symbol on the site's
          stick's last level), ``capacity`` (cells x height limit).
        * ``shapes``: ``name``, ``cells`` (the upright drawing, ``[x, z]``), ``cards``
          in the deck, and ``copies``: per copy ``k`` (the ``copy`` action's number)
          its ``colours`` (colour names, cube by cube in ``cells`` order) and its
          ``orientations``: the ``place`` action's orientation ``o`` is index ``o``
          of this list, each a list of cubes ``[dx, dy, dz, colour]``.  A placement
          ``(site, o, x, y)`` landing at ``level`` (``observe``'s ``placements``)
          puts each cube at ``(x + dx, y + dy, level + dz)``.
        * ``copies``: the colour patterns as colour indices (copy ``k`` of every shape).
        * ``bonus_pieces``: per seat, all in the seat's colour: ``name``, ``cells``,
          ``expires_at_storm`` (it must be placed before that storm), and
          ``orientations`` (lists of ``[dx, dy, dz]``, indexed like a shape's).
        * ``tiebreak_bonus_piece``: whoever never placed it wins a tie (after allies).
        * ``sticks`` (``name``, ``levels``: the symbol scored at storm k on level k),
          ``symbols`` (points per cube by symbol).
        * ``display`` (``size``, ``initial_face_up``), ``deck`` (``size`` with the
          snowflakes, ``building_cards``, ``piles`` (building cards per pile, pile 1
          drawn first), ``snowflake_piles``, ``snowflakes``), ``storms``.
        * ``allies`` (``enabled`` names, ``refresh_after_storm``, ``huron_peek``),
          ``simple`` (the drawn card is the card), ``dealt_cubes`` (cubes a game
          can deal, 4 players), ``phases`` (``observe``'s ``phase`` values).
        * ``actions`` (action tag -> the names of its arguments, see ``rules``) and
          ``events`` (event type -> its fields, see ``events``).

        Cached per variant; a fresh copy each call.
        """
        problems = validate_variant(variant)
        if problems:
            raise InvalidVariant(problems)
        return json.loads(_rule_data_json(variant_key(variant)))

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
        return rules.new_state(compile_variant(variant), variant, num_players, int(seed))

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
        """Everything ``seat`` may know (``None`` = spectator), as JSON-able data.

        Static rules (footprints, shapes, orientations) are in ``rule_data``.  Only
        ``huron_known`` differs between seats.  During a placement decision
        ``placements`` lists the legal placements of the pending piece as ``[site,
        orientation, x, y, level]`` (``level``: where its lowest layer lands), and in
        the ``draw`` phase ``bonus_placements`` does the same for each of the active
        seat's ready bonus pieces; both are public and empty otherwise.  ``piles`` lists
        every pile (numbered from 1, drawn first) with the face-down cards still ``left``
        in it and the ``snowflakes`` among them, as every player can tell them
        (:func:`public_piles`).
        """
        s = state
        cv = s.compiled
        buried = rules.buried_levels(s)
        colours = cv.colours
        sites = []
        for i, site in enumerate(cv.sites):
            stick = cv.sticks[s.sticks[i]]
            sites.append(
                {
                    "name": site.name,
                    "character": site.character,
                    "stick": {"name": cv.stick_names[s.sticks[i]], "levels": list(stick)},
                    "character_bonus": site.character_bonus[stick[-1]],
                    "character_holder": None if s.holders[i] < 0 else s.holders[i],
                    "heights": list(s.heights[i]),
                    "cubes": [
                        {
                            "x": x,
                            "y": y,
                            "level": lv,
                            "colour": colours[c],
                            "covered": lv <= buried,
                        }
                        for (x, y, lv), c in sorted(s.cubes[i].items())
                    ],
                    "complete": min(s.heights[i]) > 0,
                }
            )
        players = []
        for p in range(s.num_players):
            players.append(
                {
                    "seat": p,
                    "colour": colours[p],
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
        known = s.known[seat] if type(seat) is int and 0 <= seat < s.num_players else 0
        pending: dict[str, Any] = {}
        if s.pending_card >= 0:
            pending["card"] = s.pending_card
            pending["shape"] = cv.shapes[s.display[s.pending_card]].name
        if s.pending_copy >= 0:
            pending["copy"] = s.pending_copy
        if s.phase in ("fille", "coureur"):
            pending["points"] = s.points
        placing: list[list] = []
        bonus_placing: dict[str, list[list]] = {}
        if s.phase == "place":
            kind, pattern = rules.pending_piece(s)  # type: ignore[misc]
            placing = [list(p) for p in rules.placements(s, kind, pattern)]
        elif s.phase == "draw":
            for b in rules.ready_bonus(s, s.active):
                kind = cv.bonus[b]
                bonus_placing[kind.name] = [
                    list(p) for p in rules.placements(s, kind, rules.bonus_colours(kind, s.active))
                ]
        view: dict[str, Any] = {
            "game": self.name,
            "variant": cv.name,
            "num_players": s.num_players,
            "colours": [colours[p] for p in range(s.num_players)],
            "phase": s.phase,
            "turn": s.turn,
            "active": s.active,
            "to_move": rules.to_move(s),
            "pending": pending,
            "huron_queue": list(s.huron_queue),
            "coureur_queue": list(s.coureur_queue),
            "sites": sites,
            "display": [cv.shapes[c].name for c in s.display],
            "discard": [cv.shapes[c].name for c in s.discard],
            "deck_count": len(s.deck),
            "piles": public_piles(cv, len(s.deck), s.storms),
            "snowflakes_left": cv.storms - s.storms,
            "storms": s.storms,
            "buried_levels": buried,
            "supply": {sh.name: list(s.supply[i]) for i, sh in enumerate(cv.shapes)},
            "removed_pieces": [
                {"shape": cv.shapes[sh].name, "copy": k} for sh, k in s.removed_pieces
            ],
            "players": players,
            "placements": placing,
            "bonus_placements": bonus_placing,
            "huron_known": [_card_name(cv, c) for c in s.deck[:known]],
            "is_over": s.over,
            "scores": list(s.scores),
        }
        if s.over:
            view["winners"] = rules.winners(s)
            view["breakdown"] = [dict(zip(BREAKDOWN, b, strict=True)) for b in s.breakdown]
        return view

    def variant_key(self, state: State) -> str:
        """The canonical JSON of the state's variant (public; one string per variant)."""
        return state.compiled.key

    def determinize(self, state: State, seat: Seat, rng: random.Random) -> State:
        """Deal the unseen building cards anew over the unseen positions, each snowflake
        anywhere in the pile everyone counts it in; keep ``seat``'s Huron cards.

        Public: the piles as everyone counts them (:func:`public_piles`: from the deck's
        size and the storms).  Hidden: which building card was dealt into which pile (the
        rules shuffle all 36 before dealing), and after a Huron reorder which of the top
        positions holds which pile's card.  A world is built from the public piles and
        ``seat``'s own cards only, never from each card's true pile: after a draw from
        reordered cards, that would tell which pile the drawn card came from.
        """
        s = state
        cv = s.compiled
        keep = s.known[seat] if type(seat) is int and 0 <= seat < s.num_players else 0
        deck = list(s.deck)
        counted = public_piles(cv, len(deck), s.storms)
        piles = [p["pile"] for p in counted for _ in range(p["left"])]
        unseen = range(keep, len(deck))
        # A Huron reorder mixes the top positions' piles: a seat that did not see it only
        # knows which piles they came from.  ``reordered`` (public) counts the top
        # positions any reorder may have touched.
        if keep < s.reordered:
            window = range(keep, s.reordered)
            labels = [piles[p] for p in window]
            rng.shuffle(labels)
            for p, pile in zip(window, labels, strict=True):
                piles[p] = pile
        # The snowflakes still to come, pile by pile; those among the seat's own cards
        # are the earliest piles' (snowflakes come pile by pile).
        flakes_in = [p["snowflakes"] for p in counted]
        for _ in range(sum(1 for p in range(keep) if deck[p] == SNOWFLAKE)):
            first = next((i for i, n in enumerate(flakes_in) if n), None)
            if first is not None:
                flakes_in[first] -= 1
        groups: dict[int, list[int]] = {}
        for pos in unseen:
            groups.setdefault(piles[pos], []).append(pos)
        flakes: set[int] = set()
        spill = 0  # snowflakes a pile has no unseen position for go to the next piles
        for pile in range(1, len(counted) + 1):
            free = groups.get(pile, [])
            want = flakes_in[pile - 1] + spill
            take = min(want, len(free))
            flakes.update(rng.sample(free, take))
            spill = want - take
        if spill:
            free = [pos for pos in unseen if pos not in flakes]
            flakes.update(rng.sample(free, min(spill, len(free))))
        cards = sorted(deck[p] for p in unseen if deck[p] != SNOWFLAKE)
        rng.shuffle(cards)
        dealt = iter(cards)
        for pos in unseen:
            deck[pos] = SNOWFLAKE if pos in flakes else next(dealt)
        t = s.copy()
        t.deck = tuple(deck)
        t.deck_piles = tuple(piles)
        return t

    def reveal(self, state: State) -> dict:
        """``observe(state, None)`` plus ``revealed``: the deck order (top first, with the
        pile each card was dealt into) and every seat's Huron knowledge."""
        s = state
        cv = s.compiled
        view = self.observe(s, None)
        view["revealed"] = {
            "deck": [_card_name(cv, c) for c in s.deck],
            "deck_piles": list(s.deck_piles),
            "huron_known": [
                [_card_name(cv, c) for c in s.deck[: s.known[p]]] for p in range(s.num_players)
            ],
        }
        return view

    # -- serialisation ----------------------------------------------------
    def state_to_json(self, state: State) -> dict:
        """Full state (hidden deck included) as JSON-able data, with its ``format``."""
        return state_to_json(state)

    def state_from_json(self, data: dict) -> State:
        """Inverse of ``state_to_json``; ``EngineError`` for malformed data."""
        return state_from_json(data)

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

    def describe_action(self, state: State, action: Action) -> dict:
        """The event of ``action`` (see ``events`` for the types and fields)."""
        return events.describe(state, action)

    # -- simulation -------------------------------------------------------
    def figures(self, events: list[dict], state: State) -> dict[str, float]:
        """Figures of one finished game for the simulation report (footprint tuning).

        * ``turns``: turns played, all seats together (the last one cut short by the
          final storm); ``cards_drawn``: building cards that came up (the first face-up
          cards included); ``pieces_placed``, ``bonus_pieces_placed``.
        * ``unplaceable_share``: cards discarded because no face-up card could be played,
          over ``cards_drawn``; ``unplaceable_share_k``: the same for the cards that came
          up before storm k (after storm k-1); ``pieces_removed``: pieces that went back
          in the box that way.
        * ``level1_fill_at_first_storm``: the share of footprint cells with a cube on
          level 1 when the 1st storm came, for the least full site, and
          ``level1_fill_at_first_storm_<site>`` for each site; the same by the stick
          the site was dealt, ``level1_fill_at_first_storm_stick_<stick>`` (the bots
          fill level 1 by the stick's symbol there, not by the footprint); and
          ``pieces_placed_at_first_storm``, ``bonus_pieces_placed_at_first_storm``.
        * ``sites_completed`` (characters taken); ``fill_at_end``: cubes over capacity
          (cells x height limit) at the end, all sites; ``level_k_fill_at_end``: the
          share of cells with a cube on level k at the end; ``huron_uses``.
        """
        s = state
        cv = s.compiled
        storms = cv.storms
        drawn = [0] * (storms + 1)  # cards that came up, by the storms passed when they did
        drawn[0] = cv.initial_face_up
        unplaceable = [0] * (storms + 1)
        period = 0
        level1 = [set() for _ in cv.sites]
        fill_at_storm: list[float] | None = None
        placed = bonus_placed = removed = huron = 0
        placed_at_storm = (0, 0)
        for event in events:
            kind = event["type"]
            if kind in ("placed", "bonus_placed"):
                if kind == "placed":
                    placed += 1
                else:
                    bonus_placed += 1
                i = cv.site_index[event["site"]]
                level1[i].update((x, y) for x, y, lv, _c in event["cubes"] if lv == 1)
            elif kind == "huron":
                huron += 1
            if kind == "discarded":
                unplaceable[period] += 1
                removed += event["copy"] is not None
            if kind in ("drew", "discarded"):
                for storm in event["storms"]:
                    if storm["storm"] == 1:
                        fill_at_storm = [
                            len(cells) / len(site.cells)
                            for cells, site in zip(level1, cv.sites, strict=True)
                        ]
                        placed_at_storm = (placed, bonus_placed)
                    period = storm["storm"]
                if event["card"] is not None:
                    drawn[period] += 1
        figures: dict[str, float] = {
            "turns": s.turn,
            "cards_drawn": sum(drawn),
            "pieces_placed": placed,
            "bonus_pieces_placed": bonus_placed,
            "unplaceable_share": sum(unplaceable) / max(sum(drawn), 1),
            "pieces_removed": removed,
        }
        for k in range(1, storms + 1):
            figures[f"unplaceable_share_{k}"] = unplaceable[k - 1] / max(drawn[k - 1], 1)
        if fill_at_storm is not None:
            figures["level1_fill_at_first_storm"] = min(fill_at_storm)
            for site, fill in zip(cv.sites, fill_at_storm, strict=True):
                figures[f"level1_fill_at_first_storm_{site.name}"] = fill
            for stick, fill in zip(s.sticks, fill_at_storm, strict=True):
                figures[f"level1_fill_at_first_storm_stick_{cv.stick_names[stick]}"] = fill
            figures["pieces_placed_at_first_storm"] = placed_at_storm[0]
            figures["bonus_pieces_placed_at_first_storm"] = placed_at_storm[1]
        figures["sites_completed"] = sum(1 for h in s.holders if h >= 0)
        capacity = sum(len(site.cells) * site.height_limit for site in cv.sites)
        figures["fill_at_end"] = sum(len(c) for c in s.cubes) / capacity
        cells = sum(len(site.cells) for site in cv.sites)
        for level in range(1, max(site.height_limit for site in cv.sites) + 1):
            covered = sum(len({(x, y) for x, y, lv in c if lv == level}) for c in s.cubes)
            figures[f"level{level}_fill_at_end"] = covered / cells
        figures["huron_uses"] = huron
        return figures


@lru_cache(maxsize=64)
def _rule_data_json(key: str) -> str:
    """The rule data of a valid variant as JSON text, by the variant's canonical JSON."""
    cv = compile_variant(json.loads(key))
    v = cv.variant
    colours = list(cv.colours)
    dealt, _pieces, _bonus = dealt_cubes(v)
    data = {
        "game": "nouvellefrance",
        "title": NouvelleFranceEngine.title,
        "variant": cv.name,
        "description": cv.description,
        "player_counts": list(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
        "colours": colours,
        "sites": [
            {
                "name": site.name,
                "character": site.character,
                "footprint": [list(c) for c in site.cells],
                "height_limit": site.height_limit,
                "extra_adjacency": sorted(
                    sorted([list(a), list(b)]) for a, bs in site.extra.items() for b in bs if a < b
                ),
                "character_bonus": dict(site.character_bonus),
                "capacity": len(site.cells) * site.height_limit,
            }
            for site in cv.sites
        ],
        "shapes": [
            {
                "name": kind.name,
                "cells": [list(c) for c in kind.cells],
                "cards": cv.cards_per_shape[i],
                "copies": [
                    {
                        "copy": k,
                        "colours": [colours[c] for c in pattern],
                        "orientations": [
                            [[dx, dy, dz, colours[c]] for dx, dy, dz, c in cubes]
                            for _r, cubes in kind.orientations(pattern)
                        ],
                    }
                    for k, pattern in enumerate(cv.copies)
                ],
            }
            for i, kind in enumerate(cv.shapes)
        ],
        "copies": [list(p) for p in cv.copies],
        "bonus_pieces": [
            {
                "name": kind.name,
                "cells": [list(c) for c in kind.cells],
                "expires_at_storm": cv.bonus_expiry[b],
                "orientations": [
                    [[dx, dy, dz] for dx, dy, dz, _c in cubes]
                    for _r, cubes in kind.orientations((0,) * len(kind.cells))
                ],
            }
            for b, kind in enumerate(cv.bonus)
        ],
        "tiebreak_bonus_piece": v["tiebreak_bonus_piece"],
        "sticks": [
            {"name": name, "levels": list(levels)}
            for name, levels in zip(cv.stick_names, cv.sticks, strict=True)
        ],
        "symbols": dict(cv.symbols),
        "display": {"size": cv.display_size, "initial_face_up": cv.initial_face_up},
        "deck": {
            "size": cv.total_cards,
            "building_cards": sum(cv.cards_per_shape),
            "piles": list(cv.piles),
            "snowflake_piles": list(cv.snowflake_piles),
            "snowflakes": cv.storms,
        },
        "storms": cv.storms,
        "allies": {
            "enabled": [a for a, on in zip(ALLIES, cv.allies_enabled, strict=True) if on],
            "refresh_after_storm": cv.refresh,
            "huron_peek": cv.huron_peek,
        },
        "simple": cv.simple,
        "dealt_cubes": dealt,
        "phases": list(PHASES),
        "actions": {tag: list(fields) for tag, fields in rules.ACTIONS.items()},
        "events": {kind: list(fields) for kind, fields in events.EVENT_TYPES.items()},
    }
    return json.dumps(data)
