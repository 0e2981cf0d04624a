"""Issue 29: an archive or restore batch counts the lessons it moves in its own statement and flags itself; the
UPDATE count trigger of that statement steps aside (lore.value_counts.COUNTED_BY_STATEMENT). Only the UPDATE
trigger's function changes: it starts with the step-aside check, then counts as before. The function is installed
as `lore.value_counts.install_sql()` generated it the day this was written; undone, the function of 0027 comes
back. PostgreSQL only, like the triggers."""

from django.db import migrations

# fmt: off
UPDATED = (
    'CREATE OR REPLACE FUNCTION lore_value_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF cur'
    "rent_setting('lore.lessons_counted', true) = statement_timestamp()::text THEN PERFORM set_config('lore.les"
    "sons_counted', '', true); RETURN NULL; END IF; WITH moved AS MATERIALIZED (SELECT o.account_id AS o_accoun"
    't_id, o.archived_at IS NOT NULL AS o_archived, o.protected AS o_protected, o.scope AS o_scope, o.host AS o'
    '_host, o.kind AS o_kind, o.owner AS o_owner, o.source_agent AS o_source_agent, o.trigger AS o_trigger, o.o'
    'rigin_repo AS o_origin_repo, o.origin_branch AS o_origin_branch, o.origin_pr AS o_origin_pr, w.account_id '
    'AS w_account_id, w.archived_at IS NOT NULL AS w_archived, w.protected AS w_protected, w.scope AS w_scope, '
    'w.host AS w_host, w.kind AS w_kind, w.owner AS w_owner, w.source_agent AS w_source_agent, w.trigger AS w_t'
    'rigger, w.origin_repo AS w_origin_repo, w.origin_branch AS w_origin_branch, w.origin_pr AS w_origin_pr FRO'
    'M lore_old_lessons o JOIN lore_new_lessons w ON w.id = o.id WHERE (o.account_id, o.scope, o.host, o.kind, '
    'o.owner, o.source_agent, o.trigger, o.origin_repo, o.origin_branch, o.origin_pr, o.protected, o.archived_a'
    't IS NULL) IS DISTINCT FROM (w.account_id, w.scope, w.host, w.kind, w.owner, w.source_agent, w.trigger, w.'
    'origin_repo, w.origin_branch, w.origin_pr, w.protected, w.archived_at IS NULL)) , counted AS (INSERT INTO '
    'lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT account_id, dimension, '
    'archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimension, value, archived, prote'
    "cted, sum(n) AS n FROM (SELECT o_account_id AS account_id, 'kind' AS dimension, o_kind AS value, o_archive"
    "d AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_kind <> '' GROUP BY 1,"
    " 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'host' AS dimension, o_host AS value, o_archived AS "
    "archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_host <> '' GROUP BY 1, 3, 4"
    ", 5 UNION ALL SELECT o_account_id AS account_id, 'owner' AS dimension, o_owner AS value, o_archived AS arc"
    "hived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_owner <> '' GROUP BY 1, 3, 4, "
    "5 UNION ALL SELECT o_account_id AS account_id, 'source_agent' AS dimension, o_source_agent AS value, o_arc"
    "hived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_source_agent <> ''"
    " GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'trigger' AS dimension, o_trigger AS val"
    'ue, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_trigger <'
    "> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_repo' AS dimension, o_origin"
    '_repo AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE'
    " o_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_branch' AS d"
    'imension, o_origin_branch AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer A'
    "S n FROM moved WHERE o_origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id"
    ", 'origin_pr' AS dimension, o_origin_pr AS value, o_archived AS archived, o_protected AS protected, -count"
    "(*)::integer AS n FROM moved WHERE o_origin_pr <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS "
    "account_id, 'kind' AS dimension, w_kind AS value, w_archived AS archived, w_protected AS protected, count("
    "*)::integer AS n FROM moved WHERE w_kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS accoun"
    "t_id, 'host' AS dimension, w_host AS value, w_archived AS archived, w_protected AS protected, count(*)::in"
    "teger AS n FROM moved WHERE w_host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, "
    "'owner' AS dimension, w_owner AS value, w_archived AS archived, w_protected AS protected, count(*)::intege"
    "r AS n FROM moved WHERE w_owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'so"
    "urce_agent' AS dimension, w_source_agent AS value, w_archived AS archived, w_protected AS protected, count"
    "(*)::integer AS n FROM moved WHERE w_source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id "
    "AS account_id, 'trigger' AS dimension, w_trigger AS value, w_archived AS archived, w_protected AS protecte"
    "d, count(*)::integer AS n FROM moved WHERE w_trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_"
    "id AS account_id, 'origin_repo' AS dimension, w_origin_repo AS value, w_archived AS archived, w_protected "
    "AS protected, count(*)::integer AS n FROM moved WHERE w_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SE"
    "LECT w_account_id AS account_id, 'origin_branch' AS dimension, w_origin_branch AS value, w_archived AS arc"
    "hived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_origin_branch <> '' GROUP BY 1,"
    " 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'origin_pr' AS dimension, w_origin_pr AS value, w_ar"
    "chived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_origin_pr <> '' GR"
    'OUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0)'
    ' AS summed GROUP BY account_id, dimension, archived, protected RETURNING 1) INSERT INTO lore_lessoncountch'
    "ange (account_id, dimension, archived, protected, counts) SELECT account_id, '', archived, protected, json"
    'b_agg(jsonb_build_array(scope, host, kind, n)) FROM (SELECT account_id, scope, host, kind, archived, prote'
    'cted, sum(n) AS n FROM (SELECT o_account_id AS account_id, o_scope AS scope, o_host AS host, o_kind AS kin'
    'd, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved GROUP BY 1, 2, 3, '
    '4, 5, 6 UNION ALL SELECT w_account_id AS account_id, w_scope AS scope, w_host AS host, w_kind AS kind, w_a'
    'rchived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved GROUP BY 1, 2, 3, 4, 5, 6'
    ') AS delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0) AS summed GROUP'
    ' BY account_id, archived, protected; RETURN NULL; END $$;'
)

