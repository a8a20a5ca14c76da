"""Games in a real browser (Playwright + Debian's Chromium, live uvicorn).

1. Two people sign up in two browser contexts, one creates a 2-player table, the other
   joins it from the lobby; they play to the final score by clicking the offered choices,
   each seeing the other's moves arrive live over the socket, then start a rematch.  The
   quick version plays the last turns of a game that the server side played to near its
   end (``advance``); the whole game runs in the long profile (``make test-long``).
2. One person on a phone plays against a "random" AI seat to the final scores: from near
   the end, and the whole game in the long profile.

The driver picks the first offered choice each time (building whenever a building can be
built): a test of the path, not of strategy.
"""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

PASSWORD = "Colonia-e2e-pass-81!"
TIMEOUT = 20_000  # ms


def sign_up(page, base: str, username: str) -> None:
    page.goto(base + "/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main form button[type=submit]")  # not the header's language form
    page.wait_for_url("**/lobby/")


def socket_open(page) -> None:
    """Wait until the page's socket is open (colonia.js marks the body on htmx:wsOpen)."""
    page.wait_for_selector("body[data-socket='open']", state="attached")


def version(page) -> int:
    return int(page.get_attribute("#game-version", "value"))


def wait_version_above(page, old: int, timeout: float = TIMEOUT) -> None:
    page.wait_for_function(
        "v => { const e = document.getElementById('game-version');"
        " return e && +e.value > v; }", arg=old, timeout=timeout,
    )


def wait_version(page, v: int, timeout: float = TIMEOUT) -> None:
    page.wait_for_function(
        "v => { const e = document.getElementById('game-version');"
        " return e && +e.value >= v; }", arg=v, timeout=timeout,
    )


def is_over(page) -> bool:
    return page.locator("#final-scores").count() > 0


def my_turn(page) -> bool:
    return page.locator("#your-turn").count() > 0


def wait_my_turn(page) -> None:
    """Until it is this page's turn or the game is over."""
    page.wait_for_function("() => document.getElementById('your-turn')"
                           " || document.getElementById('final-scores')", timeout=TIMEOUT)


def next_mover(pages):
    """The page whose turn it is once every page shows the latest version (``None`` when
    the game is over on every page)."""
    deadline = time.monotonic() + TIMEOUT / 1000
    while True:
        latest = max(version(p) for p in pages)
        for p in pages:
            wait_version(p, latest)
        mover = next((p for p in pages if my_turn(p)), None)
        if mover is not None or all(is_over(p) for p in pages):
            return mover
        # The version arrived before the fragment that says whose turn it is: wait for
        # that fragment on any page (a short poll across pages, bounded).
        assert time.monotonic() < deadline, "nobody's turn, and the game is not over"
        pages[0].wait_for_timeout(20)


# The last turns of New Haven: a harvest about to start with three empty cells left (a turn
# each for two players, then the last: enough for the live updates and the final scores).
NEAR_THE_END = "state.phase == 'harvest' and len(state.empty_cells) <= 3"


def click(page, locator) -> None:
    """Click, and on failure save a screenshot and say what the element looked like."""
    try:
        locator.click()
    except Exception as exc:
        root = Path(__file__).resolve().parents[2]
        shots = Path(os.environ.get("COLONIA_SCREENSHOTS", root / "var/screenshots"))
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "e2e-failed-click.png"), full_page=True)
        state = locator.evaluate(
            "async b => { const r = b.getBoundingClientRect();"
            " const frame = await Promise.race([new Promise(ok => requestAnimationFrame("
            "() => ok('animation frames run'))), new Promise(ok => setTimeout("
            "() => ok('no animation frame in 1 s'), 1000))]);"
            " return {disabled: b.disabled, box: [r.x, r.y, r.width, r.height],"
            " connected: b.isConnected, frame, hidden: document.hidden,"
            " version: document.getElementById('game-version').value}; }")
        raise AssertionError(f"could not click: {state}\n{exc}") from None


