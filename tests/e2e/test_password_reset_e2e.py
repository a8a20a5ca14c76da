"""A forgotten password is reset in a real browser through the mailed link.

The live server writes its mails as files (EMAIL_BACKEND=filebased, see conftest.py):
the test reads the link from there, as a person would from their inbox.
"""

from __future__ import annotations

import re
import time

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

OLD = "Colonia-e2e-old-81!"
NEW = "Colonia-e2e-new-27?"
TIMEOUT = 20_000  # ms


def _mailed_link(mails, to: str) -> str:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for message in mails():
            if message["To"] == to:
                text = message.get_content()
                match = re.search(r"https?://\S+/accounts/password/reset/\S+/", text)
                if match:
                    return match.group(0)
        time.sleep(0.2)
    raise AssertionError(f"no reset mail to {to}")


def test_reset_a_forgotten_password_through_the_mail(browser, live_url, mails):
    page = browser.new_context().new_page()
    page.goto(live_url + "/accounts/signup/")
    page.fill("#id_username", "forgetful")
    page.fill("#id_email", "forgetful@example.org")
    page.fill("#id_password1", OLD)
    page.fill("#id_password2", OLD)
    page.click("form button[type=submit]")
    page.wait_for_url("**/lobby/")
    page.click("text=Log out")

    page.goto(live_url + "/accounts/login/")
    page.click("#forgot-password")
    page.fill("#id_email", "forgetful@example.org")
    page.click("#send-reset")
    page.wait_for_selector("#reset-sent", timeout=TIMEOUT)

    page.goto(_mailed_link(mails, "forgetful@example.org"))
    page.fill("#id_new_password1", NEW)
    page.fill("#id_new_password2", NEW)
    page.click("#set-password")
    page.wait_for_selector("#reset-complete", timeout=TIMEOUT)

    page.goto(live_url + "/accounts/login/")
    page.fill("#id_username", "forgetful")
    page.fill("#id_password", NEW)
    page.click("form.form button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url, timeout=TIMEOUT)
    assert page.locator("a.who", has_text="forgetful").count() == 1
