"""Fill ``Move.event`` of moves stored before the engines returned events (wave 2).

Each game with such moves is replayed from its seed with the current engine
(``games.backfill``).  A game whose replay fails -- or reaches another state or result
than the one stored, because the rules changed since it was played -- keeps its stored
sentences (``Move.description``), which the log still shows.  ``manage.py
backfill_events`` does the same again later (e.g. after an engine gains events).
"""

from django.db import migrations


def backfill(apps, schema_editor):
    from games.backfill import backfill_events

    backfill_events(apps.get_model("games", "Game"), apps.get_model("games", "Move"))


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0006_rematch_and_reserved_seats"),
    ]

    operations = [
        migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True),
    ]
