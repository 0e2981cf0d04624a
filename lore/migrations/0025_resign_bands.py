"""Every lesson's LSH bands computed again: the signature scheme changed (16 bands of 3 rows; shingles of the
content without its provenance date, a plural -s dropped; docs/gardener.md). Bands are derived data, so the table is
emptied at once and written again a batch of lessons at a time, with COPY on PostgreSQL (about 0.1 s of CPU per
thousand lessons for the signatures)."""

from django.db import migrations

BATCH = 10_000


def resign(apps, schema_editor):  # noqa: ANN001, ANN201
    from lore.garden.signatures import band_hashes

    connection = schema_editor.connection
    lessons = apps.get_model("lore", "Lesson")._meta.db_table
    bands = apps.get_model("lore", "LessonBand")._meta.db_table
    postgres = connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {bands}" if postgres else f"DELETE FROM {bands}")
        last = 0
        while True:
            cursor.execute(
                f"SELECT id, account_id, scope, key, content FROM {lessons} WHERE id > %s ORDER BY id LIMIT %s",
                [last, BATCH],
            )
            rows = cursor.fetchall()
            if not rows:
                return
            values = [
                (pk, account_id, value)
                for pk, account_id, scope, key, content in rows
                for value in band_hashes(scope, key, content)
            ]
            if postgres:
                with cursor.cursor.copy(f"COPY {bands} (lesson_id, account_id, hash) FROM STDIN") as copy:
                    for row in values:
                        copy.write_row(row)
            else:
                cursor.executemany(
                    f"INSERT INTO {bands} (lesson_id, account_id, hash) VALUES (%s, %s, %s)", values
                )
            last = rows[-1][0]


class Migration(migrations.Migration):
    dependencies = [("lore", "0024_daily_rollups")]

    operations = [migrations.RunPython(resign, migrations.RunPython.noop, elidable=True)]
