"""What the browser tests check on every page besides their path (issue 25).

* :class:`Watch` collects a page's console errors, uncaught exceptions and
  Content-Security-Policy violations (a ``securitypolicyviolation`` listener installed
  before any script of the page runs, reporting through a binding): ``watch.check()``
  fails on any.
* :func:`axe_problems` runs axe-core (the npm package, installed into ``node_modules/`` by
  ``make test``) inside the page and returns its serious and critical violations.  It is
  evaluated through the DevTools protocol, which the page's CSP does not govern, so
  nothing is injected as a <script> the policy would refuse.
* :func:`act_in_view` says whether what needs the player's action (the board's
  ``[data-act]`` element, or the final scores) is on screen.
* :func:`small_targets` lists the clickable board spots smaller than 44 x 44 CSS px.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: WCAG 2.5.5 (target size, enhanced): 44 x 44 CSS pixels.
TARGET = 44

_CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__coloniaCsp(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`
    + ` at ${e.sourceFile || document.location.href}:${e.lineNumber} ${e.sample || ""}`);
});
"""


class Watch:
    """Console errors, page errors and CSP violations of one page, from now on."""

    def __init__(self, page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.csp: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))
        page.expose_binding("__coloniaCsp", lambda _source, text: self.csp.append(text))
        page.add_init_script(_CSP_LISTENER)

    def _console(self, message) -> None:
        if message.type == "error":
            self.errors.append(f"{message.text} ({message.location.get('url', '')})")

    def check(self) -> None:
        """Fail on any console error, uncaught exception or CSP violation so far."""
        assert not self.csp, "CSP violations:\n" + "\n".join(self.csp)
        assert not self.errors, "console errors:\n" + "\n".join(self.errors)


def _axe_source() -> str:
    if not AXE.exists():
        message = f"no axe-core at {AXE} (run `make test`, or `npm ci`)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return AXE.read_text()


def axe_problems(page, *, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """axe-core's violations of ``impacts`` on the page as it is now, one line each."""
    if not page.evaluate("() => !!window.axe"):
        page.evaluate("src => { (0, eval)(src); }", _axe_source())
    found = page.evaluate(
        """async () => {
          const r = await axe.run(document, {resultTypes: ['violations']});
          return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}));
        }"""
    )
    return [f"{v['impact']}: {v['id']} ({v['help']}) at {v['nodes']}"
            for v in found if v["impact"] in impacts]


def assert_axe_clean(page, where: str) -> None:
    problems = axe_problems(page)
    assert not problems, f"axe-core on {where}:\n" + "\n".join(problems)


_IN_VIEW = """() => {
  const el = document.getElementById('final-scores')
    || document.querySelector('#play-root [data-act]');
  if (!el) return {what: null};
  const r = el.getBoundingClientRect();
  const h = window.innerHeight;
  const tall = r.height > h;
  const shown = tall ? r.top >= -2 && r.top <= h * 0.1 : r.top >= -2 && r.bottom <= h + 2;
  // Its first control (a button, a link) is on screen too.
  const control = el.matches('a, button') ? el : el.querySelector('button, a.button, a[href]');
  let reach = true;
  if (control) {
    const c = control.getBoundingClientRect();
    reach = c.top >= -2 && c.bottom <= h + 2;
  }
  return {what: el.id || el.getAttribute('data-act'), act: el.getAttribute('data-act'),
          top: Math.round(r.top), bottom: Math.round(r.bottom), height: h,
          shown: shown && reach};
}"""


def act_in_view(page) -> dict:
    """Where what needs the player's action is: ``{"what", "top", "bottom", "shown"}``
    (``what`` is None when nothing on the page needs them)."""
    return page.evaluate(_IN_VIEW)


def wait_act_in_view(page, timeout: int = 3000) -> dict:
    """Wait (the page may be waiting for the player to stop scrolling) until what needs the
    player's action is on screen; fail with where it is if it does not come."""
    try:
        page.wait_for_function(f"() => ({_IN_VIEW})().shown", timeout=timeout)
    except Exception:
        where = act_in_view(page)
        raise AssertionError(f"what needs the player is not in view: {where}") from None
    return act_in_view(page)


def small_targets(page, selector: str) -> list[dict]:
    """The elements of ``selector`` that are shown but smaller than 44 x 44 CSS px."""
    return page.evaluate(
        """([selector, min]) => [...document.querySelectorAll(selector)].map(el => {
          const r = el.getBoundingClientRect();
          return {what: el.getAttribute('data-spot') || el.getAttribute('aria-label')
                  || el.id || el.textContent.trim().slice(0, 30),
                  w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10};
        }).filter(t => t.w > 0 && t.h > 0 && (t.w < min || t.h < min))""",
        [selector, TARGET],
    )
