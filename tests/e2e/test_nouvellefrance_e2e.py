"""Nouvelle-France in a real browser (Playwright + Debian's Chromium, live uvicorn).

1. A person plays against the random AI through clicks to the end of a game (a short
   variant stored for the test: 9 cards in 4 piles): from a position near the end that
   the server side reached (``advance``), and the whole game in the long profile.
2. Three seats (a person and two AIs) and a spectator: the person uses the Huron and sees
   the top cards; the spectator's page never shows any card order.
3. A piece is placed with the keyboard alone, and on a phone (390 x 844).

The driver takes the first offered choice (drawing rather than placing a bonus piece): a
test of the path, not of strategy.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import time

import pytest
from audit import ROOT  # not conftest's: that name depends on what is collected
from playwright.sync_api import Error as PlaywrightError
from test_newhaven_e2e import active_matches, focus_key, settle, tab_to
from test_play_e2e import (
    TIMEOUT,
    click,
    is_over,
    my_turn,
    sign_up,
    socket_open,
    version,
    wait_version_above,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

SHORT = "e2e-short"


@pytest.fixture(scope="module")
def short_variant(live_url, live_env) -> str:
    """A short Nouvelle-France variant stored in the live server's database."""
    code = (
        "from games.engines import get_engine\n"
        "from games.variants.services import save_variant\n"
        "d = get_engine('nouvellefrance').default_variants()['standard']\n"
        f"d.update(name={SHORT!r}, description='Nine cards, four piles: a short game.')\n"
        "d['deck']['cards_per_shape'] = {s['name']: 1 for s in d['shapes']}\n"
        "d['deck']['piles'] = [3, 2, 2, 2]\n"
        "d['deck']['snowflake_piles'] = [2, 3, 4]\n"
        f"save_variant(game='nouvellefrance', name={SHORT!r}, data=d)\n"
    )
    subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=live_env,
                   check=True, stdout=subprocess.DEVNULL)
    return SHORT


def new_table(page, variant: str, seats: list[str]) -> None:
    """From the lobby: a Nouvelle-France table of ``variant``, the other seats as given."""
    page.check(f"[data-game='nouvellefrance'] [data-variant='{variant}'] input")
    page.select_option("#id_num_players", str(len(seats) + 1))
    for i, seat in enumerate(seats, 2):
        page.select_option(f"#id_seat_{i}", seat)
    page.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#nf-sites")
    # Before any pick: the socket's first messages (the nav count, a late hint of the AI's
    # opening moves) must not land between a pick and the move that completes it.
    socket_open(page)
    settle(page)


def wait_my_turn(page) -> None:
    page.wait_for_function("() => document.getElementById('your-turn')"
                           " || document.getElementById('final-scores')", timeout=TIMEOUT)


def act(page, locator) -> None:
    old = version(page)
    click(page, locator)
    wait_version_above(page, old)
    error = page.locator("#play-error")
    assert not error.count(), error.inner_text()


def play_one(page, *, by_drawing: bool = False) -> str:
    """Take one action on the page whose turn it is; what kind of choice was taken."""
    for selector, kind in (
        ("#turn-buttons button[data-focus='draw']", "draw"),
        ("#turn-buttons button", "button"),
        ("#huron-orders button", "order"),
        ("#card-choices button", "card"),
        ("#discard-choices button", "discard"),
        ("#copy-choices button", "copy"),
    ):
        found = page.locator(selector)
        if found.count():
            act(page, found.first)
            return kind
    if page.locator("#spot-list button").count():
        if by_drawing:
            place_by_pointer(page)
        else:
            act(page, page.locator("#spot-list button").first)
        return "place"
    raise AssertionError("my turn, but no choice is offered:\n" + page.content()[:3000])


def place_by_pointer(page) -> None:
    """Move the pointer over a highlighted spot: the ghost shows there; click: placed."""
    spot = page.locator("svg.nf-site .spot").first
    box = spot.bounding_box()
    assert box, "no spot on the drawings"
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.wait_for_selector("svg.nf-site .cubes .ghost-cube")
    key = page.evaluate("() => document.querySelector('svg.nf-site .spot.on').dataset.spot")
    # The ghost's cubes stand among the placed cubes in depth order, not over them all.
    depths = page.evaluate("""() => {
      const spot = document.querySelector('svg.nf-site .spot.on');
      return [...spot.closest('svg').querySelectorAll('.cubes use')].map(u =>
        Number(u.dataset.k) + (u.classList.contains('ghost-cube') ? Number(spot.dataset.k) : 0));
    }""")
    assert depths == sorted(depths)
    old = version(page)
    page.mouse.click(x, y)
    wait_version_above(page, old)
    site = key.split()[0]
    assert f"on the {site} at" in page.inner_text("#game-log")


