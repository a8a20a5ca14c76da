"""Make ``import tools`` find the project package, not this ``tests/tools`` directory.

Without the Django plugin nothing puts the project root on ``sys.path``, and this
directory would then be imported as a namespace package called ``tools``.  The analysis
command's test plays the AI tests' toy game (``tests/ai/toygame.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for path in (str(ROOT), str(ROOT / "tests" / "ai")):
    if path not in sys.path:
        sys.path.insert(0, path)
