"""Helpers of tests/deploy (see its conftest): the stack under test and a client for it,
the tests' own database and Redis, and the helpers of tests/e2e loaded by path."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
STACK = ROOT / "deploy" / "stack.py"
DATABASE_URL = os.environ.get("DEPLOY_TEST_DATABASE_URL",
                              "postgres://postgres@127.0.0.1:5432/colonia_deploy_test")
REDIS_URL = os.environ.get("DEPLOY_TEST_REDIS_URL", "redis://127.0.0.1:6379/3")
#: The stalled-body bound of this stack (seconds): short, so a test waits little.
BODY_TIMEOUT = 3


def e2e_module(name: str) -> ModuleType:
    """A module of tests/e2e (not a package) by path: its helpers, shared, not copied."""
    spec = importlib.util.spec_from_file_location(f"e2e_{name}", ROOT / "tests/e2e" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)  # CI starts PostgreSQL and Redis: a skip would hide a break
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Stack:
    """A running ``deploy/stack.py`` stack: its URL, its pieces, a client for its API."""

    def __init__(self, run_dir: Path, port: int, env: dict[str, str]) -> None:
        self.run_dir, self.port, self.env = run_dir, port, env
        self.base = f"https://127.0.0.1:{port}"
        self.ws_base = f"wss://127.0.0.1:{port}"

    def script(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(STACK), *args, "--run-dir", str(self.run_dir)],
                              cwd=ROOT, env=self.env, capture_output=True, text=True,
                              timeout=timeout)

    def status(self) -> dict:
        return json.loads(self.script("status", "--json").stdout)

    @property
    def ssl(self) -> ssl.SSLContext:
        """Trusts the stack's own self-signed certificate (and nothing else)."""
        return ssl.create_default_context(cafile=str(self.run_dir / "tls" / "cert.pem"))

    def log(self, name: str) -> str:
        path = self.run_dir / "logs" / name
        return path.read_text(errors="replace") if path.exists() else ""

    def call(self, method: str, path: str, body: dict | None = None,
             token: str | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            self.base + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json",
                     **({"Authorization": f"Token {token}"} if token else {})})
        try:
            with urllib.request.urlopen(request, timeout=60, context=self.ssl) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            payload = error.read()
            try:
                return error.code, json.loads(payload or b"null")
            except ValueError:
                return error.code, {"detail": payload[:300].decode(errors="replace")}

    def new_player(self) -> str:
        status, body = self.call("POST", "/api/auth/register/", {
            "username": f"d{uuid.uuid4().hex[:10]}", "password": f"Deploy-{uuid.uuid4().hex}"})
        assert status == 201, body
        return body["token"]

    def new_game(self, token: str, level: str = "random") -> int:
        _status, variants = self.call("GET", "/api/variants/")
        variant = next(v for v in variants if v["game"] == "newhaven" and v["name"] == "standard")
        status, doc = self.call("POST", "/api/games/", {
            "variant": variant["id"],
            "seats": [{"type": "human"}, {"type": "ai", "level": level}]}, token)
        assert status == 201, doc
        return doc["id"]
