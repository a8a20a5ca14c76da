"""The table chat in real browsers: live for the other player and a spectator, kept in
the database across a server restart."""

from __future__ import annotations

import pytest
from test_play_e2e import socket_open

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

PASSWORD = "Colonia-e2e-pass-81!"
TIMEOUT = 20_000  # ms


def sign_up(page, base: str, username: str) -> None:
    page.goto(base + "/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url("**/lobby/")


def open_table(page) -> str:
    """A 2-player table with an open seat; its URL."""
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", "open")
    page.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table-waiting")
    return page.url


def say(page, text: str) -> None:
    page.fill("#chat-text", text)
    page.click("#chat-send")


def wait_chat(page, text: str) -> None:
    page.wait_for_selector(f"#chat-log li:has-text('{text}')", timeout=TIMEOUT)


def test_chat_arrives_live_for_the_other_player_and_a_spectator(browser, live_url):
    ctx = {name: browser.new_context() for name in ("ann", "bob", "spectator")}
    ann, bob, spectator = (ctx[n].new_page() for n in ("ann", "bob", "spectator"))
    sign_up(ann, live_url, "ann_chat")
    sign_up(bob, live_url, "bob_chat")
    url = open_table(ann)
    game_id = url.rstrip("/").split("/")[-1]
    bob.goto(live_url + "/lobby/")
    bob.click(f"[data-join='{game_id}']")
    bob.wait_for_selector("#game-status")
    ann.wait_for_selector("#game-status", timeout=TIMEOUT)
    spectator.goto(url)
    spectator.wait_for_selector("#game-status")
    # The anonymous spectator reads, but is offered the log-in link, not a form.
    assert spectator.locator("#chat-text").count() == 0
    assert spectator.locator("#chat-form a").count() == 1
    for page in (ann, bob, spectator):
        socket_open(page)

    say(ann, "Good luck <b>Bob</b>!")
    wait_chat(ann, "Good luck <b>Bob</b>!")
    # The form is emptied by the post's answer; the socket's push of the log may come
    # first, so wait for the answer rather than read the box the moment the log shows.
    ann.wait_for_function("document.querySelector('#chat-text').value === ''",
                          timeout=TIMEOUT)
    wait_chat(bob, "Good luck <b>Bob</b>!")
    wait_chat(spectator, "Good luck <b>Bob</b>!")
    assert spectator.locator("#chat-log b").count() == 0  # shown as typed, never as HTML

    say(bob, "Thanks, you too")
    wait_chat(ann, "Thanks, you too")
    wait_chat(spectator, "Thanks, you too")
    # Bob's message carries a mute button for Ann; she mutes him, for herself only.
    ann.click("#chat-log li:has-text('Thanks, you too') [data-mute]")
    ann.wait_for_selector("#chat-log li:has-text('Thanks, you too')", state="detached",
                          timeout=TIMEOUT)
    assert spectator.locator("#chat-log li:has-text('Thanks, you too')").count() == 1
    for c in ctx.values():
        c.close()


def test_chat_survives_a_server_restart(browser, restartable_server):
    base = restartable_server.start()
    context = browser.new_context()
    page = context.new_page()
    sign_up(page, base, "carol_chat")
    url = open_table(page)
    path = url[len(base):]
    socket_open(page)
    say(page, "Anyone for a game?")
    wait_chat(page, "Anyone for a game?")
    context.close()

    restartable_server.stop()
    base = restartable_server.start()  # a new process (and port), the same database
    page = browser.new_context().new_page()
    page.goto(base + path)
    wait_chat(page, "Anyone for a game?")
