"""Issue 29: the count triggers append their changes packed, one LessonCountChange row per (account, dimension,
state) instead of a LessonValueCount or LessonPageCount row per value, and readers sum both through two views. The
functions and views are installed as `lore.value_counts.install_sql()` generated them the day this was written;
the kept counts stay as they are (nothing to recount). Undone, the triggers of 0023 come back and the views go,
after the packed changes not yet folded are moved into the kept rows."""

import importlib

import django.db.models.deletion
from django.db import migrations, models

# fmt: off
INSTALL = [
    'DROP TRIGGER IF EXISTS lore_value_counts_inserted ON lore_lesson',
    'DROP FUNCTION IF EXISTS lore_value_counts_inserted()',
    'DROP TRIGGER IF EXISTS lore_value_counts_deleted ON lore_lesson',
    'DROP FUNCTION IF EXISTS lore_value_counts_deleted()',
    'DROP TRIGGER IF EXISTS lore_value_counts_updated ON lore_lesson',
    'DROP FUNCTION IF EXISTS lore_value_counts_updated()',
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSE'
        'RT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT account_id, di'
        'mension, archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimension, value, archi'
        "ved, protected, sum(n) AS n FROM (SELECT account_id AS account_id, 'kind' AS dimension, kind AS value, ar"
        'chived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at I'
        'S NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_b'
        "ranch, origin_pr FROM lore_new_lessons) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT accoun"
        "t_id AS account_id, 'host' AS dimension, host AS value, archived AS archived, protected AS protected, cou"
        'nt(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host,'
        ' kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WH'
        "ERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'owner' AS dimension, owner"
        ' AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, '
        'archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_r'
        "epo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL"
        " SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, archived AS archive"
        'd, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS arc'
        'hived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr '
        "FROM lore_new_lessons) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS a"
        "ccount_id, 'trigger' AS dimension, trigger AS value, archived AS archived, protected AS protected, count("
        '*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, ki'
        'nd, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE'
        " trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_repo' AS dimension,"
        ' origin_repo AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT '
        'account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigg'
        "er, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE origin_repo <> '' GROUP BY 1,"
        " 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, origin_branch AS value,"
        ' archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_a'
        't IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origi'
        "n_branch, origin_pr FROM lore_new_lessons) AS s WHERE origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL S"
        "ELECT account_id AS account_id, 'origin_pr' AS dimension, origin_pr AS value, archived AS archived, prote"
        'cted AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, p'
        'rotected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lor'
        "e_new_lessons) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, v"
        'alue, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY account_id, dimension, archived, protect'
        'ed; INSERT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT accoun'
        "t_id, '', archived, protected, jsonb_agg(jsonb_build_array(scope, host, kind, n)) FROM (SELECT account_id"
        ', scope, host, kind, archived, protected, sum(n) AS n FROM (SELECT account_id AS account_id, scope AS sco'
        'pe, host AS host, kind AS kind, archived AS archived, protected AS protected, count(*)::integer AS n FROM'
        ' (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_age'
        'nt, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s GROUP BY 1, 2, 3, 4, 5, 6)'
        ' AS delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0) AS summed GROUP'
        ' BY account_id, archived, protected; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_inserted AFTER INSERT ON lore_lesson REFERENCING NEW TABLE AS lore_new_l'
        'essons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_inserted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSER'
        'T INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT account_id, dim'
        'ension, archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimension, value, archiv'
        "ed, protected, sum(n) AS n FROM (SELECT account_id AS account_id, 'kind' AS dimension, kind AS value, arc"
        'hived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at I'
        'S NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_b'
        "ranch, origin_pr FROM lore_old_lessons) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT accoun"
        "t_id AS account_id, 'host' AS dimension, host AS value, archived AS archived, protected AS protected, -co"
        'unt(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host'
        ', kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s W'
        "HERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'owner' AS dimension, owne"
        'r AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id'
        ', archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin'
        "_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION A"
        "LL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, archived AS archi"
        'ved, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS '
        'archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_'
        "pr FROM lore_old_lessons) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id A"
        "S account_id, 'trigger' AS dimension, trigger AS value, archived AS archived, protected AS protected, -co"
        'unt(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host'
        ', kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s W'
        "HERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_repo' AS dimens"
        'ion, origin_repo AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SE'
        'LECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, '
        "trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE origin_repo <> '' GROUP "
        "BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, origin_branch AS v"
        'alue, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, arch'
        'ived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo,'
        " origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION"
        " ALL SELECT account_id AS account_id, 'origin_pr' AS dimension, origin_pr AS value, archived AS archived,"
        ' protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS arch'
        'ived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr F'
        "ROM lore_old_lessons) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimen"
        'sion, value, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY account_id, dimension, archived, '
        'protected; INSERT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT'
        " account_id, '', archived, protected, jsonb_agg(jsonb_build_array(scope, host, kind, n)) FROM (SELECT acc"
        'ount_id, scope, host, kind, archived, protected, sum(n) AS n FROM (SELECT account_id AS account_id, scope'
        ' AS scope, host AS host, kind AS kind, archived AS archived, protected AS protected, -count(*)::integer A'
        'S n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, so'
        'urce_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s GROUP BY 1, 2, 3, '
        '4, 5, 6) AS delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0) AS summ'
        'ed GROUP BY account_id, archived, protected; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_deleted AFTER DELETE ON lore_lesson REFERENCING OLD TABLE AS lore_old_le'
        'ssons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_deleted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN WITH '
        'moved AS MATERIALIZED (SELECT o.account_id AS o_account_id, o.archived_at IS NOT NULL AS o_archived, o.pr'
        'otected AS o_protected, o.scope AS o_scope, o.host AS o_host, o.kind AS o_kind, o.owner AS o_owner, o.sou'
        'rce_agent AS o_source_agent, o.trigger AS o_trigger, o.origin_repo AS o_origin_repo, o.origin_branch AS o'
        '_origin_branch, o.origin_pr AS o_origin_pr, w.account_id AS w_account_id, w.archived_at IS NOT NULL AS w_'
        'archived, w.protected AS w_protected, w.scope AS w_scope, w.host AS w_host, w.kind AS w_kind, w.owner AS '
        'w_owner, w.source_agent AS w_source_agent, w.trigger AS w_trigger, w.origin_repo AS w_origin_repo, w.orig'
        'in_branch AS w_origin_branch, w.origin_pr AS w_origin_pr FROM lore_old_lessons o JOIN lore_new_lessons w '
        'ON w.id = o.id WHERE (o.account_id, o.scope, o.host, o.kind, o.owner, o.source_agent, o.trigger, o.origin'
        '_repo, o.origin_branch, o.origin_pr, o.protected, o.archived_at IS NULL) IS DISTINCT FROM (w.account_id, '
        'w.scope, w.host, w.kind, w.owner, w.source_agent, w.trigger, w.origin_repo, w.origin_branch, w.origin_pr,'
        ' w.protected, w.archived_at IS NULL)) , counted AS (INSERT INTO lore_lessoncountchange (account_id, dimen'
        'sion, archived, protected, counts) SELECT account_id, dimension, archived, protected, jsonb_object_agg(va'
        'lue, n) FROM (SELECT account_id, dimension, value, archived, protected, sum(n) AS n FROM (SELECT o_accoun'
        "t_id AS account_id, 'kind' AS dimension, o_kind AS value, o_archived AS archived, o_protected AS protecte"
        "d, -count(*)::integer AS n FROM moved WHERE o_kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_i"
        "d AS account_id, 'host' AS dimension, o_host AS value, o_archived AS archived, o_protected AS protected, "
        "-count(*)::integer AS n FROM moved WHERE o_host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id A"
        "S account_id, 'owner' AS dimension, o_owner AS value, o_archived AS archived, o_protected AS protected, -"
        "count(*)::integer AS n FROM moved WHERE o_owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id A"
        "S account_id, 'source_agent' AS dimension, o_source_agent AS value, o_archived AS archived, o_protected A"
        "S protected, -count(*)::integer AS n FROM moved WHERE o_source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL "
        "SELECT o_account_id AS account_id, 'trigger' AS dimension, o_trigger AS value, o_archived AS archived, o_"
        "protected AS protected, -count(*)::integer AS n FROM moved WHERE o_trigger <> '' GROUP BY 1, 3, 4, 5 UNIO"
        "N ALL SELECT o_account_id AS account_id, 'origin_repo' AS dimension, o_origin_repo AS value, o_archived A"
        "S archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_origin_repo <> '' GROUP "
        "BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_branch' AS dimension, o_origin_branch "
        'AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_or'
        "igin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_pr' AS dimensi"
        'on, o_origin_pr AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM '
        "moved WHERE o_origin_pr <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'kind' AS "
        'dimension, w_kind AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM'
        " moved WHERE w_kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'host' AS dime"
        'nsion, w_host AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM mov'
        "ed WHERE w_host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'owner' AS dimensi"
        'on, w_owner AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved'
        " WHERE w_owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'source_agent' AS d"
        'imension, w_source_agent AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS'
        " n FROM moved WHERE w_source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id,"
        " 'trigger' AS dimension, w_trigger AS value, w_archived AS archived, w_protected AS protected, count(*)::"
        "integer AS n FROM moved WHERE w_trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS accoun"
        "t_id, 'origin_repo' AS dimension, w_origin_repo AS value, w_archived AS archived, w_protected AS protecte"
        "d, count(*)::integer AS n FROM moved WHERE w_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_acc"
        "ount_id AS account_id, 'origin_branch' AS dimension, w_origin_branch AS value, w_archived AS archived, w_"
        "protected AS protected, count(*)::integer AS n FROM moved WHERE w_origin_branch <> '' GROUP BY 1, 3, 4, 5"
        " UNION ALL SELECT w_account_id AS account_id, 'origin_pr' AS dimension, w_origin_pr AS value, w_archived "
        "AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_origin_pr <> '' GROUP BY"
        ' 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0) AS s'
        'ummed GROUP BY account_id, dimension, archived, protected RETURNING 1) INSERT INTO lore_lessoncountchange'
        " (account_id, dimension, archived, protected, counts) SELECT account_id, '', archived, protected, jsonb_a"
        'gg(jsonb_build_array(scope, host, kind, n)) FROM (SELECT account_id, scope, host, kind, archived, protect'
        'ed, sum(n) AS n FROM (SELECT o_account_id AS account_id, o_scope AS scope, o_host AS host, o_kind AS kind'
        ', o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved GROUP BY 1, 2, 3, '
        '4, 5, 6 UNION ALL SELECT w_account_id AS account_id, w_scope AS scope, w_host AS host, w_kind AS kind, w_'
        'archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved GROUP BY 1, 2, 3, 4, 5,'
        ' 6) AS delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0) AS summed GR'
        'OUP BY account_id, archived, protected; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_updated AFTER UPDATE ON lore_lesson REFERENCING OLD TABLE AS lore_old_le'
        'ssons NEW TABLE AS lore_new_lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_updated()'
    ),
    (
        'CREATE OR REPLACE VIEW lore_lessonvaluecount_all AS SELECT id, account_id, dimension, value, archived, pr'
        'otected, n FROM lore_lessonvaluecount UNION ALL SELECT -c.id, c.account_id, c.dimension, e.key, c.archive'
        'd, c.protected, e.value::bigint FROM lore_lessoncountchange c CROSS JOIN LATERAL jsonb_each_text(c.counts'
        ") AS e WHERE c.dimension <> ''"
    ),
    (
        'CREATE OR REPLACE VIEW lore_lessonpagecount_all AS SELECT id, account_id, scope, host, kind, archived, pr'
        'otected, n FROM lore_lessonpagecount UNION ALL SELECT -c.id, c.account_id, e->>0, e->>1, e->>2, c.archive'
        'd, c.protected, (e->>3)::bigint FROM lore_lessoncountchange c CROSS JOIN LATERAL jsonb_array_elements(c.c'
        "ounts) AS e WHERE c.dimension = ''"
    ),
]
# fmt: on

