"""New Haven as a newcomer meets it: keyboard only, on a phone, from an invite link.

(Rematches are played at the end of the two-player game in test_play_e2e.py.)
"""

from __future__ import annotations

import pytest
from audit import wait_act_in_view
from test_play_e2e import (
    PASSWORD,
    TIMEOUT,
    is_over,
    my_turn,
    sign_up,
    version,
    wait_version_above,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def new_ai_game(page, base: str, username: str) -> None:
    sign_up(page, base, username)
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", "ai-random")
    page.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#game-status")


def wait_my_turn(page) -> None:
    page.wait_for_function("() => document.getElementById('your-turn')"
                           " || document.getElementById('final-scores')", timeout=TIMEOUT)


def focus_key(page) -> str | None:
    return page.evaluate("() => { const a = document.activeElement;"
                         " const k = a && a.closest('[data-focus]');"
                         " return k ? k.getAttribute('data-focus') : null; }")


def active_matches(page, selector: str) -> bool:
    return page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)",
                         selector)


def tab_to(page, selector: str, limit: int = 80) -> int:
    """Press Tab until the focused element matches ``selector``; the number of presses."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if active_matches(page, selector):
            return presses
    raise AssertionError(f"{selector} not reached with {limit} Tab presses")


def settle(page) -> None:
    """Until the page is idle: no request under way, no htmx swap or settle pending."""
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def pick_with_enter(page) -> None:
    """Enter on a pick: wait for its response and the swap (focus is restored after it)."""
    with page.expect_response(lambda r: "/games/" in r.url and r.request.method == "GET"):
        page.keyboard.press("Enter")
    # The swap drops the focused element; play.js puts the focus back right after it.
    page.wait_for_function("() => document.activeElement && document.activeElement !== "
                           "document.body && !document.activeElement.closest('.htmx-request')",
                           timeout=5000)
    settle(page)  # and it stays there once the page is idle


def test_keyboard_only_harvest_and_build(browser, live_url, screenshot):
    """Place a harvest tile and build with the keyboard alone; focus stays put on swaps."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    new_ai_game(page, live_url, "kim_e2e")
    built = False
    for _turn in range(8):
        wait_my_turn(page)
        if is_over(page):
            break
        # Harvest: Place -> (Rotate) -> a highlighted cell.
        tab_to(page, "[data-select-tile]")
        key = focus_key(page)
        pick_with_enter(page)
        assert page.locator("#placing").count() == 1
        assert focus_key(page) == key  # "Place" became "Rotate": the same place, no Tab
        if active_matches(page, "a[data-focus]"):  # a tile that can turn: rotate it
            pick_with_enter(page)
            assert focus_key(page) == key
            screenshot(page, "e2e-keyboard-rotate")
        assert tab_to(page, "#board-targets button", limit=3) <= 3  # Cancel, then the cells
        old = version(page)
        page.keyboard.press("Enter")
        wait_version_above(page, old)
        settle(page)
        assert page.evaluate("document.activeElement.id") == "hand-prompt"
        # Build what can be built, else end building.
        if page.locator("[data-select-building]").count():
            tab_to(page, "[data-select-building]")
            key = focus_key(page)
            pick_with_enter(page)
            assert page.locator("#village-targets button").count() > 0
            assert focus_key(page) == key
            tab_to(page, "#village-targets button", limit=20)
            old = version(page)
            page.keyboard.press("Enter")
            wait_version_above(page, old)
            settle(page)
            built = True
            screenshot(page, "e2e-keyboard-built")
        while my_turn(page) and page.locator("#turn-buttons button").count():
            tab_to(page, "#turn-buttons button")
            old = version(page)
            page.keyboard.press("Enter")
            wait_version_above(page, old)
            settle(page)
        while my_turn(page) and page.locator("#draws button").count():
            tab_to(page, "#draws button")
            old = version(page)
            page.keyboard.press("Enter")
            wait_version_above(page, old)
            settle(page)
        if built:
            break
    assert built, "no building could be built in eight turns"
    assert "built" in page.inner_text("#game-log")
    ctx.close()


def test_a_phone_places_a_tile_without_hunting(browser, live_url, screenshot):
    """390 x 844: the choices and the board are on screen without scrolling (the page
    brings what needs the player into view: issue 25), the cells come into view when
    picked."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                              is_mobile=True, device_scale_factor=2)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    new_ai_game(page, live_url, "pia_e2e")
    wait_my_turn(page)
    wait_act_in_view(page)
    screenshot(page, "e2e-phone-first-screen")
    place = page.locator("[data-select-tile]").first
    box = place.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 844, "Place is not on screen"
    # The board the tile goes on is right above it, on the same screen (it was below the
    # hand, at y=1244).
    board = page.locator("#board-panel .board-wrap").bounding_box()
    assert board["y"] >= -board["height"] / 4 and board["y"] + board["height"] <= box["y"]
    place.tap()
    page.wait_for_selector("#board-targets button")
    settle(page)
    target = page.locator("#board-targets button").first
    box = target.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 844, "no cell in view"
    screenshot(page, "e2e-phone-placing")
    old = version(page)
    target.tap()
    wait_version_above(page, old)
    assert "pia_e2e placed a" in page.inner_text("#game-log")
    screenshot(page, "e2e-phone-building")
    ctx.close()


def test_a_friend_signs_up_from_the_invite_link_and_lands_at_the_table(browser, live_url):
    # The host may write the clipboard (as a person's browser lets the page they clicked).
    host_ctx = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    friend_ctx = browser.new_context()
    host, friend = host_ctx.new_page(), friend_ctx.new_page()
    for p in (host, friend):
        p.set_default_timeout(TIMEOUT)
    sign_up(host, live_url, "hal_e2e")
    host.select_option("#id_num_players", "2")
    host.select_option("#id_seat_2", "open")
    host.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    host.click("#create-table button[type=submit]")
    host.wait_for_selector("#table-waiting")
    link = host.input_value("#invite-url")
    assert link.startswith(live_url + "/t/")  # absolute: it can be pasted anywhere
    # Its Copy button copies it (no console error: it shared data-copy with the boards).
    errors = []
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    # The label shows for 2 s: polled on a timer, not on frames.  One click: nothing redraws
    # the waiting panel when the socket opens (the page is up to date).
    host.click("#copy-invite")
    host.wait_for_function("() => document.getElementById('copy-invite').textContent"
                           " === 'Copied!'", polling=50)
    assert not errors
    friend.goto(link)
    friend.click("#invite-signup")
    friend.fill("#id_username", "fay_e2e")
    friend.fill("#id_email", "fay_e2e@example.org")
    friend.fill("#id_password1", PASSWORD)
    friend.fill("#id_password2", PASSWORD)
    friend.click("form button[type=submit]")
    friend.wait_for_url(link)  # back at the table, not in the lobby
    friend.click("[data-join]")
    friend.wait_for_selector("#game-status")
    host.wait_for_selector("#game-status", timeout=TIMEOUT)  # the host's page starts too
    assert "fay_e2e" in host.inner_text("#game-status")
    host_ctx.close()
    friend_ctx.close()
