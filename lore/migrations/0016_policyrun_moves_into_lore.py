"""PolicyRun moves from policies into lore (a run is the archive mechanism). State only: the table keeps its
name (policies_policyrun), its rows, its columns and its indexes; the foreign keys from lessons, events and
findings already point at that table. The run's policy is a plain id from here on (policies 0005 dropped its
constraint); policies 0006 removes the old model from the state. The content type follows, so admin permissions
and log entries keep pointing at the runs."""

import django.db.models.deletion
from django.db import migrations, models


def content_type_follows(apps, schema_editor):  # noqa: ANN001, ANN201
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label="lore", model="policyrun").exists():
        ContentType.objects.filter(app_label="policies", model="policyrun").update(app_label="lore")


def content_type_returns(apps, schema_editor):  # noqa: ANN001, ANN201
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label="policies", model="policyrun").exists():
        ContentType.objects.filter(app_label="lore", model="policyrun").update(app_label="policies")


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("lore", "0015_lesson_search_index"),
        ("policies", "0005_policyrun_policy_unconstrained"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="PolicyRun",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("policy_id", models.BigIntegerField(blank=True, db_index=True, null=True)),
                        ("policy_name", models.CharField(blank=True, default="", max_length=200)),
                        ("rule_snapshot", models.JSONField(blank=True, default=dict)),
                        (
                            "trigger",
                            models.CharField(
                                choices=[
                                    ("manual", "Manual"),
                                    ("nightly", "Nightly"),
                                    ("api", "Api"),
                                    ("cli", "Cli"),
                                ],
                                max_length=8,
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Pending"),
                                    ("running", "Running"),
                                    ("done", "Done"),
                                    ("failed", "Failed"),
                                    ("interrupted", "Interrupted"),
                                ],
                                default="pending",
                                max_length=12,
                            ),
                        ),
                        ("matched", models.PositiveIntegerField(default=0)),
                        ("archived", models.PositiveIntegerField(default=0)),
                        ("restored", models.PositiveIntegerField(default=0)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("as_of", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        ("heartbeat_at", models.DateTimeField(blank=True, null=True)),
                        ("error", models.TextField(blank=True, default="")),
                        ("created_by", models.CharField(blank=True, default="", max_length=200)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "account",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="policy_runs",
                                to="lore.account",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "policies_policyrun",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [
                            models.Index(
                                fields=["account", "policy_id", "-created_at"], name="policyrun_recent"
                            )
                        ],
                    },
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
                        to="lore.policyrun",
                    ),
                ),
                migrations.AlterField(
                    model_name="lessonevent",
                    name="run",
                    field=models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="lore.policyrun",
                    ),
                ),
                migrations.AlterField(
                    model_name="finding",
                    name="applied_run",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="lore.policyrun",
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_type_follows, content_type_returns),
    ]
