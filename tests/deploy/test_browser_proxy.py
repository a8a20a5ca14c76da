"""A person in Chromium through nginx: sign up, play the AI, see the moves arrive live.

The production stack of deploy/ (HTTPS at nginx, two web processes, the AI on a real
Celery worker): the player's page and an anonymous spectator's page, each on its own
socket through the proxy (possibly on different web processes), follow every move; the
AI's replies reach the player's page only by the socket.  An oversized chat post shows
the server's 413 message in the page's banner.
"""

from __future__ import annotations

import uuid

import pytest
from deploy_support import Stack, e2e_module
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]

play = e2e_module("test_play_e2e")
TIMEOUT = 30_000  # ms: the AI plays on a worker at a lower priority, on a busy machine
MOVES = 6


def test_sign_up_and_play_the_ai_through_the_proxy(browser, stack: Stack) -> None:
    player_ctx = browser.new_context(ignore_https_errors=True)
    watcher_ctx = browser.new_context(ignore_https_errors=True)
    page, watcher = player_ctx.new_page(), watcher_ctx.new_page()
    for p in (page, watcher):
        p.set_default_timeout(TIMEOUT)
    play.sign_up(page, stack.base, f"px{uuid.uuid4().hex[:8]}")
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", "ai-random")
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#game-status")
    assert page.url.startswith(stack.base)
    watcher.goto(page.url)
    watcher.wait_for_selector("#game-status")
    play.socket_open(page)
    play.socket_open(watcher)

    made, ai_seen = 0, 0
    while made < MOVES or not ai_seen:
        assert made < 80, "the AI never moved"
        if play.is_over(page):
            break
        if play.my_turn(page):
            play.play_one(page)
            made += 1
            # The spectator's page follows by its own socket, without reloading.
            play.wait_version(watcher, play.version(page), TIMEOUT)
            continue
        # The AI's turn. Its move may land between the check above and the version read
        # here: the page then already shows the player's turn at that version, and waiting
        # for a higher one waited for nothing (30 s, once, under test-long's load). The
        # AI's move reaches the player's page only through the socket.
        before = play.version(page)
        try:
            page.wait_for_function(
                "v => { const e = document.getElementById('game-version');"
                " return (e && +e.value > v) || document.getElementById('your-turn')"
                " || document.getElementById('final-scores'); }", arg=before, timeout=TIMEOUT)
        except PlaywrightTimeoutError:  # say what the page showed (a stale page is a bug)
            raise AssertionError(
                f"no AI move after version {before} in {TIMEOUT} ms; the page shows: "
                f"{page.inner_text('#game-status')!r}, socket "
                f"{page.get_attribute('body', 'data-socket')}") from None
        if play.version(page) > before:
            ai_seen += 1
            play.wait_version(watcher, play.version(page), TIMEOUT)
    assert made >= 1 and ai_seen >= 1
    assert play.version(watcher) >= play.version(page) - 1

    # An oversized chat post (over the 64 KiB forms may carry) gets the server's own 413
    # message in the banner, not a generic error or nothing.
    page.evaluate("""() => {
        const input = document.getElementById('chat-text');
        input.removeAttribute('maxlength');
        input.value = 'x'.repeat(70000);
        document.getElementById('chat-form').requestSubmit();
    }""")
    page.wait_for_selector("#net-error:not([hidden])")
    assert "too large" in page.inner_text("#net-error")
    player_ctx.close()
    watcher_ctx.close()
