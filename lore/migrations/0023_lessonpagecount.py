"""Per-(scope, host, kind, state) lesson counts kept on PostgreSQL by the same triggers and fold as the
per-value counts (lore.value_counts): the Explorer's unfiltered stat cards and matrix without a pass over every
lesson. The triggers are installed again, as `lore.value_counts.install_sql()` generated them the day this was
written, and both tables are filled from the lessons already stored. Undone, the triggers of 0021 come back."""

import importlib

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
        'CREATE OR REPLACE FUNCTION lore_value_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN '
        'INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT '
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT account_id AS account_id, 'kind' "
        'AS dimension, kind AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM '
        '(SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE kind <> '
        "'' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'host' AS dimension, host AS value, "
        'archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, '
        'archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, '
        "origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 "
        "UNION ALL SELECT account_id AS account_id, 'owner' AS dimension, owner AS value, archived AS archived, "
        'protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS '
        'archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, '
        "origin_pr FROM lore_new_lessons) AS s WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id "
        "AS account_id, 'source_agent' AS dimension, source_agent AS value, archived AS archived, protected AS "
        'protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, '
        'protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM '
        "lore_new_lessons) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS "
        "account_id, 'trigger' AS dimension, trigger AS value, archived AS archived, protected AS protected, "
        'count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, '
        'host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) '
        "AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_repo' AS"
        ' dimension, origin_repo AS value, archived AS archived, protected AS protected, count(*)::integer AS n '
        'FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE '
        "origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS "
        'dimension, origin_branch AS value, archived AS archived, protected AS protected, count(*)::integer AS n '
        'FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE '
        "origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr' AS "
        'dimension, origin_pr AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM'
        ' (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE origin_pr'
        " <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected HAVING "
        'sum(n) <> 0; INSERT INTO lore_lessonpagecount (account_id, scope, host, kind, archived, protected, n) '
        'SELECT account_id, scope, host, kind, archived, protected, sum(n) FROM (SELECT account_id AS account_id,'
        ' scope AS scope, host AS host, kind AS kind, archived AS archived, protected AS protected, '
        'count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, '
        'host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) '
        'AS s GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY account_id, scope, host, kind, archived, protected '
        'HAVING sum(n) <> 0; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_inserted AFTER INSERT ON lore_lesson REFERENCING NEW TABLE AS '
        'lore_new_lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_inserted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN '
        'INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT '
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT account_id AS account_id, 'kind' "
        'AS dimension, kind AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM '
        '(SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE kind <> '
        "'' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'host' AS dimension, host AS value, "
        'archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, '
        'archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, '
        "origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 "
        "UNION ALL SELECT account_id AS account_id, 'owner' AS dimension, owner AS value, archived AS archived, "
        'protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS '
        'archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, '
        "origin_pr FROM lore_old_lessons) AS s WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id "
        "AS account_id, 'source_agent' AS dimension, source_agent AS value, archived AS archived, protected AS "
        'protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, '
        'protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM '
        "lore_old_lessons) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS "
        "account_id, 'trigger' AS dimension, trigger AS value, archived AS archived, protected AS protected, "
        '-count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, '
        'host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) '
        "AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_repo' AS"
        ' dimension, origin_repo AS value, archived AS archived, protected AS protected, -count(*)::integer AS n '
        'FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE '
        "origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS "
        'dimension, origin_branch AS value, archived AS archived, protected AS protected, -count(*)::integer AS n'
        ' FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE '
        "origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr' AS "
        'dimension, origin_pr AS value, archived AS archived, protected AS protected, -count(*)::integer AS n '
        'FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE origin_pr'
        " <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected HAVING "
        'sum(n) <> 0; INSERT INTO lore_lessonpagecount (account_id, scope, host, kind, archived, protected, n) '
        'SELECT account_id, scope, host, kind, archived, protected, sum(n) FROM (SELECT account_id AS account_id,'
        ' scope AS scope, host AS host, kind AS kind, archived AS archived, protected AS protected, '
        '-count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, '
        'host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) '
        'AS s GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY account_id, scope, host, kind, archived, protected '
        'HAVING sum(n) <> 0; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_deleted AFTER DELETE ON lore_lesson REFERENCING OLD TABLE AS '
        'lore_old_lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_deleted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN WITH'
        ' moved AS MATERIALIZED (SELECT o.account_id AS o_account_id, o.archived_at IS NOT NULL AS o_archived, '
        'o.protected AS o_protected, o.scope AS o_scope, o.host AS o_host, o.kind AS o_kind, o.owner AS o_owner, '
        'o.source_agent AS o_source_agent, o.trigger AS o_trigger, o.origin_repo AS o_origin_repo, '
        'o.origin_branch AS o_origin_branch, o.origin_pr AS o_origin_pr, w.account_id AS w_account_id, '
        'w.archived_at IS NOT NULL AS w_archived, w.protected AS w_protected, w.scope AS w_scope, w.host AS '
        'w_host, w.kind AS w_kind, w.owner AS w_owner, w.source_agent AS w_source_agent, w.trigger AS w_trigger, '
        'w.origin_repo AS w_origin_repo, w.origin_branch AS w_origin_branch, w.origin_pr AS w_origin_pr FROM '
        'lore_old_lessons o JOIN lore_new_lessons w ON w.id = o.id WHERE (o.account_id, o.scope, o.host, o.kind, '
        'o.owner, o.source_agent, o.trigger, o.origin_repo, o.origin_branch, o.origin_pr, o.protected, '
        'o.archived_at IS NULL) IS DISTINCT FROM (w.account_id, w.scope, w.host, w.kind, w.owner, w.source_agent,'
        ' w.trigger, w.origin_repo, w.origin_branch, w.origin_pr, w.protected, w.archived_at IS NULL)) , counted '
        'AS (INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT '
        'account_id, dimension, value, archived, protected, sum(n) FROM (SELECT o_account_id AS account_id, '
        "'kind' AS dimension, o_kind AS value, o_archived AS archived, o_protected AS protected, "
        "-count(*)::integer AS n FROM moved WHERE o_kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id "
        "AS account_id, 'host' AS dimension, o_host AS value, o_archived AS archived, o_protected AS protected, "
        "-count(*)::integer AS n FROM moved WHERE o_host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id "
        "AS account_id, 'owner' AS dimension, o_owner AS value, o_archived AS archived, o_protected AS protected,"
        " -count(*)::integer AS n FROM moved WHERE o_owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT "
        "o_account_id AS account_id, 'source_agent' AS dimension, o_source_agent AS value, o_archived AS "
        "archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_source_agent <> '' GROUP "
        "BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'trigger' AS dimension, o_trigger AS value, "
        'o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_trigger <> '
        "'' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_repo' AS dimension, "
        'o_origin_repo AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM '
        "moved WHERE o_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, "
        "'origin_branch' AS dimension, o_origin_branch AS value, o_archived AS archived, o_protected AS "
        "protected, -count(*)::integer AS n FROM moved WHERE o_origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL "
        "SELECT o_account_id AS account_id, 'origin_pr' AS dimension, o_origin_pr AS value, o_archived AS "
        "archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_origin_pr <> '' GROUP BY "
        "1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'kind' AS dimension, w_kind AS value, w_archived"
        " AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_kind <> '' GROUP BY 1,"
        " 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'host' AS dimension, w_host AS value, w_archived "
        "AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_host <> '' GROUP BY 1, "
        "3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'owner' AS dimension, w_owner AS value, w_archived "
        "AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_owner <> '' GROUP BY 1,"
        " 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'source_agent' AS dimension, w_source_agent AS "
        'value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE '
        "w_source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'trigger' AS "
        'dimension, w_trigger AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n '
        "FROM moved WHERE w_trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, "
        "'origin_repo' AS dimension, w_origin_repo AS value, w_archived AS archived, w_protected AS protected, "
        "count(*)::integer AS n FROM moved WHERE w_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT "
        "w_account_id AS account_id, 'origin_branch' AS dimension, w_origin_branch AS value, w_archived AS "
        "archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_origin_branch <> '' GROUP "
        "BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'origin_pr' AS dimension, w_origin_pr AS "
        'value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE '
        "w_origin_pr <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, "
        'protected HAVING sum(n) <> 0 RETURNING 1) INSERT INTO lore_lessonpagecount (account_id, scope, host, '
        'kind, archived, protected, n) SELECT account_id, scope, host, kind, archived, protected, sum(n) FROM '
        '(SELECT o_account_id AS account_id, o_scope AS scope, o_host AS host, o_kind AS kind, o_archived AS '
        'archived, o_protected AS protected, -count(*)::integer AS n FROM moved GROUP BY 1, 2, 3, 4, 5, 6 UNION '
        'ALL SELECT w_account_id AS account_id, w_scope AS scope, w_host AS host, w_kind AS kind, w_archived AS '
        'archived, w_protected AS protected, count(*)::integer AS n FROM moved GROUP BY 1, 2, 3, 4, 5, 6) AS '
        'delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0; RETURN NULL; END '
        '$$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_updated AFTER UPDATE ON lore_lesson REFERENCING OLD TABLE AS '
        'lore_old_lessons NEW TABLE AS lore_new_lessons FOR EACH STATEMENT EXECUTE FUNCTION '
        'lore_value_counts_updated()'
    ),
    "DELETE FROM lore_lessonvaluecount",
    (
        'INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT '
        "account_id, dimension, value, archived, protected, sum(n) FROM (SELECT account_id AS account_id, 'kind' "
        'AS dimension, kind AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM '
        '(SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        "source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE kind <> '' "
        "GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'host' AS dimension, host AS value, "
        'archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, '
        'archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, '
        "origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION "
        "ALL SELECT account_id AS account_id, 'owner' AS dimension, owner AS value, archived AS archived, "
        'protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS '
        'archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, '
        "origin_pr FROM lore_lesson) AS s WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS "
        "account_id, 'source_agent' AS dimension, source_agent AS value, archived AS archived, protected AS "
        'protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, '
        'protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM '
        "lore_lesson) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS "
        "account_id, 'trigger' AS dimension, trigger AS value, archived AS archived, protected AS protected, "
        'count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, '
        'host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s '
        "WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_repo' AS "
        'dimension, origin_repo AS value, archived AS archived, protected AS protected, count(*)::integer AS n '
        'FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE origin_repo <>'
        " '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, "
        'origin_branch AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM '
        '(SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE origin_branch '
        "<> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr' AS dimension, origin_pr"
        ' AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id,'
        ' archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, '
        "origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5) "
        'AS delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0'
    ),
    "DELETE FROM lore_lessonpagecount",
    (
        'INSERT INTO lore_lessonpagecount (account_id, scope, host, kind, archived, protected, n) SELECT '
        'account_id, scope, host, kind, archived, protected, sum(n) FROM (SELECT account_id AS account_id, scope '
        'AS scope, host AS host, kind AS kind, archived AS archived, protected AS protected, count(*)::integer AS'
        ' n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s GROUP BY 1, 2, 3, 4,'
        ' 5, 6) AS delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0'
    ),
]
# fmt: on


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        for statement in INSTALL:
            schema_editor.execute(statement, params=None)


def reinstall_0021(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        for statement in importlib.import_module("lore.migrations.0021_lessonvaluecount").INSTALL:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("lore", "0022_lesson_autovacuum"),
    ]

    operations = [
        migrations.CreateModel(
            name="LessonPageCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("scope", models.CharField(max_length=600)),
                ("host", models.CharField(max_length=128)),
                ("kind", models.CharField(max_length=64)),
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
                    models.Index(fields=["account", "scope", "host", "kind"], name="lessonpagecount_read")
                ],
            },
        ),
        migrations.RunPython(install, reinstall_0021),
    ]
