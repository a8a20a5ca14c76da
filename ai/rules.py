"""The AI's only source of rule numbers: the engine's ``rule_data`` for a state's variant.

``rules_for(engine, state, build)`` asks the engine which variant a state is
played with (``engine.variant_key(state)``: canonical JSON, public), reads
``engine.rule_data`` for it once, and caches ``build(rule_data)`` per engine,
variant and builder, so knowledge modules compile the numbers they need once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["rule_data_for", "rules_for"]


_CACHE: dict[tuple[str, Any, str], Any] = {}
_LIMIT = 256


def rule_data_for(engine: Any, state: Any) -> dict:
    """The engine's ``rule_data`` of the variant ``state`` is played with."""
    return engine.rule_data(json.loads(engine.variant_key(state)))


def rules_for[T](engine: Any, state: Any, build: Callable[[dict], T]) -> T:
    """``build(rule_data)`` for the state's variant, cached per (engine, builder, variant)."""
    key = (engine.name, build, engine.variant_key(state))
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= _LIMIT:
            _CACHE.clear()
        found = _CACHE[key] = build(rule_data_for(engine, state))
    return found
