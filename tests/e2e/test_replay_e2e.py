"""The replay page in a real browser: a finished New Haven game (stored by random play in
the live server's database) is opened from the player's end screen, stepped through with
the keyboard (ArrowRight/ArrowLeft/Home/End, each an HTMX swap that updates the address),
and seen from another seat and with everything revealed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_play_e2e import TIMEOUT, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]

# Runs in the live server's environment: a finished 2-player game with the user in seat 0.
MAKE_GAME = """
import sys
sys.path.insert(0, "tests/games")
from django.contrib.auth import get_user_model
from replay_support import random_game
user = get_user_model().objects.get(username="{username}")
print(random_game("newhaven", [user, None], seed=11, rng_seed=3).pk)
"""


def step_of(page) -> int:
    return int(page.get_attribute("#game-status", "data-step"))


def wait_step(page, step: int) -> None:
    page.wait_for_function(
        "k => { const b = document.getElementById('game-status');"
        " return b && +b.dataset.step === k; }", arg=step, timeout=TIMEOUT,
    )


def board_fill(page) -> str:
    """The fill of a harvest square on the main board (black when its style was refused)."""
    return page.evaluate(
        "() => { const r = document.querySelector("
        "'#board-panel .f0, #board-panel .f1, #board-panel .f2, #board-panel .f3');"
        " return r ? getComputedStyle(r).fill : ''; }")


def test_replay_steps_with_the_keyboard_and_switches_perspective(browser, live_url, live_env,
                                                                  screenshot):
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    # The page's timers on a clock the test can move (time still flows by itself).
    page.clock.install()
    sign_up(page, live_url, "rita_e2e")
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", MAKE_GAME.format(username="rita_e2e")],
        cwd=ROOT, env=live_env, check=True, capture_output=True, text=True,
    )
    game_id = int(out.stdout.strip().splitlines()[-1])

    # From the end screen of the finished game.
    page.goto(f"{live_url}/games/{game_id}/")
    page.click("#end-actions #watch-replay")
    page.wait_for_selector("#replay-root #game-status")
    steps = int(page.get_attribute("#game-status", "data-steps"))
    assert steps > 10
    assert step_of(page) == steps  # the last step first
    assert page.get_attribute("#game-status", "data-seat") == "0"  # my own seat

    page.keyboard.press("Home")
    wait_step(page, 0)
    assert "step=0" in page.url
    for k in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        wait_step(page, k)
    page.keyboard.press("ArrowLeft")
    wait_step(page, 2)
    assert page.url.endswith(f"/games/{game_id}/replay/?step=2&seat=0")  # shareable
    assert page.locator("#replay-events li.current").get_attribute("data-step") == "2"

    # Another seat's perspective (the game is over): the address keeps the step.
    page.click("#replay-body [data-perspective='1']")
    page.wait_for_function(
        "() => document.getElementById('game-status').dataset.seat === '1'")
    assert step_of(page) == 2 and "seat=1" in page.url
    page.click("#replay-body [data-perspective='all']")
    page.wait_for_selector("#replay-revealed #replay-seed")
    assert page.inner_text("#replay-seed") == "11"

    page.keyboard.press("End")
    wait_step(page, steps)
    # A shared address opens the same position as a whole page.
    page.goto(f"{live_url}/games/{game_id}/replay/?step=5&seat=1")
    assert step_of(page) == 5
    assert page.locator("#replay-events li.current").get_attribute("data-step") == "5"
    # Clicking a move in the list goes there.
    page.click("#ev-7 a")
    wait_step(page, 7)
    # Stepping swapped only the rows whose highlight changed: one current row.
    assert page.locator("#replay-events li.current").count() == 1
    assert page.locator("#replay-events li").count() == steps + 1
    # The board's layout (its nonce'd style) stays: swapped tiles keep their colours.
    fill = board_fill(page)
    assert fill and fill != "rgb(0, 0, 0)", fill
    screenshot(page, "e2e-replay")
    # Back goes to the previous step's address, drawn whole (tiles keep their colours).
    page.go_back()
    page.wait_for_url(f"**/games/{game_id}/replay/?step=5&seat=1")
    wait_step(page, 5)
    page.wait_for_selector("#board-panel")
    assert board_fill(page) != "rgb(0, 0, 0)"
    page.go_forward()
    wait_step(page, 7)
    # Autoplay follows "Next" (a step a second: the test moves the page's clock on) ...
    page.click("#replay-autoplay")
    for step in (8, 9):
        page.clock.run_for(1000)
        wait_step(page, step)
    # ... until paused: seconds later (on the page's clock), at most the request that was
    # already under way has moved it.
    page.click("#replay-autoplay")
    stopped = step_of(page)
    for _second in range(3):
        page.clock.run_for(1000)  # a step due now would have asked for it by now ...
        page.wait_for_function(  # ... and been answered and swapped in
            "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")
    assert step_of(page) <= stopped + 1
    ctx.close()
