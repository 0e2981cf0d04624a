"""Delivered's bin, stored and keyed by the covering index (issue 28: the filtered Delivered histogram).

`delivered_bin` is the bin of `read_count` among the Delivered histogram's edges, a stored generated column: the
database computes it on every write, so no writer can leave it wrong. lesson_active_facts gains it as its last key,
so the Delivered section of a filtered view groups on it index-only instead of reading a table page per lesson, and
a count of one bin's lessons (a value typed inside a bin) reads the table for that bin only. `read_count` itself
stays in no index: a read whose bump stays inside its bin changes no indexed value and remains a HOT update. The
edges are frozen here as the expression; lore.models.DELIVERED_BIN_EDGES holds them, and a test holds those equal
to the histogram's.

On PostgreSQL, adding a stored generated column rewrites the table (and its indexes) under an exclusive lock: 75 s
at a million lessons (docs/scaling.md). The covering index is dropped first, so that it is built once, after.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('lore', '0033_kept_decay_cells'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='lesson',
            name='lesson_active_facts',
        ),
        migrations.AddField(
            model_name='lesson',
            name='delivered_bin',
            field=models.GeneratedField(db_persist=True, expression=models.Case(models.When(read_count__lte=0, then=models.Value(0)), models.When(read_count__lte=1, then=models.Value(1)), models.When(read_count__lte=3, then=models.Value(2)), models.When(read_count__lte=9, then=models.Value(3)), models.When(read_count__lte=30, then=models.Value(4)), models.When(read_count__lte=50, then=models.Value(5)), models.When(read_count__lte=99, then=models.Value(6)), models.When(read_count__lte=100, then=models.Value(7)), models.When(read_count__lte=200, then=models.Value(8)), models.When(read_count__lte=500, then=models.Value(9)), models.When(read_count__lte=1000, then=models.Value(10)), models.When(read_count__lte=3000, then=models.Value(11)), models.When(read_count__lte=10000, then=models.Value(12)), models.When(read_count__lte=30000, then=models.Value(13)), models.When(read_count__lte=100000, then=models.Value(14)), default=models.Value(15)), output_field=models.SmallIntegerField()),
        ),
        migrations.AddIndex(
            model_name='lesson',
            index=models.Index(condition=models.Q(('archived_at__isnull', True)), fields=['account', 'kind', 'host', 'delivered_bin'], include=('protected', 'opened_count', 'seen_count', 'created_at', 'last_opened_at', 'scope', 'key', 'trigger', 'source_agent', 'owner', 'origin_repo', 'origin_branch', 'origin_pr'), name='lesson_active_facts'),
        ),
    ]
