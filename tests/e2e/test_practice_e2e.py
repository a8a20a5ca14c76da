"""Practice help in a real browser (issue 25): in an unrated game against the AI, ask a
hint (the eager worker searches), see three moves with their chances, play on until the AI
has answered (its draws cannot be taken back: the undo button is disabled), place a tile,
undo, and the board is back where it was before that move; no console
error or CSP violation on the way."""

from __future__ import annotations

import json
import re

import pytest
from audit import Watch
from test_play_e2e import (
    TIMEOUT,
    play_one,
    sign_up,
    socket_open,
    version,
    wait_my_turn,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

#: The board as the player sees it: the page's text without the status and the log.
BOARD_TEXT = """() => {
  const play = document.querySelector('#play-root .play').cloneNode(true);
  play.querySelectorAll('#game-status, #log-panel').forEach(e => e.remove());
  return play.textContent.replace(/\\s+/g, ' ').trim();
}"""


def legal_actions(page) -> list:
    """The signed-in player's legal actions now, from the game API (the page's session)."""
    game_id = page.url.split("/games/")[1].split("/")[0]
    response = page.request.get(page.url.split("/games/")[0] + f"/api/games/{game_id}/")
    assert response.ok, response.status
    return response.json()["legal_actions"]


def log_rows(page) -> int:
    return page.locator("#game-log li[data-seq]").count()


def act_once(page) -> tuple[str, int, int]:
    """On my turn, take one action and wait until the log shows it; the board's text, the
    log's length and the version from before it."""
    wait_my_turn(page)
    before = (page.evaluate(BOARD_TEXT), log_rows(page), version(page))
    play_one(page)
    page.wait_for_function(
        "n => document.querySelectorAll('#game-log li[data-seq]').length > n", arg=before[1])
    return before


def test_hint_then_undo_in_a_practice_game(browser, live_url, screenshot):
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    watch = Watch(page)
    sign_up(page, live_url, "practice_e2e")
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", "ai-random")
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#game-status")
    socket_open(page)
    wait_my_turn(page)

    # The hint: three moves in the board's words, each with its chance to win.
    page.click("#ask-hint")
    page.wait_for_selector("#hint-moves tbody tr", timeout=TIMEOUT)
    rows = page.locator("#hint-moves tbody tr")
    # Three moves, or every move when there are fewer (the seat order and the deal are
    # drawn: the first decision may be a forced one).
    assert rows.count() == min(3, len(legal_actions(page))), rows.count()
    for i in range(rows.count()):
        text = rows.nth(i).locator(".hint-text").inner_text()
        chance = rows.nth(i).locator(".hint-win").inner_text()
        assert text.strip() and re.fullmatch(r"\d{1,3}%", chance.strip()), (text, chance)
    screenshot(page, "e2e-practice-hint")
    # The hinted tile picked: its cell button is lit up on the board.
    hinted = [json.loads(rows.nth(i).get_attribute("data-hint-action"))
              for i in range(rows.count())]
    tiled = next((a for a in hinted if "tile" in a), None)
    if tiled is not None:
        page.goto(f"{page.url.split('?')[0]}?tile={tiled['tile']}&rot={tiled['rotation']}")
        page.wait_for_selector("#hint-moves tbody tr")
        lit = page.locator("#board-targets button.hinted")
        assert lit.count() >= 1
        assert json.loads(lit.first.get_attribute("data-action")) in hinted
        screenshot(page, "e2e-practice-hint-lit")
        socket_open(page)

    # Play on until the AI has answered an action of mine that ended my turn with a draw
    # (or drew itself): what came up cannot be taken back, the undo button is disabled and
    # says why. Whether a given turn draws depends on the drawn game, so play on until one
    # does (an answer without a draw leaves undo possible: checked again below).
    before = None
    for _step in range(40):
        before = act_once(page)
        if log_rows(page) > before[1] + 1:  # my action and the AI's answer
            wait_my_turn(page)
            if page.locator("#undo-blocked").count():
                break
    else:
        raise AssertionError("no answer of the AI was ever blocked from undo")
    assert page.evaluate(BOARD_TEXT) != before[0]
    assert page.locator("#undo-move").count() == 0
    assert page.locator("#undo-blocked").is_disabled()
    assert "revealed something new" in page.locator("#undo-blocked-why").inner_text()

    # Play on until an action of mine showed nothing new (a tile placed, a building
    # chosen): that one can be taken back. Which action that is depends on the drawn game;
    # every action that ended my turn let the AI draw, and undo stays disabled then.
    for _step in range(40):
        before = act_once(page)
        page.wait_for_selector("#undo-move, #undo-blocked")
        # Still my turn (the AI cannot move under the click) and nothing new shown.
        if (log_rows(page) == before[1] + 1 and page.locator("#your-turn").count()
                and page.locator("#undo-move").count()):
            break
        assert page.locator("#undo-blocked").is_disabled()
    else:
        raise AssertionError("no action of mine could be taken back in 40 tries")

    # Undo: my last action is taken back, the board is as it was.
    old = version(page)
    page.click("#undo-move")
    page.wait_for_function(
        "v => { const e = document.getElementById('game-version'); return e && +e.value > v; }",
        arg=old, timeout=TIMEOUT)
    socket_open(page)
    assert page.locator("#your-turn").count() == 1
    assert page.evaluate(BOARD_TEXT) == before[0]
    assert log_rows(page) == before[1]
    assert version(page) > old
    assert "Your last move was taken back." in page.locator("#messages").inner_text()
    screenshot(page, "e2e-practice-undone")
    # A hint for the position as it is now (the old version's is gone).
    assert page.locator("#hint-moves").count() == 0
    page.click("#ask-hint")
    page.wait_for_selector("#hint-moves tbody tr", timeout=TIMEOUT)
    assert page.get_attribute("#hint-panel", "data-hint-version") == str(version(page))
    watch.check()
    ctx.close()
