"""Bounded request bodies: a clear 413 (or 408) at once, in the form the client reads.

* The ASGI door (``config.body_limits.BoundedBody``): a declared length over the limit is
  refused before a byte of the body is read; a body that stalls is given up after the
  read timeout; a chunked body is cut at the limit.  Django answers in each case.
* Posts over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (64 KiB) to the play page's act and to the
  chat: a fragment the page shows for HTMX, the site's error page (layout, language) for
  a plain form, JSON for the API -- all 413, nothing changed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlencode

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config import body_limits, limits
from games.models import ChatMessage, Game, Move
from games.tables.services import create_game, join_game

HX = {"HTTP_HX_REQUEST": "true"}
BIG = 100_000  # over the 64 KiB of DATA_UPLOAD_MAX_MEMORY_SIZE, under the 2 MiB door


@pytest.fixture
def running(nh_variants, ann, bob) -> Game:
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    return game


def _form(**fields: Any) -> dict[str, Any]:
    return {"data": urlencode(fields), "content_type": "application/x-www-form-urlencoded"}


def _nothing_happened(game: Game) -> bool:
    game.refresh_from_db()
    return (game.version == 0 and not Move.objects.filter(game=game).exists()
            and not ChatMessage.objects.filter(game=game).exists())


# --- Django: act, chat, API, plain form -------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("url_name", ["act", "chat"])
def test_an_oversized_htmx_post_gets_a_413_fragment(client, running, ann, url_name):
    client.force_login(ann)
    url = reverse(url_name, args=[running.pk])
    response = client.post(url, **_form(action="x" * BIG, text="x" * BIG, version=0, key="k"),
                           **HX)
    assert response.status_code == 413
    assert response["X-Colonia-Error"] == "413"
    html = response.content.decode()
    assert 'id="request-error"' in html and "too large" in html
    assert "<html" not in html  # a fragment, not a page
    assert _nothing_happened(running)


@pytest.mark.django_db
def test_an_oversized_plain_post_gets_the_413_page_in_the_readers_language(client, running,
                                                                            ann):
    client.force_login(ann)
    response = client.post(reverse("chat", args=[running.pk]),
                           **_form(text="x" * BIG), HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 413
    html = response.content.decode()
    assert 'id="error-page"' in html and 'data-status="413"' in html
    assert 'id="net-error"' in html  # the site's layout (base.html), not a bare message
    assert "Zu groß" in html and "too large" not in html
    assert _nothing_happened(running)


@pytest.mark.django_db
def test_a_multipart_post_with_an_oversized_field_gets_the_same_413(client, running, ann):
    """Multipart bodies may carry files, so their size is not refused up front: the form's
    text field is, where Django reads it (``RequestDataTooBig`` -> the 400 handler)."""
    client.force_login(ann)
    response = client.post(reverse("act", args=[running.pk]),
                           {"action": "x" * BIG, "version": 0, "key": "m"}, **HX)
    assert response.status_code == 413 and response["X-Colonia-Error"] == "413"
    assert 'id="request-error"' in response.content.decode()
    assert _nothing_happened(running)


@pytest.mark.django_db
def test_the_api_keeps_its_json_413(running, ann):
    token, _ = Token.objects.get_or_create(user=ann)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api.post(f"/api/games/{running.pk}/actions/",
                        json.dumps({"action": {"type": "x" * BIG}, "version": 0, "key": "a"}),
                        content_type="application/json")
    assert response.status_code == 413
    assert response.json() == {"detail": "The request body is too large.",
                               "code": "request_too_large"}
    assert _nothing_happened(running)


@pytest.mark.django_db
def test_small_posts_are_untouched(client, running, ann):
    client.force_login(ann)
    response = client.post(reverse("chat", args=[running.pk]), **_form(text="hello"), **HX)
    assert response.status_code == 200
    assert ChatMessage.objects.filter(game=running).count() == 1


# --- the ASGI door ----------------------------------------------------------------------------


class Recorder:
    """An inner ASGI app: what it was given, and a 200."""

    def __init__(self) -> None:
        self.scope: dict | None = None
        self.body: bytes | None = None

    async def __call__(self, scope, receive, send) -> None:
        self.scope = scope
        message = await receive()
        self.body = message["body"]
        assert message["more_body"] is False
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def _scope(length: int | None) -> dict:
    headers = [(b"host", b"testserver")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return {"type": "http", "method": "POST", "path": "/", "headers": headers}


def _run(app, scope, messages: list[dict], *, stall: bool = False) -> tuple[list, list]:
    """Call ``app``; ``receive`` gives ``messages`` then (``stall``) never answers.

    Returns what was sent and the log of events in order: ("read", body) for each
    message taken, ("start", status) for the response's start."""
    sent: list[dict] = []
    events: list[tuple] = []

    async def receive() -> dict:
        if messages:
            events.append(("read", messages[0].get("body")))
            return messages.pop(0)
        if stall:
            await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            events.append(("start", message["status"]))
        sent.append(message)

    asyncio.run(asyncio.wait_for(app(scope, receive, send), 30))
    return sent, events


