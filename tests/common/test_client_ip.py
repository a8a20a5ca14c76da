"""One client-address rule for lockout, sign-up and API limits (common.client_ip)."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from common.client_ip import client_ip_from_meta


@pytest.mark.parametrize(
    ("proxies", "meta", "expected"),
    [
        (0, {"REMOTE_ADDR": "10.0.0.9", "HTTP_X_FORWARDED_FOR": "1.2.3.4"}, "10.0.0.9"),
        (1, {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "1.2.3.4"}, "1.2.3.4"),
        # the client wrote "6.6.6.6" itself; our one proxy appended the real address
        (1, {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 1.2.3.4"},
         "1.2.3.4"),
        (2, {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 1.2.3.4, 10.0.0.1"},
         "1.2.3.4"),
        # fewer hops than proxies, or garbage: the socket's address
        (2, {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "1.2.3.4"}, "10.0.0.2"),
        (1, {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "not-an-ip"}, "10.0.0.1"),
        (1, {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "[2001:db8::1]:443"},
         "2001:db8::1"),
        (0, {}, None),
    ],
)
def test_client_ip_rule(proxies: int, meta: dict, expected: str | None) -> None:
    assert client_ip_from_meta(meta, proxies) == expected


def _fail_login(client: Client, username: str, **extra: str) -> int:
    return client.post("/accounts/login/", {"username": username, "password": "wrong"},
                       **extra).status_code


def test_lockout_ignores_a_spoofed_forwarded_for(db, settings, make_user=None) -> None:
    """A fresh X-Forwarded-For per attempt no longer resets django-axes' count."""
    from django.contrib.auth import get_user_model

    settings.AXES_FAILURE_LIMIT = 3
    get_user_model().objects.create_user("victim", password="Right-Horse-42")
    client = Client(REMOTE_ADDR="10.9.9.9")
    codes = [_fail_login(client, "victim", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}")
             for i in range(5)]
    assert codes[-1] == 429


def test_lockout_behind_a_proxy_locks_one_client_not_everyone(db, settings) -> None:
    """Behind one proxy (NUM_PROXIES=1), one attacker's lockout leaves others free."""
    from django.contrib.auth import get_user_model

    settings.AXES_FAILURE_LIMIT = 3
    settings.TRUSTED_PROXIES = 1
    get_user_model().objects.create_user("victim", password="Right-Horse-42")
    proxy = Client(REMOTE_ADDR="10.0.0.1")
    for _ in range(4):
        _fail_login(proxy, "victim", HTTP_X_FORWARDED_FOR="203.0.113.66")
    assert _fail_login(proxy, "victim", HTTP_X_FORWARDED_FOR="203.0.113.66") == 429
    ok = proxy.post("/accounts/login/", {"username": "victim", "password": "Right-Horse-42"},
                    HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert ok.status_code == 302  # another client behind the same proxy logs in


def test_api_lockout_is_json(db, settings) -> None:
    from django.contrib.auth import get_user_model

    settings.AXES_FAILURE_LIMIT = 2
    get_user_model().objects.create_user("victim", password="Right-Horse-42")
    client = APIClient(REMOTE_ADDR="10.7.7.7")
    for _ in range(3):
        response = client.post("/api/auth/token/", {"username": "victim", "password": "x"},
                               format="json")
    assert response.status_code == 429
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["code"] == "locked_out" and response.json()["detail"]


def test_signup_limit_uses_the_same_rule(db, settings, monkeypatch) -> None:
    cache.clear()
    settings.SIGNUP_RATE_LIMIT = 1
    settings.TRUSTED_PROXIES = 1
    proxy = Client(REMOTE_ADDR="10.0.0.1")

    def sign_up(address: str) -> int:
        return proxy.post("/accounts/signup/", {
            "username": f"n{uuid.uuid4().hex[:8]}", "password1": "Correct-Horse-42",
            "password2": "Correct-Horse-42"}, HTTP_X_FORWARDED_FOR=address).status_code

    assert sign_up("203.0.113.1") == 302
    proxy.logout()
    assert sign_up("203.0.113.1") == 429
    assert sign_up("203.0.113.2") == 302  # another client behind the proxy
    assert api_settings  # (DRF's own NUM_PROXIES is not used: one rule)
