"""The secret key: refused in production when weak; generated once for local runs."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

MIN_LENGTH = 50
MIN_UNIQUE = 12
#: Keys anyone can read in this repository or in Django's own templates.
KNOWN_KEYS = frozenset({"dev-only-insecure-key-change-me"})


def weakness(key: str) -> str | None:
    """Why ``key`` is too weak to sign sessions in production, or ``None``."""
    if key in KNOWN_KEYS or key.startswith("django-insecure-"):
        return "it is a published development key"
    if len(key) < MIN_LENGTH:
        return f"it has fewer than {MIN_LENGTH} characters"
    if len(set(key)) < MIN_UNIQUE:
        return f"it has fewer than {MIN_UNIQUE} different characters"
    for period in range(1, len(key) // 2 + 1):  # "abcdefghijklm" * 4 is not random
        if len(key) % period == 0 and key == key[:period] * (len(key) // period):
            return "it repeats a short pattern"
    return None


def local_secret_key(var_dir: Path) -> str:
    """A random key kept in ``var/secret_key`` (made on first use, readable by us only).

    ``make run`` without ``DJANGO_SECRET_KEY`` then signs sessions with a key nobody else
    has, instead of one published in the repository.
    """
    path = var_dir / "secret_key"
    try:
        key = path.read_text().strip()
        if not weakness(key):
            return key
    except OSError:
        pass
    key = secrets.token_urlsafe(48)
    try:
        var_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(key)
    except OSError:  # a read-only checkout: a fresh key per process still beats a known one
        pass
    return key
