"""``manage.py load_variants``: store every engine's default variants (idempotent)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.services import load_default_variants


class Command(BaseCommand):
    help = "Load (or refresh) the default variants of every game."

    def add_arguments(self, parser) -> None:
        parser.add_argument("games", nargs="*", help="Only these games (default: all).")

    def handle(self, *args, games: list[str], **options) -> None:
        variants = load_default_variants(games=games or None)
        for variant in variants:
            self.stdout.write(f"loaded {variant}")
        self.stdout.write(self.style.SUCCESS(f"{len(variants)} variants loaded"))
