"""``manage.py backfill_events``: fill ``Move.event`` of old moves by replaying their games.

Idempotent: only moves without an event are looked at, and a game whose replay does not
reproduce it keeps its stored sentences (see ``games.backfill``).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from games.backfill import backfill_events
from games.models import Game, Move


class Command(BaseCommand):
    help = "Fill the events of moves stored before the engines returned events."

    def handle(self, *args, **options) -> None:
        report = backfill_events(Game, Move)
        for game_id, why in report.kept.items():
            self.stdout.write(f"game {game_id} keeps its sentences: {why}")
        self.stdout.write(self.style.SUCCESS(
            f"{len(report.filled)} games filled, {len(report.kept)} kept as they were"))
