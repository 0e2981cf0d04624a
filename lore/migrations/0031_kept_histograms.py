"""Issue 28, part 1: the triggers also keep the histograms of the filter menu's Age & activity sections over the
whole store (lore.value_counts.HISTOGRAM_COUNTED: Delivered, Chosen and Recurrence per value, Created and Last agent
open per UTC day, and the creation day of the lessons never opened), and the UPDATE trigger groups, per dimension,
only the rows whose value or state of that dimension changed (a read bump moves the counters, nothing else), and
the trigger functions run without JIT (compiling them cost seconds per read-fold batch at 1M). The
SQL is written out as `lore.value_counts.install_sql()` generated it the day this was written, and recounts the
lessons already stored; undone, the functions of 0029 come back and the counts are recounted without the
histograms. PostgreSQL only, like the triggers."""

from django.db import migrations

# fmt: off
INSTALL = [
    (
        'DROP TRIGGER IF EXISTS lore_value_counts_inserted ON lore_lesson'
    ),
    (
        'DROP FUNCTION IF EXISTS lore_value_counts_inserted()'
    ),
    (
        'DROP TRIGGER IF EXISTS lore_value_counts_deleted ON lore_lesson'
    ),
    (
        'DROP FUNCTION IF EXISTS lore_value_counts_deleted()'
    ),
    (
        'DROP TRIGGER IF EXISTS lore_value_counts_updated ON lore_lesson'
    ),
    (
        'DROP FUNCTION IF EXISTS lore_value_counts_updated()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_inserted() RETURNS trigger LANGUAGE plpgsql SET jit = off A'
        'S $$ BEGIN INSERT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELEC'
        'T account_id, dimension, archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimens'
        "ion, value, archived, protected, sum(n) AS n FROM (SELECT account_id AS account_id, 'kind' AS dimension,"
        ' kind AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT accoun'
        't_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, o'
        'rigin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at F'
        "ROM lore_new_lessons) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_i"
        "d, 'host' AS dimension, host AS value, archived AS archived, protected AS protected, count(*)::integer A"
        'S n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, s'
        'ource_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, creat'
        "ed_at, last_opened_at FROM lore_new_lessons) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT "
        "account_id AS account_id, 'owner' AS dimension, owner AS value, archived AS archived, protected AS prote"
        'cted, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, sc'
        'ope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened'
        "_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE owner <> '' GROUP BY 1,"
        " 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, "
        'archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_a'
        't IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, orig'
        'in_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_les'
        "sons) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'trig"
        "ger' AS dimension, trigger AS value, archived AS archived, protected AS protected, count(*)::integer AS "
        'n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, sou'
        'rce_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created'
        "_at, last_opened_at FROM lore_new_lessons) AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT"
        " account_id AS account_id, 'origin_repo' AS dimension, origin_repo AS value, archived AS archived, prote"
        'cted AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, '
        'protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_'
        'count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE origin_rep'
        "o <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, ori"
        'gin_branch AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT a'
        'ccount_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigg'
        'er, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened'
        "_at FROM lore_new_lessons) AS s WHERE origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_i"
        "d AS account_id, 'origin_pr' AS dimension, origin_pr AS value, archived AS archived, protected AS protec"
        'ted, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, sco'
        'pe, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_'
        "count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE origin_pr <> '' GROUP BY"
        " 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:read_count' AS dimension, read_count::text AS "
        'value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, arc'
        'hived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_rep'
        'o, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_'
        "new_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:opened_co"
        "unt' AS dimension, opened_count::text AS value, archived AS archived, protected AS protected, count(*)::"
        'integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind,'
        ' owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_cou'
        'nt, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELE'
        "CT account_id AS account_id, 'h:seen_count' AS dimension, seen_count::text AS value, archived AS archive"
        'd, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS ar'
        'chived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_p'
        'r, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE tr'
        "ue GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:created_day' AS dimension, ((create"
        "d_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, archived AS archived, protected AS p"
        'rotected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected'
        ', scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, op'
        'ened_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE true GROUP BY 1, 3,'
        " 4, 5 UNION ALL SELECT account_id AS account_id, 'h:last_open_day' AS dimension, ((coalesce(last_opened_"
        "at, created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, archived AS archived, pro"
        'tected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived'
        ', protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, rea'
        'd_count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE true GRO'
        "UP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:never_opened_day' AS dimension, ((created"
        "_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, archived AS archived, protected AS pr"
        'otected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected,'
        ' scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, ope'
        'ned_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE last_opened_at IS NU'
        'LL GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n'
        ') <> 0) AS summed GROUP BY account_id, dimension, archived, protected; INSERT INTO lore_lessoncountchang'
        "e (account_id, dimension, archived, protected, counts) SELECT account_id, '', archived, protected, jsonb"
        '_agg(jsonb_build_array(scope, host, kind, n)) FROM (SELECT account_id, scope, host, kind, archived, prot'
        'ected, sum(n) AS n FROM (SELECT account_id AS account_id, scope AS scope, host AS host, kind AS kind, ar'
        'chived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at '
        'IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin'
        '_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_lesso'
        'ns) AS s GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY account_id, scope, host, kind, archived, protected'
        ' HAVING sum(n) <> 0) AS summed GROUP BY account_id, archived, protected; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_inserted AFTER INSERT ON lore_lesson REFERENCING NEW TABLE AS lore_new_'
        'lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_inserted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_deleted() RETURNS trigger LANGUAGE plpgsql SET jit = off AS'
        ' $$ BEGIN INSERT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT'
        ' account_id, dimension, archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimensi'
        "on, value, archived, protected, sum(n) AS n FROM (SELECT account_id AS account_id, 'kind' AS dimension, "
        'kind AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT accoun'
        't_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, o'
        'rigin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at F'
        "ROM lore_old_lessons) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_i"
        "d, 'host' AS dimension, host AS value, archived AS archived, protected AS protected, -count(*)::integer "
        'AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, crea'
        "ted_at, last_opened_at FROM lore_old_lessons) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT"
        " account_id AS account_id, 'owner' AS dimension, owner AS value, archived AS archived, protected AS prot"
        'ected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, '
        'scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, open'
        "ed_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE owner <> '' GROUP BY "
        "1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value"
        ', archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archive'
        'd_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, o'
        'rigin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_'
        "lessons) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 't"
        "rigger' AS dimension, trigger AS value, archived AS archived, protected AS protected, -count(*)::integer"
        ' AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner,'
        ' source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, cre'
        "ated_at, last_opened_at FROM lore_old_lessons) AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SE"
        "LECT account_id AS account_id, 'origin_repo' AS dimension, origin_repo AS value, archived AS archived, p"
        'rotected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archi'
        'ved, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, '
        'read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE origi'
        "n_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dimension"
        ', origin_branch AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SE'
        'LECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent,'
        ' trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_'
        "opened_at FROM lore_old_lessons) AS s WHERE origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT acc"
        "ount_id AS account_id, 'origin_pr' AS dimension, origin_pr AS value, archived AS archived, protected AS "
        'protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protect'
        'ed, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, '
        "opened_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE origin_pr <> '' G"
        "ROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:read_count' AS dimension, read_count::t"
        'ext AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account'
        '_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, or'
        'igin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FR'
        "OM lore_old_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:o"
        "pened_count' AS dimension, opened_count::text AS value, archived AS archived, protected AS protected, -c"
        'ount(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, ho'
        'st, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count,'
        ' seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION'
        " ALL SELECT account_id AS account_id, 'h:seen_count' AS dimension, seen_count::text AS value, archived A"
        'S archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT '
        'NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch'
        ', origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS '
        "s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:created_day' AS dimension"
        ", ((created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, archived AS archived, prot"
        'ected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived'
        ', protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, rea'
        'd_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE true GRO'
        "UP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:last_open_day' AS dimension, ((coalesce(l"
        "ast_opened_at, created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, archived AS ar"
        'chived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL'
        ' AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, or'
        'igin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s WH'
        "ERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:never_opened_day' AS dimensio"
        "n, ((created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, archived AS archived, pro"
        'tected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archive'
        'd, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, re'
        'ad_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE last_op'
        'ened_at IS NULL GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected'
        ' HAVING sum(n) <> 0) AS summed GROUP BY account_id, dimension, archived, protected; INSERT INTO lore_les'
        "soncountchange (account_id, dimension, archived, protected, counts) SELECT account_id, '', archived, pro"
        'tected, jsonb_agg(jsonb_build_array(scope, host, kind, n)) FROM (SELECT account_id, scope, host, kind, a'
        'rchived, protected, sum(n) AS n FROM (SELECT account_id AS account_id, scope AS scope, host AS host, kin'
        'd AS kind, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id'
        ', archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origi'
        'n_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM '
        'lore_old_lessons) AS s GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY account_id, scope, host, kind, archi'
        'ved, protected HAVING sum(n) <> 0) AS summed GROUP BY account_id, archived, protected; RETURN NULL; END '
        '$$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_deleted AFTER DELETE ON lore_lesson REFERENCING OLD TABLE AS lore_old_l'
        'essons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_deleted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_updated() RETURNS trigger LANGUAGE plpgsql SET jit = off AS'
        " $$ BEGIN IF current_setting('lore.lessons_counted', true) = statement_timestamp()::text THEN PERFORM se"
        "t_config('lore.lessons_counted', '', true); RETURN NULL; END IF; WITH moved AS MATERIALIZED (SELECT o.ac"
        'count_id AS o_account_id, o.archived_at IS NOT NULL AS o_archived, o.protected AS o_protected, o.scope A'
        'S o_scope, o.host AS o_host, o.kind AS o_kind, o.owner AS o_owner, o.source_agent AS o_source_agent, o.t'
        'rigger AS o_trigger, o.origin_repo AS o_origin_repo, o.origin_branch AS o_origin_branch, o.origin_pr AS '
        'o_origin_pr, o.read_count AS o_read_count, o.opened_count AS o_opened_count, o.seen_count AS o_seen_coun'
        't, o.created_at AS o_created_at, o.last_opened_at AS o_last_opened_at, w.account_id AS w_account_id, w.a'
        'rchived_at IS NOT NULL AS w_archived, w.protected AS w_protected, w.scope AS w_scope, w.host AS w_host, '
        'w.kind AS w_kind, w.owner AS w_owner, w.source_agent AS w_source_agent, w.trigger AS w_trigger, w.origin'
        '_repo AS w_origin_repo, w.origin_branch AS w_origin_branch, w.origin_pr AS w_origin_pr, w.read_count AS '
        'w_read_count, w.opened_count AS w_opened_count, w.seen_count AS w_seen_count, w.created_at AS w_created_'
        'at, w.last_opened_at AS w_last_opened_at FROM lore_old_lessons o JOIN lore_new_lessons w ON w.id = o.id '
        'WHERE (o.account_id, o.scope, o.host, o.kind, o.owner, o.source_agent, o.trigger, o.origin_repo, o.origi'
        'n_branch, o.origin_pr, o.read_count, o.opened_count, o.seen_count, o.created_at, o.last_opened_at, o.pro'
        'tected, o.archived_at IS NULL) IS DISTINCT FROM (w.account_id, w.scope, w.host, w.kind, w.owner, w.sourc'
        'e_agent, w.trigger, w.origin_repo, w.origin_branch, w.origin_pr, w.read_count, w.opened_count, w.seen_co'
        'unt, w.created_at, w.last_opened_at, w.protected, w.archived_at IS NULL)) , counted AS (INSERT INTO lore'
        '_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT account_id, dimension, ar'
        'chived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimension, value, archived, prote'
        "cted, sum(n) AS n FROM (SELECT o_account_id AS account_id, 'kind' AS dimension, o_kind AS value, o_archi"
        "ved AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_kind <> '' AND (o_"
        "kind, o_kind <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_kind, w_kind <> '', w_acc"
        "ount_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'host"
        "' AS dimension, o_host AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS"
        " n FROM moved WHERE o_host <> '' AND (o_host, o_host <> '', o_account_id, o_archived, o_protected) IS DI"
        "STINCT FROM (w_host, w_host <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL "
        "SELECT o_account_id AS account_id, 'owner' AS dimension, o_owner AS value, o_archived AS archived, o_pro"
        "tected AS protected, -count(*)::integer AS n FROM moved WHERE o_owner <> '' AND (o_owner, o_owner <> '',"
        " o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_owner, w_owner <> '', w_account_id, w_archiv"
        "ed, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'source_agent' AS dime"
        'nsion, o_source_agent AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS '
        "n FROM moved WHERE o_source_agent <> '' AND (o_source_agent, o_source_agent <> '', o_account_id, o_archi"
        "ved, o_protected) IS DISTINCT FROM (w_source_agent, w_source_agent <> '', w_account_id, w_archived, w_pr"
        "otected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'trigger' AS dimension, o_trig"
        'ger AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE'
        " o_trigger <> '' AND (o_trigger, o_trigger <> '', o_account_id, o_archived, o_protected) IS DISTINCT FRO"
        "M (w_trigger, w_trigger <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELE"
        "CT o_account_id AS account_id, 'origin_repo' AS dimension, o_origin_repo AS value, o_archived AS archive"
        "d, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_origin_repo <> '' AND (o_origin_"
        "repo, o_origin_repo <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_origin_repo, w_ori"
        "gin_repo <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id"
        " AS account_id, 'origin_branch' AS dimension, o_origin_branch AS value, o_archived AS archived, o_protec"
        "ted AS protected, -count(*)::integer AS n FROM moved WHERE o_origin_branch <> '' AND (o_origin_branch, o"
        "_origin_branch <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_origin_branch, w_origin"
        "_branch <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id "
        "AS account_id, 'origin_pr' AS dimension, o_origin_pr AS value, o_archived AS archived, o_protected AS pr"
        "otected, -count(*)::integer AS n FROM moved WHERE o_origin_pr <> '' AND (o_origin_pr, o_origin_pr <> '',"
        " o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_origin_pr, w_origin_pr <> '', w_account_id, "
        "w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'h:read_count'"
        ' AS dimension, o_read_count::text AS value, o_archived AS archived, o_protected AS protected, -count(*):'
        ':integer AS n FROM moved WHERE true AND (o_read_count::text, true, o_account_id, o_archived, o_protected'
        ') IS DISTINCT FROM (w_read_count::text, true, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5'
        " UNION ALL SELECT o_account_id AS account_id, 'h:opened_count' AS dimension, o_opened_count::text AS val"
        'ue, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE true AND '
        '(o_opened_count::text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_opened_count::te'
        'xt, true, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS ac'
        "count_id, 'h:seen_count' AS dimension, o_seen_count::text AS value, o_archived AS archived, o_protected "
        'AS protected, -count(*)::integer AS n FROM moved WHERE true AND (o_seen_count::text, true, o_account_id,'
        ' o_archived, o_protected) IS DISTINCT FROM (w_seen_count::text, true, w_account_id, w_archived, w_protec'
        "ted) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'h:created_day' AS dimension, ((o_"
        "created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, o_archived AS archived, o_prot"
        "ected AS protected, -count(*)::integer AS n FROM moved WHERE true AND (((o_created_at AT TIME ZONE 'UTC'"
        ")::date - DATE '1970-01-01')::text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (((w_c"
        "reated_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, true, w_account_id, w_archived, w_protec"
        "ted) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'h:last_open_day' AS dimension, (("
        "coalesce(o_last_opened_at, o_created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, "
        'o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE true AND (((c'
        "oalesce(o_last_opened_at, o_created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, true, o_ac"
        'count_id, o_archived, o_protected) IS DISTINCT FROM (((coalesce(w_last_opened_at, w_created_at) AT TIME '
        "ZONE 'UTC')::date - DATE '1970-01-01')::text, true, w_account_id, w_archived, w_protected) GROUP BY 1, 3"
        ", 4, 5 UNION ALL SELECT o_account_id AS account_id, 'h:never_opened_day' AS dimension, ((o_created_at AT"
        " TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, o_archived AS archived, o_protected AS prot"
        'ected, -count(*)::integer AS n FROM moved WHERE o_last_opened_at IS NULL AND (((o_created_at AT TIME ZON'
        "E 'UTC')::date - DATE '1970-01-01')::text, o_last_opened_at IS NULL, o_account_id, o_archived, o_protect"
        "ed) IS DISTINCT FROM (((w_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, w_last_opened"
        '_at IS NULL, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS'
        " account_id, 'kind' AS dimension, w_kind AS value, w_archived AS archived, w_protected AS protected, cou"
        "nt(*)::integer AS n FROM moved WHERE w_kind <> '' AND (o_kind, o_kind <> '', o_account_id, o_archived, o"
        "_protected) IS DISTINCT FROM (w_kind, w_kind <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3"
        ", 4, 5 UNION ALL SELECT w_account_id AS account_id, 'host' AS dimension, w_host AS value, w_archived AS "
        "archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_host <> '' AND (o_host, o_"
        "host <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_host, w_host <> '', w_account_id,"
        " w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'owner' AS di"
        'mension, w_owner AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM'
        " moved WHERE w_owner <> '' AND (o_owner, o_owner <> '', o_account_id, o_archived, o_protected) IS DISTIN"
        "CT FROM (w_owner, w_owner <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SE"
        "LECT w_account_id AS account_id, 'source_agent' AS dimension, w_source_agent AS value, w_archived AS arc"
        "hived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_source_agent <> '' AND (o_sou"
        "rce_agent, o_source_agent <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_source_agent"
        ", w_source_agent <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_ac"
        "count_id AS account_id, 'trigger' AS dimension, w_trigger AS value, w_archived AS archived, w_protected "
        "AS protected, count(*)::integer AS n FROM moved WHERE w_trigger <> '' AND (o_trigger, o_trigger <> '', o"
        "_account_id, o_archived, o_protected) IS DISTINCT FROM (w_trigger, w_trigger <> '', w_account_id, w_arch"
        "ived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'origin_repo' AS dim"
        'ension, w_origin_repo AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n'
        " FROM moved WHERE w_origin_repo <> '' AND (o_origin_repo, o_origin_repo <> '', o_account_id, o_archived,"
        " o_protected) IS DISTINCT FROM (w_origin_repo, w_origin_repo <> '', w_account_id, w_archived, w_protecte"
        "d) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'origin_branch' AS dimension, w_orig"
        'in_branch AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved '
        "WHERE w_origin_branch <> '' AND (o_origin_branch, o_origin_branch <> '', o_account_id, o_archived, o_pro"
        "tected) IS DISTINCT FROM (w_origin_branch, w_origin_branch <> '', w_account_id, w_archived, w_protected)"
        " GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'origin_pr' AS dimension, w_origin_pr "
        'AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_or'
        "igin_pr <> '' AND (o_origin_pr, o_origin_pr <> '', o_account_id, o_archived, o_protected) IS DISTINCT FR"
        "OM (w_origin_pr, w_origin_pr <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL"
        " SELECT w_account_id AS account_id, 'h:read_count' AS dimension, w_read_count::text AS value, w_archived"
        ' AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE true AND (o_read_count::'
        'text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_read_count::text, true, w_account'
        "_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'h:opened"
        "_count' AS dimension, w_opened_count::text AS value, w_archived AS archived, w_protected AS protected, c"
        'ount(*)::integer AS n FROM moved WHERE true AND (o_opened_count::text, true, o_account_id, o_archived, o'
        '_protected) IS DISTINCT FROM (w_opened_count::text, true, w_account_id, w_archived, w_protected) GROUP B'
        "Y 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'h:seen_count' AS dimension, w_seen_count::tex"
        't AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE tr'
        'ue AND (o_seen_count::text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_seen_count:'
        ':text, true, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS'
        " account_id, 'h:created_day' AS dimension, ((w_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')"
        '::text AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHE'
        "RE true AND (((o_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, true, o_account_id, o_"
        "archived, o_protected) IS DISTINCT FROM (((w_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::"
        'text, true, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS '
        "account_id, 'h:last_open_day' AS dimension, ((coalesce(w_last_opened_at, w_created_at) AT TIME ZONE 'UTC"
        "')::date - DATE '1970-01-01')::text AS value, w_archived AS archived, w_protected AS protected, count(*)"
        "::integer AS n FROM moved WHERE true AND (((coalesce(o_last_opened_at, o_created_at) AT TIME ZONE 'UTC')"
        "::date - DATE '1970-01-01')::text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (((coal"
        "esce(w_last_opened_at, w_created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, true, w_accou"
        "nt_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'h:neve"
        "r_opened_day' AS dimension, ((w_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value"
        ', w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_last_opene'
        "d_at IS NULL AND (((o_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, o_last_opened_at "
        "IS NULL, o_account_id, o_archived, o_protected) IS DISTINCT FROM (((w_created_at AT TIME ZONE 'UTC')::da"
        "te - DATE '1970-01-01')::text, w_last_opened_at IS NULL, w_account_id, w_archived, w_protected) GROUP BY"
        ' 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0) AS '
        'summed GROUP BY account_id, dimension, archived, protected RETURNING 1) INSERT INTO lore_lessoncountchan'
        "ge (account_id, dimension, archived, protected, counts) SELECT account_id, '', archived, protected, json"
        'b_agg(jsonb_build_array(scope, host, kind, n)) FROM (SELECT account_id, scope, host, kind, archived, pro'
        'tected, sum(n) AS n FROM (SELECT o_account_id AS account_id, o_scope AS scope, o_host AS host, o_kind AS'
        ' kind, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE (o_acc'
        'ount_id, o_scope, o_host, o_kind, o_archived, o_protected) IS DISTINCT FROM (w_account_id, w_scope, w_ho'
        'st, w_kind, w_archived, w_protected) GROUP BY 1, 2, 3, 4, 5, 6 UNION ALL SELECT w_account_id AS account_'
        'id, w_scope AS scope, w_host AS host, w_kind AS kind, w_archived AS archived, w_protected AS protected, '
        'count(*)::integer AS n FROM moved WHERE (o_account_id, o_scope, o_host, o_kind, o_archived, o_protected)'
        ' IS DISTINCT FROM (w_account_id, w_scope, w_host, w_kind, w_archived, w_protected) GROUP BY 1, 2, 3, 4, '
        '5, 6) AS delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0) AS summed'
        ' GROUP BY account_id, archived, protected; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_updated AFTER UPDATE ON lore_lesson REFERENCING OLD TABLE AS lore_old_l'
        'essons NEW TABLE AS lore_new_lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_updated()'
    ),
    (
        'CREATE OR REPLACE VIEW lore_lessonvaluecount_all AS SELECT id, account_id, dimension, value, archived, p'
        'rotected, n FROM lore_lessonvaluecount UNION ALL SELECT -c.id, c.account_id, c.dimension, e.key, c.archi'
        'ved, c.protected, e.value::bigint FROM lore_lessoncountchange c CROSS JOIN LATERAL jsonb_each_text(c.cou'
        "nts) AS e WHERE c.dimension <> ''"
    ),
    (
        'CREATE OR REPLACE VIEW lore_lessonpagecount_all AS SELECT id, account_id, scope, host, kind, archived, p'
        'rotected, n FROM lore_lessonpagecount UNION ALL SELECT -c.id, c.account_id, e->>0, e->>1, e->>2, c.archi'
        'ved, c.protected, (e->>3)::bigint FROM lore_lessoncountchange c CROSS JOIN LATERAL jsonb_array_elements('
        "c.counts) AS e WHERE c.dimension = ''"
    ),
    (
        'DELETE FROM lore_lessoncountchange'
    ),
    (
        'DELETE FROM lore_lessonvaluecount'
    ),
    (
        'INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT account_'
        "id, dimension, value, archived, protected, sum(n) FROM (SELECT account_id AS account_id, 'kind' AS dimen"
        'sion, kind AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT a'
        'ccount_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigg'
        'er, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened'
        "_at FROM lore_lesson) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_i"
        "d, 'host' AS dimension, host AS value, archived AS archived, protected AS protected, count(*)::integer A"
        'S n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, s'
        'ource_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, creat'
        "ed_at, last_opened_at FROM lore_lesson) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT accou"
        "nt_id AS account_id, 'owner' AS dimension, owner AS value, archived AS archived, protected AS protected,"
        ' count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, '
        'host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_coun'
        "t, seen_count, created_at, last_opened_at FROM lore_lesson) AS s WHERE owner <> '' GROUP BY 1, 3, 4, 5 U"
        "NION ALL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, archived A"
        'S archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT N'
        'ULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch,'
        ' origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_lesson) AS s WHER'
        "E source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'trigger' AS dimensi"
        'on, trigger AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT '
        'account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trig'
        'ger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opene'
        "d_at FROM lore_lesson) AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS accou"
        "nt_id, 'origin_repo' AS dimension, origin_repo AS value, archived AS archived, protected AS protected, c"
        'ount(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, ho'
        'st, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count,'
        " seen_count, created_at, last_opened_at FROM lore_lesson) AS s WHERE origin_repo <> '' GROUP BY 1, 3, 4,"
        " 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, origin_branch AS value, arch"
        'ived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS'
        ' NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_b'
        'ranch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_lesson) AS '
        "s WHERE origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr' A"
        'S dimension, origin_pr AS value, archived AS archived, protected AS protected, count(*)::integer AS n FR'
        'OM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_'
        'agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at,'
        " last_opened_at FROM lore_lesson) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT accoun"
        "t_id AS account_id, 'h:read_count' AS dimension, read_count::text AS value, archived AS archived, protec"
        'ted AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, p'
        'rotected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_c'
        'ount, opened_count, seen_count, created_at, last_opened_at FROM lore_lesson) AS s WHERE true GROUP BY 1,'
        " 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:opened_count' AS dimension, opened_count::text AS"
        ' value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, ar'
        'chived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_re'
        'po, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore'
        "_lesson) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:seen_count' A"
        'S dimension, seen_count::text AS value, archived AS archived, protected AS protected, count(*)::integer '
        'AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, '
        'source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, crea'
        'ted_at, last_opened_at FROM lore_lesson) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id'
        " AS account_id, 'h:created_day' AS dimension, ((created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01'"
        ')::text AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT acco'
        'unt_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger,'
        ' origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at'
        " FROM lore_lesson) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:las"
        "t_open_day' AS dimension, ((coalesce(last_opened_at, created_at) AT TIME ZONE 'UTC')::date - DATE '1970-"
        "01-01')::text AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELEC"
        'T account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, tr'
        'igger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_ope'
        'ned_at FROM lore_lesson) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, '
        "'h:never_opened_day' AS dimension, ((created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS "
        'value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, arc'
        'hived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_rep'
        'o, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_'
        'lesson) AS s WHERE last_opened_at IS NULL GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, '
        'value, archived, protected HAVING sum(n) <> 0'
    ),
    (
        'DELETE FROM lore_lessonpagecount'
    ),
    (
        'INSERT INTO lore_lessonpagecount (account_id, scope, host, kind, archived, protected, n) SELECT account_'
        'id, scope, host, kind, archived, protected, sum(n) FROM (SELECT account_id AS account_id, scope AS scope'
        ', host AS host, kind AS kind, archived AS archived, protected AS protected, count(*)::integer AS n FROM '
        '(SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_age'
        'nt, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, la'
        'st_opened_at FROM lore_lesson) AS s GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY account_id, scope, host'
        ', kind, archived, protected HAVING sum(n) <> 0'
    ),
]
INSTALL_0029 = [
    (
        'DROP TRIGGER IF EXISTS lore_value_counts_inserted ON lore_lesson'
    ),
    (
        'DROP FUNCTION IF EXISTS lore_value_counts_inserted()'
    ),
    (
        'DROP TRIGGER IF EXISTS lore_value_counts_deleted ON lore_lesson'
    ),
    (
        'DROP FUNCTION IF EXISTS lore_value_counts_deleted()'
    ),
    (
        'DROP TRIGGER IF EXISTS lore_value_counts_updated ON lore_lesson'
    ),
    (
        'DROP FUNCTION IF EXISTS lore_value_counts_updated()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INS'
        'ERT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT account_id, '
        'dimension, archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimension, value, ar'
        "chived, protected, sum(n) AS n FROM (SELECT account_id AS account_id, 'kind' AS dimension, kind AS value"
        ', archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived'
        '_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, or'
        "igin_branch, origin_pr FROM lore_new_lessons) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT"
        " account_id AS account_id, 'host' AS dimension, host AS value, archived AS archived, protected AS protec"
        'ted, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, sco'
        'pe, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lesson'
        "s) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'owner' AS dimen"
        'sion, owner AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT '
        'account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trig'
        "ger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE owner <> '' GROUP BY 1, 3, "
        "4, 5 UNION ALL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, arch"
        'ived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS'
        ' NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_b'
        "ranch, origin_pr FROM lore_new_lessons) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELE"
        "CT account_id AS account_id, 'trigger' AS dimension, trigger AS value, archived AS archived, protected A"
        'S protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protec'
        'ted, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_ne'
        "w_lessons) AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'orig"
        "in_repo' AS dimension, origin_repo AS value, archived AS archived, protected AS protected, count(*)::int"
        'eger AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, ow'
        'ner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE orig'
        "in_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dimensio"
        'n, origin_branch AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SE'
        'LECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent,'
        " trigger, origin_repo, origin_branch, origin_pr FROM lore_new_lessons) AS s WHERE origin_branch <> '' GR"
        "OUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr' AS dimension, origin_pr AS valu"
        'e, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archive'
        'd_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, o'
        "rigin_branch, origin_pr FROM lore_new_lessons) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5) AS delta "
        'GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY accoun'
        't_id, dimension, archived, protected; INSERT INTO lore_lessoncountchange (account_id, dimension, archive'
        "d, protected, counts) SELECT account_id, '', archived, protected, jsonb_agg(jsonb_build_array(scope, hos"
        't, kind, n)) FROM (SELECT account_id, scope, host, kind, archived, protected, sum(n) AS n FROM (SELECT a'
        'ccount_id AS account_id, scope AS scope, host AS host, kind AS kind, archived AS archived, protected AS '
        'protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protecte'
        'd, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_new_'
        'lessons) AS s GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY account_id, scope, host, kind, archived, prot'
        'ected HAVING sum(n) <> 0) AS summed GROUP BY account_id, archived, protected; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_inserted AFTER INSERT ON lore_lesson REFERENCING NEW TABLE AS lore_new_'
        'lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_inserted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSE'
        'RT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT account_id, d'
        'imension, archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimension, value, arc'
        "hived, protected, sum(n) AS n FROM (SELECT account_id AS account_id, 'kind' AS dimension, kind AS value,"
        ' archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived'
        '_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, or'
        "igin_branch, origin_pr FROM lore_old_lessons) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT"
        " account_id AS account_id, 'host' AS dimension, host AS value, archived AS archived, protected AS protec"
        'ted, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, sc'
        'ope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lesso'
        "ns) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'owner' AS dime"
        'nsion, owner AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELEC'
        'T account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, tr'
        "igger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE owner <> '' GROUP BY 1, 3"
        ", 4, 5 UNION ALL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, ar"
        'chived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at'
        ' IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origi'
        "n_branch, origin_pr FROM lore_old_lessons) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL S"
        "ELECT account_id AS account_id, 'trigger' AS dimension, trigger AS value, archived AS archived, protecte"
        'd AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, pr'
        'otected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lor'
        "e_old_lessons) AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, '"
        "origin_repo' AS dimension, origin_repo AS value, archived AS archived, protected AS protected, -count(*)"
        '::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kin'
        'd, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE'
        " origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dim"
        'ension, origin_branch AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FR'
        'OM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_'
        'agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE origin_branch <>'
        " '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr' AS dimension, origin_pr A"
        'S value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, '
        'archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_'
        "repo, origin_branch, origin_pr FROM lore_old_lessons) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5) AS"
        ' delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY'
        ' account_id, dimension, archived, protected; INSERT INTO lore_lessoncountchange (account_id, dimension, '
        "archived, protected, counts) SELECT account_id, '', archived, protected, jsonb_agg(jsonb_build_array(sco"
        'pe, host, kind, n)) FROM (SELECT account_id, scope, host, kind, archived, protected, sum(n) AS n FROM (S'
        'ELECT account_id AS account_id, scope AS scope, host AS host, kind AS kind, archived AS archived, protec'
        'ted AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, '
        'protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM l'
        'ore_old_lessons) AS s GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY account_id, scope, host, kind, archiv'
        'ed, protected HAVING sum(n) <> 0) AS summed GROUP BY account_id, archived, protected; RETURN NULL; END $'
        '$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_deleted AFTER DELETE ON lore_lesson REFERENCING OLD TABLE AS lore_old_l'
        'essons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_deleted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF c'
        "urrent_setting('lore.lessons_counted', true) = statement_timestamp()::text THEN PERFORM set_config('lore"
        ".lessons_counted', '', true); RETURN NULL; END IF; WITH moved AS MATERIALIZED (SELECT o.account_id AS o_"
        'account_id, o.archived_at IS NOT NULL AS o_archived, o.protected AS o_protected, o.scope AS o_scope, o.h'
        'ost AS o_host, o.kind AS o_kind, o.owner AS o_owner, o.source_agent AS o_source_agent, o.trigger AS o_tr'
        'igger, o.origin_repo AS o_origin_repo, o.origin_branch AS o_origin_branch, o.origin_pr AS o_origin_pr, w'
        '.account_id AS w_account_id, w.archived_at IS NOT NULL AS w_archived, w.protected AS w_protected, w.scop'
        'e AS w_scope, w.host AS w_host, w.kind AS w_kind, w.owner AS w_owner, w.source_agent AS w_source_agent, '
        'w.trigger AS w_trigger, w.origin_repo AS w_origin_repo, w.origin_branch AS w_origin_branch, w.origin_pr '
        'AS w_origin_pr FROM lore_old_lessons o JOIN lore_new_lessons w ON w.id = o.id WHERE (o.account_id, o.sco'
        'pe, o.host, o.kind, o.owner, o.source_agent, o.trigger, o.origin_repo, o.origin_branch, o.origin_pr, o.p'
        'rotected, o.archived_at IS NULL) IS DISTINCT FROM (w.account_id, w.scope, w.host, w.kind, w.owner, w.sou'
        'rce_agent, w.trigger, w.origin_repo, w.origin_branch, w.origin_pr, w.protected, w.archived_at IS NULL)) '
        ', counted AS (INSERT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SE'
        'LECT account_id, dimension, archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dim'
        "ension, value, archived, protected, sum(n) AS n FROM (SELECT o_account_id AS account_id, 'kind' AS dimen"
        'sion, o_kind AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM mo'
        "ved WHERE o_kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'host' AS dimens"
        'ion, o_host AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM mov'
        "ed WHERE o_host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'owner' AS dimens"
        'ion, o_owner AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM mo'
        "ved WHERE o_owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'source_agent' "
        'AS dimension, o_source_agent AS value, o_archived AS archived, o_protected AS protected, -count(*)::inte'
        "ger AS n FROM moved WHERE o_source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS acco"
        "unt_id, 'trigger' AS dimension, o_trigger AS value, o_archived AS archived, o_protected AS protected, -c"
        "ount(*)::integer AS n FROM moved WHERE o_trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id"
        " AS account_id, 'origin_repo' AS dimension, o_origin_repo AS value, o_archived AS archived, o_protected "
        "AS protected, -count(*)::integer AS n FROM moved WHERE o_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL"
        " SELECT o_account_id AS account_id, 'origin_branch' AS dimension, o_origin_branch AS value, o_archived A"
        "S archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_origin_branch <> '' GRO"
        "UP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_pr' AS dimension, o_origin_pr AS v"
        'alue, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_origi'
        "n_pr <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'kind' AS dimension, w_kind "
        'AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_ki'
        "nd <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'host' AS dimension, w_host AS"
        ' value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_host'
        " <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'owner' AS dimension, w_owner AS"
        ' value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_owne'
        "r <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'source_agent' AS dimension, w_"
        'source_agent AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM mov'
        "ed WHERE w_source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'trigger'"
        ' AS dimension, w_trigger AS value, w_archived AS archived, w_protected AS protected, count(*)::integer A'
        "S n FROM moved WHERE w_trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'o"
        "rigin_repo' AS dimension, w_origin_repo AS value, w_archived AS archived, w_protected AS protected, coun"
        "t(*)::integer AS n FROM moved WHERE w_origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_i"
        "d AS account_id, 'origin_branch' AS dimension, w_origin_branch AS value, w_archived AS archived, w_prote"
        "cted AS protected, count(*)::integer AS n FROM moved WHERE w_origin_branch <> '' GROUP BY 1, 3, 4, 5 UNI"
        "ON ALL SELECT w_account_id AS account_id, 'origin_pr' AS dimension, w_origin_pr AS value, w_archived AS "
        "archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_origin_pr <> '' GROUP BY 1"
        ', 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0) AS su'
        'mmed GROUP BY account_id, dimension, archived, protected RETURNING 1) INSERT INTO lore_lessoncountchange'
        " (account_id, dimension, archived, protected, counts) SELECT account_id, '', archived, protected, jsonb_"
        'agg(jsonb_build_array(scope, host, kind, n)) FROM (SELECT account_id, scope, host, kind, archived, prote'
        'cted, sum(n) AS n FROM (SELECT o_account_id AS account_id, o_scope AS scope, o_host AS host, o_kind AS k'
        'ind, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved GROUP BY 1, 2,'
        ' 3, 4, 5, 6 UNION ALL SELECT w_account_id AS account_id, w_scope AS scope, w_host AS host, w_kind AS kin'
        'd, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved GROUP BY 1, 2, 3,'
        ' 4, 5, 6) AS delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0) AS su'
        'mmed GROUP BY account_id, archived, protected; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_updated AFTER UPDATE ON lore_lesson REFERENCING OLD TABLE AS lore_old_l'
        'essons NEW TABLE AS lore_new_lessons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_updated()'
    ),
    (
        'CREATE OR REPLACE VIEW lore_lessonvaluecount_all AS SELECT id, account_id, dimension, value, archived, p'
        'rotected, n FROM lore_lessonvaluecount UNION ALL SELECT -c.id, c.account_id, c.dimension, e.key, c.archi'
        'ved, c.protected, e.value::bigint FROM lore_lessoncountchange c CROSS JOIN LATERAL jsonb_each_text(c.cou'
        "nts) AS e WHERE c.dimension <> ''"
    ),
    (
        'CREATE OR REPLACE VIEW lore_lessonpagecount_all AS SELECT id, account_id, scope, host, kind, archived, p'
        'rotected, n FROM lore_lessonpagecount UNION ALL SELECT -c.id, c.account_id, e->>0, e->>1, e->>2, c.archi'
        'ved, c.protected, (e->>3)::bigint FROM lore_lessoncountchange c CROSS JOIN LATERAL jsonb_array_elements('
        "c.counts) AS e WHERE c.dimension = ''"
    ),
    (
        'DELETE FROM lore_lessoncountchange'
    ),
    (
        'DELETE FROM lore_lessonvaluecount'
    ),
    (
        'INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT account_'
        "id, dimension, value, archived, protected, sum(n) FROM (SELECT account_id AS account_id, 'kind' AS dimen"
        'sion, kind AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT a'
        'ccount_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigg'
        "er, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UN"
        "ION ALL SELECT account_id AS account_id, 'host' AS dimension, host AS value, archived AS archived, prote"
        'cted AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, '
        'protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM l'
        "ore_lesson) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'owner'"
        ' AS dimension, owner AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM'
        ' (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_ag'
        "ent, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE owner <> '' GROUP BY 1,"
        " 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, "
        'archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_a'
        't IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, orig'
        "in_branch, origin_pr FROM lore_lesson) AS s WHERE source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELEC"
        "T account_id AS account_id, 'trigger' AS dimension, trigger AS value, archived AS archived, protected AS"
        ' protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protect'
        'ed, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_les'
        "son) AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_rep"
        "o' AS dimension, origin_repo AS value, archived AS archived, protected AS protected, count(*)::integer A"
        'S n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, s'
        'ource_agent, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE origin_repo <> '
        "'' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, origin_b"
        'ranch AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT accoun'
        't_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, o'
        "rigin_repo, origin_branch, origin_pr FROM lore_lesson) AS s WHERE origin_branch <> '' GROUP BY 1, 3, 4, "
        "5 UNION ALL SELECT account_id AS account_id, 'origin_pr' AS dimension, origin_pr AS value, archived AS a"
        'rchived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL'
        ' AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, or'
        "igin_pr FROM lore_lesson) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5) AS delta GROUP BY account_id, "
        'dimension, value, archived, protected HAVING sum(n) <> 0'
    ),
    (
        'DELETE FROM lore_lessonpagecount'
    ),
    (
        'INSERT INTO lore_lessonpagecount (account_id, scope, host, kind, archived, protected, n) SELECT account_'
        'id, scope, host, kind, archived, protected, sum(n) FROM (SELECT account_id AS account_id, scope AS scope'
        ', host AS host, kind AS kind, archived AS archived, protected AS protected, count(*)::integer AS n FROM '
        '(SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_age'
        'nt, trigger, origin_repo, origin_branch, origin_pr FROM lore_lesson) AS s GROUP BY 1, 2, 3, 4, 5, 6) AS '
        'delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0'
    ),
]

# fmt: on


def _run(statements):  # noqa: ANN001, ANN202
    def run(apps, schema_editor):  # noqa: ANN001, ANN202
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("lore", "0030_resign_bands_by_wording")]

    operations = [migrations.RunPython(_run(INSTALL), _run(INSTALL_0029))]
