"""Nouvelle-France's board: drawings, the presenter's picking flow, event texts, privacy,
and the play page for players and spectators."""

from __future__ import annotations

import json
import random
import re

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from games.boards import PlayerInfo, Scene, default_event_text, get_board
from games.boards.nouvellefrance import drawing
from games.boards.nouvellefrance.events import event_text
from games.core.selectors import current_state
from games.core.services import submit_action
from games.engines import get_engine
from games.engines.nouvellefrance.events import EVENT_TYPES
from games.engines.nouvellefrance.state import SNOWFLAKE
from games.models import Game
from games.play.page import render_fragments
from games.tables.services import create_game, join_game
from games.variants.services import load_default_variants, save_variant

ENGINE = get_engine("nouvellefrance")
BOARD = get_board("nouvellefrance")
VARIANT = ENGINE.default_variants()["standard"]
RULES = ENGINE.rule_data(VARIANT)
NAMES = {0: "Ann", 1: "Bob", 2: "Cy"}
HX = {"HTTP_HX_REQUEST": "true"}
FRAGMENTS = ("sites", "turn", "table", "players")


def scene(state, seat, n=2, **selection) -> Scene:
    legal = (tuple(ENGINE.action_to_json(a) for a in ENGINE.legal_actions(state, seat))
             if seat is not None else ())
    return Scene(
        view=ENGINE.observe(state, seat),
        rules=RULES,
        seat=seat,
        players=tuple(PlayerInfo(i, NAMES[i], is_me=i == seat) for i in range(n)),
        legal=legal,
        selection=selection,
        version=3,
    )


def render(state, seat, n=2, **selection) -> str:
    """Every fragment of the board for ``seat``, as the page pushes them."""
    board = BOARD.present(scene(state, seat, n, **selection))
    context = {"board": board, "version": 3, "oob": True, "play_url": "/games/1/",
               "act_url": "/games/1/act/", "csrf_token": "t", "my_seat": seat}
    html = "".join(render_to_string(f"boards/nouvellefrance/board.html#{f}", context)
                   for f in FRAGMENTS)
    # Idempotency keys are fresh on every render.
    return re.sub(r'name="key" value="[0-9a-f]+"', 'name="key"', html)


def advance(state, until, rng=None, n_max=500):
    """Random play (drawing rather than placing bonus pieces) until ``until(state)``."""
    rng = rng or random.Random(4)
    for _ in range(n_max):
        if until(state):
            return state
        seat = ENGINE.to_move(state)[0]
        acts = ENGINE.legal_actions(state, seat)
        action = ("draw",) if ("draw",) in acts else rng.choice(acts)
        state = ENGINE.apply(state, seat, action)
    raise AssertionError("never reached")


# --- drawings -----------------------------------------------------------------------------


def test_every_orientation_of_every_shape_renders():
    looks = drawing.looks(RULES["colours"])
    for shape in RULES["shapes"]:
        for copy in shape["copies"]:
            orientations = copy["orientations"]
            assert len({json.dumps(o) for o in orientations}) == len(orientations)  # distinct
            for o in orientations:
                svg = str(drawing.piece_svg(o, looks))
                uses = re.findall(r'<use href="#nf-c(\d)" x="([-\d.]+)" y="([-\d.]+)"', svg)
                assert len(uses) == len(shape["cells"])
                colours = sorted(RULES["colours"][int(i)] for i, _x, _y in uses)
                assert colours == sorted(c[3] for c in o)
                left, top, width, height = map(float, re.search(
                    r'viewBox="([^"]+)"', svg).group(1).split())
                for _i, x, y in uses:  # every cube's corner lies in the picture
                    assert left <= float(x) <= left + width and top <= float(y) <= top + height
    for bonus in RULES["bonus_pieces"]:
        for o in bonus["orientations"]:
            assert str(drawing.piece_svg([[*c, "white"] for c in o], looks)).count("<use") == len(o)


