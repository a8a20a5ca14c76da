"""Languages in a real browser: the switcher, the remembered choice, no English left.

A visitor picks German in the header's switcher (JavaScript submits it on change); every
page after that is German (``<html lang="de">``, the cookie), sign-up included; the new
player opens a table against the AI and plays a few moves. Each page is then compared,
text node by text node, with the same page in English (the cookie switched back and
forth in the same browser), as ``tests/i18n/test_pages.py`` does with the test client.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from test_play_e2e import play_one

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

PASSWORD = "Colonia-e2e-pass-81!"
TIMEOUT = 20_000  # ms


def _textnodes():
    """tests/i18n/textnodes.py, whatever pytest's import mode."""
    name = "colonia_tests_textnodes"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "i18n" / "textnodes.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _set_language(context, base: str, lang: str) -> None:
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])


def _compare(page, context, base: str, path: str, lang: str, names: set[str]) -> list[str]:
    """The page's English leftovers: shown in ``lang``, then in English, then ``lang`` again."""
    tn = _textnodes()
    page.goto(base + path)
    translated = page.content()
    assert page.get_attribute("html", "lang") == lang, path
    _set_language(context, base, "en")
    page.goto(base + path)
    english = page.content()
    assert page.get_attribute("html", "lang") == "en", path
    _set_language(context, base, lang)
    return tn.untranslated(translated, english, lang, names)


def test_the_switcher_and_a_german_walk(browser, live_url, screenshot) -> None:
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(live_url + "/")
    assert page.get_attribute("html", "lang") == "en"
    assert page.locator(".site-header a[href='/lobby/']").inner_text() == "Lobby"

    # The switcher: choosing submits (JavaScript), the page comes back in German.
    with page.expect_navigation():
        page.select_option("#language-select", "de")
    assert page.get_attribute("html", "lang") == "de"
    assert page.locator(".site-header a[href='/accounts/login/']").inner_text() == "Anmelden"
    assert page.locator("#language-select").input_value() == "de"

    # Remembered: every later page is German, sign-up and its messages included.
    page.goto(live_url + "/accounts/signup/")
    assert page.get_attribute("html", "lang") == "de"
    page.fill("#id_username", "greta")
    page.fill("#id_email", "greta@example.org")
    page.fill("#id_password1", "short")
    page.fill("#id_password2", "short")
    with page.expect_navigation():
        page.click("form button[type=submit]")
    errors = page.locator(".field-error").all_inner_texts()
    assert errors and not any("password" in e.lower() for e in errors), errors
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url("**/lobby/")
    assert page.get_attribute("html", "lang") == "de"
    assert "Willkommen, greta!" in page.inner_text("#messages")

    # A table against the AI, a few moves by the first offered choice.
    page.select_option("#id_num_players", "2")
    page.select_option("#id_seat_2", "ai-random")
    page.check("#id_seats_as_listed")  # the steps below expect the creator to sit first
    page.click("#create-table button[type=submit]")
    page.wait_for_selector("#game-status")
    play_path = page.url.removeprefix(live_url)
    for _ in range(4):
        page.wait_for_selector("#your-turn")
        play_one(page)
    screenshot(page, "i18n-de-play")

    names = {"greta", "New Haven", "Nouvelle-France", "standard", "side-b", "rebuild",
             "careful-harvest", "simple"}
    left = {}
    for path in ["/", "/lobby/", "/accounts/signup/", "/accounts/login/",
                 "/accounts/greta/", "/rules/newhaven/", play_path, "/leaderboard/"]:
        found = _compare(page, context, live_url, path, "de", names)
        if found:
            left[path] = found
    assert not left, f"English text in the German pages: {left}"

    # Back to English with the switcher: the cookie now says English.
    page.goto(live_url + "/lobby/")
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    assert page.get_attribute("html", "lang") == "en"
    cookies = {c["name"]: c["value"] for c in context.cookies()}
    assert cookies["django_language"] == "en"
    context.close()
