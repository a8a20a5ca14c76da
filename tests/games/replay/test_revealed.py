"""The replay's "Everything revealed" panel (issue 21): each game's board draws what was
hidden at a step -- every seat's hidden things, the bag's, pool's or deck's contents as
counts and pictures -- in the reader's language, never the engine's raw keys; and only in
the revealed perspective of a finished game."""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string
from django.utils import translation
from replay_support import fold_json, random_actions, random_game, store_game

from games.boards import board_names, get_board
from games.engines import get_engine
from games.models import Game, Move
from games.replay.page import REPLAY_TEMPLATE, replay_context
from games.replay.selectors import replay_step

pytestmark = pytest.mark.django_db

_spec = importlib.util.spec_from_file_location(
    "revealed_textnodes", Path(__file__).resolve().parents[2] / "i18n" / "textnodes.py")
textnodes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(textnodes)

#: The keys of ``engine.reveal``'s hidden part (and of ``observe``) that a reader must
#: never see as words.
RAW_KEYS = ("pool", "bag", "hands", "public_buildings", "private_buildings", "shipments",
            "squares", "cell", "tiles", "deck", "deck_piles", "huron_known", "snowflake",
            "revealed", "wheat", "sheep", "timber", "stone", "None")


def finished(name: str, make_user, seed: int = 21) -> Game:
    game = random_game(name, [make_user(f"{name}_a"), make_user(f"{name}_b"), None],
                       seed=seed, rng_seed=seed)
    assert game.status == Game.Status.FINISHED
    return game


def hidden_at(game: Game, step: int) -> dict:
    """The test's own answer: the hidden part of ``reveal`` of the fold of ``step`` moves."""
    actions = list(Move.objects.filter(game=game).order_by("seq").values_list("seat", "action"))
    state = fold_json(game.game_name, game.variant_data, game.num_players, game.seed,
                      actions, step)
    return get_engine(game.game_name).reveal(state)["revealed"]


def panel(game: Game, step: int, lang: str = "en") -> str:
    """The ``#replay-revealed`` section of ``step`` in the revealed perspective, rendered in
    ``lang`` through the replay page's own context and template."""
    with translation.override(lang):
        replay = replay_step(game, AnonymousUser(), step=step, seat="all")
        context = replay_context(replay, AnonymousUser())
        return render_to_string(f"{REPLAY_TEMPLATE}#revealed", context)


def section(html: str, marker: str, end: str = "</section>") -> str:
    """The part of ``html`` from the element holding ``marker`` to the next ``end``."""
    start = html.index(marker)
    return html[start:html.index(end, start)]


def names_of(game: Game) -> set[str]:
    return {s.display_name for s in game.seats.all()} | {game.variant_name}


# --- New Haven ------------------------------------------------------------------------------


@pytest.mark.parametrize("step", [0, 30, None])
def test_newhaven_shows_every_hand_shipment_the_bag_and_the_pool(make_user, step):
    game = finished("newhaven", make_user)
    step = game.version if step is None else step
    hidden = hidden_at(game, step)
    html = panel(game, step)
    assert 'id="nh-revealed"' in html
    for seat, hand in enumerate(hidden["hands"]):
        seat_html = section(html, f'data-reveal-seat="{seat}"')
        tiles = section(seat_html, f'data-reveal-tiles="{seat}"', "</ul>")
        # Each tile drawn as the hand draws it, labelled with its squares in order.
        labels = re.findall(r"<title>([^<]*)</title>", tiles)
        assert len(labels) == len(hand["tiles"])
        for label, squares in zip(labels, hand["tiles"], strict=True):
            assert label.endswith(", ".join(squares))
        buildings = section(seat_html, f'data-reveal-buildings="{seat}"', "</ul>")
        tokens = re.findall(r'<span class="bld r\d+( blind)?" title="(\w+) (\d+)"', buildings)
        want = [("", b["resource"], str(b["number"])) for b in hand["public_buildings"]]
        want += [(" blind", b["resource"], str(b["number"])) for b in hand["private_buildings"]]
        assert tokens == want
        shipment = hidden["shipments"][seat]
        if shipment is None:
            assert f'data-reveal-shipment="{seat}"' not in seat_html
        else:
            ship = section(seat_html, f'data-reveal-shipment="{seat}"', "</li>")
            assert ", ".join(shipment["squares"]) in ship
    bag = section(html, 'id="reveal-bag"')
    assert f"{len(hidden['bag'])} buildings in the bag" in bag
    counts = Counter((b["resource"], b["number"]) for b in hidden["bag"])
    for resource in {b["resource"] for b in hidden["bag"]}:
        row = section(bag, f'data-bag="{resource}"', "</tr>")
        cells = re.findall(r"<td>(?:<span[^>]*>·</span>|(\d+))</td>", row)
        assert [int(c or 0) for c in cells] == [counts[(resource, n)] for n in range(1, 7)]
    nxt = re.findall(r'title="(\w+) (\d+)"', section(bag, 'id="reveal-bag-next"', "</ol>"))
    assert nxt == [(b["resource"], str(b["number"])) for b in hidden["bag"][:5]]
    pool = section(html, 'id="reveal-pool"')
    assert f"{len(hidden['pool'])} harvest tile" in pool
    labels = re.findall(r"<title>([^<]*)</title>", pool)
    assert [label.split(": ")[1] for label in labels] == [", ".join(t) for t in hidden["pool"]]


