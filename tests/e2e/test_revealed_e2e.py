"""The replay's "Everything revealed" panel in a real browser (issue 21): each game's board
draws it compactly (a fraction of the old raw dump's 10,700 px), in the reader's language,
with the board's own colours though it lies outside the board's area, also when it arrives
by an HTMX swap (switching to the revealed perspective)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_play_e2e import TIMEOUT

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]

# Runs in the live server's environment: a finished 3-player game of AI seats.
MAKE_GAME = """
import sys
sys.path.insert(0, "tests/games")
from replay_support import random_game
print(random_game("{name}", [None, None, None], seed=21, rng_seed=21).pk)
"""
#: The panel's height at most (CSS px, a 1280 px wide window); the raw dump was 10,738.
MAX_HEIGHT = 1600


def fills(page, selector: str) -> list[str]:
    """The computed fills of the harvest squares under ``selector`` (black: no colour)."""
    return page.evaluate(
        "s => [...document.querySelectorAll(s + ' rect[class^=f]')]"
        ".map(r => getComputedStyle(r).fill)", selector)


@pytest.mark.parametrize("name", ["newhaven", "nouvellefrance"])
def test_the_revealed_panel_is_compact_coloured_and_translated(browser, live_url, live_env,
                                                               screenshot, name):
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", MAKE_GAME.format(name=name)],
        cwd=ROOT, env=live_env, check=True, capture_output=True, text=True,
    )
    game_id = int(out.stdout.strip().splitlines()[-1])
    ctx = browser.new_context(locale="de-DE", viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{live_url}/games/{game_id}/replay/?step=30&seat=spectator")
    assert page.locator("#replay-revealed").is_hidden()
    # Switched by HTMX: the panel arrives as an out-of-band swap.
    page.click("#replay-body [data-perspective='all']")
    page.wait_for_selector("#replay-revealed #replay-seed")
    panel = page.locator("#replay-revealed")
    assert panel.is_visible()
    height = panel.bounding_box()["height"]
    assert 100 < height < MAX_HEIGHT, height
    text = panel.inner_text()
    assert "Alles aufgedeckt" in text, text[:200]
    for raw in ("public_buildings", "huron_known", "deck_piles", "pool", "bag"):
        assert raw not in text
    if name == "newhaven":
        shown = fills(page, "#nh-revealed")
        assert shown and all(f.startswith("url(") for f in shown), shown[:3]
    else:
        assert page.locator("#nf-revealed .deck-cards .card").count() > 10
    screenshot(page, f"e2e-revealed-{name}")
    # A whole page in the revealed perspective draws the same panel.
    page.goto(f"{live_url}/games/{game_id}/replay/?step=30&seat=all")
    assert page.locator("#replay-revealed").bounding_box()["height"] < MAX_HEIGHT
    if name == "newhaven":
        assert all(f.startswith("url(") for f in fills(page, "#nh-revealed"))
    ctx.close()
