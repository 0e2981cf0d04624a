"""The full-text GIN index of lore's own table, over active lessons' key and content (PostgreSQL only).

It was created by explorer migrations until now; the table is lore's, so lore creates it. The expression is
written out here, not imported: a migration must build what it built the day it was written, whatever the live
code says later. It has to stay the expression `lore.selectors.lesson_search_vector()` returns, which
tests/lore/test_indexes.py checks through the plan. On a database where the explorer migrations already built
it, this migration finds it and leaves it alone.
"""

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import migrations
from django.db.models import Q

INDEX_NAME = "lesson_search"


def _index() -> GinIndex:
    vector = SearchVector("key", "content", config="simple")
    return GinIndex(vector, name=INDEX_NAME, condition=Q(archived_at__isnull=True))


def _exists(schema_editor, table: str) -> bool:  # noqa: ANN001
    with schema_editor.connection.cursor() as cursor:
        constraints = schema_editor.connection.introspection.get_constraints(cursor, table)
    return INDEX_NAME in constraints


def create(apps, schema_editor):  # noqa: ANN001, ANN201
    lesson = apps.get_model("lore", "Lesson")
    if schema_editor.connection.vendor == "postgresql" and not _exists(schema_editor, lesson._meta.db_table):
        schema_editor.add_index(lesson, _index())


def drop(apps, schema_editor):  # noqa: ANN001, ANN201
    lesson = apps.get_model("lore", "Lesson")
    if schema_editor.connection.vendor == "postgresql" and _exists(schema_editor, lesson._meta.db_table):
        schema_editor.remove_index(lesson, _index())


class Migration(migrations.Migration):
    dependencies = [("lore", "0014_activity_actions_all")]

    operations = [migrations.RunPython(create, drop)]