def play_one(page, shoot=None) -> None:
    """Take one action on ``page`` (it is this page's turn): click the first choice.

    ``shoot(page, name)``, when given, takes a screenshot the first time each kind of
    target is shown (tile cells, village spaces).
    """
    old = version(page)
    for _attempt in range(6):
        board = page.locator("#board-targets button")
        if board.count():
            if shoot:
                shoot(page, "e2e-select-tile")
            click(page, board.first)
            break
        village = page.locator("#village-targets button")
        if village.count():
            if shoot:
                shoot(page, "e2e-select-building")
            click(page, village.first)
            break
        building = page.locator("#hand-buildings [data-select-building]")
        if building.count() and page.locator("#turn-buttons button").count():
            # Build phase (or share): build what can be built, before ending.
            click(page, building.first)
            page.wait_for_selector("#village-targets button", timeout=TIMEOUT)
            continue
        buttons = page.locator("#turn-buttons button")
        if buttons.count():
            click(page, buttons.first)
            break
        draws = page.locator("#draws button")
        if draws.count():
            click(page, draws.first)
            break
        tile = page.locator("[data-select-tile]")
        if tile.count():
            click(page, tile.first)
            page.wait_for_selector("#board-targets button", timeout=TIMEOUT)
            continue
        ship = page.locator("[data-select-ship]")
        if ship.count():
            click(page, ship.first)
            page.wait_for_selector("#board-targets button", timeout=TIMEOUT)
            continue
        raise AssertionError("my turn, but no choice is offered:\n" + page.content()[:4000])
    else:
        raise AssertionError("could not act")
    wait_version_above(page, old)
    error = page.locator("#play-error")
    assert not error.count(), error.inner_text()


def _two_people_play(browser, live_url, screenshot, advance=None) -> None:
    """Two people meet at a table, play (from near the end with ``advance``) to the final
    scores with live updates, and sit again for a rematch."""
    started = time.monotonic()
    ctx_a, ctx_b = browser.new_context(), browser.new_context()
    ann, bob = ctx_a.new_page(), ctx_b.new_page()
    for p in (ann, bob):
        p.set_default_timeout(TIMEOUT)
    suffix = "" if advance is None else "q"
    sign_up(ann, live_url, f"ann{suffix}_e2e")
    sign_up(bob, live_url, f"bob{suffix}_e2e")

    # Ann opens a 2-player table with one open seat.
    ann.select_option("#id_num_players", "2")
    ann.select_option("#id_seat_2", "open")
    ann.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    ann.click("#create-table button[type=submit]")
    ann.wait_for_selector("#table-waiting")
    game_url = ann.url
    game_id = game_url.rstrip("/").split("/")[-1]
    socket_open(ann)

    # Bob sees it in the lobby (live) and joins.
    bob.goto(live_url + "/lobby/")
    screenshot(bob, "e2e-lobby-bob")
    screenshot(ann, "e2e-waiting-ann")
    bob.click(f"[data-join='{game_id}']")
    bob.wait_for_selector("#game-status")
    # Ann's waiting page turns into the board by itself (socket hint -> reload).
    ann.wait_for_selector("#game-status", timeout=TIMEOUT)
    screenshot(ann, "e2e-start-ann")

    if advance is not None:  # the server side plays on to the last turns
        advance(int(game_id), NEAR_THE_END)
        for p in (ann, bob):
            p.reload()
            p.wait_for_selector("#game-status")
            socket_open(p)
        assert version(ann) == version(bob) > 0

    pages = {"ann": ann, "bob": bob}
    shots = 0
    taken: set[str] = set()

    def shoot_once(page, name):
        if name not in taken:
            taken.add(name)
            screenshot(page, name)

    for step in itertools.count():
        assert step < 600, "the game did not end"
        mover = next_mover(list(pages.values()))
        if mover is None:
            break
        other = bob if mover is ann else ann
        play_one(mover, shoot_once)
        # The other player sees the move live (socket), without reloading.
        wait_version(other, version(mover))
        if step in (12, 60) and shots < 2:
            screenshot(mover, f"e2e-mid-{step}")
            shots += 1
    assert version(ann) == version(bob)
    screenshot(ann, "e2e-final-ann")
    screenshot(bob, "e2e-final-bob")
    assert "★" in ann.inner_text("#final-scores")
    print(f"two-player e2e game: {version(ann)} actions in {time.monotonic() - started:.1f}s")

    # Rematch (the seats move on by one): Ann offers it, Bob's page shows the offer live,
    # he accepts and both sit again.
    ann.click("#rematch")
    ann.wait_for_selector("#table-waiting")
    rematch_url = ann.url
    assert rematch_url != game_url
    bob.wait_for_selector("#end-actions #rematch-offer", timeout=TIMEOUT)
    assert "offers a rematch" in bob.inner_text("#end-actions")
    bob.click("#rematch")
    bob.wait_for_selector("#game-status")
    assert bob.url == rematch_url
    ann.wait_for_selector("#game-status", timeout=TIMEOUT)
    assert bob.locator("#back-to-lobby").count() == 0  # a running game: no end actions
    ctx_a.close()
    ctx_b.close()