def test_newhaven_shows_a_shipment_face_down_where_it_lies(make_user):
    """The step right after a shipment went down: its face, and the cell it lies on."""
    game = finished("newhaven", make_user)
    ship_steps = [m.seq for m in Move.objects.filter(game=game).order_by("seq")
                  if m.action.get("type") == "ship"]
    assert ship_steps
    step = ship_steps[0]
    hidden = hidden_at(game, step)
    seat = next(i for i, s in enumerate(hidden["shipments"]) if s and s["cell"])
    row, col = hidden["shipments"][seat]["cell"]
    html = panel(game, step)
    assert f"Face down on {chr(65 + col)}{row + 1}" in section(html, f'data-reveal-seat="{seat}"')


# --- Nouvelle-France ----------------------------------------------------------------------


def huron_step(game: Game) -> int:
    """The first step at which a seat knows cards on top of the deck (a Huron was used)."""
    for step in range(game.version + 1):
        if any(hidden_at(game, step)["huron_known"]):
            return step
    raise AssertionError("no Huron was used in this game")


def test_nouvellefrance_shows_each_seats_huron_cards_and_the_deck(make_user):
    game = finished("nouvellefrance", make_user)
    step = huron_step(game)
    hidden = hidden_at(game, step)
    html = panel(game, step)
    assert 'id="nf-revealed"' in html
    for seat, known in enumerate(hidden["huron_known"]):
        li = section(html, f'data-reveal-seat="{seat}"', "</li><li data-reveal-seat" if seat + 1
                     < len(hidden["huron_known"]) else "</ul>")
        assert re.findall(r'data-card="(\w+)"', li) == known
        if not known:
            assert "none" in li
    deck = section(html, 'id="reveal-deck"')
    assert f"{len(hidden['deck'])} cards" in deck
    flakes = hidden["deck"].count("snowflake")
    assert f"{flakes} snowflake" in deck
    runs = section(deck, 'id="reveal-runs"', "</ol></li></ol>")
    piles = re.findall(r'<li data-pile="(\d+)">', runs)
    cards = re.findall(r'data-card="(\w+)"', runs)
    assert cards == hidden["deck"]
    # One run per change of pile, in draw order.
    expected = [p for i, p in enumerate(hidden["deck_piles"])
                if i == 0 or hidden["deck_piles"][i - 1] != p]
    assert [int(p) for p in piles] == expected
    by_shape = section(deck, 'id="reveal-by-shape"', "</ul>")
    shown = dict(re.findall(r'data-reveal-shape="(\w+)">.*?× (\d+)</span>', by_shape))
    assert {k: int(v) for k, v in shown.items()} == {
        k: v for k, v in Counter(hidden["deck"]).items() if k != "snowflake"}


def test_nouvellefrance_at_the_end_shows_the_cards_never_drawn(make_user):
    game = finished("nouvellefrance", make_user)
    hidden = hidden_at(game, game.version)
    html = panel(game, game.version)
    assert re.findall(r'data-card="(\w+)"', section(html, 'id="reveal-deck"')) == hidden["deck"]


