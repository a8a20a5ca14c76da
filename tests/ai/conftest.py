"""Make ``import ai`` find the project package, not this ``tests/ai`` directory.

Without the Django plugin nothing puts the project root on ``sys.path``, and
this directory would then be imported as a namespace package called ``ai``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
