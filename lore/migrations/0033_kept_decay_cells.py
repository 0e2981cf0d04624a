"""Issue 28, part 1: the decay score's histogram over the whole store, kept. The triggers also count the lessons
per decay cell ("h:decay_cell": (1 + Chosen) × Recurrence and the UTC day of the last agent open, the two things a
lesson's score depends on), and the index lesson_decay_cells finds the active, unpinned lessons of one cell, so
that the cells an edge crosses are counted from the lessons (lore.bins.kept_decay_distribution). The trigger SQL is
written out as `lore.value_counts.install_sql()` generated it the day this was written, and recounts the lessons
already stored; undone, the functions of 0031 come back and the counts are recounted without the cells. The cells
are counted for the active, unpinned lessons only, the ones their reader reads.
PostgreSQL only, like the triggers."""

import importlib

import django.db.models.expressions
import django.db.models.functions.comparison
from django.db import migrations, models


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
        'CREATE OR REPLACE FUNCTION lore_value_counts_inserted() RETURNS trigger LANGUAGE plpgsql SET jit = off AS'
        ' $$ BEGIN INSERT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT '
        'account_id, dimension, archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimension'
        ", value, archived, protected, sum(n) AS n FROM (SELECT account_id AS account_id, 'kind' AS dimension, kin"
        'd AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id,'
        ' archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_'
        'repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lor'
        "e_new_lessons) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'host"
        "' AS dimension, host AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM "
        '(SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agen'
        't, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last'
        "_opened_at FROM lore_new_lessons) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id A"
        "S account_id, 'owner' AS dimension, owner AS value, archived AS archived, protected AS protected, count(*"
        ')::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kin'
        'd, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_co'
        "unt, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION A"
        "LL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, archived AS archi"
        'ved, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS a'
        'rchived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_p'
        'r, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE sou'
        "rce_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'trigger' AS dimension, tr"
        'igger AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account'
        '_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, ori'
        'gin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM'
        " lore_new_lessons) AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id"
        ", 'origin_repo' AS dimension, origin_repo AS value, archived AS archived, protected AS protected, count(*"
        ')::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kin'
        'd, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_co'
        "unt, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE origin_repo <> '' GROUP BY 1, 3, 4, 5 U"
        "NION ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, origin_branch AS value, archived "
        'AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT N'
        'ULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, '
        'origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s W'
        "HERE origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr' AS di"
        'mension, origin_pr AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (S'
        'ELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent,'
        ' trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_o'
        "pened_at FROM lore_new_lessons) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_i"
        "d AS account_id, 'h:read_count' AS dimension, read_count::text AS value, archived AS archived, protected "
        'AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protec'
        'ted, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, '
        'opened_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s WHERE true GROUP BY 1, 3'
        ", 4, 5 UNION ALL SELECT account_id AS account_id, 'h:opened_count' AS dimension, opened_count::text AS va"
        'lue, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archiv'
        'ed_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, o'
        'rigin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_l'
        "essons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:seen_count' AS "
        'dimension, seen_count::text AS value, archived AS archived, protected AS protected, count(*)::integer AS '
        'n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, sour'
        'ce_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_a'
        't, last_opened_at FROM lore_new_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id '
        "AS account_id, 'h:created_day' AS dimension, ((created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01'):"
        ':text AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account'
        '_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, ori'
        'gin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM'
        " lore_new_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:last"
        "_open_day' AS dimension, ((coalesce(last_opened_at, created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01"
        "-01')::text AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT a"
        'ccount_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigge'
        'r, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_a'
        "t FROM lore_new_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, '"
        "h:never_opened_day' AS dimension, ((created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS va"
        'lue, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archiv'
        'ed_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, o'
        'rigin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_l'
        'essons) AS s WHERE last_opened_at IS NULL GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, '
        "'h:decay_cell' AS dimension, ((opened_count::bigint + 1) * greatest(seen_count, 1))::text || ':' || ((coa"
        "lesce(last_opened_at, created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, archived"
        ' AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT '
        'NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch,'
        ' origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_new_lessons) AS s '
        'WHERE true AND NOT protected AND NOT archived AND NOT protected GROUP BY 1, 3, 4, 5) AS delta GROUP BY ac'
        'count_id, dimension, value, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY account_id, dimens'
        'ion, archived, protected; INSERT INTO lore_lessoncountchange (account_id, dimension, archived, protected,'
        " counts) SELECT account_id, '', archived, protected, jsonb_agg(jsonb_build_array(scope, host, kind, n)) F"
        'ROM (SELECT account_id, scope, host, kind, archived, protected, sum(n) AS n FROM (SELECT account_id AS ac'
        'count_id, scope AS scope, host AS host, kind AS kind, archived AS archived, protected AS protected, count'
        '(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, k'
        'ind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_'
        'count, created_at, last_opened_at FROM lore_new_lessons) AS s GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP B'
        'Y account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY account_id, a'
        'rchived, protected; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_inserted AFTER INSERT ON lore_lesson REFERENCING NEW TABLE AS lore_new_l'
        'essons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_inserted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_deleted() RETURNS trigger LANGUAGE plpgsql SET jit = off AS '
        '$$ BEGIN INSERT INTO lore_lessoncountchange (account_id, dimension, archived, protected, counts) SELECT a'
        'ccount_id, dimension, archived, protected, jsonb_object_agg(value, n) FROM (SELECT account_id, dimension,'
        " value, archived, protected, sum(n) AS n FROM (SELECT account_id AS account_id, 'kind' AS dimension, kind"
        ' AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id,'
        ' archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_'
        'repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lor'
        "e_old_lessons) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'host"
        "' AS dimension, host AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM"
        ' (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_age'
        'nt, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, las'
        "t_opened_at FROM lore_old_lessons) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id "
        "AS account_id, 'owner' AS dimension, owner AS value, archived AS archived, protected AS protected, -count"
        '(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, k'
        'ind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_'
        "count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION"
        " ALL SELECT account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, archived AS arc"
        'hived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL A'
        'S archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origi'
        'n_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE '
        "source_agent <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'trigger' AS dimension,"
        ' trigger AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT acc'
        'ount_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger,'
        ' origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at '
        "FROM lore_old_lessons) AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS accoun"
        "t_id, 'origin_repo' AS dimension, origin_repo AS value, archived AS archived, protected AS protected, -co"
        'unt(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host'
        ', kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, se'
        "en_count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE origin_repo <> '' GROUP BY 1, 3, 4"
        ", 5 UNION ALL SELECT account_id AS account_id, 'origin_branch' AS dimension, origin_branch AS value, arch"
        'ived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS'
        ' NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_br'
        'anch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) '
        "AS s WHERE origin_branch <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr'"
        ' AS dimension, origin_pr AS value, archived AS archived, protected AS protected, -count(*)::integer AS n '
        'FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source'
        '_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at,'
        " last_opened_at FROM lore_old_lessons) AS s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT ac"
        "count_id AS account_id, 'h:read_count' AS dimension, read_count::text AS value, archived AS archived, pro"
        'tected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived'
        ', protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read'
        '_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s WHERE true GROUP'
        " BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:opened_count' AS dimension, opened_count::te"
        'xt AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_i'
        'd, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origi'
        'n_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM l'
        "ore_old_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:seen_c"
        "ount' AS dimension, seen_count::text AS value, archived AS archived, protected AS protected, -count(*)::i"
        'nteger AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, o'
        'wner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count,'
        ' created_at, last_opened_at FROM lore_old_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT a'
        "ccount_id AS account_id, 'h:created_day' AS dimension, ((created_at AT TIME ZONE 'UTC')::date - DATE '197"
        "0-01-01')::text AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SEL"
        'ECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, t'
        'rigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_ope'
        'ned_at FROM lore_old_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_'
        "id, 'h:last_open_day' AS dimension, ((coalesce(last_opened_at, created_at) AT TIME ZONE 'UTC')::date - DA"
        "TE '1970-01-01')::text AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FR"
        'OM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_a'
        'gent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, l'
        'ast_opened_at FROM lore_old_lessons) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS a'
        "ccount_id, 'h:never_opened_day' AS dimension, ((created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')"
        '::text AS value, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT accou'
        'nt_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, o'
        'rigin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FR'
        'OM lore_old_lessons) AS s WHERE last_opened_at IS NULL GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS'
        " account_id, 'h:decay_cell' AS dimension, ((opened_count::bigint + 1) * greatest(seen_count, 1))::text ||"
        " ':' || ((coalesce(last_opened_at, created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS va"
        'lue, archived AS archived, protected AS protected, -count(*)::integer AS n FROM (SELECT account_id, archi'
        'ved_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, '
        'origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_old_'
        'lessons) AS s WHERE true AND NOT protected AND NOT archived AND NOT protected GROUP BY 1, 3, 4, 5) AS del'
        'ta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY acco'
        'unt_id, dimension, archived, protected; INSERT INTO lore_lessoncountchange (account_id, dimension, archiv'
        "ed, protected, counts) SELECT account_id, '', archived, protected, jsonb_agg(jsonb_build_array(scope, hos"
        't, kind, n)) FROM (SELECT account_id, scope, host, kind, archived, protected, sum(n) AS n FROM (SELECT ac'
        'count_id AS account_id, scope AS scope, host AS host, kind AS kind, archived AS archived, protected AS pr'
        'otected, -count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected,'
        ' scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, open'
        'ed_count, seen_count, created_at, last_opened_at FROM lore_old_lessons) AS s GROUP BY 1, 2, 3, 4, 5, 6) A'
        'S delta GROUP BY account_id, scope, host, kind, archived, protected HAVING sum(n) <> 0) AS summed GROUP B'
        'Y account_id, archived, protected; RETURN NULL; END $$;'
    ),
    (
        'CREATE TRIGGER lore_value_counts_deleted AFTER DELETE ON lore_lesson REFERENCING OLD TABLE AS lore_old_le'
        'ssons FOR EACH STATEMENT EXECUTE FUNCTION lore_value_counts_deleted()'
    ),
    (
        'CREATE OR REPLACE FUNCTION lore_value_counts_updated() RETURNS trigger LANGUAGE plpgsql SET jit = off AS '
        "$$ BEGIN IF current_setting('lore.lessons_counted', true) = statement_timestamp()::text THEN PERFORM set_"
        "config('lore.lessons_counted', '', true); RETURN NULL; END IF; WITH moved AS MATERIALIZED (SELECT o.accou"
        'nt_id AS o_account_id, o.archived_at IS NOT NULL AS o_archived, o.protected AS o_protected, o.scope AS o_'
        'scope, o.host AS o_host, o.kind AS o_kind, o.owner AS o_owner, o.source_agent AS o_source_agent, o.trigge'
        'r AS o_trigger, o.origin_repo AS o_origin_repo, o.origin_branch AS o_origin_branch, o.origin_pr AS o_orig'
        'in_pr, o.read_count AS o_read_count, o.opened_count AS o_opened_count, o.seen_count AS o_seen_count, o.cr'
        'eated_at AS o_created_at, o.last_opened_at AS o_last_opened_at, w.account_id AS w_account_id, w.archived_'
        'at IS NOT NULL AS w_archived, w.protected AS w_protected, w.scope AS w_scope, w.host AS w_host, w.kind AS'
        ' w_kind, w.owner AS w_owner, w.source_agent AS w_source_agent, w.trigger AS w_trigger, w.origin_repo AS w'
        '_origin_repo, w.origin_branch AS w_origin_branch, w.origin_pr AS w_origin_pr, w.read_count AS w_read_coun'
        't, w.opened_count AS w_opened_count, w.seen_count AS w_seen_count, w.created_at AS w_created_at, w.last_o'
        'pened_at AS w_last_opened_at FROM lore_old_lessons o JOIN lore_new_lessons w ON w.id = o.id WHERE (o.acco'
        'unt_id, o.scope, o.host, o.kind, o.owner, o.source_agent, o.trigger, o.origin_repo, o.origin_branch, o.or'
        'igin_pr, o.read_count, o.opened_count, o.seen_count, o.created_at, o.last_opened_at, o.protected, o.archi'
        'ved_at IS NULL) IS DISTINCT FROM (w.account_id, w.scope, w.host, w.kind, w.owner, w.source_agent, w.trigg'
        'er, w.origin_repo, w.origin_branch, w.origin_pr, w.read_count, w.opened_count, w.seen_count, w.created_at'
        ', w.last_opened_at, w.protected, w.archived_at IS NULL)) , counted AS (INSERT INTO lore_lessoncountchange'
        ' (account_id, dimension, archived, protected, counts) SELECT account_id, dimension, archived, protected, '
        'jsonb_object_agg(value, n) FROM (SELECT account_id, dimension, value, archived, protected, sum(n) AS n FR'
        "OM (SELECT o_account_id AS account_id, 'kind' AS dimension, o_kind AS value, o_archived AS archived, o_pr"
        "otected AS protected, -count(*)::integer AS n FROM moved WHERE o_kind <> '' AND (o_kind, o_kind <> '', o_"
        "account_id, o_archived, o_protected) IS DISTINCT FROM (w_kind, w_kind <> '', w_account_id, w_archived, w_"
        "protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'host' AS dimension, o_host A"
        'S value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_hos'
        "t <> '' AND (o_host, o_host <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_host, w_hos"
        "t <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS acco"
        "unt_id, 'owner' AS dimension, o_owner AS value, o_archived AS archived, o_protected AS protected, -count("
        "*)::integer AS n FROM moved WHERE o_owner <> '' AND (o_owner, o_owner <> '', o_account_id, o_archived, o_"
        "protected) IS DISTINCT FROM (w_owner, w_owner <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3"
        ", 4, 5 UNION ALL SELECT o_account_id AS account_id, 'source_agent' AS dimension, o_source_agent AS value,"
        ' o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_source_agen'
        "t <> '' AND (o_source_agent, o_source_agent <> '', o_account_id, o_archived, o_protected) IS DISTINCT FRO"
        "M (w_source_agent, w_source_agent <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION"
        " ALL SELECT o_account_id AS account_id, 'trigger' AS dimension, o_trigger AS value, o_archived AS archive"
        "d, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_trigger <> '' AND (o_trigger, o_t"
        "rigger <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_trigger, w_trigger <> '', w_acco"
        "unt_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin"
        "_repo' AS dimension, o_origin_repo AS value, o_archived AS archived, o_protected AS protected, -count(*):"
        ":integer AS n FROM moved WHERE o_origin_repo <> '' AND (o_origin_repo, o_origin_repo <> '', o_account_id,"
        " o_archived, o_protected) IS DISTINCT FROM (w_origin_repo, w_origin_repo <> '', w_account_id, w_archived,"
        " w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_branch' AS dimensi"
        'on, o_origin_branch AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n F'
        "ROM moved WHERE o_origin_branch <> '' AND (o_origin_branch, o_origin_branch <> '', o_account_id, o_archiv"
        "ed, o_protected) IS DISTINCT FROM (w_origin_branch, w_origin_branch <> '', w_account_id, w_archived, w_pr"
        "otected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'origin_pr' AS dimension, o_ori"
        'gin_pr AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHE'
        "RE o_origin_pr <> '' AND (o_origin_pr, o_origin_pr <> '', o_account_id, o_archived, o_protected) IS DISTI"
        "NCT FROM (w_origin_pr, w_origin_pr <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNIO"
        "N ALL SELECT o_account_id AS account_id, 'h:read_count' AS dimension, o_read_count::text AS value, o_arch"
        'ived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE true AND (o_read_cou'
        'nt::text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_read_count::text, true, w_acco'
        "unt_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'h:open"
        "ed_count' AS dimension, o_opened_count::text AS value, o_archived AS archived, o_protected AS protected, "
        '-count(*)::integer AS n FROM moved WHERE true AND (o_opened_count::text, true, o_account_id, o_archived, '
        'o_protected) IS DISTINCT FROM (w_opened_count::text, true, w_account_id, w_archived, w_protected) GROUP B'
        "Y 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'h:seen_count' AS dimension, o_seen_count::text"
        ' AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE tru'
        'e AND (o_seen_count::text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_seen_count::t'
        'ext, true, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS ac'
        "count_id, 'h:created_day' AS dimension, ((o_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::te"
        'xt AS value, o_archived AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE t'
        "rue AND (((o_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, true, o_account_id, o_archi"
        "ved, o_protected) IS DISTINCT FROM (((w_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, "
        'true, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account'
        "_id, 'h:last_open_day' AS dimension, ((coalesce(o_last_opened_at, o_created_at) AT TIME ZONE 'UTC')::date"
        " - DATE '1970-01-01')::text AS value, o_archived AS archived, o_protected AS protected, -count(*)::intege"
        "r AS n FROM moved WHERE true AND (((coalesce(o_last_opened_at, o_created_at) AT TIME ZONE 'UTC')::date - "
        "DATE '1970-01-01')::text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (((coalesce(w_las"
        "t_opened_at, w_created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, true, w_account_id, w_ar"
        "chived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT o_account_id AS account_id, 'h:never_opened_day"
        "' AS dimension, ((o_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, o_archived "
        'AS archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE o_last_opened_at IS NULL '
        "AND (((o_created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, o_last_opened_at IS NULL, o_acc"
        "ount_id, o_archived, o_protected) IS DISTINCT FROM (((w_created_at AT TIME ZONE 'UTC')::date - DATE '1970"
        "-01-01')::text, w_last_opened_at IS NULL, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNIO"
        "N ALL SELECT o_account_id AS account_id, 'h:decay_cell' AS dimension, ((o_opened_count::bigint + 1) * gre"
        "atest(o_seen_count, 1))::text || ':' || ((coalesce(o_last_opened_at, o_created_at) AT TIME ZONE 'UTC')::d"
        "ate - DATE '1970-01-01')::text AS value, o_archived AS archived, o_protected AS protected, -count(*)::int"
        'eger AS n FROM moved WHERE true AND NOT o_protected AND NOT o_archived AND NOT o_protected AND (((o_opene'
        "d_count::bigint + 1) * greatest(o_seen_count, 1))::text || ':' || ((coalesce(o_last_opened_at, o_created_"
        "at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, true AND NOT o_protected AND NOT o_archived AND"
        ' NOT o_protected, o_account_id, o_archived, o_protected) IS DISTINCT FROM (((w_opened_count::bigint + 1) '
        "* greatest(w_seen_count, 1))::text || ':' || ((coalesce(w_last_opened_at, w_created_at) AT TIME ZONE 'UTC"
        "')::date - DATE '1970-01-01')::text, true AND NOT w_protected AND NOT w_archived AND NOT w_protected, w_a"
        "ccount_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'kin"
        "d' AS dimension, w_kind AS value, w_archived AS archived, w_protected AS protected, count(*)::integer AS "
        "n FROM moved WHERE w_kind <> '' AND (o_kind, o_kind <> '', o_account_id, o_archived, o_protected) IS DIST"
        "INCT FROM (w_kind, w_kind <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SEL"
        "ECT w_account_id AS account_id, 'host' AS dimension, w_host AS value, w_archived AS archived, w_protected"
        " AS protected, count(*)::integer AS n FROM moved WHERE w_host <> '' AND (o_host, o_host <> '', o_account_"
        "id, o_archived, o_protected) IS DISTINCT FROM (w_host, w_host <> '', w_account_id, w_archived, w_protecte"
        "d) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'owner' AS dimension, w_owner AS valu"
        "e, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_owner <> '"
        "' AND (o_owner, o_owner <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_owner, w_owner "
        "<> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS accoun"
        "t_id, 'source_agent' AS dimension, w_source_agent AS value, w_archived AS archived, w_protected AS protec"
        "ted, count(*)::integer AS n FROM moved WHERE w_source_agent <> '' AND (o_source_agent, o_source_agent <> "
        "'', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_source_agent, w_source_agent <> '', w_acco"
        "unt_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'trigge"
        "r' AS dimension, w_trigger AS value, w_archived AS archived, w_protected AS protected, count(*)::integer "
        "AS n FROM moved WHERE w_trigger <> '' AND (o_trigger, o_trigger <> '', o_account_id, o_archived, o_protec"
        "ted) IS DISTINCT FROM (w_trigger, w_trigger <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, "
        "4, 5 UNION ALL SELECT w_account_id AS account_id, 'origin_repo' AS dimension, w_origin_repo AS value, w_a"
        "rchived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_origin_repo <> '"
        "' AND (o_origin_repo, o_origin_repo <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_ori"
        "gin_repo, w_origin_repo <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELEC"
        "T w_account_id AS account_id, 'origin_branch' AS dimension, w_origin_branch AS value, w_archived AS archi"
        "ved, w_protected AS protected, count(*)::integer AS n FROM moved WHERE w_origin_branch <> '' AND (o_origi"
        "n_branch, o_origin_branch <> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_origin_branch"
        ", w_origin_branch <> '', w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_ac"
        "count_id AS account_id, 'origin_pr' AS dimension, w_origin_pr AS value, w_archived AS archived, w_protect"
        "ed AS protected, count(*)::integer AS n FROM moved WHERE w_origin_pr <> '' AND (o_origin_pr, o_origin_pr "
        "<> '', o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_origin_pr, w_origin_pr <> '', w_account"
        "_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'h:read_co"
        "unt' AS dimension, w_read_count::text AS value, w_archived AS archived, w_protected AS protected, count(*"
        ')::integer AS n FROM moved WHERE true AND (o_read_count::text, true, o_account_id, o_archived, o_protecte'
        'd) IS DISTINCT FROM (w_read_count::text, true, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5'
        " UNION ALL SELECT w_account_id AS account_id, 'h:opened_count' AS dimension, w_opened_count::text AS valu"
        'e, w_archived AS archived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE true AND (o_'
        'opened_count::text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (w_opened_count::text, '
        'true, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account'
        "_id, 'h:seen_count' AS dimension, w_seen_count::text AS value, w_archived AS archived, w_protected AS pro"
        'tected, count(*)::integer AS n FROM moved WHERE true AND (o_seen_count::text, true, o_account_id, o_archi'
        'ved, o_protected) IS DISTINCT FROM (w_seen_count::text, true, w_account_id, w_archived, w_protected) GROU'
        "P BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'h:created_day' AS dimension, ((w_created_at"
        " AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, w_archived AS archived, w_protected AS pr"
        "otected, count(*)::integer AS n FROM moved WHERE true AND (((o_created_at AT TIME ZONE 'UTC')::date - DAT"
        "E '1970-01-01')::text, true, o_account_id, o_archived, o_protected) IS DISTINCT FROM (((w_created_at AT T"
        "IME ZONE 'UTC')::date - DATE '1970-01-01')::text, true, w_account_id, w_archived, w_protected) GROUP BY 1"
        ", 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'h:last_open_day' AS dimension, ((coalesce(w_last_"
        "opened_at, w_created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, w_archived AS arc"
        'hived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE true AND (((coalesce(o_last_open'
        "ed_at, o_created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, true, o_account_id, o_archived"
        ", o_protected) IS DISTINCT FROM (((coalesce(w_last_opened_at, w_created_at) AT TIME ZONE 'UTC')::date - D"
        "ATE '1970-01-01')::text, true, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELEC"
        "T w_account_id AS account_id, 'h:never_opened_day' AS dimension, ((w_created_at AT TIME ZONE 'UTC')::date"
        " - DATE '1970-01-01')::text AS value, w_archived AS archived, w_protected AS protected, count(*)::integer"
        " AS n FROM moved WHERE w_last_opened_at IS NULL AND (((o_created_at AT TIME ZONE 'UTC')::date - DATE '197"
        "0-01-01')::text, o_last_opened_at IS NULL, o_account_id, o_archived, o_protected) IS DISTINCT FROM (((w_c"
        "reated_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, w_last_opened_at IS NULL, w_account_id, w"
        "_archived, w_protected) GROUP BY 1, 3, 4, 5 UNION ALL SELECT w_account_id AS account_id, 'h:decay_cell' A"
        "S dimension, ((w_opened_count::bigint + 1) * greatest(w_seen_count, 1))::text || ':' || ((coalesce(w_last"
        "_opened_at, w_created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, w_archived AS ar"
        'chived, w_protected AS protected, count(*)::integer AS n FROM moved WHERE true AND NOT w_protected AND NO'
        'T w_archived AND NOT w_protected AND (((o_opened_count::bigint + 1) * greatest(o_seen_count, 1))::text ||'
        " ':' || ((coalesce(o_last_opened_at, o_created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, "
        'true AND NOT o_protected AND NOT o_archived AND NOT o_protected, o_account_id, o_archived, o_protected) I'
        "S DISTINCT FROM (((w_opened_count::bigint + 1) * greatest(w_seen_count, 1))::text || ':' || ((coalesce(w_"
        "last_opened_at, w_created_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text, true AND NOT w_protec"
        'ted AND NOT w_archived AND NOT w_protected, w_account_id, w_archived, w_protected) GROUP BY 1, 3, 4, 5) A'
        'S delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY'
        ' account_id, dimension, archived, protected RETURNING 1) INSERT INTO lore_lessoncountchange (account_id, '
        "dimension, archived, protected, counts) SELECT account_id, '', archived, protected, jsonb_agg(jsonb_build"
        '_array(scope, host, kind, n)) FROM (SELECT account_id, scope, host, kind, archived, protected, sum(n) AS '
        'n FROM (SELECT o_account_id AS account_id, o_scope AS scope, o_host AS host, o_kind AS kind, o_archived A'
        'S archived, o_protected AS protected, -count(*)::integer AS n FROM moved WHERE (o_account_id, o_scope, o_'
        'host, o_kind, o_archived, o_protected) IS DISTINCT FROM (w_account_id, w_scope, w_host, w_kind, w_archive'
        'd, w_protected) GROUP BY 1, 2, 3, 4, 5, 6 UNION ALL SELECT w_account_id AS account_id, w_scope AS scope, '
        'w_host AS host, w_kind AS kind, w_archived AS archived, w_protected AS protected, count(*)::integer AS n '
        'FROM moved WHERE (o_account_id, o_scope, o_host, o_kind, o_archived, o_protected) IS DISTINCT FROM (w_acc'
        'ount_id, w_scope, w_host, w_kind, w_archived, w_protected) GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY a'
        'ccount_id, scope, host, kind, archived, protected HAVING sum(n) <> 0) AS summed GROUP BY account_id, arch'
        'ived, protected; RETURN NULL; END $$;'
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
    (
        'DELETE FROM lore_lessoncountchange'
    ),
    (
        'DELETE FROM lore_lessonvaluecount'
    ),
    (
        'INSERT INTO lore_lessonvaluecount (account_id, dimension, value, archived, protected, n) SELECT account_i'
        "d, dimension, value, archived, protected, sum(n) FROM (SELECT account_id AS account_id, 'kind' AS dimensi"
        'on, kind AS value, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT acco'
        'unt_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, '
        'origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at F'
        "ROM lore_lesson) AS s WHERE kind <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'ho"
        "st' AS dimension, host AS value, archived AS archived, protected AS protected, count(*)::integer AS n FRO"
        'M (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_ag'
        'ent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, la'
        "st_opened_at FROM lore_lesson) AS s WHERE host <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS a"
        "ccount_id, 'owner' AS dimension, owner AS value, archived AS archived, protected AS protected, count(*)::"
        'integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, '
        'owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count'
        ", created_at, last_opened_at FROM lore_lesson) AS s WHERE owner <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELEC"
        "T account_id AS account_id, 'source_agent' AS dimension, source_agent AS value, archived AS archived, pro"
        'tected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived,'
        ' protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_'
        'count, opened_count, seen_count, created_at, last_opened_at FROM lore_lesson) AS s WHERE source_agent <> '
        "'' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'trigger' AS dimension, trigger AS valu"
        'e, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived'
        '_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, ori'
        'gin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_lesson)'
        " AS s WHERE trigger <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_repo' AS"
        ' dimension, origin_repo AS value, archived AS archived, protected AS protected, count(*)::integer AS n FR'
        'OM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_a'
        'gent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, l'
        "ast_opened_at FROM lore_lesson) AS s WHERE origin_repo <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account"
        "_id AS account_id, 'origin_branch' AS dimension, origin_branch AS value, archived AS archived, protected "
        'AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protec'
        'ted, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, '
        "opened_count, seen_count, created_at, last_opened_at FROM lore_lesson) AS s WHERE origin_branch <> '' GRO"
        "UP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'origin_pr' AS dimension, origin_pr AS value,"
        ' archived AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_a'
        't IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origi'
        'n_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_lesson) A'
        "S s WHERE origin_pr <> '' GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:read_count' A"
        'S dimension, read_count::text AS value, archived AS archived, protected AS protected, count(*)::integer A'
        'S n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, so'
        'urce_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created'
        '_at, last_opened_at FROM lore_lesson) AS s WHERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS '
        "account_id, 'h:opened_count' AS dimension, opened_count::text AS value, archived AS archived, protected A"
        'S protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protect'
        'ed, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, o'
        'pened_count, seen_count, created_at, last_opened_at FROM lore_lesson) AS s WHERE true GROUP BY 1, 3, 4, 5'
        " UNION ALL SELECT account_id AS account_id, 'h:seen_count' AS dimension, seen_count::text AS value, archi"
        'ved AS archived, protected AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS N'
        'OT NULL AS archived, protected, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_bran'
        'ch, origin_pr, read_count, opened_count, seen_count, created_at, last_opened_at FROM lore_lesson) AS s WH'
        "ERE true GROUP BY 1, 3, 4, 5 UNION ALL SELECT account_id AS account_id, 'h:created_day' AS dimension, ((c"
        "reated_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, archived AS archived, protected "
        'AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protec'
        'ted, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, '
        'opened_count, seen_count, created_at, last_opened_at FROM lore_lesson) AS s WHERE true GROUP BY 1, 3, 4, '
        "5 UNION ALL SELECT account_id AS account_id, 'h:last_open_day' AS dimension, ((coalesce(last_opened_at, c"
        "reated_at) AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text AS value, archived AS archived, protected"
        ' AS protected, count(*)::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, prote'
        'cted, scope, host, kind, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count,'
        ' opened_count, seen_count, created_at, last_opened_at FROM lore_lesson) AS s WHERE true GROUP BY 1, 3, 4,'
        " 5 UNION ALL SELECT account_id AS account_id, 'h:never_opened_day' AS dimension, ((created_at AT TIME ZON"
        "E 'UTC')::date - DATE '1970-01-01')::text AS value, archived AS archived, protected AS protected, count(*"
        ')::integer AS n FROM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kin'
        'd, owner, source_agent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_co'
        'unt, created_at, last_opened_at FROM lore_lesson) AS s WHERE last_opened_at IS NULL GROUP BY 1, 3, 4, 5 U'
        "NION ALL SELECT account_id AS account_id, 'h:decay_cell' AS dimension, ((opened_count::bigint + 1) * grea"
        "test(seen_count, 1))::text || ':' || ((coalesce(last_opened_at, created_at) AT TIME ZONE 'UTC')::date - D"
        "ATE '1970-01-01')::text AS value, archived AS archived, protected AS protected, count(*)::integer AS n FR"
        'OM (SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_a'
        'gent, trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, l'
        'ast_opened_at FROM lore_lesson) AS s WHERE true AND NOT protected AND NOT archived AND NOT protected GROU'
        'P BY 1, 3, 4, 5) AS delta GROUP BY account_id, dimension, value, archived, protected HAVING sum(n) <> 0'
    ),
    (
        'DELETE FROM lore_lessonpagecount'
    ),
    (
        'INSERT INTO lore_lessonpagecount (account_id, scope, host, kind, archived, protected, n) SELECT account_i'
        'd, scope, host, kind, archived, protected, sum(n) FROM (SELECT account_id AS account_id, scope AS scope, '
        'host AS host, kind AS kind, archived AS archived, protected AS protected, count(*)::integer AS n FROM (SE'
        'LECT account_id, archived_at IS NOT NULL AS archived, protected, scope, host, kind, owner, source_agent, '
        'trigger, origin_repo, origin_branch, origin_pr, read_count, opened_count, seen_count, created_at, last_op'
        'ened_at FROM lore_lesson) AS s GROUP BY 1, 2, 3, 4, 5, 6) AS delta GROUP BY account_id, scope, host, kind'
        ', archived, protected HAVING sum(n) <> 0'
    ),
]
# fmt: on

_0031 = importlib.import_module("lore.migrations.0031_kept_histograms")
INSTALL_0031 = _0031.INSTALL
_run = _0031._run  # the statements on PostgreSQL only, like the triggers


class Migration(migrations.Migration):

    dependencies = [
        ('lore', '0032_boundary_day_index_only'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='lesson',
            index=models.Index(models.F('account'), models.ExpressionWrapper(django.db.models.expressions.CombinedExpression(django.db.models.expressions.CombinedExpression(django.db.models.functions.comparison.Cast('opened_count', models.BigIntegerField()), '+', models.Value(1)), '*', django.db.models.functions.comparison.Greatest('seen_count', models.Value(1))), output_field=models.BigIntegerField()), django.db.models.functions.comparison.Coalesce('last_opened_at', 'created_at'), condition=models.Q(('archived_at__isnull', True), ('protected', False)), include=('protected', 'opened_count', 'seen_count', 'last_opened_at', 'created_at'), name='lesson_decay_cells'),
        ),
        migrations.RunPython(_run(INSTALL), _run(INSTALL_0031)),
    ]