def test_two_people_finish_a_game_live_and_sit_again(browser, live_url, screenshot, advance):
    _two_people_play(browser, live_url, screenshot, advance)


@pytest.mark.long
def test_two_people_play_a_whole_game(browser, live_url, screenshot):
    _two_people_play(browser, live_url, screenshot)


def _one_person_against_a_random_ai(browser, live_url, screenshot, advance=None) -> None:
    """On a phone, against a random AI, to the final scores (from near the end with
    ``advance``)."""
    started = time.monotonic()
    ctx = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    sign_up(page, live_url, "cid_e2e" if advance is None else "ciq_e2e")
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", "ai-random")
    page.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#game-status")
    if advance is not None:  # the server side plays on to the last turns
        wait_my_turn(page)  # (the AI may open)
        advance(int(page.url.rstrip("/").split("/")[-1]), NEAR_THE_END)
        page.reload()
        page.wait_for_selector("#game-status")
        socket_open(page)
    for step in itertools.count():
        assert step < 600, "the game did not end"
        wait_my_turn(page)
        if is_over(page):
            break
        play_one(page)
    screenshot(page, "e2e-ai-final-phone")
    assert page.locator("#final-scores [data-final-seat]").count() == 2
    print(f"AI e2e game: {version(page)} actions in {time.monotonic() - started:.1f}s")
    ctx.close()


def test_one_person_finishes_a_game_against_a_random_ai(browser, live_url, screenshot,
                                                       advance):
    _one_person_against_a_random_ai(browser, live_url, screenshot, advance)


@pytest.mark.long
def test_one_person_against_a_random_ai(browser, live_url, screenshot):
    _one_person_against_a_random_ai(browser, live_url, screenshot)


def test_a_version_gap_makes_the_page_refetch(browser, live_url):
    """A tab that missed messages (its version is behind) refetches on the next hint."""
    ctx = browser.new_context()
    tab1 = ctx.new_page()
    tab1.set_default_timeout(TIMEOUT)
    sign_up(tab1, live_url, "dee_e2e")
    tab1.select_option("#id_num_players", "2")
    tab1.select_option("#id_seat_2", "ai-random")
    tab1.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    tab1.click("#create-table button[type=submit]")
    tab1.wait_for_selector("#game-status")
    tab2 = ctx.new_page()
    tab2.set_default_timeout(TIMEOUT)
    tab2.goto(tab1.url)
    tab2.wait_for_selector("#game-status")
    socket_open(tab1)
    # Pretend tab 1 missed a few messages.
    tab1.evaluate("document.getElementById('game-version').value = '-3'")
    play_one(tab2)
    target = version(tab2)
    wait_version(tab1, target)
    assert version(tab1) == target
    assert tab1.inner_text("#game-log") == tab2.inner_text("#game-log")
    ctx.close()