FOLD_PACKED = (
    "WITH gone AS (DELETE FROM lore_lessoncountchange RETURNING account_id, archived, protected, dimension, counts), "
    "kept AS (INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) "
    "SELECT g.account_id, g.dimension, e.key, g.archived, g.protected, sum(e.value::bigint) FROM gone g "
    "CROSS JOIN LATERAL jsonb_each_text(g.counts) AS e WHERE g.dimension <> '' GROUP BY 1, 2, 3, 4, 5 RETURNING 1) "
    "INSERT INTO lore_lessonpagecount (account_id, scope, host, kind, archived, protected, n) "
    "SELECT g.account_id, e->>0, e->>1, e->>2, g.archived, g.protected, sum((e->>3)::bigint) FROM gone g "
    "CROSS JOIN LATERAL jsonb_array_elements(g.counts) AS e WHERE g.dimension = '' GROUP BY 1, 2, 3, 4, 5, 6"
)


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        for statement in INSTALL:
            schema_editor.execute(statement, params=None)


def reinstall_0023(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        for statement in importlib.import_module("lore.migrations.0023_lessonpagecount").INSTALL:
            if not statement.startswith(("DELETE FROM", "INSERT INTO")):  # the kept counts stay
                schema_editor.execute(statement, params=None)
        schema_editor.execute(FOLD_PACKED, params=None)
        schema_editor.execute("DROP VIEW IF EXISTS lore_lessonvaluecount_all", params=None)
        schema_editor.execute("DROP VIEW IF EXISTS lore_lessonpagecount_all", params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("lore", "0026_semantic_possible_duplicates"),
    ]

    operations = [
        migrations.CreateModel(
            name="LessonPageCountView",
            fields=[
                ("id", models.BigIntegerField(primary_key=True, serialize=False)),
                ("scope", models.CharField(max_length=600)),
                ("host", models.CharField(max_length=128)),
                ("kind", models.CharField(max_length=64)),
                ("archived", models.BooleanField()),
                ("protected", models.BooleanField()),
                ("n", models.BigIntegerField()),
            ],
            options={
                "db_table": "lore_lessonpagecount_all",
                "managed": False,
            },
        ),
        migrations.CreateModel(
            name="LessonValueCountView",
            fields=[
                ("id", models.BigIntegerField(primary_key=True, serialize=False)),
                ("dimension", models.CharField(max_length=32)),
                ("value", models.CharField(max_length=256)),
                ("archived", models.BooleanField()),
                ("protected", models.BooleanField()),
                ("n", models.BigIntegerField()),
            ],
            options={
                "db_table": "lore_lessonvaluecount_all",
                "managed": False,
            },
        ),
        migrations.CreateModel(
            name="LessonCountChange",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("dimension", models.CharField(blank=True, max_length=32)),
                ("archived", models.BooleanField()),
                ("protected", models.BooleanField()),
                ("counts", models.JSONField()),
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
                    models.Index(fields=["account", "dimension", "archived"], name="lessoncountchange_read")
                ],
            },
        ),
        migrations.RunPython(install, reinstall_0023),
    ]
