"""``manage.py load_variants``: store the engines' default variants, never overwriting.

Missing defaults are created; a shipped default that changed becomes a new version only
while the admins have not published their own.  Retired variants stay retired.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.variants.services import load_default_variants


class Command(BaseCommand):
    help = "Load the default variants of every game (never overwrites an admin's edit)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("games", nargs="*", help="Only these games (default: all).")

    def handle(self, *args, games: list[str], **options) -> None:
        results = load_default_variants(games=games or None)
        for result in results:
            self.stdout.write(str(result))
        changed = sum(1 for r in results if r.outcome in ("created", "updated"))
        self.stdout.write(self.style.SUCCESS(
            f"{len(results)} default variants checked, {changed} created or updated"))
