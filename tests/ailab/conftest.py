"""Make ``import ailab`` find the project package, and the AI tests' toy game importable.

Without the Django plugin nothing puts the project root on ``sys.path`` (see
``tests/ai/conftest.py``); the arena tests play ``tests/ai/toygame.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for path in (str(ROOT), str(ROOT / "tests" / "ai")):
    if path not in sys.path:
        sys.path.insert(0, path)