def test_a_placement_lands_at_its_isometric_spot():
    state = advance(ENGINE.new_game(VARIANT, 2, 7), lambda s: s.phase == "place")
    seat = ENGINE.to_move(state)[0]
    view = ENGINE.observe(state, seat)
    site, o, x, y, level = view["placements"][len(view["placements"]) // 2]
    shape = next(s for s in RULES["shapes"] if s["name"] == view["pending"]["shape"])
    cubes = shape["copies"][view["pending"]["copy"]]["orientations"][o]
    # The spot offered for it: its marker carries where the ghost goes.
    board = BOARD.present(scene(state, seat, o=str(o)))
    i = [s["name"] for s in RULES["sites"]].index(site)
    svg = str(board["sites"][i]["svg"])
    tx, ty = drawing.proj(x, y, level - 1)
    key = f"{site} {o} {x} {y}"
    assert re.search(rf'data-spot="{key}" data-tx="{drawing.num(tx)}" data-ty="{drawing.num(ty)}"'
                     rf' data-k="{drawing.depth(x, y, level)}"', svg)
    after = ENGINE.apply(state, seat, ("place", site, o, x, y))
    drawn = str(BOARD.present(scene(after, seat))["sites"][i]["svg"])
    looks = drawing.looks(RULES["colours"])
    for dx, dy, dz, colour in cubes:
        px, py = drawing.proj(x + dx, y + dy, level - 1 + dz)
        use = (f'<use href="#{looks[colour].cube}" x="{drawing.num(px)}" y="{drawing.num(py)}"'
               f' data-k="{drawing.depth(x + dx, y + dy, level + dz)}" />')
        assert use in drawn
    # Projection: one step in x goes right and down, in y left and down, a level up.
    assert drawing.proj(1, 0, 0)[0] > 0 > drawing.proj(0, 1, 0)[0]
    assert drawing.proj(0, 0, 1) == (0, -drawing.UNIT)


def test_cubes_and_ghost_carry_their_drawing_depth():
    """Placed cubes come in depth order, each with its depth; the ghost's cubes carry their
    offset's, so the board's script slips them in among the cubes at spot + offset."""
    state = advance(ENGINE.new_game(VARIANT, 2, 7), lambda s: s.phase == "place" and any(
        site["cubes"] for site in ENGINE.observe(s, None)["sites"]))
    seat = ENGINE.to_move(state)[0]
    board = BOARD.present(scene(state, seat, o="0"))
    svgs = [str(s["svg"]) for s in board["sites"]]
    cube = re.compile(r'<use href="#nf-[cs]\d" x="[^"]+" y="[^"]+" data-k="(\d+)"')
    placed = [[int(k) for k in cube.findall(svg)] for svg in svgs]
    assert any(placed) and all(ks == sorted(ks) and len(set(ks)) == len(ks) for ks in placed)
    view = ENGINE.observe(state, None)
    for ks, site in zip(placed, view["sites"], strict=True):
        assert sorted(ks) == sorted(drawing.depth(c["x"], c["y"], c["level"])
                                    for c in site["cubes"])
    ghost = re.findall(r'class="ghost-cube" data-k="(-?\d+)"', svgs[0])
    shape = next(s for s in RULES["shapes"] if s["name"] == view["pending"]["shape"])
    offsets = shape["copies"][view["pending"]["copy"]]["orientations"][0]
    assert sorted(map(int, ghost)) == sorted(drawing.depth(*c[:3]) for c in offsets)
    # Linear, and by x + y + level first.
    assert drawing.depth(2, 3, 1) + drawing.depth(0, 0, 2) == drawing.depth(2, 3, 3)
    assert drawing.depth(0, 0, 2) < drawing.depth(1, 1, 1)


def test_buried_levels_are_drawn_under_snow():
    state = advance(ENGINE.new_game(VARIANT, 2, 3), lambda s: s.storms >= 1)
    view = ENGINE.observe(state, None)
    svg = "".join(str(s["svg"]) for s in BOARD.present(scene(state, None))["sites"])
    covered = sum(1 for s in view["sites"] for c in s["cubes"] if c["covered"])
    assert covered and len(re.findall(r'href="#nf-s\d"', svg)) == covered
    assert 'class="ground snowy"' in svg
    html = render(state, None)
    assert 'class="lvl buried scored" data-level="1"' in html


def test_site_labels_and_log_share_cell_names():
    assert drawing.cell_name(0, 0) == "A1" and drawing.cell_name(15, 14) == "P15"
    assert drawing.cell_name(26, 0) == "AA1"
    assert drawing.cells_text([(2, 0), (3, 0), (4, 0)]) == "C1–E1"
    svg = str(drawing.site_svg(RULES["sites"][0], {"cubes": []}, drawing.looks(["white"]),
                               label="Church"))
    assert ">A</text>" in svg and ">J</text>" in svg and ">6</text>" in svg


def test_defs_hold_one_cube_per_colour_and_its_snowy_twin():
    defs = str(drawing.defs_svg(drawing.looks(["white", "brown", "red-ochre"])))
    for ident in ("nf-c0", "nf-c1", "nf-c2", "nf-s0", "nf-s2", "nf-cell", "nf-ghost-cube"):
        assert f'id="{ident}"' in defs


# --- the picking flow ---------------------------------------------------------------------


def test_placing_offers_exactly_the_legal_placements():
    state = advance(ENGINE.new_game(VARIANT, 2, 11), lambda s: s.phase == "place")
    seat = ENGINE.to_move(state)[0]
    legal = [ENGINE.action_to_json(a) for a in ENGINE.legal_actions(state, seat)]
    offered = []
    board = BOARD.present(scene(state, seat))
    placing = board["placing"]
    assert placing["active"] and board["prompt"]
    orientations = [r["o"] for r in placing["orientations"]]
    assert orientations == sorted({a[2] for a in legal})  # only those that fit somewhere
    assert placing["orientation"] == orientations[0]  # the first one is preselected
    for o in orientations:
        placing = BOARD.present(scene(state, seat, o=str(o)))["placing"]
        assert placing["orientation"] == o
        assert [r["pick"].current for r in placing["orientations"]].count(True) == 1
        for group in placing["spot_groups"]:
            for choice in group["choices"]:
                assert choice.action[2] == o and choice.data["spot"].split()[0] == group["site"]
                offered.append(choice.action)
    assert sorted(map(json.dumps, offered)) == sorted(map(json.dumps, legal))
    # Garbage in the query string is ignored, never an error.
    for bad in ({"o": "x"}, {"o": "999"}, {"bonus": "<b>"}, {"o": "-1"}):
        assert BOARD.present(scene(state, seat, **bad))["placing"]["orientation"] == \
            orientations[0]
    # The other seat and spectators see the piece being placed, but no choice.
    for viewer in (1 - seat, None):
        board = BOARD.present(scene(state, viewer))
        assert not board["placing"]["active"] and not board["choices"]
        assert "places the" in board["headline"]


def test_bonus_pieces_are_picked_then_placed():
    state = ENGINE.new_game(VARIANT, 2, 5)
    state = advance(state, lambda s: s.phase == "draw")
    seat = state.active
    legal = [ENGINE.action_to_json(a) for a in ENGINE.legal_actions(state, seat)]
    board = BOARD.present(scene(state, seat))
    assert [b["name"] for b in board["placing"]["bonus_picks"]] == ["beam", "post", "peg"]
    assert not board["placing"]["active"]
    assert [c.action for c in board["choices"]["buttons"]] == [["draw"]]
    placing = BOARD.present(scene(state, seat, bonus="peg"))["placing"]
    assert placing["active"] and placing["bonus"] == "peg" and placing["cancel"]
    actions = [c.action for g in placing["spot_groups"] for c in g["choices"]]
    assert sorted(map(json.dumps, actions)) == sorted(
        json.dumps(a) for a in legal if a[0] == "bonus" and a[1] == "peg")


def test_every_phase_offers_its_choices_only_to_the_seat_asked():
    state = ENGINE.new_game(VARIANT, 3, 2)
    rng = random.Random(9)
    seen = set()
    for _ in range(400):
        if state.over:
            break
        mover = ENGINE.to_move(state)[0]
        for seat in (0, 1, 2, None):
            board = BOARD.present(scene(state, seat, n=3))
            offered = [c.action for key in ("buttons", "orders", "cards", "other")
                       for c in board["choices"].get(key, [])]
            offered += [d["choice"].action for d in board["choices"].get("copies", [])]
            offered += [d["choice"].action for g in board["choices"].get("discards", [])
                        for d in g["choices"]]
            if seat != mover:
                if seat is not None and seat != (mover + 1) % 3:
                    continue  # one other seat and the spectator are enough
                assert not offered and not board["my_turn"]
                assert board["waiting_text"] == f"Waiting for {NAMES[mover]}."
            elif state.phase != "place":
                legal = [ENGINE.action_to_json(a) for a in ENGINE.legal_actions(state, seat)]
                if state.phase != "draw":  # (draw: the bonus placements come as picks)
                    assert sorted(map(json.dumps, offered)) == sorted(map(json.dumps, legal))
                seen.add(state.phase)
        if {"huron", "huron_order", "draw", "card", "copy", "fille", "coureur"} <= seen:
            break
        acts = ENGINE.legal_actions(state, mover)
        state = ENGINE.apply(state, mover, ("draw",) if ("draw",) in acts else rng.choice(acts))
    assert {"huron", "huron_order", "draw", "card", "copy"} <= seen


def test_huron_orders_name_the_cards_top_first():
    state = ENGINE.new_game(VARIANT, 2, 1)
    state = advance(state, lambda s: s.phase == "huron")
    seat = ENGINE.to_move(state)[0]
    state = ENGINE.apply(state, seat, ("huron",))
    view = ENGINE.observe(state, seat)
    board = BOARD.present(scene(state, seat))
    orders = board["choices"]["orders"]
    assert len(orders) == 6
    first = orders[0]
    assert first.action == ["order", 0, 1, 2]
    assert "(unchanged)" in first.text
    assert board["huron_known"] and len(view["huron_known"]) == 3


def test_a_snowflake_a_huron_moved_across_a_pile_boundary_stays_announced():
    """A Huron reorder can put pile 3's cards above pile 2's last card (its snowflake):
    after a draw pile 2 is used up as everyone counts, and its snowflake, not yet drawn,
    is announced with pile 3 (it is among the top cards), not lost."""
    s = ENGINE.new_game(VARIANT, 2, 1).copy()
    flake = next(i for i, (c, p) in enumerate(zip(s.deck, s.deck_piles, strict=True))
                 if p == 2 and c == SNOWFLAKE)
    order = [flake, *(i for i, p in enumerate(s.deck_piles) if p >= 3)]
    s.deck = tuple(s.deck[i] for i in order)
    s.deck_piles = tuple(s.deck_piles[i] for i in order)
    seat = s.active
    s.phase, s.huron_queue = "huron", (seat,)
    s = ENGINE.apply(ENGINE.apply(s, seat, ("huron",)), seat, ("order", 1, 2, 0))
    assert s.deck_piles[:3] == (3, 3, 2)
    s = ENGINE.apply(s, seat, ("draw",))
    piles = BOARD.present(scene(s, None))["piles"]
    assert [(p["pile"], p["left"], p["snowflake"]) for p in piles[:3]] == [
        (3, 5, True), (4, 6, True), (5, 5, False)]
    assert sum(p["left"] for p in piles) == len(s.deck)


def test_the_piles_do_not_tell_which_pile_a_card_drawn_after_a_huron_came_from():
    """Two decks the other seat cannot tell apart: the same cards in the same order after
    seat 0's Huron, but the top card from pile 1 in one and from pile 2 in the other.
    After the draw, the other seat's view is still the same (the piles are public)."""
    s = ENGINE.new_game(VARIANT, 2, 1).copy()
    seat = s.active
    s.deck_piles = (1, 2, 2, *s.deck_piles[3:])  # the top three straddle piles 1 and 2
    s.phase, s.huron_queue = "huron", (seat,)
    s = ENGINE.apply(ENGINE.apply(s, seat, ("huron",)), seat, ("order", 1, 0, 2))
    twin = s.copy()
    twin.deck_piles = (1, 2, 2, *s.deck_piles[3:])  # same cards, other piles on top
    assert twin.deck_piles != s.deck_piles
    other = 1 - seat
    assert ENGINE.observe(s, other) == ENGINE.observe(twin, other)
    after = [ENGINE.apply(x, seat, ("draw",)) for x in (s, twin)]
    assert ENGINE.observe(after[0], other) == ENGINE.observe(after[1], other)


# --- privacy --------------------------------------------------------------------------------


def test_hidden_information_changes_no_other_rendering():
    """Two states that differ only in the deck order and in what seat 0 saw with its Huron
    render alike for seat 1 and for spectators; seat 0 sees what it knows."""
    state = ENGINE.new_game(VARIANT, 2, 1)
    state = advance(state, lambda s: s.phase == "huron" and ENGINE.to_move(s) == [0],
                    rng=random.Random(3))
    peeked = ENGINE.apply(state, 0, ("huron",))
    other = peeked.copy()
    keep = max(peeked.known[1:])  # what the other seat knows stays as it is
    # Each card keeps its pile: how many cards and snowflakes each pile holds is public.
    deck = list(zip(other.deck[keep:], other.deck_piles[keep:], strict=True))
    random.Random(1).shuffle(deck)
    other.deck = other.deck[:keep] + tuple(c for c, _ in deck)
    other.deck_piles = other.deck_piles[:keep] + tuple(p for _, p in deck)
    other.known = (0, *peeked.known[1:])
    assert other.deck != peeked.deck
    assert ENGINE.observe(peeked, 0)["huron_known"] != ENGINE.observe(other, 0)["huron_known"]
    for viewer in (1, None):
        assert render(peeked, viewer) == render(other, viewer)
    mine = render(peeked, 0)
    assert 'id="huron-known"' in mine and 'id="huron-known"' not in render(peeked, None)
    # And the log never says which cards were seen.
    event = ENGINE.describe_action(state, ("huron",))
    assert event_text(event, NAMES, RULES) == "Ann used the Huron and looked at the top 3 cards."


# --- events ---------------------------------------------------------------------------------

STORM = {"storm": 1, "level": 1, "symbols": {"church": "+", "mill": "-"},
         "points": {"church": [2, 0], "mill": [0, -3]}, "expired": [[1, "beam"]],
         "characters": []}


@pytest.mark.parametrize(
    ("event", "text"),
    [
        ({"type": "huron", "seat": 0, "cards": 3},
         "Ann used the Huron and looked at the top 3 cards."),
        ({"type": "huron_skipped", "seat": 1}, "Bob let the Huron pass."),
        ({"type": "huron_ordered", "seat": 1, "cards": 3},
         "Bob put the 3 cards back in an order only they know."),
        ({"type": "drew", "seat": 0, "card": "eel", "storms": [], "dropped": None,
          "over": False}, "Ann drew a card. Eel came up."),
        ({"type": "drew", "seat": 0, "card": "cross", "storms": [STORM], "dropped": None,
          "over": False},
         "Ann drew a card. ❄ Snowstorm 1! Level 1 scores: church (+1 per cube): Ann +2; "
         "mill (−1 per cube): Bob -3. Expired: Bob's beam. Level 1 is now under snow. "
         "Cross came up."),
        ({"type": "drew", "seat": 1, "card": None, "over": True, "dropped": None,
          "storms": [{**STORM, "storm": 3, "level": 3, "expired": [],
                      "characters": [["mill", "colonist", 0, 8]]}]},
         "Bob drew a card. ❄ Snowstorm 3! Level 3 scores: church (+1 per cube): Ann +2; "
         "mill (−1 per cube): Bob -3. Characters: Ann's colonist +8. The game is over."),
        ({"type": "discarded", "seat": 1, "shape": "eel", "copy": 2, "card": "cross",
          "storms": [], "dropped": None, "over": False},
         "Bob could play no face-up card, discarded a eel and sent copy 3 of it back to the "
         "box. Cross came up."),
        ({"type": "discarded", "seat": 1, "shape": "eel", "copy": None, "card": "cross",
          "storms": [], "dropped": "scythe", "over": False},
         "Bob could play no face-up card and discarded a eel. Cross came up. The scythe left "
         "the full display."),
        ({"type": "card_chosen", "seat": 0, "index": 1, "shape": "plough"},
         "Ann chose the plough card."),
        ({"type": "copy_taken", "seat": 0, "shape": "plough", "copy": 1,
          "colours": ["brown", "brown", "yellow", "blue", "white"]},
         "Ann took the plough (brown, brown, yellow, blue, white)."),
        ({"type": "placed", "seat": 0, "piece": "scythe", "copy": 0, "site": "church",
          "orientation": 3, "x": 2, "y": 0, "level": 1, "points": 3, "character": None,
          "cubes": [[2, 0, 1, "white"], [3, 0, 1, "white"], [4, 0, 1, "brown"],
                    [5, 0, 1, "yellow"], [2, 0, 2, "blue"]]},
         "Ann placed the scythe on the church at C1–F1, level 1: 3 points."),
        ({"type": "placed", "seat": 1, "piece": "eel", "copy": 0, "site": "mill",
          "orientation": 0, "x": 0, "y": 0, "level": 2, "points": 1, "character": "colonist",
          "cubes": [[0, 0, 2, "white"]]},
         "Bob placed the eel on the mill at A1, level 2: 1 point, completing the site: Bob "
         "takes the colonist."),
        ({"type": "bonus_placed", "seat": 1, "piece": "peg", "copy": None, "site": "redoubt",
          "orientation": 0, "x": 15, "y": 4, "level": 3, "points": 2, "character": None,
          "cubes": [[15, 4, 3, "brown"]]},
         "Bob placed their peg on the redoubt at P5, level 3: 2 points."),
        ({"type": "fille_du_roy", "seat": 0, "points": 4},
         "Ann used the Fille du Roy: +4 points."),
        ({"type": "no_ally", "seat": 0}, "Ann did not use the Fille du Roy."),
        ({"type": "coureur", "seat": 1, "points": 1}, "Bob used the Coureur des bois: +1 point."),
        ({"type": "declined", "seat": 1}, "Bob let the Coureur des bois pass."),
        ({"type": "something_new", "seat": 1, "x": 2}, "Bob something_new x 2"),
    ],
)
def test_event_texts(event, text):
    assert event_text(event, NAMES, RULES) == text


def test_every_engine_event_type_has_a_text():
    for kind, fields in EVENT_TYPES.items():
        event = {"type": kind, "seat": 0, **dict.fromkeys(fields)}
        text = event_text(event, NAMES, RULES)
        assert text.startswith("Ann ") and text.endswith("."), (kind, text)
        assert text != default_event_text(event, NAMES)


# --- the play page ----------------------------------------------------------------------------


@pytest.fixture
def nf_game(db, ann, bob):
    variants = {r.variant.name: r.variant for r in load_default_variants(games=["nouvellefrance"])}
    game = create_game(creator=ann, variant=variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    return game


@pytest.mark.django_db
def test_the_page_for_players_spectators_and_htmx(client, nf_game, ann, bob, make_user):
    mover = {0: ann, 1: bob}[nf_game.to_move[0]]
    client.force_login(mover)
    url = reverse("play", args=[nf_game.pk])
    html = client.get(url).content.decode()
    assert "<title>Nouvelle-France #" in html
    assert 'id="unsupported-game"' not in html
    assert "/static/css/boards/nouvellefrance.css" in html
    assert "/static/js/boards/nouvellefrance.js" in html
    assert 'id="nf-defs"' not in html and 'class="nf-defs"' in html
    assert html.count('class="nf-site"') == 3 and 'id="your-turn"' in html
    assert "<html" in html and 'hx-swap-oob="true"' not in html
    partial = client.get(url, **HX).content.decode()
    assert "<html" not in partial and 'class="nf-defs"' not in partial
    for fragment in ("game-status", "nf-sites", "nf-turn", "nf-table", "nf-players"):
        assert re.search(rf'id="{fragment}"[^>]*hx-swap-oob="true"', partial), fragment
    # A spectator: the same sites, no choices, no private knowledge.
    client.force_login(make_user("eve"))
    html = client.get(url).content.decode()
    assert 'id="spectating"' in html and 'id="your-turn"' not in html
    assert 'name="action"' not in html and 'id="huron-known"' not in html


@pytest.mark.django_db
def test_a_whole_game_through_the_page_ends_with_points_by_source(client, ann, bob):
    load_default_variants(games=["nouvellefrance"])
    data = ENGINE.default_variants()["standard"]
    data.update(name="short", description="Nine cards.")
    data["deck"].update(cards_per_shape={s["name"]: 1 for s in data["shapes"]},
                        piles=[3, 2, 2, 2], snowflake_piles=[2, 3, 4])
    nf_game = create_game(creator=ann, variant=save_variant(game="nouvellefrance",
                                                              name="short", data=data),
                          seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=nf_game, user=bob)
    nf_game.refresh_from_db()
    users = {0: ann, 1: bob}
    rng = random.Random(2)
    engine = ENGINE
    for n in range(600):
        if nf_game.status != Game.Status.RUNNING:
            break
        seat = nf_game.to_move[0]

        acts = engine.legal_actions(current_state(nf_game), seat)
        action = ("draw",) if ("draw",) in acts else rng.choice(acts)
        nf_game = submit_action(game=nf_game, user=users[seat], seat=seat,
                                action=engine.action_to_json(action), version=nf_game.version,
                                key=f"k{n}")
    assert nf_game.status == Game.Status.FINISHED
    client.force_login(ann)
    html = client.get(reverse("play", args=[nf_game.pk])).content.decode()
    assert 'id="final-scores"' in html and html.count("data-final-seat=") == 2
    for column in ("Placements", "Snowstorms", "Characters", "Allies used", "Kept the peg"):
        assert column in html
    assert "Snowstorm 3!" in html and "The game is over." in html
    assert "Ties are broken by fewest allies used, then by who kept the peg" in html
    # Its replay: every step is drawn by the board, with no form and no pick.
    url = reverse("replay", args=[nf_game.pk])
    for step in (0, 5, nf_game.version):
        html = client.get(f"{url}?step={step}").content.decode()
        assert html.count('class="nf-site"') == 3, step
        assert 'name="action"' not in html and 'id="spot-list"' not in html


@pytest.mark.django_db
def test_a_live_update_with_a_snowstorm_carries_a_notice_for_every_viewer(client, ann, bob):
    """The update that brought a snowstorm (pushes and HTMX answers: the log since the
    version shown) carries a notice with the storm's scoring; the page load and the next
    updates do not."""

    load_default_variants(games=["nouvellefrance"])
    data = ENGINE.default_variants()["standard"]
    data.update(name="short", description="Nine cards.")
    data["deck"].update(cards_per_shape={s["name"]: 1 for s in data["shapes"]},
                        piles=[3, 2, 2, 2], snowflake_piles=[2, 3, 4])
    game = create_game(creator=ann, variant=save_variant(game="nouvellefrance", name="short",
                                                         data=data),
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    users, rng = {0: ann, 1: bob}, random.Random(2)
    while current_state(game).storms == 0:
        seat = game.to_move[0]
        acts = ENGINE.legal_actions(current_state(game), seat)
        action = ("draw",) if ("draw",) in acts else rng.choice(acts)
        game = submit_action(game=game, user=users[seat], seat=seat,
                             action=ENGINE.action_to_json(action), version=game.version,
                             key=f"s{game.version}")
    stormy = game.version
    for viewer in (ann, bob, None):
        html = render_fragments(game, viewer, log_since=stormy - 1)
        # The seed is the table's own: the draw may bring two storms at once ("1 2").
        banner = re.search(r'<div class="storm-banner" data-storm="1(?: \d)*">(.*?)</div>',
                           html, re.S)
        assert banner, viewer
        assert "❄ Snowstorm 1 of 3!" in banner.group(1)
        assert "Level 1 scores" in banner.group(1)  # the draw event's scoring, from its log line
        # Close works without JavaScript: a visible link to the page, which has no notice.
        close = re.search(r'<a class="storm-close" href="([^"]+)"[^>]*>Close</a>', banner.group(1))
        assert close and close.group(1) == reverse("play", args=[game.pk]), viewer
        assert "hidden" not in banner.group(1)
    assert "storm-banner" not in render_fragments(game, ann, log_since=stormy)
    client.force_login(ann)
    page = client.get(reverse("play", args=[game.pk])).content.decode()
    assert 'id="nf-storm-notice"' in page and "storm-banner" not in page


def test_placing_shows_one_site_up_close_with_thumb_sized_spots():
    """While placing, one site is up close (on a phone the others fold away): the one picked
    if it has a spot for this orientation, else the first that has one; the sites are what
    needs the player (data-act), above the choosers."""
    state = advance(ENGINE.new_game(VARIANT, 2, 11), lambda s: s.phase == "place")
    seat = ENGINE.to_move(state)[0]
    board = BOARD.present(scene(state, seat))
    placing = board["placing"]
    with_spots = [g["site"] for g in placing["spot_groups"]]
    assert placing["zoom"] == with_spots[0] and board["act"] == "placing"
    assert [p.data["zoom"] for p in placing["site_picks"]] == with_spots
    assert [s["name"] for s in board["sites"] if s["zoomed"]] == [with_spots[0]]
    last = with_spots[-1]
    o = placing["orientation"]
    board = BOARD.present(scene(state, seat, o=str(o), site=last))
    assert board["placing"]["zoom"] == last
    assert [p.current for p in board["placing"]["site_picks"]] == [
        s == last for s in with_spots]
    # The orientation picks keep the site up close, the site picks the orientation.
    assert all(r["pick"].params["site"] == last for r in board["placing"]["orientations"])
    assert all(p.params["o"] == o for p in board["placing"]["site_picks"])
    # Up close, spots one cube edge apart are a thumb apart, and each target that wide.
    assert drawing.UNIT * drawing.ZOOM_PX >= 44 and 2 * drawing.SPOT_HIT * drawing.ZOOM_PX >= 44
    zoomed = next(s for s in board["sites"] if s["zoomed"])
    width, _height = drawing.site_extent(next(s for s in RULES["sites"] if s["name"] == last))
    assert zoomed["zoom_width"] == round(width * drawing.ZOOM_PX)
    html = render(state, seat, o=str(o), site=last)
    assert f'data-pos="--zoom-width: {zoomed["zoom_width"]}px"' in html
    assert 'id="nf-sites" class="panel placing-now"' in html and 'data-act="placing"' in html
    # A site with no spot, or garbage, falls back to the first with one.
    for bad in ("nowhere", "<b>", ""):
        assert BOARD.present(scene(state, seat, site=bad))["placing"]["zoom"] == with_spots[0]
    # Not placing: the turn panel is what needs the player; others need nothing.
    state = advance(state, lambda s: s.phase == "card")
    seat = ENGINE.to_move(state)[0]
    assert BOARD.present(scene(state, seat))["act"] == "turn"
    assert BOARD.present(scene(state, 1 - seat))["act"] == ""


def test_the_redoubts_bend_is_drawn_as_a_link():
    """The two cells of an extra adjacency are joined on the ground, and a dashed line rises
    through their shared corner over the cubes; sites without one draw none."""
    sites = {s["name"]: s for s in RULES["sites"]}
    assert sites["redoubt"]["extra_adjacency"] == [[[14, 0], [15, 1]]]
    looks = drawing.looks(list(RULES["colours"]))
    view = {"cubes": [{"x": 14, "y": 0, "level": 1, "colour": RULES["colours"][0]}]}
    svg = str(drawing.site_svg(sites["redoubt"], view, looks, label="redoubt"))
    x1, y1 = drawing.proj(14.5, 0.5, 0)
    x2, y2 = drawing.proj(15.5, 1.5, 0)
    band = re.search(r'<line x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)" '
                     r'class="bend"', svg)
    assert band and [float(v) for v in band.groups()] == pytest.approx([x1, y1, x2, y2], abs=.01)
    assert svg.index('class="bend"') < svg.index('class="cubes"') < svg.index('class="bend-up"')
    assert "O1 and P2 count as adjacent" in svg
    for name in ("church", "mill"):
        assert "bend" not in str(drawing.site_svg(sites[name], {}, looks, label=name))
    state = ENGINE.new_game(VARIANT, 2, 11)
    board = BOARD.present(scene(state, 0))
    assert [s["name"] for s in board["sites"] if s["bend"]] == ["redoubt"]
