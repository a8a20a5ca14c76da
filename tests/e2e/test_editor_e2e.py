"""The rules editor in a real browser, as staff (Playwright + Debian's Chromium, live uvicorn).

A staff member starts a draft of New Haven's standard variant, changes a village value in
the grid, sees the field error of a bad value as they type, simulates the draft with the
progress bar moving over the socket, and publishes it.  A table opened before keeps
version 1, a table opened after gets version 2.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_play_e2e import socket_open

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "Colonia-e2e-staff-72!"
USERNAME = "editor_boss"
TIMEOUT = 30_000  # ms

# Records every value the progress bar shows (it is replaced by socket fragments).
WATCH_PROGRESS = """
() => {
  window.__progress = [];
  const seen = () => {
    const bar = document.getElementById('sim-bar');
    if (bar) window.__progress.push([+bar.value, +bar.max, bar.closest('[data-status]')
      ? bar.closest('[data-status]').dataset.status : '']);
  };
  new MutationObserver(seen).observe(document.body, {subtree: true, childList: true});
}
"""


def staff_account(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "createsuperuser", "--noinput"], cwd=ROOT, check=True,
        stdout=subprocess.DEVNULL,
        env={**env, "DJANGO_SUPERUSER_USERNAME": USERNAME,
             "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
             "DJANGO_SUPERUSER_EMAIL": "boss@example.org"},
    )


def open_table(page, base: str, token: str, variant_id: int) -> int:
    response = page.request.post(
        base + "/api/games/", headers={"Authorization": f"Token {token}"},
        data={"variant": variant_id, "seats": [{"type": "human"},
                                               {"type": "ai", "level": "random"}]})
    assert response.status == 201, response.text()
    return response.json()["id"]


def test_staff_edit_simulate_and_publish_a_variant(browser, live_url, live_env, screenshot):
    staff_account(live_env)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(live_url + "/accounts/login/")
    page.fill("#id_username", USERNAME)
    page.fill("#id_password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_load_state()

    token = page.request.post(live_url + "/api/auth/token/",
                              data={"username": USERNAME, "password": PASSWORD}).json()["token"]
    variant_id = next(v["id"] for v in page.request.get(live_url + "/api/variants/").json()
                      if v["game"] == "newhaven" and v["name"] == "standard")
    before = open_table(page, live_url, token, variant_id)

    # The editor's index, then a draft of the standard variant.
    page.goto(live_url + "/editor/")
    screenshot(page, "editor-index")
    page.click("#game-newhaven tr[data-variant='standard'] button")
    page.wait_for_selector("#village-grid")
    socket_open(page)
    screenshot(page, "editor-draft-newhaven")

    # A bad value in the village grid: the field's own error appears as you type.
    cell = page.locator("#f-village-col_values--0")
    cell.fill("-1")
    error = page.locator("#err-f-village-col_values--0 li")
    error.first.wait_for()
    assert "minimum" in error.first.inner_text()
    assert cell.get_attribute("aria-invalid") == "true"
    shots = screenshot(page, "editor-village-error").parent
    page.locator("#f-village").screenshot(path=str(shots / "editor-village-error-grid.png"))
    cell.fill("6")
    page.wait_for_selector("#form-errors[data-count='0']")
    assert error.count() == 0

    # Simulate (which saves the draft first): the bar moves with the socket's news.
    page.evaluate(WATCH_PROGRESS)
    page.fill("#sim-games", "12")
    page.select_option("#sim-bots", "random")
    page.click("#simulate-button")
    page.wait_for_selector("#sim-bar", state="visible")
    page.wait_for_selector("#sim-report", timeout=120_000)
    page.wait_for_selector("#sim-progress[data-status='done']")
    seen = page.evaluate("window.__progress")
    assert any(0 < value < total for value, total, _status in seen), seen
    assert page.locator("#sim-report .report-section").count() == 3  # 2, 3 and 4 players
    screenshot(page, "editor-simulated")
    page.locator("#sim-panel").screenshot(path=str(shots / "editor-simulation-panel.png"))

    # Publish: new tables get version 2 at once.
    page.click("#publish-button")
    page.wait_for_selector("tr[data-version='v2'].current")
    screenshot(page, "editor-published")
    after = open_table(page, live_url, token, variant_id)

    page.goto(live_url + f"/editor/variants/{variant_id}/versions/1/")
    assert page.locator(f"[data-game-id='{before}']").count() == 1
    assert page.locator(f"[data-game-id='{after}']").count() == 0
    assert page.input_value("#f-village-col_values--0") == "5"
    page.goto(live_url + f"/editor/variants/{variant_id}/versions/2/")
    assert page.locator(f"[data-game-id='{after}']").count() == 1
    assert page.input_value("#f-village-col_values--0") == "6"
    for game in (before, after):
        assert page.goto(live_url + f"/games/{game}/").status == 200
    context.close()
