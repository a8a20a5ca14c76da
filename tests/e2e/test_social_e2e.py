"""Ratings, clocks and leaving a game in a real browser, on the test game of tests/placegame/
(short games; generic code only).

1. Two people play a rated game: both ratings change (profile pages).
2. A short live clock runs out: the AI takes the seat and plays the game on to its end.
3. A player resigns under the rule "lose": the game ends at once, the other side wins.
"""

from __future__ import annotations

import itertools
import re

import pytest
from test_play_e2e import (
    TIMEOUT,
    next_mover,
    sign_up,
    socket_open,
    version,
    wait_version_above,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def create_table(page, base: str, *, seat: str, rated: bool = False, clock: str = "none",
                 reserve_minutes: str = "", rule: str = "ai", level: str = "random") -> None:
    page.goto(base + "/lobby/")
    page.check("[data-game='placegame'] input[name=variant]")
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", seat)
    if rated:
        page.check("#id_rated")
    page.select_option("#id_clock", clock)
    if reserve_minutes:
        page.fill("#id_reserve_minutes", reserve_minutes)
        page.fill("#id_increment", "0")
    page.check(f"input[name=departure_rule][value={rule}]")
    page.select_option("#id_takeover_level", level)
    if not rated:  # rated tables always draw their seat order
        page.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    page.click("#create-table button[type=submit]")
    page.wait_for_url("**/games/*/")


def rating_of(page, base: str, username: str) -> str:
    page.goto(f"{base}/accounts/{username}/")
    return page.inner_text("[data-stats-game='placegame'] [data-rating]")


def test_two_people_play_a_rated_game_and_both_ratings_change(browser, placegame_url,
                                                              screenshot):
    base = placegame_url
    pages = []
    for name in ("rae_e2e", "ray_e2e"):
        ctx = browser.new_context()
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT)
        sign_up(page, base, name)
        pages.append(page)
    ann, bob = pages
    create_table(ann, base, seat="open", rated=True)
    ann.wait_for_selector("#table-waiting")
    socket_open(ann)
    bob.goto(ann.url)
    bob.click("[data-join]")
    bob.wait_for_selector("#pg-board")
    # Ann's waiting page turns into the board by itself (socket hint -> reload); a goto
    # here would race that reload ("navigation interrupted by another navigation").
    ann.wait_for_selector("#pg-board", timeout=TIMEOUT)
    assert "rated" in ann.inner_text("#table-rules")
    for step in itertools.count():
        assert step < 60, "the game did not end"
        mover = next_mover(pages)
        if mover is None:
            break
        old = version(mover)
        mover.locator("#pg-board button").first.click()
        wait_version_above(mover, old)
    screenshot(ann, "e2e-rated-final")
    before = "1500"
    after = {name: rating_of(page, base, name)
             for name, page in zip(("rae_e2e", "ray_e2e"), pages, strict=True)}
    screenshot(ann, "e2e-rated-profile")
    for name, text in after.items():
        assert "1 rated game" in text, (name, text)
        assert not text.startswith(before), (name, text)  # both changed
    assert ann.locator("svg.rating-graph polyline").count() == 1
    ann.goto(base + "/leaderboard/?game=placegame")
    assert ann.locator("[data-player]").count() == 2
    for page in pages:
        page.context.close()


def test_a_clock_runs_out_and_the_ai_takes_the_seat_and_plays_on(browser, placegame_url,
                                                                 screenshot):
    base = placegame_url
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    sign_up(page, base, "tia_e2e")
    # 0.1 minute = 6 seconds for the whole game; nobody clicks.
    create_table(page, base, seat="ai-random", clock="live", reserve_minutes="0.1",
                 rule="ai", level="random")
    page.wait_for_selector("#pg-board")
    assert page.locator("[data-clock]").count() == 1  # the AI seat has no clock
    page.wait_for_selector("#your-turn")  # the AI may move first
    first = page.inner_text(".clock.running")
    # The clock ticks (it changes within a bounded wait; a stopped clock fails here).
    page.wait_for_function("t => { const c = document.querySelector('.clock.running');"
                           " return c && c.innerText !== t; }", arg=first, timeout=5000)
    # The clock reaches zero; the page asks the server, which hands the seat to the AI;
    # both seats are now played by the AI, which finishes the game.
    page.wait_for_selector("[data-left]", timeout=30_000)
    page.wait_for_selector("#final-scores", timeout=30_000)
    screenshot(page, "e2e-clock-ran-out")
    assert "AI (random) for tia_e2e" in page.inner_text("#game-status")
    assert "AI (random) for tia_e2e marked" in page.inner_text("#game-log")
    ctx.close()


def test_a_player_resigns_and_the_game_ends(browser, placegame_url, screenshot):
    base = placegame_url
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    sign_up(page, base, "rex_e2e")
    create_table(page, base, seat="ai-random", rule="lose", rated=True)
    page.wait_for_selector("#pg-board")
    socket_open(page)
    page.wait_for_selector("#your-turn")  # the AI may move first
    # The menu opened, then a move and the AI's answer redraw the status around it:
    # it stays open under the reader's pointer.
    page.click("#resign-open")
    old = version(page)
    page.locator("#pg-board button").first.click()
    wait_version_above(page, old + 1)
    page.wait_for_selector("#your-turn")
    assert page.locator("#leave-menu").get_attribute("open") is not None
    page.click("#resign")  # asks first (a dialog)
    page.click("#resign-confirm")
    page.wait_for_selector("#final-scores")
    screenshot(page, "e2e-resigned")
    assert "AI (random)" in page.inner_text("#winners")
    assert "resigned" in page.inner_text("#game-status")
    ctx.close()


def test_a_waiting_page_whose_socket_missed_the_start_turns_into_the_board(browser,
                                                                         placegame_url):
    """The socket hint that a game started reaches only sockets open at that moment: a
    waiting page whose socket (re)opens later asks the server and shows the board."""
    base = placegame_url
    pages = []
    for name in ("wes_e2e", "wyn_e2e"):
        page = browser.new_context().new_page()
        page.set_default_timeout(TIMEOUT)
        sign_up(page, base, name)
        pages.append(page)
    host, guest = pages
    sockets = []

    def hold(ws):  # the first socket is a mock: the server never sees it
        sockets.append(ws)
        if len(sockets) > 1:
            ws.connect_to_server()

    # (The address carries what the page shows: ?v=…&chat=….)
    host.route_web_socket(re.compile(r"/ws/games/\d+/"), hold)
    create_table(host, base, seat="open")
    host.wait_for_selector("#table-waiting")
    socket_open(host)  # the mock: its open asks whether the table still waits...
    host.wait_for_load_state("networkidle")  # ...and hears "yes" before the guest joins
    guest.goto(host.url)
    guest.click("[data-join]")
    guest.wait_for_selector("#pg-board")
    host.wait_for_load_state("networkidle")  # the host's page is quiet ...
    assert host.locator("#table-waiting").count() == 1  # ... the start hint went to nobody
    sockets[0].close(code=1012)  # "restarting": the page reconnects, now to the server
    host.wait_for_selector("#pg-board", timeout=TIMEOUT)
    for page in pages:
        page.context.close()
