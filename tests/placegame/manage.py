"""``manage.py`` with the test game registered: ``python tests/placegame/manage.py ...``."""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS), str(TESTS.parent)]

if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import placegame

    placegame.register()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
