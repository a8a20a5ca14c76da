"""The board layer in a real browser: the test game of tests/placegame/, registered only in
its own server process (tests/placegame/asgi.py), is created from the lobby and played to
the end through clicks, with no change to generic code."""

from __future__ import annotations

import itertools

import pytest
from test_play_e2e import (
    TIMEOUT,
    is_over,
    my_turn,
    sign_up,
    version,
    wait_my_turn,
    wait_version_above,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def test_the_test_game_is_played_in_the_browser(browser, placegame_url, screenshot):
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    sign_up(page, placegame_url, "pat_e2e")
    page.check("[data-game='placegame'] input[name=variant]")
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", "ai-random")
    page.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#pg-board")
    for step in itertools.count():
        assert step < 50, "the game did not end"
        if is_over(page):
            break
        if my_turn(page):
            old = version(page)
            page.locator("#pg-board button").first.click()
            wait_version_above(page, old)
        else:
            wait_my_turn(page)
    screenshot(page, "e2e-placegame-final")
    log = page.inner_text("#game-log")
    assert "pat_e2e marked" in log and "AI (random) marked" in log
    assert page.locator("#final-scores [data-final-seat]").count() == 2
    assert page.locator("#end-actions #rematch").count() == 1
    ctx.close()
