"""Give every variant its version history and pin every game to the version it was made with.

Before versions, a variant was one row whose ``data`` changed in place, and each game kept
a snapshot (``Game.variant_data``).  For each variant this creates one published version per
distinct snapshot its games hold (oldest first) and one for the current data (newest, so it
stays the version new tables get), then links every game to the version equal to its
snapshot.  A game whose variant row was deleted gets a retired variant of the same name
(or is attached to the row of that name if one was made again).

Default variants were overwritten by ``load_variants`` at every start, so their versions
count as shipped (``load_variants`` may add newer shipped versions to them); the others
are the admins' own.
"""

import hashlib
import json

from django.db import migrations


def canonical(data) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def digest(data) -> str:
    return hashlib.sha256(canonical(data).encode()).hexdigest()


def forwards(apps, schema_editor):
    Variant = apps.get_model("games", "Variant")
    VariantVersion = apps.get_model("games", "VariantVersion")
    Game = apps.get_model("games", "Game")

    for game in Game.objects.filter(variant__isnull=True).order_by("created_at", "id"):
        variant = Variant.objects.filter(game=game.game_name, name=game.variant_name).first()
        if variant is None:
            variant = Variant.objects.create(
                game=game.game_name, name=game.variant_name, data=game.variant_data,
                active=False, is_default=False,
            )
        game.variant = variant
        game.save(update_fields=["variant"])

    for variant in Variant.objects.all().order_by("id"):
        shipped = variant.is_default
        snapshots: dict[str, object] = {}
        games = Game.objects.filter(variant=variant).order_by("created_at", "id")
        for data in games.values_list("variant_data", flat=True).iterator():
            snapshots.setdefault(canonical(data), data)
        current = canonical(variant.data)
        snapshots.pop(current, None)
        snapshots[current] = variant.data  # the newest: the version tables keep getting
        by_key = {}
        for number, (key, data) in enumerate(snapshots.items(), start=1):
            by_key[key] = VariantVersion.objects.create(
                variant=variant,
                number=number,
                status="published",
                data=data,
                origin="shipped" if shipped else "editor",
                shipped_digest=digest(data) if shipped else "",
                note="Recorded when variant versions were introduced.",
                published_at=variant.updated_at,
            )
        batch = []
        for game in games.only("id", "variant_data").iterator():
            game.variant_version = by_key[canonical(game.variant_data)]
            batch.append(game)
            if len(batch) >= 500:
                Game.objects.bulk_update(batch, ["variant_version"])
                batch = []
        if batch:
            Game.objects.bulk_update(batch, ["variant_version"])


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0004_variant_versions"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
