"""Quick play and the "New table" form in the browser (issue 25), on a desktop
(1366 x 900) and a phone (390 x 844).

1. From the home page a signed-in person is at their first move against the AI in at
   most two clicks (here: one, "Play now"), what needs them in view; no console error, no
   CSP violation, axe-core clean on the home page and the lobby.
2. A visitor's quick play goes through sign-up and back to the home page, their choices
   kept, and on to the game.
3. The "New table" form shows only what applies as the choices change (seats 3-4 with 4
   players only, the clock's fields once a clock is chosen), its departure rules are
   readable, every label names the control with its id; without JavaScript the same
   through its "Update the form" button.
"""

from __future__ import annotations

import pytest
from audit import Watch, assert_axe_clean, small_targets, wait_act_in_view
from test_first_hour_e2e import SCREENS
from test_play_e2e import PASSWORD, TIMEOUT, sign_up, socket_open

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def at_first_move(page) -> None:
    """The play page, the person to move, what needs them on screen."""
    page.wait_for_url("**/games/*/")
    socket_open(page)
    page.wait_for_function("() => document.getElementById('your-turn')"
                           " && document.querySelector('#play-root [data-act]')",
                           timeout=TIMEOUT)
    wait_act_in_view(page)


@pytest.mark.parametrize("screen", ["desktop", "phone"])
@pytest.mark.parametrize("game", ["newhaven", "nouvellefrance"])
def test_one_click_from_the_home_page_to_the_first_move(browser, live_url, screen, game):
    ctx = browser.new_context(**SCREENS[screen])
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    watch = Watch(page)
    sign_up(page, live_url, f"qp_{game[:3]}_{screen}")
    assert_axe_clean(page, f"the lobby ({screen})")
    assert page.locator("#quick-play").is_visible()
    # On the phone quick play comes first, on the desktop beside the open tables.
    tops = page.evaluate("() => ['#quick-play', '#open-tables', '#create-table'].map("
                         "s => document.querySelector(s).getBoundingClientRect().top)")
    if screen == "phone":
        assert tops[0] < tops[1] < tops[2], tops
    else:
        assert abs(tops[0] - tops[1]) < 20 and tops[0] < tops[2], tops
    page.goto(live_url + "/")
    assert_axe_clean(page, f"the home page ({screen})")
    if screen == "phone":
        assert small_targets(page, "#quick-play select, #quick-play button") == []
    if game != "newhaven":  # the first game is the one chosen unless another is
        page.select_option("#id_quick-game", game)
    clicks = 0
    page.locator("#quick-play-button").click()
    clicks += 1
    at_first_move(page)
    assert clicks <= 2
    assert page.locator(f".play-{game}").count() == 1
    assert "unrated" in page.inner_text("#table-rules")
    watch.check()
    ctx.close()


def test_a_visitor_signs_up_and_comes_back_to_quick_play(browser, live_url):
    ctx = browser.new_context(**SCREENS["phone"])
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    watch = Watch(page)
    page.goto(live_url + "/")
    assert_axe_clean(page, "the home page (signed out)")
    page.select_option("#id_quick-game", "nouvellefrance")
    page.select_option("#id_quick-level", "random")
    page.click("#quick-play-button")
    page.wait_for_url("**/accounts/login/**")
    page.click("main a[href*='/accounts/signup/']")
    page.fill("#id_username", "qp_visitor")
    page.fill("#id_email", "qp_visitor@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main form button[type=submit]")
    # Back on the home page, the choices as they were.
    page.wait_for_url(lambda url: "/quick-play" not in url and "/accounts/" not in url)
    assert page.input_value("#id_quick-game") == "nouvellefrance"
    assert page.input_value("#id_quick-level") == "random"
    page.click("#quick-play-button")
    at_first_move(page)
    assert page.locator(".play-nouvellefrance").count() == 1
    watch.check()
    ctx.close()


SHOWN = "sel => { const e = document.querySelector(sel); return !!e && !!e.offsetParent; }"


def shown(page, selector: str) -> bool:
    return page.evaluate(SHOWN, selector)


