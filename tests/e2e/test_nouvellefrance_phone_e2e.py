"""Nouvelle-France on a phone (390 x 844, touch; issue 25): while a piece is placed, one
building site is shown up close, above the choosers (the orientations, the list of
spots), and every tap target -- each landing spot of the site up close, the site picks,
the orientations, the list's buttons -- is at least 44 x 44 CSS px, the spots' discs a
thumb apart; each site's spots can be reached by panning its box.  The game starts with
quick play from the home page, so the first placement offers every site and many spots.
"""

from __future__ import annotations

import itertools
import re

import pytest
from audit import TARGET, Watch, assert_axe_clean, small_targets
from test_first_hour_e2e import SCREENS
from test_nouvellefrance_e2e import play_one
from test_play_e2e import TIMEOUT, sign_up, version, wait_version_above
from test_quickplay import at_first_move

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

ZOOMED = "#nf-sites.placing-now .site.zoomed"

# Where each spot of the site up close is: on the page, and in its panning box's content.
SPOTS = """() => {
  const site = document.querySelector('#nf-sites.placing-now .site.zoomed');
  const box = site.querySelector('.site-draw');
  const b = box.getBoundingClientRect();
  return {
    site: site.dataset.site,
    shown: [...document.querySelectorAll('#nf-sites .site')].filter(s => s.offsetParent)
      .map(s => s.dataset.site),
    box: {w: box.clientWidth, h: box.clientHeight, sw: box.scrollWidth, sh: box.scrollHeight},
    spots: [...site.querySelectorAll('svg .spot')].map(s => {
      const r = s.getBoundingClientRect();
      return {key: s.dataset.spot, w: r.width, h: r.height,
              x: r.left + r.width / 2, y: r.top + r.height / 2,
              // In the box's content (what panning can bring into view).
              cx: r.left - b.left + box.scrollLeft + r.width / 2,
              cy: r.top - b.top + box.scrollTop + r.height / 2,
              inView: r.left >= b.left - 1 && r.right <= b.right + 1
                      && r.top >= b.top - 1 && r.bottom <= b.bottom + 1};
    }),
  };
}"""


def page_top(page, selector: str) -> float:
    return page.evaluate("s => document.querySelector(s).getBoundingClientRect().top"
                         " + window.scrollY", selector)


def page_bottom(page, selector: str) -> float:
    return page.evaluate("s => document.querySelector(s).getBoundingClientRect().bottom"
                         " + window.scrollY", selector)


def check_site_up_close(page, site: str) -> None:
    where = page.evaluate(SPOTS)
    assert where["site"] == site and where["shown"] == [site], where["shown"]
    spots = where["spots"]
    listed = page.locator(f"#spot-list .spot-group[data-site='{site}'] button").count()
    pick = page.locator(f".zoom-picks [data-zoom='{site}']")
    if pick.count():
        assert int(re.findall(r"\d+", pick.inner_text())[-1]) == listed
    assert len(spots) == listed > 0
    # Thumb-sized: every spot's target, and no two discs closer than a thumb.
    small = [s for s in spots if s["w"] < TARGET or s["h"] < TARGET]
    assert not small, f"{site}: spots under {TARGET} px: {small[:3]}"
    for a, b in itertools.combinations(spots, 2):
        gap = ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5
        assert gap >= TARGET, f"{site}: {a['key']} and {b['key']} are {gap:.0f} px apart"
    # Every spot can be panned to; one at least is in view without panning.
    box = where["box"]
    assert box["w"] >= 300, f"{site}: its box is {box['w']} px wide"
    for s in spots:
        assert 0 <= s["cx"] <= box["sw"] and 0 <= s["cy"] <= box["sh"], (site, s, box)
    assert any(s["inView"] for s in spots), f"{site}: no spot in view"
    # The board above the choosers.
    assert page_bottom(page, ZOOMED) <= page_top(page, "#orientations")
    assert page_bottom(page, ZOOMED) <= page_top(page, "#spot-list")
    assert small_targets(page, ".zoom-picks a, #orientations a, #spot-list button") == []


def test_each_site_up_close_on_a_phone(browser, live_url):
    ctx = browser.new_context(**SCREENS["phone"])
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    watch = Watch(page)
    sign_up(page, live_url, "nf_thumbs")
    page.goto(live_url + "/")
    page.select_option("#id_quick-game", "nouvellefrance")
    page.select_option("#id_quick-level", "random")
    page.click("#quick-play-button")
    at_first_move(page)
    for _step in range(20):
        if page.locator("#spot-list button").count():
            break
        play_one(page)
        page.wait_for_function("() => document.getElementById('your-turn')", timeout=TIMEOUT)
    sites = page.locator(".zoom-picks [data-zoom]").evaluate_all(
        "picks => picks.map(p => p.dataset.zoom)")
    assert len(sites) >= 2, "the first placement offers more than one site"
    first = page.evaluate(SPOTS)["site"]
    check_site_up_close(page, first)
    assert_axe_clean(page, "Nouvelle-France, a site up close on a phone")
    for site in sites:
        if site == first:
            continue
        page.locator(f".zoom-picks [data-zoom='{site}']").click()
        page.wait_for_selector(f"{ZOOMED}[data-site='{site}']")
        page.wait_for_function("() => !document.querySelector('.htmx-request')")
        check_site_up_close(page, site)
    # A spot in view: a tap shows the piece there, a second tap places it.
    spot = next(s for s in page.evaluate(SPOTS)["spots"] if s["inView"])
    page.touchscreen.tap(spot["x"], spot["y"])
    page.wait_for_selector("svg.nf-site .cubes .ghost-cube")
    assert page.get_attribute("svg.nf-site .spot.on", "data-spot") == spot["key"]
    old = version(page)
    page.touchscreen.tap(spot["x"], spot["y"])
    wait_version_above(page, old)
    assert "nf_thumbs placed the" in page.inner_text("#game-log")
    watch.check()
    ctx.close()
