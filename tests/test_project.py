"""Project-level checks: purity of the engines and the AI, deploy settings, the launcher."""

from __future__ import annotations

import ast
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("django", "channels", "celery", "rest_framework", "kombu", "redis", "accounts",
             "config")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("package", ["games/engines", "ai"])
def test_pure_packages_import_no_framework(package):
    offenders = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for module in _imports(path):
            top = module.split(".")[0]
            is_django_app = module.startswith("games.") and not module.startswith("games.engines")
            if top in FORBIDDEN or is_django_app:
                offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert offenders == []


def test_import_contract_detects_a_violation(tmp_path):
    """The AST check above is not vacuous: it flags a planted framework import."""
    planted = tmp_path / "bad.py"
    planted.write_text("from django.db import models\nimport games.models\n")
    assert {"django.db", "games.models"} <= _imports(planted)


def test_deploy_checks_pass_under_production_settings():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "x7" * 30 + "-not-a-real-secret-but-long-and-varied-Qz9",
        "DJANGO_ALLOWED_HOSTS": "colonia.example",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_refuse_a_missing_secret_key():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production"}
    env.pop("DJANGO_SECRET_KEY", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_launcher_serves_the_home_page_and_stops_cleanly(tmp_path):
    """``make run``'s launcher on the embedded default: SQLite + embedded Redis + web + worker."""
    env = {
        key: value for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env["COLONIA_VAR_DIR"] = str(tmp_path)
    manage = [sys.executable, "manage.py"]
    for command in (["migrate", "--noinput"], ["load_variants"]):
        subprocess.run(manage + command, cwd=ROOT, env=env, check=True, capture_output=True,
                       timeout=300)
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "config.run", "--port", str(port)], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        body = ""
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    body = response.read().decode()
                    break
            except OSError:
                time.sleep(0.5)
        assert "newhaven" in body.lower() and "nouvellefrance" in body.lower()
        assert 'data-variant="standard"' in body
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert "embedded Redis-compatible server" in output
    assert f"http://127.0.0.1:{port}/" in output
    assert "stopped" in output
