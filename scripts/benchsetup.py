"""Django for the measuring scripts: the test settings on a throw-away SQLite file.

``python scripts/measure_*.py`` puts this folder first on ``sys.path``, so they import it
as ``from benchsetup import setup_django``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup_django(tmp: str) -> None:
    """The test settings on a throw-away SQLite file under ``tmp``, migrated quietly
    (in-process cache and channel layer: ``DATABASE_URL``/``REDIS_URL`` are ignored)."""
    sys.path.insert(0, str(ROOT))
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ.update(DJANGO_SETTINGS_MODULE="config.settings.test",
                      SQLITE_PATH=f"{tmp}/db.sqlite3", COLONIA_VAR_DIR=f"{tmp}/var")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
