"""deploy/stack.py: every piece up behind nginx, production settings, bounded bodies.

The stack fixture (conftest) starts it once and, after the folder's last test, stops it
and checks that nothing is left running.
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import time
import urllib.request

import pytest
from deploy_support import BODY_TIMEOUT, Stack

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_every_piece_runs_once(stack: Stack) -> None:
    status = stack.status()
    assert status["running"] and status["ready"], status
    names = sorted(status["children"])
    assert names == ["beat", "nginx", "web-1", "web-2", "worker"]  # exactly one beat
    assert all(child["alive"] for child in status["children"].values()), status
    assert len(set(status["web_ports"])) == 2
    # Its files are in the run folder, never in the repository.
    assert (stack.run_dir / "nginx.conf").exists() and (stack.run_dir / "env.json").exists()
    assert oct((stack.run_dir / "env.json").stat().st_mode & 0o777) == "0o600"
    env = json.loads((stack.run_dir / "env.json").read_text())
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    assert env["NUM_PROXIES"] == "1" and len(env["DJANGO_SECRET_KEY"]) >= 50
    assert "check --deploy" in stack.log("setup.log")


def test_a_second_start_on_the_same_run_folder_is_refused(stack: Stack) -> None:
    again = stack.script("start", "--port", str(stack.port))
    assert again.returncode == 1
    assert "already running" in again.stderr
    assert stack.status()["running"]


def test_pages_through_nginx_with_production_headers(stack: Stack) -> None:
    with urllib.request.urlopen(stack.base + "/lobby/", context=stack.ssl, timeout=30) as page:
        assert page.status == 200
        assert page.headers["Server"] == "nginx"
        assert "max-age=" in page.headers["Strict-Transport-Security"]
        cookie = page.headers["Set-Cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie
        html = page.read().decode()
    # Static files straight from nginx (hashed names: cached forever).
    script = html.split('<script src="', 1)[1].split('"', 1)[0]
    with urllib.request.urlopen(stack.base + script, context=stack.ssl, timeout=30) as js:
        assert js.status == 200 and "immutable" in js.headers["Cache-Control"]
        assert "content-security-policy" not in {k.lower() for k in js.headers}  # not Django


def test_the_api_and_a_socket_through_the_proxy(stack: Stack) -> None:
    from websockets.asyncio.client import connect

    token = stack.new_player()
    game_id = stack.new_game(token)
    status, doc = stack.call("GET", f"/api/games/{game_id}/", token=token)
    assert status == 200 and doc["status"] == "running"

    async def first_message() -> str:
        async with connect(f"{stack.ws_base}/ws/games/{game_id}/", origin=stack.base,
                           ssl=stack.ssl, open_timeout=30) as sock:
            action = doc["legal_actions"][0]
            answer = await asyncio.to_thread(stack.call, "POST", f"/api/games/{game_id}/actions/",
                                             {"action": action, "version": doc["version"],
                                              "key": "first"}, token)
            assert answer[0] == 200, answer
            return await asyncio.wait_for(sock.recv(), 60)

    message = asyncio.run(first_message())
    assert f'data-version="{doc["version"] + 1}"' in message or "data-version" in message


def _raw(port: int, request: bytes, *, tls: ssl.SSLContext | None, wait: float) -> bytes:
    """Send ``request`` and read until the server answers and closes (or ``wait`` s)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=wait)
    if tls is not None:
        sock = tls.wrap_socket(sock, server_hostname="127.0.0.1")
    with sock:
        sock.sendall(request)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                raise AssertionError(f"no answer within {wait:.0f} s: {data[:200]!r}") from None
            except (ConnectionResetError, ssl.SSLError):
                return data
            if not chunk:
                return data
            data += chunk


def _post(length: int, forwarded: bool) -> bytes:
    """A POST that declares ``length`` bytes and sends ten."""
    proto = b"X-Forwarded-Proto: https\r\n" if forwarded else b""
    return (b"POST /api/auth/register/ HTTP/1.1\r\nHost: 127.0.0.1\r\n" + proto +
            b"Content-Type: application/json\r\nContent-Length: " + str(length).encode() +
            b"\r\n\r\n0123456789")


def test_a_huge_declared_body_is_refused_at_once(stack: Stack) -> None:
    """Content-Length 99999999999 and ten bytes: 413 at once from nginx and from a web
    process (the app server's own bound), not silence."""
    proxied = _raw(stack.port, _post(99_999_999_999, False), tls=stack.ssl, wait=10)
    assert proxied.startswith(b"HTTP/1.1 413"), proxied[:200]
    web_port = stack.status()["web_ports"][0]
    direct = _raw(web_port, _post(99_999_999_999, True), tls=None, wait=10)
    assert direct.startswith(b"HTTP/1.1 413"), direct[:200]
    body = direct.split(b"\r\n\r\n", 1)[1]
    assert json.loads(body)["code"] == "request_too_large"


def test_a_stalled_body_is_given_up(stack: Stack) -> None:
    """A body that stops coming: the web process answers 408 after its read timeout,
    nginx drops the connection after its ``client_body_timeout`` (and logs a 408)."""
    web_port = stack.status()["web_ports"][1]
    started = time.monotonic()
    direct = _raw(web_port, _post(100, True), tls=None, wait=BODY_TIMEOUT * 5)
    assert direct.startswith(b"HTTP/1.1 408"), direct[:200]
    assert json.loads(direct.split(b"\r\n\r\n", 1)[1])["code"] == "request_timeout"
    assert time.monotonic() - started >= BODY_TIMEOUT - 0.5  # it did wait for the body
    proxied = _raw(stack.port, _post(100, False), tls=stack.ssl, wait=BODY_TIMEOUT * 5)
    assert proxied == b""  # nginx closes a timed-out request without an answer
    deadline = time.monotonic() + 10
    while '"POST /api/auth/register/ HTTP/1.1" 408' not in stack.log("nginx-access.log"):
        assert time.monotonic() < deadline, stack.log("nginx-access.log")[-2000:]
        time.sleep(0.5)  # the access log is flushed every 2 s