# Near the end of the short game: a turn about to start with at most 5 building cards left
# in the deck, whose draw gives a building card before the last snowstorm (so the person
# still draws, picks a card and a copy, and places).
NEAR_THE_END = (
    "state.phase in ('huron', 'draw')"
    " and state.storms + next((i for i, c in enumerate(state.deck) if c >= 0), 99) < 3"
    " and sum(c >= 0 for c in state.deck) <= 5"
)
# Keep the bonus pieces for the browser's turns: the server side draws instead.
DRAW_RATHER_THAN_BONUS = "rng.choice([a for a in actions if a[0] != 'bonus'] or actions)"


def _play_against_the_ai(browser, live_url, short_variant, screenshot, advance=None) -> None:
    started = time.monotonic()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    sign_up(page, live_url, "nfa_e2e" if advance is None else "nfq_e2e")
    new_table(page, short_variant, ["ai-random"])
    if advance is not None:  # the server side plays on to the last turns
        wait_my_turn(page)
        advance(int(page.url.rstrip("/").split("/")[-1]), NEAR_THE_END, DRAW_RATHER_THAN_BONUS)
        page.reload()
        page.wait_for_selector("#nf-sites")
        socket_open(page)
        settle(page)
    kinds: set[str] = set()
    shots: set[str] = set()
    for step in itertools.count():
        assert step < 200, "the game did not end"
        wait_my_turn(page)
        if is_over(page):
            break
        if page.locator("#spot-list button").count() and "placing" not in shots:
            shots.add("placing")
            page.locator("svg.nf-site .spot").first.hover()
            screenshot(page, "e2e-nf-placing")
        kinds.add(play_one(page, by_drawing="place" not in kinds))
    # The last snowstorm's notice stays over the page after the final update.
    assert "Snowstorm 3 of 3!" in page.inner_text("#nf-storm-notice")
    screenshot(page, "e2e-nf-final")
    # Its Close (a link to the page, for no script) closes it in place.
    at = page.url
    page.click("#nf-storm-notice .storm-close")
    assert page.inner_text("#nf-storm-notice") == "" and page.url == at
    assert {"draw", "card", "copy", "place"} <= kinds
    final = page.inner_text("#final-scores")
    assert "Snowstorms" in final and "Characters" in final and "★" in final
    assert page.locator("#final-scores [data-final-seat]").count() == 2
    log = page.inner_text("#game-log")
    assert "Snowstorm 3!" in log and "The game is over." in log
    assert "AI (random)" in log  # the AI's moves are in the log, with its name
    print(f"NF e2e game vs AI: {version(page)} actions in {time.monotonic() - started:.1f}s")
    ctx.close()


def test_the_last_turns_against_the_ai_end_with_the_third_storm(browser, live_url,
                                                                short_variant, screenshot,
                                                                advance):
    _play_against_the_ai(browser, live_url, short_variant, screenshot, advance)


@pytest.mark.long
def test_a_whole_game_against_the_ai(browser, live_url, short_variant, screenshot):
    _play_against_the_ai(browser, live_url, short_variant, screenshot)


def test_a_spectator_never_sees_the_order_of_the_deck(browser, live_url, screenshot):
    players, watchers = browser.new_context(), browser.new_context()
    page, spy = players.new_page(), watchers.new_page()
    for p in (page, spy):
        p.set_default_timeout(TIMEOUT)
    sign_up(page, live_url, "nfb_e2e")
    sign_up(spy, live_url, "nfs_e2e")
    new_table(page, "standard", ["ai-random", "ai-random"])
    spy.goto(page.url)
    spy.wait_for_selector("#spectating")
    socket_open(spy)  # it follows live from here
    assert spy.locator("#turn-buttons, #spot-list, #huron-orders").count() == 0
    peeked = False
    for step in itertools.count():
        assert step < 80, "the Huron was never offered"
        wait_my_turn(page)
        if page.locator("button[data-focus='huron']").count():
            act(page, page.locator("button[data-focus='huron']"))
            order = page.locator("#huron-orders button")
            assert order.count() >= 2  # every order of the cards seen
            known = page.inner_text("#huron-known")
            act(page, order.last)  # a new order only this player knows
            peeked = True
        else:
            play_one(page)
        # The spectator follows live and never sees the top of the deck or its order.
        spy.wait_for_function("v => +document.getElementById('game-version').value >= v",
                              arg=version(page), timeout=TIMEOUT)
        html = spy.content()
        assert 'id="huron-known"' not in html and "huron-orders" not in html
        assert 'id="turn-buttons"' not in html and "spot-list" not in html
        if peeked:
            break
    assert known.startswith("Only you know the top of the deck")
    # The log says who looked, never what.
    log = spy.inner_text("#game-log")
    assert "nfb_e2e used the Huron and looked at the top" in log
    assert "nfb_e2e put the 3 cards back in an order only they know." in log
    screenshot(spy, "e2e-nf-spectator")
    players.close()
    watchers.close()