# --- in the reader's language -------------------------------------------------------------


@pytest.mark.parametrize("name", ["newhaven", "nouvellefrance"])
@pytest.mark.parametrize("lang", ["de", "fr", "it"])
def test_the_panel_speaks_the_readers_language(make_user, name, lang):
    game = finished(name, make_user)
    step = huron_step(game) if name == "nouvellefrance" else 30
    english, translated = panel(game, step, "en"), panel(game, step, lang)
    shown = textnodes.texts(translated)
    assert shown, "nothing rendered"
    words = set(re.findall(r"[\w]+", " ".join(shown)))
    assert not words & set(RAW_KEYS), words & set(RAW_KEYS)
    assert textnodes.untranslated(translated, english, lang, names_of(game)) == []


# --- who may see it -------------------------------------------------------------------------


def test_a_spectator_or_player_of_a_running_game_never_gets_the_panel(client, make_user):
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    for name in ("newhaven", "nouvellefrance"):
        data = get_engine(name).default_variants()["standard"]
        actions = random_actions(name, data, 2, seed=4, rng_seed=4, limit=20)
        game = store_game(name, data, [ann, bob], 4, actions)
        assert game.status == Game.Status.RUNNING
        for user in (eve, ann, None):
            if user is None:
                client.logout()
            else:
                client.force_login(user)
            url = f"/games/{game.pk}/replay/"
            refused = client.get(url, {"seat": "all"})
            assert refused.status_code == 403
            for response in (client.get(url), client.get(url, HTTP_HX_REQUEST="true")):
                html = response.content.decode()
                assert response.status_code == 200
                assert 'id="replay-revealed"' in html
                # The section is there (a perspective switch swaps it) but hidden and empty.
                assert re.search(r'id="replay-revealed"[^>]* hidden>\s*</section>', html)
                assert 'id="nh-revealed"' not in html and 'id="nf-revealed"' not in html
                assert "replay-seed" not in html


@pytest.mark.parametrize("name", ["newhaven", "nouvellefrance"])
def test_seats_of_the_same_name_are_told_apart_by_their_number(name):
    game = random_game(name, [None, None], seed=5, rng_seed=5)  # two AIs of one level
    html = panel(game, 10)
    for seat in (0, 1):
        heading = section(html, f'data-reveal-seat="{seat}"', "</h3>" if name == "newhaven"
                          else "</span><")
        assert f"· Seat {seat + 1}" in heading, heading


def _keys(value) -> set[str]:
    """Every dict key in ``value``, at any depth."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


@pytest.mark.parametrize("name", board_names())
def test_every_game_with_a_board_draws_its_own_panel(name):
    """A game the browser draws has a revealed panel of its own, and none of the keys of
    its engine's hidden data shows up in it as a word (German)."""
    board = get_board(name)
    assert board.revealed, f"{name}'s board has no revealed panel"
    game = random_game(name, [None, None], seed=8, rng_seed=8)
    hidden = hidden_at(game, 6)
    keys = {k for k in _keys(hidden) if len(k) > 2}
    assert keys
    shown = textnodes.texts(panel(game, 6, "de"))
    words = set(re.findall(r"\w+", " ".join(shown)))
    assert len(shown) > 5 and not words & keys, words & keys


def test_newhaven_mid_game_hands_are_not_called_the_hands_at_the_end(client, make_user):
    """``reveal`` shows every hand at every step: before the end the villages do not call
    them "Hand at the end" (the revealed panel shows them); at the end they still do."""
    game = finished("newhaven", make_user)
    url = f"/games/{game.pk}/replay/"
    mid = client.get(url, {"step": 30, "seat": "all"}).content.decode()
    assert 'data-revealed-hand="' not in mid and "Hand at the end" not in mid
    assert 'data-reveal-seat="1"' in mid
    # The hand panel points there instead of saying that spectators see no hand.
    assert 'id="hands-revealed"' in mid and "Spectators see no hand." not in mid
    spectator = client.get(url, {"step": 30, "seat": "spectator"}).content.decode()
    assert 'id="hands-revealed"' not in spectator and "Spectators see no hand." in spectator
    end = client.get(url, {"step": game.version, "seat": "all"}).content.decode()
    assert 'data-revealed-hand="1"' in end and "Hand at the end" in end
