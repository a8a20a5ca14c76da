"""Input and contract hygiene: NUL bytes, error pages and shapes, CSP, gzip, secret keys."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.secret_key import weakness
from games.tables import selectors as tables
from games.variants import apis as variant_apis

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.django_db


@pytest.fixture
def user():
    return get_user_model().objects.create_user("ann", password="Right-Horse-42")


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


# --- NUL bytes --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/t/%00/", "/accounts/a%00b/", "/games/1/?x=%00",
                                  "/api/games/1/?q=a%00", "/lobby/?%00=1"])
def test_nul_in_path_or_query_is_a_400(client: Client, path: str) -> None:
    """PostgreSQL refuses NUL in text: these were 500s there (SQLite said nothing)."""
    assert client.get(path).status_code in (400, 404)


def test_nul_in_form_fields_is_a_400(client: Client, user) -> None:
    client.force_login(user)
    response = client.post("/games/1/act/", {"action": "{}", "version": "0", "key": "\x00"})
    assert response.status_code == 400
    response = client.post("/accounts/login/", {"username": "a\x00b", "password": "x"})
    assert response.status_code == 400


def test_nul_in_json_is_a_400(user) -> None:
    client = token_client(user)
    for body in ('{"action": {"t": "\\u0000"}, "version": 0, "key": "k"}',
                 '{"action": {}, "version": 0, "key": "a\\u0000"}',
                 '{"\\u0000": 1}'):
        response = client.post("/api/games/1/actions/", body, content_type="application/json")
        assert response.status_code == 400, body
        assert response.json()["code"] == "parse_error"
    response = APIClient().post("/api/auth/token/", '{"username": "a\\u0000", "password": "x"}',
                                content_type="application/json")
    assert response.status_code == 400


# --- one error shape --------------------------------------------------------------------------


def assert_error_shape(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"]
    assert isinstance(body["code"], str) and body["code"]
    assert set(body) <= {"detail", "code", "errors", "version", "retry_after"}
    if code:
        assert body["code"] == code
    return body


def test_api_errors_share_one_shape(user) -> None:
    anon = APIClient()
    assert_error_shape(anon.post("/api/games/", {}, format="json"), 401, "not_authenticated")
    assert_error_shape(anon.post("/api/auth/token/", {"username": "ann", "password": "no"},
                                 format="json"), 401, "authentication_failed")
    body = assert_error_shape(token_client(user).post("/api/games/", {}, format="json"), 400,
                              "invalid")
    assert set(body["errors"]) == {"variant", "seats"}
    assert_error_shape(anon.get("/api/games/999999/"), 404, "not_found")
    assert_error_shape(anon.get("/api/no-such-route/"), 404, "not_found")
    assert_error_shape(anon.delete("/api/variants/"), 405, "method_not_allowed")
    assert_error_shape(anon.post("/api/auth/token/", "x", content_type="text/plain"), 415,
                       "unsupported_media_type")


def test_request_body_over_the_limit_is_a_json_413(user) -> None:
    """Bodies over DATA_UPLOAD_MAX_MEMORY_SIZE were an HTML 400."""
    big = json.dumps({"action": {"pad": "x" * 70_000}, "version": 0, "key": "k"})
    response = token_client(user).post("/api/games/1/actions/", big,
                                       content_type="application/json")
    assert_error_shape(response, 413, "request_too_large")


def test_throttled_is_json_429(user, monkeypatch) -> None:
    from django.core.cache import cache
    from rest_framework.settings import api_settings

    cache.clear()
    monkeypatch.setitem(api_settings.DEFAULT_THROTTLE_RATES, "token", "1/minute")
    client = APIClient(REMOTE_ADDR="10.1.2.3")
    for _ in range(2):
        response = client.post("/api/auth/token/", {"username": "x", "password": "y"},
                               format="json")
    body = assert_error_shape(response, 429, "throttled")
    assert body["retry_after"] >= 1


def test_openapi_documents_the_error_shape_everywhere(client: Client) -> None:
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    error = schema["components"]["schemas"]["ErrorOutput"]
    assert set(error["required"]) == {"detail", "code"} and "errors" in error["properties"]
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            assert "default" in operation["responses"], (path, method)


def test_browsable_api_is_off_unless_debugging(user) -> None:
    response = Client().get("/api/variants/", HTTP_ACCEPT="text/html")
    assert response["Content-Type"].startswith("application/json")


# --- pages ------------------------------------------------------------------------------------


def test_real_404_page(client: Client) -> None:
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert 'id="error-page"' in response.content.decode()
    assert "Traceback" not in response.content.decode()


def test_500_page(monkeypatch) -> None:
    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(tables, "game_summaries", crash)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    html = response.content.decode()
    assert 'data-status="500"' in html and "boom" not in html


def test_database_down_is_a_503_not_a_500(monkeypatch) -> None:
    from django.db import OperationalError


    def down(*args, **kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(tables, "game_summaries", down)
    monkeypatch.setattr(variant_apis, "active_variants", down)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 503 and 'data-status="503"' in response.content.decode()
    response = APIClient(raise_request_exception=False).get("/api/variants/")
    assert_error_shape(response, 503, "unavailable")
    assert response["Retry-After"]


def test_api_docs_are_served_locally(client: Client) -> None:
    """Swagger UI from the sidecar: no CDN, and no inline script (CSP)."""
    html = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in html
    assert "cdn" not in html.lower() and "https://" not in html
    assert "<script>" not in html.replace(" ", "")


def test_csp_without_unsafe_inline(client: Client) -> None:
    response = client.get("/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy


@pytest.mark.parametrize("template", sorted(
    str(p.relative_to(ROOT / "templates")) for p in (ROOT / "templates").rglob("*.html")))
def test_templates_have_no_inline_script_or_style(template: str) -> None:
    """The policy refuses inline scripts and style="" attributes: none in templates."""
    text = (ROOT / "templates" / template).read_text()
    assert " style=" not in text
    for chunk in text.split("<style")[1:]:
        assert "nonce=" in chunk.split(">")[0], template
    assert " on" + "click=" not in text
    for chunk in text.split("<script")[1:]:
        assert "src=" in chunk.split(">")[0] or "nonce=" in chunk.split(">")[0], template


# --- gzip where BREACH cannot apply -----------------------------------------------------------


def test_gzip_for_anonymous_pages_and_token_api_not_for_signed_in_pages(user) -> None:
    anon = Client().get("/", HTTP_ACCEPT_ENCODING="gzip")
    assert anon["Content-Encoding"] == "gzip"
    assert b"Colonia" in gzip.decompress(anon.content)
    api = token_client(user).get("/api/schema/", HTTP_ACCEPT_ENCODING="gzip")
    assert api.get("Content-Encoding") == "gzip"
    signed_in = Client()
    signed_in.force_login(user)
    page = signed_in.get("/lobby/", HTTP_ACCEPT_ENCODING="gzip")
    assert page.status_code == 200 and not page.has_header("Content-Encoding")


# --- secret key ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["", "x" * 60, "ab" * 30, "dev-only-insecure-key-change-me",
                                 "django-insecure-" + "k3Jx9!qLz2@wPm7#" * 3, "short-Key-1"])
def test_weak_secret_keys(key: str) -> None:
    assert weakness(key)


def test_strong_secret_key() -> None:
    import secrets

    assert weakness(secrets.token_urlsafe(48)) is None


def test_production_refuses_a_weak_secret_key() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production",
           "DJANGO_SECRET_KEY": "a" * 64, "DJANGO_ALLOWED_HOSTS": "colonia.example"}
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "weak" in result.stderr