def test_keyboard_only_and_phone_placement(browser, live_url, short_variant, screenshot):
    # Keyboard: draw, card, copy, an orientation, a spot: all with Tab and Enter.
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    sign_up(page, live_url, "nfk_e2e")
    new_table(page, short_variant, ["ai-random"])
    # Every action goes through htmx: the page never loads again (an Enter on a button
    # htmx had not wired up yet sent its form the plain way, and the focus was lost).
    loads = []
    page.on("load", lambda p: loads.append(p.url))
    placed = False
    for _step in range(40):
        wait_my_turn(page)
        if is_over(page):
            break
        if page.locator("#orientations a").count() > 1:
            tab_to(page, "#orientations a:not([aria-current])")
            key = focus_key(page)
            with page.expect_response(lambda r: "/games/" in r.url):
                page.keyboard.press("Enter")
            page.wait_for_function("k => document.querySelector("
                                   "'#orientations a[aria-current]').dataset.focus === k",
                                   arg=key)
            settle(page)
            assert focus_key(page) == key  # the focus stays on the picked orientation
        if page.locator("#spot-list button").count():
            tab_to(page, "#spot-list button", limit=60)
            # The focused spot shows its ghost on the drawing.
            assert page.locator("svg.nf-site .cubes .ghost-cube").count() > 0
            screenshot(page, "e2e-nf-keyboard-ghost")
            old = version(page)
            page.keyboard.press("Enter")
            wait_version_above(page, old)
            settle(page)
            placed = True
            break
        target = ("#turn-buttons button[data-focus='draw'], #turn-buttons button, "
                  "#huron-orders button, #card-choices button, #discard-choices button, "
                  "#copy-choices button")
        tab_to(page, target, limit=60)
        old = version(page)
        page.keyboard.press("Enter")
        wait_version_above(page, old)
        settle(page)
        if my_turn(page):  # the next decision is mine too: the focus is not lost
            assert active_matches(page, "#nf-prompt, [data-focus]")
    assert placed, "no piece was placed with the keyboard"
    assert not loads, f"the page loaded again: {loads}"
    assert "nfk_e2e placed the" in page.inner_text("#game-log")
    ctx.close()

    # Phone: the choices come first; a tap shows the ghost, a second tap places.
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                              is_mobile=True, device_scale_factor=2)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    sign_up(page, live_url, "nfp_e2e")
    new_table(page, short_variant, ["ai-random"])
    for _step in range(40):
        wait_my_turn(page)
        if page.locator("#spot-list button").count():
            break
        play_one(page)
    spot = page.locator("svg.nf-site .spot").first
    for attempt in range(3):  # an update may redraw the board under the locator
        try:
            spot.scroll_into_view_if_needed()
            break
        except PlaywrightError:
            if attempt == 2:
                raise
            page.wait_for_timeout(200)
    box = spot.bounding_box()
    assert box and box["width"] >= 4
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    page.wait_for_selector("svg.nf-site .cubes .ghost-cube")
    screenshot(page, "e2e-nf-phone-ghost")
    assert not page.evaluate("() => document.querySelector('#nf-turn button[disabled]')")
    chosen = page.locator("svg.nf-site .spot.on")
    key = chosen.get_attribute("data-spot")
    assert key == spot.get_attribute("data-spot")
    # An update now (the page's own refetch, as colonia.js sends after a reconnect) keeps
    # the page where the thumb is and the piece at the tapped spot: it used to scroll to
    # the placement bar, and the second tap landed on nothing.
    page.evaluate("() => { document.getElementById('nf-sites').dataset.old = '1';"
                  " const r = document.getElementById('play-root');"
                  " htmx.ajax('GET', r.dataset.fragmentsUrl + location.search,"
                  " {swap: 'none', source: r}); }")
    page.wait_for_function("() => !document.querySelector('#nf-sites[data-old]')")
    assert chosen.get_attribute("data-spot") == key
    box = chosen.bounding_box()
    moved = box["y"] + box["height"] / 2 - y
    assert abs(moved) < 2, f"the page moved: the tapped spot is {moved:.0f}px away"
    old = version(page)
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    wait_version_above(page, old)
    assert "nfp_e2e placed the" in page.inner_text("#game-log")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways ({width}px)"
    screenshot(page, "e2e-nf-phone-placed")
    ctx.close()
