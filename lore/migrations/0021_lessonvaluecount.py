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
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT account_id AS account_id, 'kind' "
        "AS dimension, kind AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM "
        "(SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, host, owner, source_agent, "
        "trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE kind <> '' GROUP BY 1, "
        "3, 4, 5 UNION ALL SELECT account_id AS account_id, 'host' AS dimension, host AS value, archived AS "
        "archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT "
        "NULL AS archived, protected, kind, host, owner, source_agent, trigger, origin_repo, origin_branch, "
        "origin_pr FROM lore_new_lessons) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id "
        "AS account_id, 'owner' AS dimension, owner AS value, archived AS archived, protected AS protected, "
        "count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, "
        "host, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s "
        "WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'source_agent' AS "
        "dimension, source_agent AS value, archived AS archived, protected AS protected, count(*)::integer AS n "
        "FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, host, owner, "
        "source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE "
        "source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'trigger' AS "
        "dimension, trigger AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM "
        "(SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, host, owner, source_agent, "
        "trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE trigger <> '' GROUP BY "
        "1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_repo' AS dimension, origin_repo AS value, "
        "archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, "
        "archived_at IS NOT NULL AS archived, protected, kind, host, owner, source_agent, trigger, origin_repo, "
        "origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION "
        "ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, origin_branch AS value, archived AS "
        "archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT "
        "NULL AS archived, protected, kind, host, owner, source_agent, trigger, origin_repo, origin_branch, "
        "origin_pr FROM lore_new_lessons) AS s WHERE origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT "
        "account_id AS account_id, 'origin_pr' AS dimension, origin_pr AS value, archived AS archived, protected "
        "AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, "
        "protected, kind, host, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM "
        "lore_new_lessons) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, "
        "dimension, value, archived, protected HAVING sum(n) <> 0; RETURN NULL; END $$;"
    ),
    (
        "CREATE TRIGGER lore_value_counts_inserted AFTER INSERT ON lore_lesson REFERENCING NEW TABLE AS "
        "lore_new_lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_inserted()"
    ),
    (
        "CREATE OR REPLACE FUNCTION lore_value_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT "
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT account_id AS account_id, 'kind' "
        "AS dimension, kind AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM "
        "(SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, host, owner, source_agent, "
        "trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE kind <> '' GROUP BY 1, "
        "3, 4, 5 UNION ALL SELECT account_id AS account_id, 'host' AS dimension, host AS value, archived AS "
        "archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT "
        "NULL AS archived, protected, kind, host, owner, source_agent, trigger, origin_repo, origin_branch, "
        "origin_pr FROM lore_old_lessons) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id "
        "AS account_id, 'owner' AS dimension, owner AS value, archived AS archived, protected AS protected, "
        "-count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, "
        "host, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s "
        "WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'source_agent' AS "
        "dimension, source_agent AS value, archived AS archived, protected AS protected, -count(*)::integer AS n "
        "FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, host, owner, "
        "source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE "
        "source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'trigger' AS "
        "dimension, trigger AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM "
        "(SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, host, owner, source_agent, "
        "trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE trigger <> '' GROUP BY "
        "1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_repo' AS dimension, origin_repo AS value, "
        "archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, "
        "archived_at IS NOT NULL AS archived, protected, kind, host, owner, source_agent, trigger, origin_repo, "
        "origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION "
        "ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, origin_branch AS value, archived AS "
        "archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT "
        "NULL AS archived, protected, kind, host, owner, source_agent, trigger, origin_repo, origin_branch, "
        "origin_pr FROM lore_old_lessons) AS s WHERE origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT "
        "account_id AS account_id, 'origin_pr' AS dimension, origin_pr AS value, archived AS archived, protected "
        "AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, "
        "protected, kind, host, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM "
        "lore_old_lessons) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, "
        "dimension, value, archived, protected HAVING sum(n) <> 0; RETURN NULL; END $$;"
    ),
    (
        "CREATE TRIGGER lore_value_counts_deleted AFTER DELETE ON lore_lesson REFERENCING OLD TABLE AS "
        "lore_old_lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_deleted()"
    ),
    (
        "CREATE OR REPLACE FUNCTION lore_value_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN WITH"
        " moved AS MATERIALIZED (SELECT o.account_id AS o_account_id, o.archived_at IS NOT NULL AS o_archived, "
        "o.protected AS o_protected, o.kind AS o_kind, o.host AS o_host, o.owner AS o_owner, o.source_agent AS "
        "o_source_agent, o.trigger AS o_trigger, o.origin_repo AS o_origin_repo, o.origin_branch AS "
        "o_origin_branch, o.origin_pr AS o_origin_pr, w.account_id AS w_account_id, w.archived_at IS NOT NULL AS "
        "w_archived, w.protected AS w_protected, w.kind AS w_kind, w.host AS w_host, w.owner AS w_owner, "
        "w.source_agent AS w_source_agent, w.trigger AS w_trigger, w.origin_repo AS w_origin_repo, "
        "w.origin_branch AS w_origin_branch, w.origin_pr AS w_origin_pr FROM lore_old_lessons o JOIN "
        "lore_new_lessons w ON w.id = o.id WHERE (o.account_id, o.kind, o.host, o.owner, o.source_agent, "
        "o.trigger, o.origin_repo, o.origin_branch, o.origin_pr, o.protected, o.archived_at IS NULL) IS DISTINCT "
        "FROM (w.account_id, w.kind, w.host, w.owner, w.source_agent, w.trigger, w.origin_repo, w.origin_branch, "
        "w.origin_pr, w.protected, w.archived_at IS NULL)) INSERT INTO lore_lessonvaluecount (account_id, "
        "dimension, value, archived, protected, n) SELECT account_id, dimension, value, archived, protected, "
        "sum(n) FROM (SELECT o_account_id AS account_id, 'kind' AS dimension, o_kind AS value, o_archived AS "
        "archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_kind <> '' GROUP BY 1, 3,"
        " 4, 5 UNION ALL SELECT o_account_id AS account_id, 'host' AS dimension, o_host AS value, o_archived AS "
        "archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_host <> '' GROUP BY 1, 3,"
        " 4, 5 UNION ALL SELECT o_account_id AS account_id, 'owner' AS dimension, o_owner AS value, o_archived AS"
        " archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_owner <> '' GROUP BY 1, "
        "3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'source_agent' AS dimension, o_source_agent AS "
        "value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE "
        "o_source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'trigger' AS "
        "dimension, o_trigger AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n"
        " FROM moved WHERE o_trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, "
        "'origin_repo' AS dimension, o_origin_repo AS value, o_archived AS archived, o_protected AS protected, "
        "-count(*)::integer AS n FROM moved WHERE o_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT "
        "o_account_id AS account_id, 'origin_branch' AS dimension, o_origin_branch AS value, o_archived AS "
        "archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_origin_branch <> '' GROUP"
        " BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_pr' AS dimension, o_origin_pr AS "
        "value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE "
        "o_origin_pr <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'kind' AS dimension, "
        "w_kind AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved "
        "WHERE w_kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'host' AS dimension,"
        " w_host AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved "
        "WHERE w_host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'owner' AS "
        "dimension, w_owner AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n "
        "FROM moved WHERE w_owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, "
        "'source_agent' AS dimension, w_source_agent AS value, w_archived AS archived, w_protected AS protected, "
        "count(*)::integer AS n FROM moved WHERE w_source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT "
        "w_account_id AS account_id, 'trigger' AS dimension, w_trigger AS value, w_archived AS archived, "
        "w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_trigger <> '' GROUP BY 1, 3, 4, 5 "
        "UNION ALL SELECT w_account_id AS account_id, 'origin_repo' AS dimension, w_origin_repo AS value, "
        "w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_origin_repo "
        "<> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'origin_branch' AS dimension, "
        "w_origin_branch AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM "
        "moved WHERE w_origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, "
        "'origin_pr' AS dimension, w_origin_pr AS value, w_archived AS archived, w_protected AS protected, "
        "count(*)::integer AS n FROM moved WHERE w_origin_pr <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY "
        "account_id, dimension, value, archived, protected HAVING sum(n) <> 0; RETURN NULL; END $$;"
    ),
    (
        "CREATE TRIGGER lore_value_counts_updated AFTER UPDATE ON lore_lesson REFERENCING OLD TABLE AS "
        "lore_old_lessons NEW TABLE AS lore_new_lessons FOR EACH STATEMENT EXECUTE FUNCTION "
        "lore_value_counts_updated()"
    ),
    "DELETE FROM lore_lessonvaluecount",
    (
        "INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT "
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT account_id AS account_id, 'kind' "
        "AS dimension, kind AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM "
        "(SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, host, owner, source_agent, "
        "trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE kind <> '' GROUP BY 1, 3, 4,"
        " 5 UNION ALL SELECT account_id AS account_id, 'host' AS dimension, host AS value, archived AS archived, "
        "protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS "
        "archived, protected, kind, host, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr "
        "FROM lore_lesson) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, "
        "'owner' AS dimension, owner AS value, archived AS archived, protected AS protected, count(*)::integer AS"
        " n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, host, owner, "
        "source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE owner <> '' "
        "GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent"
        " AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id,"
        " archived_at IS NOT NULL AS archived, protected, kind, host, owner, source_agent, trigger, origin_repo, "
        "origin_branch, origin_pr FROM lore_lesson) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL "
        "SELECT account_id AS account_id, 'trigger' AS dimension, trigger AS value, archived AS archived, "
        "protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS "
        "archived, protected, kind, host, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr "
        "FROM lore_lesson) AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS "
        "account_id, 'origin_repo' AS dimension, origin_repo AS value, archived AS archived, protected AS "
        "protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, "
        "protected, kind, host, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM "
        "lore_lesson) AS s WHERE origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id,"
        " 'origin_branch' AS dimension, origin_branch AS value, archived AS archived, protected AS protected, "
        "count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, "
        "host, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE "
        "origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr' AS "
        "dimension, origin_pr AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM"
        " (SELECT account_id, archived_at IS NOT NULL AS archived, protected, kind, host, owner, source_agent, "
        "trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE origin_pr <> '' GROUP BY 1, "
        "3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0;"
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
