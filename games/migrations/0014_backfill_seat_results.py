"""The result record of the games that finished before it existed (issue 20).

Each finished game gets one ``SeatResult`` per seat from its stored result and seats, by
the rule games finishing now follow (``games.results.backfill``); ratings are history and
are copied from ``RatingChange``, not recomputed.  ``manage.py backfill_results`` does
the same again later.
"""

from django.db import migrations


def backfill(apps, schema_editor):
    from games.results.backfill import backfill_results

    backfill_results(
        game_model=apps.get_model("games", "Game"),
        result_model=apps.get_model("games", "SeatResult"),
        rating_change_model=apps.get_model("accounts", "RatingChange"),
    )


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0013_seat_results"),
        ("accounts", "0004_usernameskeleton"),
    ]

    operations = [
        migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True),
    ]
