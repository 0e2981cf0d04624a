"""Lesson indexes after the benchmark (bench/RESULTS.md, bench/EXPLAIN.md).

- lesson_active_facts: a covering partial index, so the candidate query's count and keys (preview, run), the
  Explorer's filtered counts, value counts and matrix are index-only scans. read_count/last_read_at stay out of
  it: a read bump remains a HOT update.
- lesson_page_counts: the Explorer's unfiltered numbers (stat cards, the default Host × Kind matrix, value
  counts of those dimensions) as one index-only pass over a deduplicated ~9 MB-per-million-lessons index.
- lesson_archived_by_run: partial (only archived lessons carry a run) and ordered by id, for "Undo run".
- Dropped, because another index leads with the same columns: lesson_scope (lesson_unique_address), lesson_kind
  and lesson_host (lesson_active_facts; the archived view has lesson_archived_recent), and the automatic
  single-column indexes of five foreign keys. Every index is written on each archive and restore (those
  updates change archived_at, so they are never HOT): fewer indexes make a grooming run faster.

The foreign keys keep their constraints: only their indexes are dropped (no table rewrite, no revalidation).
"""

from django.db import migrations, models

import django.db.models.deletion

# (table, column, the index Django created for the foreign key in 0002)
FK_INDEXES = [
    ("lore_lesson", "account_id", "lore_lesson_account_id_d6b0656e"),
    ("lore_lesson", "archived_by_run_id", "lore_lesson_archived_by_run_id_2311a091"),
    ("lore_lessonevent", "lesson_id", "lore_lessonevent_lesson_id_5e7996b3"),
    ("lore_lessontag", "account_id", "lore_lessontag_account_id_939c1947"),
    ("lore_lessontag", "lesson_id", "lore_lessontag_lesson_id_a875eddb"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("lore", "0002_initial"),
        ("policies", "0001_initial"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="lesson", name="lesson_scope"),
        migrations.RemoveIndex(model_name="lesson", name="lesson_kind"),
        migrations.RemoveIndex(model_name="lesson", name="lesson_host"),
        migrations.RemoveIndex(model_name="lesson", name="lesson_archived_by_run"),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{name}"',
                    reverse_sql=f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("{column}")',
                )
                for table, column, name in FK_INDEXES
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="lesson",
                    name="account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="lessons",
                        to="lore.account",
                    ),
                ),
                migrations.AlterField(
                    model_name="lesson",
                    name="archived_by_run",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="archived_lessons",
                        to="policies.policyrun",
                    ),
                ),
                migrations.AlterField(
                    model_name="lessonevent",
                    name="lesson",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="events",
                        to="lore.lesson",
                    ),
                ),
                migrations.AlterField(
                    model_name="lessontag",
                    name="account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="lore.account",
                    ),
                ),
                migrations.AlterField(
                    model_name="lessontag",
                    name="lesson",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tag_rows",
                        to="lore.lesson",
                    ),
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="lesson",
            index=models.Index(
                condition=models.Q(("archived_at__isnull", True)),
                fields=["account", "kind", "host"],
                include=(
                    "protected",
                    "opened_count",
                    "seen_count",
                    "created_at",
                    "last_opened_at",
                    "scope",
                    "key",
                    "trigger",
                    "source_agent",
                    "owner",
                    "origin_repo",
                    "origin_branch",
                    "origin_pr",
                ),
                name="lesson_active_facts",
            ),
        ),
        migrations.AddIndex(
            model_name="lesson",
            index=models.Index(
                fields=["account", "scope", "host", "kind", "protected", "archived_at"],
                name="lesson_page_counts",
            ),
        ),
        migrations.AddIndex(
            model_name="lesson",
            index=models.Index(
                condition=models.Q(("archived_by_run__isnull", False)),
                fields=["archived_by_run", "id"],
                name="lesson_archived_by_run",
            ),
        ),
    ]
