"""The board layer: registry, generic pages with any registered board, the test game."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from games.boards import Choice, Pick, PlayerInfo, Scene, get_board
from games.boards.svg import drawing_cache, el, markup, num, palette, svg
from games.catalogue import GameEntry, register_game, unregister_game
from games.core.selectors import legal_actions_json
from games.core.services import submit_action
from games.models import Game, Variant
from games.play.page import render_fragments
from games.tables.services import create_game, join_game

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
HX = {"HTTP_HX_REQUEST": "true"}


def test_registry_knows_the_shipped_boards_and_nothing_else():
    assert get_board("newhaven").name == "newhaven"
    assert get_board("no-such-game") is None
    assert get_board(None) is None


def test_register_and_unregister_a_board():
    register_game(GameEntry("newhaven-copy", engine="games.engines.newhaven",
                            board="games.boards.newhaven"))
    try:
        assert get_board("newhaven-copy") is get_board("newhaven")
    finally:
        unregister_game("newhaven-copy")
    assert get_board("newhaven-copy") is None


def test_svg_trees_escape_everything():
    root = svg(0, 0, 10, 10, label='"><script>alert(1)</script>')
    el(root, "text", "<b>&", x=1.5, class_="a\"b")
    html = str(markup(root))
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;b&gt;&amp;" in html and 'x="1.5"' in html


TEXTS = st.text(alphabet=st.sampled_from('ab<>&"\'\r\n\t =/é'), max_size=8)
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 500), TEXTS,
                   st.floats(-1e4, 1e4, allow_nan=False))


@st.composite
def svg_trees(draw, depth: int = 0):
    """``(tag, text, attributes, children)`` with text and values that need escaping."""
    names = st.sampled_from(["x", "class_", "stroke_width", "data_cell", "aria_label"])
    attrs = draw(st.dictionaries(names, VALUES, max_size=4))
    children = draw(st.lists(svg_trees(depth + 1), max_size=3)) if depth < 3 else []
    return (draw(st.sampled_from(["g", "rect", "text"])),
            draw(st.one_of(st.none(), TEXTS, st.integers(0, 99))), attrs, children)


@settings(max_examples=200, deadline=None)
@given(svg_trees())
def test_svg_markup_is_what_elementtree_writes(tree):
    """The board's own element tree writes exactly ElementTree's markup (its escaping)."""
    import xml.etree.ElementTree as ET


    def ours(parent, node):
        tag, text, attrs, children = node
        made = el(parent, tag, text, **attrs)
        for child in children:
            ours(made, child)
        return made

    def theirs(parent, node):
        tag, text, attrs, children = node
        values = {
            key.rstrip("_").replace("_", "-"):
            num(value) if isinstance(value, int | float) and not isinstance(value, bool)
            else str(value)
            for key, value in attrs.items() if value is not None and value is not False
        }
        made = ET.Element(tag, values) if parent is None else ET.SubElement(parent, tag, values)
        if text is not None:
            made.text = str(text)
        for child in children:
            theirs(made, child)
        return made

    expected = ET.tostring(theirs(None, tree), encoding="unicode", method="xml")
    assert str(markup(ours(None, tree))) == expected
    ET.fromstring(expected)  # well-formed


def test_drawing_cache_tells_apart_what_draws_differently():
    """Remembered drawings: found again for equal plain data in the same language only."""
    from dataclasses import dataclass

    from django.utils import translation


    calls = []

    @drawing_cache(size=8)
    def draw(value, label=""):
        calls.append(value)
        return markup(el(None, "text", f"{value!r} {translation.gettext('Game over')}"))

    @dataclass
    class Mutable:
        n: int

    first = draw({"a": [1, 2]})
    assert draw({"a": [1, 2]}) is first and len(calls) == 1
    for value in (1, True, 1.0, 0.0, -0.0, [1], (1,), {"a": [1, 2], "b": None}, {"a": (1, 2)}):
        draw(value)
    assert len(calls) == 10  # every one drawn: none taken for another
    assert draw(-0.0) == "<text>-0.0 Game over</text>" and len(calls) == 10
    with translation.override("fr"):
        assert "Game over" not in draw({"a": [1, 2]}) and len(calls) == 11
    thing = Mutable(1)
    draw(thing)
    thing.n = 2
    assert "n=2" in draw(thing) and len(calls) == 13  # not plain data: never remembered


def test_choices_and_picks_serialise_their_state():
    choice = Choice({"type": "mark", "row": 1, "col": 2}, "Mark C2")
    assert choice.action_json == '{"col":2,"row":1,"type":"mark"}'
    assert Choice({}, "x").key != Choice({}, "x").key  # a fresh idempotency key each
    assert Pick({"tile": 0, "rot": None}, "Place").query == "tile=0"


# --- generic code names no game -----------------------------------------------------------------

GENERIC = [
    "games/boards/loader.py", "games/boards/svg.py",
    "static/js/colonia.js", "static/js/play.js", "static/css/colonia.css",
]


#: The modules that list the shipped games on purpose.
REGISTRIES = {
    "games/catalogue.py",  # the one entry per game: engine, board, editor widgets, AI
    "games/data_texts.py",  # the engines' schema texts, generated for translation
}


#: The packages of one game each (engines, boards, editor widgets): they may name it.
PER_GAME = ("games/engines", "games/boards", "games/editor/newhaven",
            "games/editor/nouvellefrance", "games/migrations")


def generic_modules() -> list[Path]:
    """Every module of the generic packages (every feature of games, accounts, common), so
    a module or feature added later is checked too."""
    found = [
        path
        for pattern in ("games/**/*.py", "accounts/*.py", "common/**/*.py", "static/js/*.js")
        for path in sorted(ROOT.glob(pattern))
    ]
    return [p for p in found if str(p.relative_to(ROOT)) not in REGISTRIES
            and not str(p.relative_to(ROOT)).startswith(PER_GAME)]


def test_generic_modules_cover_the_new_surfaces():
    names = {str(p.relative_to(ROOT)) for p in generic_modules()}
    for module in ("games/replay/selectors.py", "games/replay/page.py", "games/replay/views.py",
                   "games/chat/views.py", "games/chat/selectors.py", "games/ratings/services.py",
                   "games/analysis/services.py", "games/tables/clocks.py",
                   "games/turns/services.py", "games/core/services.py", "games/play/page.py",
                   "games/play/consumers.py", "games/tables/views.py"):
        assert module in names, module
    assert len(names) > 40


def test_generic_code_and_templates_name_no_game():
    """Issue 9: views, consumers, API and generic templates know no game by name."""
    files = [ROOT / p for p in GENERIC] + generic_modules()
    files += sorted((ROOT / "templates").rglob("*.html"))
    files += sorted(path for path in ROOT.glob("games/*/templates/**/*.html")
                    if not str(path.relative_to(ROOT)).startswith(PER_GAME))
    pattern = re.compile(r"newhaven|nouvellefrance|new haven|nouvelle-france", re.I)
    offenders = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in files
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []


# --- a game with no board --------------------------------------------------------------------


def test_a_game_without_a_board_is_not_offered_but_its_page_works(client, variant, ann):
    """The toy engine of tests/games/fakegame.py has no board: API only."""
    client.force_login(ann)
    lobby = client.get(reverse("lobby")).content.decode()
    assert 'data-game="fakegame"' not in lobby
    home = client.get(reverse("home")).content.decode()
    assert 'data-game="fakegame"' in home and "data-api-only" in home
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    assert 'id="unsupported-game"' in html


# --- the test game: engine and board registered from tests/placegame/ ------------------------


def test_the_lobby_offers_every_game_with_a_board(client, placegame, nh_variants, ann):
    client.force_login(ann)
    html = client.get(reverse("lobby")).content.decode()
    assert 'data-game="placegame"' in html and 'data-game="newhaven"' in html
    assert "Three in a Row" in html  # the engine's title
    assert "Three marks in a row on a 3x3 grid." in html  # the variant's description


def test_the_test_game_is_played_through_the_generic_pages(client, placegame, ann, on_commit):
    client.force_login(ann)
    variant = placegame_variant()
    with on_commit():  # the AI moves at once (eager Celery) when it starts
        response = client.post(reverse("lobby_create"), {
            "variant": variant.pk, "num_players": 2, "seat_2": "ai-random",
            "seats_as_listed": "on",  # ann plays seat 0 below
        })
    game = Game.objects.get(game_name="placegame")
    assert response.status_code == 302 and game.status == Game.Status.RUNNING
    while game.status == Game.Status.RUNNING:
        html = client.get(reverse("play", args=[game.pk])).content.decode()
        assert 'id="pg-board"' in html and 'id="game-status"' in html
        assert "/static/css/boards/" not in html  # the test board has no stylesheet
        offered = [json.loads(a.replace("&quot;", '"'))
                   for a in re.findall(r'name="action" value="([^"]*)"', html)]
        assert offered == legal_actions_json(game, 0)
        version = game.version
        with on_commit():
            response = client.post(reverse("act", args=[game.pk]), {
                "action": json.dumps(offered[0]), "version": version, "key": f"k{version}",
            }, **HX)
        assert response.status_code == 200, response.content
        fragments = response.content.decode()
        # The log is appended from the posted version on: this move and the AI's answer.
        assert 'hx-swap-oob="afterbegin:#game-log"' in fragments
        assert "ann marked" in fragments
        game.refresh_from_db()
        assert game.version > version
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    assert 'id="final-scores"' in html and html.count("data-final-seat=") == 2
    assert re.search(r"AI \(random\) marked [A-C][1-3]\.", html)  # the board's event text


def test_a_replay_scene_offers_nothing(placegame, ann):
    """Boards render a step without picks or forms when ``interactive`` is False."""
    board = get_board("placegame")
    game = create_game(creator=ann, variant=placegame_variant(),
                       seats=[{"type": "human"}, {"type": "human"}])
    assert game.status == Game.Status.OPEN
    engine = game.engine
    state = engine.new_game(game.variant_data, 2, 1)
    seat = engine.to_move(state)[0]
    legal = tuple(engine.action_to_json(a) for a in engine.legal_actions(state, seat))
    players = (PlayerInfo(0, "ann"), PlayerInfo(1, "bob"))
    live = board.present(Scene(view=engine.observe(state, seat), rules={}, seat=seat,
                               players=players, legal=legal))
    replay = board.present(Scene(view=engine.observe(state, seat), rules={}, seat=seat,
                                 players=players, legal=legal, interactive=False))
    assert any(cell["choice"] for row in live["rows"] for cell in row)
    assert not any(cell["choice"] for row in replay["rows"] for cell in row)


def test_pushed_fragments_of_the_test_game(placegame, ann, bob):
    game = create_game(creator=ann, variant=placegame_variant(),
                       seats=[{"type": "human"}, {"type": "human"}])

    join_game(game=game, user=bob)
    game.refresh_from_db()
    seat = game.to_move[0]
    mover = ann if seat == 0 else bob
    game = submit_action(game=game, user=mover, seat=seat,
                         action={"type": "mark", "row": 1, "col": 1}, version=0, key="m1")
    html = render_fragments(game, bob, log_since=0)
    assert html.count('hx-swap-oob="true"') == 2  # status and the test board's grid
    assert f"{mover.username} marked B2." in html


def placegame_variant():
    return Variant.objects.get(game="placegame", name="standard")


def test_palette_gives_known_names_their_style_and_the_others_the_fallbacks_in_turn():
    """Both boards' looks come from one palette (games.boards.svg): a variant's own names
    cycle through the fallbacks, counted apart from the game's own names."""
    rows = palette(["a", "x", "b", "y", "z"], {"a": ("A",), "b": ("B",)}, [("F0",), ("F1",)])
    assert rows == [(0, "a", ("A",), None), (1, "x", ("F0",), 0), (2, "b", ("B",), None),
                    (3, "y", ("F1",), 1), (4, "z", ("F0",), 2)]
