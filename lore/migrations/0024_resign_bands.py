"""Every lesson's LSH bands computed again: the signature scheme changed (16 bands of 3 rows; shingles of the
content without its provenance date, a plural -s dropped; docs/gardener.md). Bands are derived data, so this
only rewrites them, a batch of lessons at a time."""

from django.db import migrations

BATCH = 5000


def resign(apps, schema_editor):  # noqa: ANN001, ANN201
    from lore.garden.signatures import band_hashes

    lesson_model = apps.get_model("lore", "Lesson")
    band_model = apps.get_model("lore", "LessonBand")
    # Every band is replaced: empty the table at once (TRUNCATE on PostgreSQL, not a DELETE per batch).
    table = schema_editor.quote_name(band_model._meta.db_table)
    truncate = "TRUNCATE {}" if schema_editor.connection.vendor == "postgresql" else "DELETE FROM {}"
    schema_editor.execute(truncate.format(table))
    last = 0
    while True:
        rows = list(
            lesson_model.objects.filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", "account_id", "scope", "key", "content")[:BATCH]
        )
        if not rows:
            return
        band_model.objects.bulk_create(
            [
                band_model(account_id=account_id, lesson_id=pk, hash=value)
                for pk, account_id, scope, key, content in rows
                for value in band_hashes(scope, key, content)
            ],
            batch_size=BATCH,
        )
        last = rows[-1][0]


class Migration(migrations.Migration):
    dependencies = [("lore", "0023_lessonpagecount")]

    operations = [migrations.RunPython(resign, migrations.RunPython.noop, elidable=True)]