def _headers(sent: list[dict]) -> dict[bytes, bytes]:
    return dict(sent[0]["headers"])


def test_a_huge_declared_length_is_refused_before_reading_the_body():
    inner = Recorder()
    sent, events = _run(body_limits.BoundedBody(inner), _scope(99_999_999_999),
                        [{"type": "http.request", "body": b"0123456789", "more_body": True}],
                        stall=True)
    assert events[0] == ("start", 200)  # answered before a byte of the body was read
    assert inner.scope[body_limits.SCOPE_KEY] == "too_large" and inner.body == b""
    assert _headers(sent)[b"connection"] == b"close"


def test_a_stalled_body_is_given_up_after_the_read_timeout(monkeypatch):
    monkeypatch.setattr(limits, "REQUEST_BODY_TIMEOUT", 0.2)
    inner = Recorder()
    sent, _events = _run(body_limits.BoundedBody(inner), _scope(100),
                        [{"type": "http.request", "body": b"0123456789", "more_body": True}],
                        stall=True)
    assert inner.scope[body_limits.SCOPE_KEY] == "timeout" and inner.body == b""
    assert _headers(sent)[b"connection"] == b"close"


def test_a_chunked_body_is_cut_at_the_limit(monkeypatch):
    monkeypatch.setattr(limits, "REQUEST_BODY_MAX_BYTES", 100)
    inner = Recorder()
    _run(body_limits.BoundedBody(inner), _scope(None),
         [{"type": "http.request", "body": b"x" * 60, "more_body": True},
          {"type": "http.request", "body": b"x" * 60, "more_body": True}], stall=True)
    assert inner.scope[body_limits.SCOPE_KEY] == "too_large"


def test_a_body_within_bounds_reaches_the_app_whole():
    inner = Recorder()
    sent, _events = _run(body_limits.BoundedBody(inner), _scope(6),
                        [{"type": "http.request", "body": b"abc", "more_body": True},
                         {"type": "http.request", "body": b"def", "more_body": False}])
    assert inner.body == b"abcdef" and body_limits.SCOPE_KEY not in inner.scope
    assert b"connection" not in _headers(sent)


@pytest.mark.django_db(transaction=True)
def test_the_project_app_answers_a_huge_declared_length_with_413_json():
    """The whole ASGI application (the door, then Django's middleware) on the API."""
    from config.asgi import application

    scope = {**_scope(99_999_999_999), "path": "/api/auth/register/", "raw_path": b"",
             "query_string": b"", "scheme": "http", "server": ("testserver", 80),
             "client": ("127.0.0.1", 5000), "http_version": "1.1", "root_path": "",
             "asgi": {"version": "3.0"}}
    # Ten bytes of the body, then silence: the answer must not wait for the rest.
    sent, _events = _run(application, scope, [
        {"type": "http.request", "body": b"0123456789", "more_body": True}], stall=True)
    assert sent[0]["status"] == 413 and _headers(sent)[b"connection"] == b"close"
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert json.loads(body)["code"] == "request_too_large"
