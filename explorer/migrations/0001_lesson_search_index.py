"""A GIN index for the Explorer's full-text search over key and content (PostgreSQL only).

Built from `lore.selectors.lesson_search_vector()`, the same expression `text_search_q` filters on, so the planner
can use it. SQLite has no such index: the search falls back to containment there.
"""

from django.contrib.postgres.indexes import GinIndex
from django.db import migrations

INDEX_NAME = "lesson_search"


def _index() -> GinIndex:
    from lore.selectors import lesson_search_vector

    return GinIndex(lesson_search_vector(), name=INDEX_NAME)


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.add_index(apps.get_model("lore", "Lesson"), _index())


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.remove_index(apps.get_model("lore", "Lesson"), _index())


class Migration(migrations.Migration):
    dependencies = [("lore", "0002_initial")]

    operations = [migrations.RunPython(create, drop)]