def labels_match_their_controls(page) -> list[str]:
    """The form's labels whose ``for`` names no control, or a control of another field."""
    return page.evaluate("""() => [...document.querySelectorAll('#create-table label[for]')]
      .filter(l => l.offsetParent)
      .map(l => [l, document.getElementById(l.htmlFor)])
      .filter(([l, c]) => !c || !/^(INPUT|SELECT|TEXTAREA)$/.test(c.tagName)
              || (/^Seat \\d$/.test(l.textContent.trim())
                  && c.id !== 'id_seat_' + l.textContent.trim().slice(5)))
      .map(([l]) => l.htmlFor + ': ' + l.textContent.trim())""")


def cut_off(page) -> list[str]:
    """The departure rules' texts that do not fit their box (or the form)."""
    return page.evaluate("""() => {
      const form = document.getElementById('create-table').getBoundingClientRect();
      return [...document.querySelectorAll('[data-field=departure_rule] label')]
        .filter(l => { const r = l.getBoundingClientRect();
                       return l.scrollWidth > l.clientWidth + 1 || r.right > form.right + 1
                              || r.left < form.left - 1; })
        .map(l => l.textContent.trim()); }""")


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_new_table_form_shows_what_applies(browser, live_url, screen):
    ctx = browser.new_context(**SCREENS[screen])
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    watch = Watch(page)
    sign_up(page, live_url, f"ntf_{screen}")
    assert shown(page, "#id_seat_2")
    assert not shown(page, "#id_seat_3") and not shown(page, "#id_seat_4")
    for name in ("reserve_minutes", "increment", "days"):
        assert not shown(page, f"#id_{name}")
    assert labels_match_their_controls(page) == []
    assert cut_off(page) == []
    assert page.locator("[data-field=departure_rule] input[type=radio]").count() == 2
    page.select_option("#id_num_players", "4")
    assert shown(page, "#id_seat_3") and shown(page, "#id_seat_4")
    page.select_option("#id_num_players", "3")
    assert shown(page, "#id_seat_3") and not shown(page, "#id_seat_4")
    page.select_option("#id_clock", "live")
    assert shown(page, "#id_reserve_minutes") and shown(page, "#id_increment")
    assert not shown(page, "#id_days")
    page.select_option("#id_clock", "correspondence")
    assert shown(page, "#id_days") and not shown(page, "#id_reserve_minutes")
    assert labels_match_their_controls(page) == []
    assert_axe_clean(page, f"the lobby's New table form ({screen})")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= SCREENS[screen]["viewport"]["width"], f"the page scrolls sideways ({width})"
    # A live reserve typed wrong, then no clock after all: the browser does not block the
    # form on the hidden field, and the table is made (3 players: two AI seats).
    page.select_option("#id_clock", "live")
    page.fill("#id_reserve_minutes", "0")
    page.select_option("#id_clock", "none")
    page.select_option("#id_seat_2", "ai-random")
    page.select_option("#id_seat_3", "ai-random")
    page.click("#create-table button[type=submit]")
    page.wait_for_url("**/games/*/")
    assert "no clock" in page.inner_text("#table-rules")
    assert page.locator(".seat-list li, [data-seat]").count() >= 3
    watch.check()
    ctx.close()


def test_the_new_table_form_without_javascript(browser, live_url):
    ctx = browser.new_context(java_script_enabled=False, **SCREENS["desktop"])
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(live_url + "/accounts/signup/")
    page.fill("#id_username", "ntf_nojs")
    page.fill("#id_email", "ntf_nojs@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/lobby/")
    assert not shown(page, "#id_seat_3")
    page.select_option("#id_num_players", "4")
    page.select_option("#id_clock", "live")
    page.click("#create-table button[name=update]")
    page.wait_for_load_state()
    assert page.input_value("#id_num_players") == "4"
    assert shown(page, "#id_seat_3") and shown(page, "#id_seat_4")
    assert shown(page, "#id_reserve_minutes") and not shown(page, "#id_days")
    for n in (2, 3, 4):
        page.select_option(f"#id_seat_{n}", "ai-random")
    page.click("#create-table button[type=submit]:not([name])")
    page.wait_for_url("**/games/*/")
    assert "5 min" not in page.inner_text("#table-rules")  # the reserve's default: 10 min
    assert "10 min" in page.inner_text("#table-rules")
    ctx.close()
