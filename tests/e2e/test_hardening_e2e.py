"""The browser side of hardening: no CSP violation, positioned targets, error banner."""

from __future__ import annotations

import pytest
from test_play_e2e import socket_open

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

PASSWORD = "Colonia-e2e-pass-81!"
TIMEOUT = 20_000  # ms


def test_pages_respect_the_csp_and_errors_show(browser, live_url):
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    violations: list[str] = []
    page.on("console", lambda m: violations.append(f"{page.url}: {m.text}")
            if "Content Security Policy" in m.text else None)
    page.goto(live_url + "/accounts/signup/")
    page.fill("#id_username", "csp_e2e")
    page.fill("#id_email", "csp_e2e@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url("**/lobby/")
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", "ai-random")
    page.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#game-status")
    socket_open(page)
    # Targets placed from data-pos by the script (style="" would break the policy).
    page.click("[data-select-tile]")
    page.wait_for_selector("#board-targets button")
    left = page.eval_on_selector("#board-targets form", "f => f.style.left")
    assert left.endswith("%"), left
    # A server error on an HTMX request shows the banner instead of failing silently.
    page.route("**/act/", lambda route: route.fulfill(status=503, body="{}",
                                                      content_type="application/json"))
    page.locator("#board-targets button").first.click()
    page.wait_for_selector("#net-error:not([hidden])")
    assert page.inner_text("#net-error").strip()
    page.unroute("**/act/")
    # Swagger UI works from local files under the policy.
    page.goto(live_url + "/api/docs/")
    page.wait_for_selector(".swagger-ui .info", timeout=TIMEOUT)
    page.goto(live_url + "/no/such/page/")
    assert page.locator("#error-page").count() == 1
    assert violations == []
    ctx.close()
