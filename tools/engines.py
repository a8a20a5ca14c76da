"""The engine a command line names: a catalogue game, or any ``package.module:ATTR``."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from games.engines import get_engine

__all__ = ["load_engine"]


def load_engine(spec: str) -> Any:
    """An engine by registered name, or ``package.module:ATTR`` (e.g. a test toy game)."""
    if ":" in spec:
        module, _, attr = spec.partition(":")
        return getattr(import_module(module), attr)
    return get_engine(spec)