UPDATED_BEFORE = (
    'CREATE OR REPLACE FUNCTION lore_value_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN WITH m'
    'oved AS MATERIALIZED (SELECT o.account_id AS o_account_id, o.archived_at IS NOT NULL AS o_archived, o.prot'
    'ected AS o_protected, o.scope AS o_scope, o.host AS o_host, o.kind AS o_kind, o.owner AS o_owner, o.source'
    '_agent AS o_source_agent, o.trigger AS o_trigger, o.origin_repo AS o_origin_repo, o.origin_branch AS o_ori'
    'gin_branch, o.origin_pr AS o_origin_pr, w.account_id AS w_account_id, w.archived_at IS NOT NULL AS w_archi'
    'ved, w.protected AS w_protected, w.scope AS w_scope, w.host AS w_host, w.kind AS w_kind, w.owner AS w_owne'
    'r, w.source_agent AS w_source_agent, w.trigger AS w_trigger, w.origin_repo AS w_origin_repo, w.origin_bran'
    'ch AS w_origin_branch, w.origin_pr AS w_origin_pr FROM lore_old_lessons o JOIN lore_new_lessons w ON w.id '
    '= o.id WHERE (o.account_id, o.scope, o.host, o.kind, o.owner, o.source_agent, o.trigger, o.origin_repo, o.'
    'origin_branch, o.origin_pr, o.protected, o.archived_at IS NULL) IS DISTINCT FROM (w.account_id, w.scope, w'
    '.host, w.kind, w.owner, w.source_agent, w.trigger, w.origin_repo, w.origin_branch, w.origin_pr, w.protecte'
    'd, w.archived_at IS NULL)) , counted AS (INSERT INTO lore_lessoncountchange (account_id, dimension, archiv'
    'ed, protected, counts) SELECT account_id, dimension, archived, protected, jsonb_object_agg(value, n) FROM '
    '(SELECT account_id, dimension, value, archived, protected, sum(n) AS n FROM (SELECT o_account_id AS accoun'
    "t_id, 'kind' AS dimension, o_kind AS value, o_archived AS archived, o_protected AS protected, -count(*)::i"
    "nteger AS n FROM moved WHERE o_kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id,"
    " 'host' AS dimension, o_host AS value, o_archived AS archived, o_protected AS protected, -count(*)::intege"
    "r AS n FROM moved WHERE o_host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'own"
    "er' AS dimension, o_owner AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer A"
    "S n FROM moved WHERE o_owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'sourc"
    "e_agent' AS dimension, o_source_agent AS value, o_archived AS archived, o_protected AS protected, -count(*"
    ")::integer AS n FROM moved WHERE o_source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS"
    " account_id, 'trigger' AS dimension, o_trigger AS value, o_archived AS archived, o_protected AS protected,"
    " -count(*)::integer AS n FROM moved WHERE o_trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_i"
    "d AS account_id, 'origin_repo' AS dimension, o_origin_repo AS value, o_archived AS archived, o_protected A"
    "S protected, -count(*)::integer AS n FROM moved WHERE o_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SE"
    "LECT o_account_id AS account_id, 'origin_branch' AS dimension, o_origin_branch AS value, o_archived AS arc"
    "hived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_origin_branch <> '' GROUP BY 1"
    ", 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_pr' AS dimension, o_origin_pr AS value, o_a"
    "rchived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_origin_pr <> '' "
    "GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'kind' AS dimension, w_kind AS value, w_a"
    "rchived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_kind <> '' GROUP "
    "BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'host' AS dimension, w_host AS value, w_archive"
    "d AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_host <> '' GROUP BY 1, "
    "3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'owner' AS dimension, w_owner AS value, w_archived AS"
    " archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_owner <> '' GROUP BY 1, 3, "
    "4, 5 UNION ALL SELECT w_account_id AS account_id, 'source_agent' AS dimension, w_source_agent AS value, w_"
    'archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_source_agent <> '
    "'' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'trigger' AS dimension, w_trigger AS v"
    'alue, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_trigger '
    "<> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'origin_repo' AS dimension, w_origi"
    'n_repo AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE'
    " w_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'origin_branch' AS d"
    'imension, w_origin_branch AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS'
    " n FROM moved WHERE w_origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id,"
    " 'origin_pr' AS dimension, w_origin_pr AS value, w_archived AS archived, w_protected AS protected, count(*"
    ")::integer AS n FROM moved WHERE w_origin_pr <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dime"
    'nsion, value, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY account_id, dimension, archived, '
    'protected RETURNING 1) INSERT INTO lore_lessoncountchange (account_id, dimension, archived, protected, cou'
    "nts) SELECT account_id, '', archived, protected, jsonb_agg(jsonb_build_array(scope, host, kind, n)) FROM ("
    'SELECT account_id, scope, host, kind, archived, protected, sum(n) AS n FROM (SELECT o_account_id AS accoun'
    't_id, o_scope AS scope, o_host AS host, o_kind AS kind, o_archived AS archived, o_protected AS protected, '
    '-count(*)::integer AS n FROM moved GROUP BY 1, 2, 3, 4, 5, 6 UNION ALL SELECT w_account_id AS account_id, '
    'w_scope AS scope, w_host AS host, w_kind AS kind, w_archived AS archived, w_protected AS protected, count('
    '*)::integer AS n FROM moved GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY account_id, scope, host, kind, ar'
    'chived, protected HAVING sum(n) <> 0) AS summed GROUP BY account_id, archived, protected; RETURN NULL; END'
    ' $$;'
)
# fmt: on


def install(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(UPDATED, params=None)


def reinstall_0027(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(UPDATED_BEFORE, params=None)


class Migration(migrations.Migration):
    dependencies = [("lore", "0028_audit_event_batches")]

    operations = [migrations.RunPython(install, reinstall_0027)]
