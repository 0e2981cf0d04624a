"""Was: The full-text GIN index covers active lessons only (PostgreSQL only).

Kept empty so that databases that applied it keep a consistent history: the index is lore's and is now created by
lore/migrations/0015_lesson_search_index.py (which finds it in place where this migration built it).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("explorer", "0001_lesson_search_index")]

    operations: list[migrations.operations.base.Operation] = []
