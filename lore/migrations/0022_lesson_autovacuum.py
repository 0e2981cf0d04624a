"""Autovacuum for the lessons after 2% of them change, not PostgreSQL's default 20% (lore.vacuum): every count
is an index-only scan that reads the table for each page a change left not all-visible, and a 10M store would
otherwise wait for 2M changed lessons. Bulk changes also queue a VACUUM of their own. PostgreSQL only."""

from django.db import migrations

SCALE_FACTORS = ("autovacuum_vacuum_scale_factor", "autovacuum_analyze_scale_factor", "autovacuum_vacuum_insert_scale_factor")


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        options = ", ".join(f"{name} = 0.02" for name in SCALE_FACTORS)
        schema_editor.execute(f"ALTER TABLE lore_lesson SET ({options})")


def uninstall(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE lore_lesson RESET ({', '.join(SCALE_FACTORS)})")


class Migration(migrations.Migration):
    dependencies = [("lore", "0021_lessonvaluecount")]
    operations = [migrations.RunPython(install, uninstall, elidable=False)]
