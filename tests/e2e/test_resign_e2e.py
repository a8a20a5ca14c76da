"""Resigning, rematches and fair seating in a real browser (issue 20).

1. Two people at a table whose seat order is drawn: both pages show the order and who
   starts before the first move; one resigns (after a confirmation dialog) and the game
   ends on both screens at once, the other winning; then a rematch is offered and
   accepted, and both people sit at it (no AI in the resigner's place).
2. A rated table always draws its seat order: the form refuses "seat order as listed".
"""

from __future__ import annotations

import pytest
from test_play_e2e import TIMEOUT, sign_up, socket_open

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def open_table(page, base: str, *, rated: bool = False, listed: bool = False) -> None:
    page.goto(base + "/lobby/")
    page.check("[data-game='placegame'] input[name=variant]")
    page.select_option("#id_num_players", "2")
    # The first seat field after the creator's (seat_1 here; seat_2 once fields are
    # named by their labels).
    page.locator("#create-table select[name^='seat_']").first.select_option("open")
    if rated:
        page.check("#id_rated")
    if listed:
        page.check("#id_seats_as_listed")
    page.click("#create-table button[type=submit]")


def test_a_resignation_ends_the_game_on_both_screens_and_both_sit_again(
    browser, placegame_url, screenshot
):
    base = placegame_url
    pages = []
    for name in ("rea_e2e", "reb_e2e"):
        page = browser.new_context().new_page()
        page.set_default_timeout(TIMEOUT)
        sign_up(page, base, name)
        pages.append(page)
    ann, bob = pages
    open_table(ann, base)
    ann.wait_for_selector("#table-waiting")
    assert "drawn at random when the game starts" in ann.inner_text("#seating-note")
    socket_open(ann)
    bob.goto(ann.url)
    bob.click("[data-join]")
    bob.wait_for_selector("#pg-board")
    ann.wait_for_selector("#pg-board", timeout=TIMEOUT)
    socket_open(bob)
    socket_open(ann)
    # Before the first move both see the drawn order and who starts.
    for page in pages:
        order = page.inner_text("#seat-order")
        assert "rea_e2e" in order and "reb_e2e" in order and "starts." in order
    screenshot(ann, "e2e-seat-order")

    # Ann resigns: a dialog asks first; cancelling changes nothing.
    ann.click("#resign-open")
    ann.click("#resign")
    ann.wait_for_selector("#resign-dialog")
    assert "reb_e2e wins" in ann.inner_text("#resign-dialog")
    screenshot(ann, "e2e-resign-dialog")
    ann.click("#resign-cancel")
    assert ann.locator("#resign-dialog[open]").count() == 0
    assert ann.locator("#final-scores").count() == 0
    ann.click("#resign")
    ann.wait_for_selector("#resign-dialog[open]")
    ann.click("#resign-confirm")
    ann.wait_for_selector("#final-scores")
    # Bob's screen shows the end live (his socket), without a reload.
    bob.wait_for_selector("#final-scores", timeout=TIMEOUT)
    for page in pages:
        assert "rea_e2e resigned" in page.inner_text("#ended-by")
        assert "reb_e2e" in page.inner_text("#winners")
        assert page.locator("#your-turn").count() == 0
    screenshot(bob, "e2e-resigned-other-screen")

    # Bob offers a rematch; Ann (who resigned) gets the offer live and accepts.
    game_url = bob.url
    bob.click("#rematch")
    bob.wait_for_selector("#table-waiting")
    rematch_url = bob.url
    assert rematch_url != game_url
    ann.wait_for_selector("#rematch-offer", timeout=TIMEOUT)
    assert "reb_e2e offers a rematch" in ann.inner_text("#rematch-offer")
    screenshot(ann, "e2e-rematch-offer")
    ann.click("#rematch")
    ann.wait_for_selector("#pg-board")
    assert ann.url == rematch_url
    bob.wait_for_selector("#pg-board", timeout=TIMEOUT)
    for page in pages:
        seats = page.inner_text("#game-status .seat-list")
        assert "rea_e2e" in seats and "reb_e2e" in seats and "AI" not in seats
    for page in pages:
        page.context.close()


def test_a_rated_table_refuses_the_seat_order_as_listed(browser, placegame_url):
    page = browser.new_context().new_page()
    page.set_default_timeout(TIMEOUT)
    sign_up(page, placegame_url, "rer_e2e")
    open_table(page, placegame_url, rated=True, listed=True)
    page.wait_for_selector("[data-field='seats_as_listed'] .field-error")
    assert "/lobby/" in page.url
    page.context.close()
