""""Your turn" in a real browser: the tab title, the favicon and the nav's count (on every
open page) say so when the other player's move (made through the API) hands the turn to me."""

from __future__ import annotations

import json
import urllib.request

import pytest
from test_play_e2e import socket_open

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

PASSWORD = "Colonia-e2e-pass-81!"
TIMEOUT = 20_000  # ms


def api(base: str, path: str, data: dict | None = None, token: str = "") -> dict:
    request = urllib.request.Request(
        base + path, data=None if data is None else json.dumps(data).encode(),
        headers={"Content-Type": "application/json",
                 **({"Authorization": f"Token {token}"} if token else {})},
        method="GET" if data is None else "POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"{}")


def test_tab_title_and_favicon_change_when_it_becomes_my_turn(browser, live_url):
    # Ann plays through the API: she opens a table (seat 0, first to move).
    token = api(live_url, "/api/auth/register/",
                {"username": "ann_turns", "password": PASSWORD})["token"]
    variants = api(live_url, "/api/variants/")
    rows = variants if isinstance(variants, list) else variants.get("results", variants)
    variant = next(v for v in rows if v["name"] == "standard")
    game = api(live_url, "/api/games/", {"variant": variant["id"],
                                         "seats": [{"type": "human"}, {"type": "human"}]},
               token=token)
    game_id = game["id"]

    # Bob joins in the browser; it is Ann's turn: his title is the plain one.
    page = browser.new_context().new_page()
    page.goto(live_url + "/accounts/signup/")
    page.fill("#id_username", "bob_turns")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url("**/lobby/")
    page.goto(f"{live_url}/games/{game_id}/")
    page.click(f"[data-join='{game_id}']")
    page.wait_for_selector("#game-status")
    plain_title = page.title()
    assert not plain_title.startswith("●")
    assert page.get_attribute("link[rel~='icon']", "href").endswith("favicon.svg")
    assert page.locator("#turn-count").count() == 0
    # Bob also has the lobby open in another tab.
    lobby = page.context.new_page()
    lobby.goto(live_url + "/lobby/")
    assert lobby.locator("#turn-count").count() == 0
    socket_open(page)

    # Ann plays her whole turn through the API.
    for n in range(20):
        doc = api(live_url, f"/api/games/{game_id}/", token=token)
        if 0 not in doc["to_move"]:
            break
        api(live_url, f"/api/games/{game_id}/actions/",
            {"action": doc["legal_actions"][0], "version": doc["version"], "key": f"t-{n}"},
            token=token)
    assert 1 in api(live_url, f"/api/games/{game_id}/", token=token)["to_move"]

    page.wait_for_function("() => document.title.startsWith('●')", timeout=TIMEOUT)
    assert "Your move!" in page.title() and plain_title in page.title()
    assert page.get_attribute("link[rel~='icon']", "href").endswith("favicon-turn.svg")
    # The nav counts the game as waiting for Bob, live, on both pages.
    for tab in (page, lobby):
        tab.wait_for_function(
            "() => (document.getElementById('turn-count') || {}).textContent === '1'",
            timeout=TIMEOUT)
    page.goto(live_url + "/games/waiting/")
    assert page.inner_text("#turn-count") == "1"
    assert page.locator(f"#waiting-games [data-game='{game_id}']").count() == 1


def test_browser_notifications_are_opt_in(browser, live_url):
    """The "Notify me" button asks for the permission and remembers the choice."""
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=live_url)
    page = context.new_page()
    page.goto(live_url + "/accounts/signup/")
    page.fill("#id_username", "cleo_turns")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url("**/lobby/")
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", "open")
    page.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#table-waiting")
    button = page.locator("#notify-turns")
    button.wait_for(state="visible", timeout=TIMEOUT)
    assert button.get_attribute("aria-pressed") == "false"
    off_text = button.inner_text()
    button.click()
    page.wait_for_function(
        "() => document.getElementById('notify-turns').getAttribute('aria-pressed') === 'true'",
        timeout=TIMEOUT)
    assert button.inner_text() != off_text
    page.reload()  # remembered in this browser
    page.wait_for_function(
        "() => document.getElementById('notify-turns').getAttribute('aria-pressed') === 'true'",
        timeout=TIMEOUT)
    button.click()
    assert button.get_attribute("aria-pressed") == "false"
    context.close()
