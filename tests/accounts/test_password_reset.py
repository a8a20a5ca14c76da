"""Password reset: Django's views and mails, our templates, the per-hour limit."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db

OLD = "Colonia-old-pass-81!"
NEW = "Colonia-new-pass-27?"


@pytest.fixture(autouse=True)
def clear_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def ann():
    return get_user_model().objects.create_user("ann", email="ann@example.org", password=OLD)


def _link(body: str) -> str:
    match = re.search(r"https?://[^/\s]+(/accounts/password/reset/[^\s]+/)", body)
    assert match, body
    return match.group(1)


def test_login_page_links_to_the_reset(client):
    html = client.get(reverse("accounts:login")).content.decode()
    assert reverse("accounts:password_reset") in html


def test_reset_through_the_mailed_link(client, ann):
    response = client.post(reverse("accounts:password_reset"), {"email": "ANN@example.org"})
    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ann@example.org"]
    assert "Colonia" in message.subject and "\n" not in message.subject
    assert "Hello ann" in message.body
    link = _link(message.body)
    # The link redirects to the form (Django keeps the token in the session).
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    assert form_page.context["validlink"]
    set_url = form_page.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302
    assert done["Location"] == reverse("accounts:password_reset_complete")
    ann.refresh_from_db()
    assert ann.check_password(NEW)
    # The link works once.
    again = client.get(link, follow=True)
    assert not again.context["validlink"]
    assert "already used or has expired" in again.content.decode()


def test_unknown_address_looks_the_same_and_sends_nothing(client, ann):
    response = client.post(reverse("accounts:password_reset"), {"email": "nobody@example.org"})
    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:password_reset_done")
    assert mail.outbox == []


def test_weak_new_password_is_refused(client, ann):
    client.post(reverse("accounts:password_reset"), {"email": "ann@example.org"})
    form_page = client.get(_link(mail.outbox[0].body), follow=True)
    response = client.post(form_page.redirect_chain[-1][0],
                           {"new_password1": "123", "new_password2": "123"})
    assert response.status_code == 200
    ann.refresh_from_db()
    assert ann.check_password(OLD)


@override_settings(PASSWORD_RESET_RATE_LIMIT=2)
def test_reset_requests_are_limited_per_email(client, ann):
    url = reverse("accounts:password_reset")
    for _ in range(2):
        assert client.post(url, {"email": "ann@example.org"}).status_code == 302
    response = client.post(url, {"email": "ann@example.org"}, REMOTE_ADDR="10.0.0.9")
    assert response.status_code == 429
    assert "Too many password reset requests" in response.content.decode()
    assert len(mail.outbox) == 2


@override_settings(PASSWORD_RESET_RATE_LIMIT=2)
def test_reset_requests_are_limited_per_address(client, ann):
    url = reverse("accounts:password_reset")
    for i in range(2):
        assert client.post(url, {"email": f"x{i}@example.org"}).status_code == 302
    response = client.post(url, {"email": "ann@example.org"})
    assert response.status_code == 429
    assert mail.outbox == []


@override_settings(PASSWORD_RESET_RATE_LIMIT=1)
def test_reset_limit_fails_open_without_cache(client, ann, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "add", broken)
    url = reverse("accounts:password_reset")
    for _ in range(3):
        assert client.post(url, {"email": "ann@example.org"}).status_code == 302
    assert len(mail.outbox) == 3

