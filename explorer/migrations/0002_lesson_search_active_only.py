"""The full-text GIN index covers active lessons only (PostgreSQL only).

Archiving sets archived_at, so every archived row gets a new index entry in every index whose predicate it still
satisfies. For the GIN index that meant ~15 lexemes per lesson: about 40% of the cost of each archive batch
(bench/RESULTS.md). Partial on `archived_at IS NULL`, an archive no longer writes to it; the active views' search,
which always carries that condition, still uses it. Searching the archived view reads the archived rows through
lesson_archived_recent instead (a few percent of a store).
"""

from django.contrib.postgres.indexes import GinIndex
from django.db import migrations
from django.db.models import Q

INDEX_NAME = "lesson_search"


def _index(*, active_only: bool) -> GinIndex:
    from lore.selectors import lesson_search_vector

    condition = Q(archived_at__isnull=True) if active_only else None
    return GinIndex(lesson_search_vector(), name=INDEX_NAME, condition=condition)


def _swap(schema_editor, old: GinIndex, new: GinIndex, apps) -> None:  # noqa: ANN001
    if schema_editor.connection.vendor != "postgresql":
        return
    lesson = apps.get_model("lore", "Lesson")
    schema_editor.remove_index(lesson, old)
    schema_editor.add_index(lesson, new)


def forwards(apps, schema_editor):  # noqa: ANN001, ANN201
    _swap(schema_editor, _index(active_only=False), _index(active_only=True), apps)


def backwards(apps, schema_editor):  # noqa: ANN001, ANN201
    _swap(schema_editor, _index(active_only=True), _index(active_only=False), apps)


class Migration(migrations.Migration):
    dependencies = [("explorer", "0001_lesson_search_index")]

    operations = [migrations.RunPython(forwards, backwards)]
