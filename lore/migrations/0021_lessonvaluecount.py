"""Per-value lesson counts kept by triggers on PostgreSQL (lore.value_counts), and the counts of the lessons
already stored. The SQL is written out as `lore.value_counts.install_sql()` generated it the day this was
written (kind, host, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr): a later dimension
needs a migration that installs it again. tests/lore/test_value_counts.py compares what is installed with
lore.conditions.DIMENSIONS and with what install_sql() generates now."""

import django.db.models.deletion
from django.db import migrations, models

# fmt: off
INSTALL = [
    "DROP TRIGGER IF EXISTS lore_value_counts_inserted ON lore_lesson",
    "DROP FUNCTION IF EXISTS lore_value_counts_inserted()",
    "DROP TRIGGER IF EXISTS lore_value_counts_deleted ON lore_lesson",
    "DROP FUNCTION IF EXISTS lore_value_counts_deleted()",
    "DROP TRIGGER IF EXISTS lore_value_counts_updated ON lore_lesson",
    "DROP FUNCTION IF EXISTS lore_value_counts_updated()",
    (
        "CREATE OR REPLACE FUNCTION lore_value_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT "
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT w.account_id, d.dimension, "
        "d.value, w.archived_at IS NOT NULL AS archived, w.protected, +1 AS n FROM lore_new_lessons w CROSS JOIN "
        "LATERAL (VALUES ('kind', w.kind), ('host', w.host), ('owner', w.owner), ('source_agent', "
        "w.source_agent), ('trigger', w.trigger), ('origin_repo', w.origin_repo), ('origin_branch', "
        "w.origin_branch), ('origin_pr', w.origin_pr)) AS d(dimension, value) WHERE d.value <> '') AS delta GROUP"
        " BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0; RETURN NULL; END $$;"
    ),
    (
        "CREATE TRIGGER lore_value_counts_inserted AFTER INSERT ON lore_lesson REFERENCING NEW TABLE AS "
        "lore_new_lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_inserted()"
    ),
    (
        "CREATE OR REPLACE FUNCTION lore_value_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT "
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT o.account_id, d.dimension, "
        "d.value, o.archived_at IS NOT NULL AS archived, o.protected, -1 AS n FROM lore_old_lessons o CROSS JOIN "
        "LATERAL (VALUES ('kind', o.kind), ('host', o.host), ('owner', o.owner), ('source_agent', "
        "o.source_agent), ('trigger', o.trigger), ('origin_repo', o.origin_repo), ('origin_branch', "
        "o.origin_branch), ('origin_pr', o.origin_pr)) AS d(dimension, value) WHERE d.value <> '') AS delta GROUP"
        " BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0; RETURN NULL; END $$;"
    ),
    (
        "CREATE TRIGGER lore_value_counts_deleted AFTER DELETE ON lore_lesson REFERENCING OLD TABLE AS "
        "lore_old_lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_deleted()"
    ),
    (
        "CREATE OR REPLACE FUNCTION lore_value_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT "
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT o.account_id, d.dimension, "
        "d.value, o.archived_at IS NOT NULL AS archived, o.protected, -1 AS n FROM lore_old_lessons o JOIN "
        "lore_new_lessons w ON w.id = o.id CROSS JOIN LATERAL (VALUES ('kind', o.kind), ('host', o.host), "
        "('owner', o.owner), ('source_agent', o.source_agent), ('trigger', o.trigger), ('origin_repo', "
        "o.origin_repo), ('origin_branch', o.origin_branch), ('origin_pr', o.origin_pr)) AS d(dimension, value) "
        "WHERE d.value <> '' AND (o.account_id, o.kind, o.host, o.owner, o.source_agent, o.trigger, "
        "o.origin_repo, o.origin_branch, o.origin_pr, o.protected, o.archived_at IS NULL) IS DISTINCT FROM "
        "(w.account_id, w.kind, w.host, w.owner, w.source_agent, w.trigger, w.origin_repo, w.origin_branch, "
        "w.origin_pr, w.protected, w.archived_at IS NULL) UNION ALL SELECT w.account_id, d.dimension, d.value, "
        "w.archived_at IS NOT NULL AS archived, w.protected, +1 AS n FROM lore_old_lessons o JOIN "
        "lore_new_lessons w ON w.id = o.id CROSS JOIN LATERAL (VALUES ('kind', w.kind), ('host', w.host), "
        "('owner', w.owner), ('source_agent', w.source_agent), ('trigger', w.trigger), ('origin_repo', "
        "w.origin_repo), ('origin_branch', w.origin_branch), ('origin_pr', w.origin_pr)) AS d(dimension, value) "
        "WHERE d.value <> '' AND (o.account_id, o.kind, o.host, o.owner, o.source_agent, o.trigger, "
        "o.origin_repo, o.origin_branch, o.origin_pr, o.protected, o.archived_at IS NULL) IS DISTINCT FROM "
        "(w.account_id, w.kind, w.host, w.owner, w.source_agent, w.trigger, w.origin_repo, w.origin_branch, "
        "w.origin_pr, w.protected, w.archived_at IS NULL)) AS delta GROUP BY account_id, dimension, value, "
        "archived, protected HAVING sum(n) <> 0; RETURN NULL; END $$;"
    ),
    (
        "CREATE TRIGGER lore_value_counts_updated AFTER UPDATE ON lore_lesson REFERENCING OLD TABLE AS "
        "lore_old_lessons NEW TABLE AS lore_new_lessons FOR EACH STATEMENT EXECUTE FUNCTION "
        "lore_value_counts_updated()"
    ),
    "DELETE FROM lore_lessonvaluecount",
    (
        "INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT "
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT w.account_id, d.dimension, "
        "d.value, w.archived_at IS NOT NULL AS archived, w.protected, +1 AS n FROM lore_lesson w CROSS JOIN "
        "LATERAL (VALUES ('kind', w.kind), ('host', w.host), ('owner', w.owner), ('source_agent', "
        "w.source_agent), ('trigger', w.trigger), ('origin_repo', w.origin_repo), ('origin_branch', "
        "w.origin_branch), ('origin_pr', w.origin_pr)) AS d(dimension, value) WHERE d.value <> '') AS delta GROUP"
        " BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0;"
    ),
]
UNINSTALL = [
    "DROP TRIGGER IF EXISTS lore_value_counts_inserted ON lore_lesson",
    "DROP FUNCTION IF EXISTS lore_value_counts_inserted()",
    "DROP TRIGGER IF EXISTS lore_value_counts_deleted ON lore_lesson",
    "DROP FUNCTION IF EXISTS lore_value_counts_deleted()",
    "DROP TRIGGER IF EXISTS lore_value_counts_updated ON lore_lesson",
    "DROP FUNCTION IF EXISTS lore_value_counts_updated()",
]
# fmt: on


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        for statement in INSTALL:
            schema_editor.execute(statement, params=None)


def uninstall(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        for statement in UNINSTALL:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("lore", "0020_archive_keys_unconstrained"),
    ]

    operations = [
        migrations.CreateModel(
            name="LessonValueCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("dimension", models.CharField(max_length=32)),
                ("value", models.CharField(max_length=256)),
                ("archived", models.BooleanField()),
                ("protected", models.BooleanField()),
                ("n", models.BigIntegerField()),
                (
                    "account",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="lore.account",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["account", "dimension", "archived", "value"], name="lessonvaluecount_read"
                    )
                ],
            },
        ),
        migrations.RunPython(install, uninstall),
    ]
