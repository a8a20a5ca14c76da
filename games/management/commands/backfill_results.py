"""``manage.py backfill_results``: the result record of games that finished before it
existed (see ``games.results.backfill``).  Idempotent: games with rows are left alone."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.results.backfill import backfill_results


class Command(BaseCommand):
    help = "Write the result record (one row per seat) of finished games that have none."

    def handle(self, *args, **options) -> None:
        report = backfill_results()
        self.stdout.write(self.style.SUCCESS(
            f"{len(report.games)} finished games recorded, "
            f"{len(report.people)} players concerned"))
