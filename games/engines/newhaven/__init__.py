"""New Haven: a pure-Python rules engine behind the ``games.engines`` protocol.

``ENGINE`` is the engine object the registry (``games.engines.get_engine``) reads.
See ``rules`` for the decisions taken where the rulebook is silent and
``variants/*.json`` for every component number.
"""

from __future__ import annotations

from .engine import NewHavenEngine

__all__ = ["ENGINE", "NewHavenEngine"]

ENGINE = NewHavenEngine()
