"""Issue 29: an archive or restore batch writes one audit row for all its lessons (LessonEventBatch) instead of a
LessonEvent per lesson. The per-lesson rows already written stay where they are and are read beside the batches
(lore.events): nothing is converted."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("lore", "0027_packed_count_changes"),
    ]

    operations = [
        migrations.CreateModel(
            name="LessonEventBatch",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "action",
                    models.CharField(
                        choices=[
                            ("archived", "Archived"),
                            ("restored", "Restored"),
                            ("protected", "Protected"),
                            ("unprotected", "Unprotected"),
                            ("imported", "Imported"),
                            ("written", "Written"),
                        ],
                        max_length=16,
                    ),
                ),
                ("actor", models.CharField(blank=True, default="", max_length=200)),
                ("detail", models.CharField(blank=True, default="", max_length=500)),
                ("at", models.DateTimeField()),
                ("lesson_ids", models.JSONField()),
                ("first_lesson_id", models.BigIntegerField()),
                ("last_lesson_id", models.BigIntegerField()),
                ("lessons", models.PositiveIntegerField()),
                (
                    "account",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="lore.account",
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="lore.policyrun",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["account", "first_lesson_id"], name="lessoneventbatch_span"),
                    models.Index(
                        condition=models.Q(("action__in", ("restored", "imported", "unprotected"))),
                        fields=["at"],
                        name="lessoneventbatch_decision_at",
                    ),
                ],
            },
        ),
    ]
