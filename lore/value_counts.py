"""Per-value lesson counts kept by the database (issue 16): the filter menu's unfiltered numbers without a pass
over every lesson.

On PostgreSQL, statement-level triggers on `lore_lesson` append the change in lessons of every (account,
dimension, value, archived, protected) that a statement changed: + for inserted rows, - for deleted ones, both
for an update that moved a lesson from one value or state to another. They append them packed, one
`LessonCountChange` row per (account, dimension, archived, protected) holding {value: ±n} (issue 29: an archive
batch of 2,000 lessons appended ~1,600 rows of one change each, two index entries apiece, and now ~40). The rows
are written by the statement that changed the lessons, in its transaction, so every snapshot that sees a lesson
sees its count: the sums are exact, whatever the isolation, with no lock taken (rows are only ever appended,
never updated in place, so writers of the same value never wait for each other). Readers sum the kept
`LessonValueCount` rows and the packed changes together through one view (VIEWS). An archive or restore batch
appends the same packed rows itself, from the lessons its UPDATE returned, and its trigger steps aside
(`state_moves_counted`, issue 29). `value_counts_fold` moves the
packed changes into kept rows and replaces the rows of a key by their sum, in one transaction (sum-preserving,
so a reader before or after it reads the same number, and a fold that dies changes nothing); beat runs it every
minute and a read that summed many rows runs it too (VALUE_COUNTS_FOLD_AFTER).

Every scalar dimension of `lore.conditions.DIMENSIONS` is counted (tags are rows of LessonTag: counted by GROUP
BY). The same triggers and fold keep `LessonPageCount`, one row per (account, scope, host, kind, archived,
protected): the columns of `lesson_page_counts`, from which the Explorer's unfiltered stat cards and matrix are
summed (`page_counts`). SQLite has no such triggers here (`maintained()` is False): the small stores it holds
count with GROUP BY.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Q, Sum

from lore.conditions import DIMENSIONS, Dimension
from lore.limits import VALUE_COUNTS_FOLD_AFTER
from lore.models import (
    LessonCountChange,
    LessonPageCount,
    LessonPageCountView,
    LessonValueCount,
    LessonValueCountView,
)
from lore.rules.rule import Rule
from lore.scopes import GLOBAL
from lore.selectors import MENU_VALUES_LIMIT
from lore.serial import without_parallel_workers

TABLE = LessonValueCount._meta.db_table
PAGE_TABLE = LessonPageCount._meta.db_table
CHANGES = LessonCountChange._meta.db_table
PAGE_COUNTS = LessonCountChange.PAGE_COUNTS
LESSONS = "lore_lesson"
COUNTED: tuple[Dimension, ...] = tuple(d for d in DIMENSIONS if not d.is_tags)


@dataclass(frozen=True)
class Counted:
    """One dimension as the triggers count it: its name (`LessonValueCount.dimension`), the lesson columns it
    reads, its value as SQL over them and when a lesson has one (templates: `{p}` is the columns' prefix)."""

    name: str
    columns: tuple[str, ...]
    value: str
    present: str = "true"
    # Counted only for the active, unpinned lessons (the candidates), where its one reader reads it: an archive or
    # restore batch then groups it on one side of the move only (issue 29).
    candidates_only: bool = False

    def value_sql(self, prefix: str = "") -> str:
        return self.value.format(p=prefix)

    def present_sql(self, prefix: str = "") -> str:
        """When a lesson has a value, over rows that carry `{prefix}archived` and `{prefix}protected`."""
        state = f" AND NOT {prefix}archived AND NOT {prefix}protected" if self.candidates_only else ""
        return f"{self.lesson_present_sql(prefix)}{state}"

    def lesson_present_sql(self, prefix: str = "") -> str:
        """When a lesson has a value, whatever its state (a candidates-only dimension: pinned lessons left out)."""
        pinned = f" AND NOT {prefix}protected" if self.candidates_only else ""
        return f"{self.present.format(p=prefix)}{pinned}"


def counted_of(dim: Dimension) -> Counted:
    """A scalar dimension of the registry: its column's value, a blank one not counted."""
    return Counted(dim.name, (dim.field,), f"{{p}}{dim.field}", f"{{p}}{dim.field} <> ''")


def _day(column: str) -> str:
    """The UTC day of a timestamp as days since 1970-01-01 (lore.bins.day_of is the same in Python)."""
    return f"(({column} AT TIME ZONE 'UTC')::date - DATE '1970-01-01')::text"


# Issue 28: the histograms of the filter menu's Age & activity sections over the whole store (lore.bins
# kept_distribution). Counters per value; days per UTC day, the one day an edge falls inside counted from the
# lessons. Last agent open: the day of the last open, or of creation if never opened, and the creation day of the
# lessons never opened (what the "opened within" direction leaves out).
HISTOGRAM_COUNTED: tuple[Counted, ...] = (
    Counted("h:read_count", ("read_count",), "{p}read_count::text"),
    Counted("h:opened_count", ("opened_count",), "{p}opened_count::text"),
    Counted("h:seen_count", ("seen_count",), "{p}seen_count::text"),
    Counted("h:created_day", ("created_at",), _day("{p}created_at")),
    Counted(
        "h:last_open_day",
        ("last_opened_at", "created_at"),
        _day("coalesce({p}last_opened_at, {p}created_at)"),
    ),
    Counted(
        "h:never_opened_day",
        ("last_opened_at", "created_at"),
        _day("{p}created_at"),
        "{p}last_opened_at IS NULL",
    ),
    # The decay score's cells: "(1 + Chosen) × Recurrence:last-open day". A lesson's score depends on its last
    # open and on that product alone (lore.decay.strength_product), so the lessons of one cell lie within a day's
    # width of scores: most cells fall inside one bin and are summed, the few an edge crosses are counted from
    # the lessons (lore.bins.kept_decay_distribution).
    Counted(
        "h:decay_cell",
        ("opened_count", "seen_count", "last_opened_at", "created_at"),
        "(({p}opened_count::bigint + 1) * greatest({p}seen_count, 1))::text || ':' || "
        + _day("coalesce({p}last_opened_at, {p}created_at)"),
        candidates_only=True,
    ),
)
HISTOGRAMS_BY_NAME = {h.name: h for h in HISTOGRAM_COUNTED}
TRIGGERED: tuple[Counted, ...] = tuple(counted_of(d) for d in COUNTED) + HISTOGRAM_COUNTED


def _as_counted(dims: Sequence[Counted | Dimension]) -> list[Counted]:
    return [d if isinstance(d, Counted) else counted_of(d) for d in dims]


def _columns(dims: Sequence[Counted]) -> list[str]:
    """The lesson columns the page counts and `dims` read, once each."""
    return list(dict.fromkeys(("scope", "host", "kind", *(c for d in dims for c in d.columns))))


# The functions and triggers install() creates, named once for install, uninstall and the tests.
TRIGGERS = {
    "INSERT": ("lore_value_counts_inserted", "NEW TABLE AS lore_new_lessons"),
    "DELETE": ("lore_value_counts_deleted", "OLD TABLE AS lore_old_lessons"),
    "UPDATE": ("lore_value_counts_updated", "OLD TABLE AS lore_old_lessons NEW TABLE AS lore_new_lessons"),
}
_FOLD_LOCK = 0x4C566343  # "LVcC": one fold at a time (a second one would only wait for the first one's rows)
_KEY = "account_id, dimension, value, archived, protected"
_PAGE_KEY = "account_id, scope, host, kind, archived, protected"


def maintained() -> bool:
    """True where the triggers keep the counts (PostgreSQL)."""
    return connection.vendor == "postgresql"


# ---------------------------------------------------------------- the triggers


def _grouped(
    source: str, dims: Sequence[Counted], *, prefix: str = "", sign: str = "", changed: bool = False
) -> list[str]:
    """Per dimension, (key…, ±lessons) over the rows of `source`, whose columns are `{prefix}account_id`,
    `{prefix}archived`, `{prefix}protected` and `{prefix}<column>`. One small GROUP BY per dimension reads the
    rows eight times but hashes short keys: three times faster on an archive batch than spreading every lesson
    into a row per dimension first (bench/RESULTS.md, issue 16 #27). `changed` (the moved rows of an UPDATE, o_
    and w_ sides): only the rows whose value or state of that dimension changed (the others cancel out), so that
    a read bump groups the counters it moved, not every dimension."""
    return [
        f"SELECT {prefix}account_id AS account_id, '{d.name}' AS dimension, {d.value_sql(prefix)} AS value, "
        f"{prefix}archived AS archived, {prefix}protected AS protected, {sign}count(*)::integer AS n "
        f"FROM {source} WHERE {d.present_sql(prefix)}{_changed(d) if changed else ''} GROUP BY 1, 3, 4, 5"
        for d in dims
    ]


def _changed(d: Counted) -> str:
    def side(a: str) -> str:
        return f"{d.value_sql(a)}, {d.present_sql(a)}, {a}account_id, {a}archived, {a}protected"

    return f" AND ({side('o_')}) IS DISTINCT FROM ({side('w_')})"


def _page_grouped(source: str, *, prefix: str = "", sign: str = "", changed: bool = False) -> str:
    """(account, scope, host, kind, archived, protected, ±lessons) over the rows of `source` (columns as in
    _grouped)."""
    where = ""
    if changed:
        side = ", ".join(
            f"{{a}}{c}" for c in ("account_id", "scope", "host", "kind", "archived", "protected")
        )
        where = f" WHERE ({side.format(a='o_')}) IS DISTINCT FROM ({side.format(a='w_')})"
    return (
        f"SELECT {prefix}account_id AS account_id, {prefix}scope AS scope, {prefix}host AS host, "
        f"{prefix}kind AS kind, {prefix}archived AS archived, {prefix}protected AS protected, "
        f"{sign}count(*)::integer AS n FROM {source}{where} GROUP BY 1, 2, 3, 4, 5, 6"
    )


def _append(parts: list[str], *, table: str = TABLE, key: str = _KEY) -> str:
    """One INSERT of the parts' changes summed per key (a key whose changes cancel out is left out)."""
    return (
        f"INSERT INTO {table} ({key}, n) SELECT {key}, sum(n) FROM ({' UNION ALL '.join(parts)}) AS delta "
        f"GROUP BY {key} HAVING sum(n) <> 0"
    )


def _page_append(parts: list[str]) -> str:
    return _append(parts, table=PAGE_TABLE, key=_PAGE_KEY)


_STATE = "account_id, archived, protected"


def _append_packed(parts: list[str]) -> str:
    """One INSERT of the parts' changes summed per key, packed: a LessonCountChange row per (account, dimension,
    state) holding {value: ±n}. The same GROUP BYs as _append; one row where _append wrote one per value."""
    return (
        f"INSERT INTO {CHANGES} (account_id, dimension, archived, protected, counts) "
        f"SELECT account_id, dimension, archived, protected, jsonb_object_agg(value, n) "
        f"FROM (SELECT {_KEY}, sum(n) AS n FROM ({' UNION ALL '.join(parts)}) AS delta "
        f"GROUP BY {_KEY} HAVING sum(n) <> 0) AS summed GROUP BY account_id, dimension, archived, protected"
    )


def _page_append_packed(parts: list[str]) -> str:
    """The page counts' changes, packed: a row per (account, state) holding [[scope, host, kind, ±n], …]."""
    return (
        f"INSERT INTO {CHANGES} (account_id, dimension, archived, protected, counts) "
        f"SELECT account_id, '{PAGE_COUNTS}', archived, protected, jsonb_agg(jsonb_build_array(scope, host, kind, n)) "
        f"FROM (SELECT {_PAGE_KEY}, sum(n) AS n FROM ({' UNION ALL '.join(parts)}) AS delta "
        f"GROUP BY {_PAGE_KEY} HAVING sum(n) <> 0) AS summed GROUP BY {_STATE}"
    )


# The kept rows and the packed changes as one relation of (key…, n) each, which every reader sums. UNION ALL: the
# planner pushes a reader's account, dimension and state down into both sides and their indexes.
VIEWS = {
    LessonValueCountView._meta.db_table: (
        f"SELECT id, {_KEY}, n FROM {TABLE} UNION ALL "
        f"SELECT -c.id, c.account_id, c.dimension, e.key, c.archived, c.protected, e.value::bigint "
        f"FROM {CHANGES} c CROSS JOIN LATERAL jsonb_each_text(c.counts) AS e WHERE c.dimension <> '{PAGE_COUNTS}'"
    ),
    LessonPageCountView._meta.db_table: (
        f"SELECT id, {_PAGE_KEY}, n FROM {PAGE_TABLE} UNION ALL "
        f"SELECT -c.id, c.account_id, e->>0, e->>1, e->>2, c.archived, c.protected, (e->>3)::bigint "
        f"FROM {CHANGES} c CROSS JOIN LATERAL jsonb_array_elements(c.counts) AS e "
        f"WHERE c.dimension = '{PAGE_COUNTS}'"
    ),
}


def _states(table: str, dims: Sequence[Counted]) -> str:
    """The lessons of `table` as the columns _grouped and _page_grouped read."""
    fields = ", ".join(c for c in _columns(dims) if c != "scope")
    return f"(SELECT account_id, archived_at IS NOT NULL AS archived, protected, scope, {fields} FROM {table}) AS s"


def _moved(dims: Sequence[Counted | Dimension]) -> str:
    """The updated lessons whose counted values, scope or state changed (a rewrite of the text alone did not; a
    read bump moves the counters), before (o_…) and after (w_…), once."""
    fields = _columns(_as_counted(dims))
    columns = ["account_id", *fields, "protected"]
    old = ", ".join(f"o.{c}" for c in columns) + ", o.archived_at IS NULL"
    new = ", ".join(f"w.{c}" for c in columns) + ", w.archived_at IS NULL"
    both = ", ".join(
        f"{a}.account_id AS {a}_account_id, {a}.archived_at IS NOT NULL AS {a}_archived, "
        f"{a}.protected AS {a}_protected, " + ", ".join(f"{a}.{f} AS {a}_{f}" for f in fields)
        for a in ("o", "w")
    )
    return (
        f"WITH moved AS MATERIALIZED (SELECT {both} FROM lore_old_lessons o "
        f"JOIN lore_new_lessons w ON w.id = o.id WHERE ({old}) IS DISTINCT FROM ({new})) "
    )


def _function(name: str, body: str) -> str:
    """A trigger function running `body`, without JIT: the planner cannot see how few rows a transition table
    holds, so a statement over one looks expensive enough to compile, and compiling the UPDATE trigger's few dozen
    GROUP BYs took 2.7 s per read-fold batch of 5,000 lessons at 1M before the histograms were kept (6 s after),
    where running them takes ~0.1 s (issue 28)."""
    return (
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$ "
        f"BEGIN {body} RETURN NULL; END $$;"
    )


# A statement that moves lessons between archived and active and nothing else (an archive or restore batch) counts
# them itself (`state_moves_counted`) and sets this flag to its own statement_timestamp(); the UPDATE trigger of
# that statement finds it, clears it and steps aside. Any other statement, in the same transaction or not, is
# counted by the trigger as before. Issue 29: the trigger joins the old and new rows and groups each side per
# dimension (18 GROUP BYs, ~15 ms per batch of 2,000 at 1M); the batch knows every lesson moved from one state to
# the other with its values unchanged, so it groups its RETURNING rows once per dimension (~7 ms).
COUNTED_BY_STATEMENT = "lore.lessons_counted"
_STEP_ASIDE = (
    f"IF current_setting('{COUNTED_BY_STATEMENT}', true) = statement_timestamp()::text THEN "
    f"PERFORM set_config('{COUNTED_BY_STATEMENT}', '', true); RETURN NULL; END IF; "
)


def state_moves_columns(dims: Sequence[Counted] = TRIGGERED) -> list[str]:
    """The columns of `lore_lesson` a statement must return for `state_moves_counted` to count its rows."""
    return list(dict.fromkeys(("account_id", "protected", *_columns(dims))))


def state_moves_counted(source: str, *, archived_before: bool, dims: Sequence[Counted] = TRIGGERED) -> str:
    """CTEs (`counted`, `paged`, `flagged`) appending the count changes of the lessons in `source` (a CTE of
    `lore_lesson` rows with `state_moves_columns`, every one moved from archived `archived_before` to the
    other state, its values and pin unchanged) and flagging the statement as counted, so its UPDATE trigger steps
    aside. The same packed rows the trigger would write: one per (account, dimension, state), one per state for
    the page counts. Only for a statement whose changed rows are exactly `source`."""
    before, after = ("true", "false") if archived_before else ("false", "true")
    states = f"(VALUES ({before}, -1), ({after}, 1)) AS s(archived, sign)"
    grouped = " UNION ALL ".join(
        f"SELECT account_id, '{d.name}' AS dimension, {d.value_sql()} AS value, protected, count(*)::integer AS n, "
        f"{'true' if d.candidates_only else 'false'} AS candidates_only "
        f"FROM {source} WHERE {d.lesson_present_sql()} GROUP BY 1, 3, 4"
        for d in dims
    )
    insert = f"INSERT INTO {CHANGES} (account_id, dimension, archived, protected, counts)"
    return (
        f"flagged AS (SELECT set_config('{COUNTED_BY_STATEMENT}', statement_timestamp()::text, true) AS flag), "
        f"counted AS ({insert} SELECT g.account_id, g.dimension, s.archived, g.protected, "
        f"jsonb_object_agg(g.value, g.n * s.sign) FROM ({grouped}) AS g CROSS JOIN {states} CROSS JOIN flagged "
        f"WHERE NOT (g.candidates_only AND s.archived) GROUP BY 1, 2, 3, 4 RETURNING 1), "
        f"paged AS ({insert} SELECT g.account_id, '{PAGE_COUNTS}', s.archived, g.protected, "
        f"jsonb_agg(jsonb_build_array(g.scope, g.host, g.kind, g.n * s.sign)) FROM (SELECT account_id, protected, "
        f"scope, host, kind, count(*)::integer AS n FROM {source} GROUP BY 1, 2, 3, 4, 5) AS g "
        f"CROSS JOIN {states} CROSS JOIN flagged GROUP BY 1, 3, 4 RETURNING 1)"
    )


def install_sql(dims: Sequence[Counted] = TRIGGERED) -> list[str]:
    """The functions and statement-level triggers that keep the counts of `dims`, the views readers sum, then the
    counts of the lessons already stored. In one transaction: CREATE TRIGGER locks out writers until it commits, so no lesson written
    meanwhile is counted twice or missed."""
    new, old = _states("lore_new_lessons", dims), _states("lore_old_lessons", dims)
    bodies = {
        "INSERT": f"{_append_packed(_grouped(new, dims))}; {_page_append_packed([_page_grouped(new)])};",
        "DELETE": f"{_append_packed(_grouped(old, dims, sign='-'))}; "
        f"{_page_append_packed([_page_grouped(old, sign='-')])};",
        # One statement reads the moved lessons once for both (a data-modifying CTE runs to completion).
        "UPDATE": _STEP_ASIDE
        + _moved(dims)
        + f", counted AS ({_append_packed(_grouped('moved', dims, prefix='o_', sign='-', changed=True) + _grouped('moved', dims, prefix='w_', changed=True))} RETURNING 1) "
        + _page_append_packed(
            [
                _page_grouped("moved", prefix="o_", sign="-", changed=True),
                _page_grouped("moved", prefix="w_", changed=True),
            ]
        )
        + ";",
    }
    statements = uninstall_sql()
    for event, (name, referencing) in TRIGGERS.items():
        statements.append(_function(name, bodies[event]))
        statements.append(
            f"CREATE TRIGGER {name} AFTER {event} ON {LESSONS} REFERENCING {referencing} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {name}()"
        )
    statements += [f"CREATE OR REPLACE VIEW {name} AS {body}" for name, body in VIEWS.items()]
    stored = _states(LESSONS, dims)
    statements += [f"DELETE FROM {CHANGES}", f"DELETE FROM {TABLE}", _append(_grouped(stored, dims))]
    statements += [f"DELETE FROM {PAGE_TABLE}", _page_append([_page_grouped(stored)])]
    return statements


def uninstall_sql() -> list[str]:
    statements = []
    for name, _ in TRIGGERS.values():
        statements.append(f"DROP TRIGGER IF EXISTS {name} ON {LESSONS}")
        statements.append(f"DROP FUNCTION IF EXISTS {name}()")
    return statements


def installed_dimensions() -> list[str]:
    """The dimensions the installed INSERT trigger counts, read back from its function (for the test that keeps
    them equal to DIMENSIONS)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", [TRIGGERS["INSERT"][0]])
        row = cursor.fetchone()
    if row is None:
        return []
    return [d.name for d in TRIGGERED if f"'{d.name}' AS dimension, {d.value_sql()} AS value" in row[0]]


# ---------------------------------------------------------------- reading and folding


def value_counts(
    account_id: int,
    dim: Dimension,
    typed: str = "",
    *,
    archived: bool,
    protected: bool | None = None,
    limit: int = MENU_VALUES_LIMIT,
) -> list[tuple[str, int]]:
    """[(value, lessons)] of `dim` over every lesson of the account in that state (`protected` None: both), most
    frequent first, blank values left out: what `lore.selectors.dimension_value_counts` answers over the same
    lessons, read from the maintained counts. PostgreSQL only (`maintained()`)."""
    qs = LessonValueCountView.objects.filter(account_id=account_id, dimension=dim.name, archived=archived)
    if protected is not None:
        qs = qs.filter(protected=protected)
    if typed:
        qs = qs.filter(value__icontains=typed.removeprefix(dim.value_prefix))
    rows = list(
        qs.values("value")
        .annotate(total=Sum("n"), parts=Count("account"))
        .filter(total__gt=0)
        .order_by("-total", "value")[:limit]
    )
    fold_if_many(account_id, sum(row["parts"] for row in rows))
    return [(str(row["value"]), int(row["total"])) for row in rows]


def fold_if_many(account_id: int, rows_summed: int) -> None:
    """A read that summed more than VALUE_COUNTS_FOLD_AFTER rows (no beat folding them) folds them itself."""
    if rows_summed > VALUE_COUNTS_FOLD_AFTER.value:
        value_counts_fold(account_id)


def _fold_statement(table: str, key: str, where: str) -> str:
    """Replace the rows of every key of `table` that has several by one row holding their sum (none when 0)."""
    match = " AND ".join(f"t.{c} = k.{c}" for c in key.split(", "))
    return (
        f"WITH keys AS (SELECT {key} FROM {table} {where} GROUP BY {key} HAVING count(*) > 1), "
        f"gone AS (DELETE FROM {table} t USING keys k WHERE {match} RETURNING t.*), "
        f"folded AS (INSERT INTO {table} ({key}, n) SELECT {key}, sum(n) FROM gone GROUP BY {key} "
        f"HAVING sum(n) <> 0 RETURNING 1) "
        f"SELECT (SELECT count(*) FROM keys)"
    )


def _unpack_statement(where: str) -> str:
    """Move the packed changes into kept rows, summed per key: DELETE … RETURNING them and INSERT their sums, in
    one statement."""
    return (
        f"WITH gone AS (DELETE FROM {CHANGES} {where} RETURNING {_STATE}, dimension, counts), "
        f"kept AS (INSERT INTO {TABLE} ({_KEY}, n) "
        f"SELECT g.account_id, g.dimension, e.key, g.archived, g.protected, sum(e.value::bigint) "
        f"FROM gone g CROSS JOIN LATERAL jsonb_each_text(g.counts) AS e WHERE g.dimension <> '{PAGE_COUNTS}' "
        f"GROUP BY 1, 2, 3, 4, 5 HAVING sum(e.value::bigint) <> 0 RETURNING 1), "
        f"kept_pages AS (INSERT INTO {PAGE_TABLE} ({_PAGE_KEY}, n) "
        f"SELECT g.account_id, e->>0, e->>1, e->>2, g.archived, g.protected, sum((e->>3)::bigint) "
        f"FROM gone g CROSS JOIN LATERAL jsonb_array_elements(g.counts) AS e WHERE g.dimension = '{PAGE_COUNTS}' "
        f"GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum((e->>3)::bigint) <> 0 RETURNING 1) "
        f"SELECT (SELECT count(*) FROM gone)"
    )


def value_counts_fold(account_id: int | None = None) -> int:
    """Move the packed changes into kept rows, then replace the rows of every key that has several by one row
    holding their sum (none when it is 0), for one account or all, in the value counts and the page counts. One
    statement each, in one transaction: a reader sees the rows before or after it, never a part. Returns the
    packed rows moved and keys folded, 0 when another fold is at work (it folds the same rows)."""
    if not maintained():
        return 0
    where = "WHERE account_id = %s" if account_id is not None else ""
    params = [account_id] if account_id is not None else []
    folded = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [_FOLD_LOCK])
        if not cursor.fetchone()[0]:
            return 0
        cursor.execute(_unpack_statement(where), params)
        folded += int(cursor.fetchone()[0])
        for table, key in ((TABLE, _KEY), (PAGE_TABLE, _PAGE_KEY)):
            cursor.execute(_fold_statement(table, key, where), params)
            folded += int(cursor.fetchone()[0])
    return folded


def page_counts(account_id: int, where: Q) -> list[tuple[str, str, str, bool, bool, int]]:
    """[(scope, host, kind, archived, protected, lessons)] of the account's lessons that `where` describes (a
    predicate over those columns only: a scope, host and kind filter), read from the kept page counts: what a
    GROUP BY over `lesson_page_counts` answers. PostgreSQL only (`maintained()`)."""
    rows = list(
        LessonPageCountView.objects.filter(account_id=account_id)
        .filter(where)
        .values_list("scope", "host", "kind", "archived", "protected")
        .annotate(total=Sum("n"), parts=Count("pk"))
        .order_by()
    )
    fold_if_many(account_id, sum(row[6] for row in rows))
    return [
        (scope, host, kind, archived, protected, int(total))
        for scope, host, kind, archived, protected, total, _ in rows
        if total
    ]


def kept_value_counts(
    account_id: int,
    rule: Rule,
    dim: Dimension,
    typed: str = "",
    *,
    archived: bool,
    protected: bool | None = None,
) -> list[tuple[str, int]] | None:
    """`value_counts` when the kept counts answer for `rule` (nothing in it and every scope: the counts are the
    whole account's; a dimension other than labels; on PostgreSQL); None when the lessons must be counted. The
    caller vouches for what is not in the rule (a search, a date range)."""
    if not rule.is_empty or rule.scope != GLOBAL or dim.is_tags or not maintained():
        return None
    return value_counts(account_id, dim, typed, archived=archived, protected=protected)


def histogram_counts(
    account_id: int,
    names: Sequence[str],
    *,
    archived: bool,
    protected: bool | None,
    boundary: tuple[str, Sequence[Any]] | None = None,
) -> tuple[dict[str, dict[int, int]], tuple[Any, ...] | None]:
    """({dimension: {value: lessons}} of the kept histogram dimensions `names` over every lesson of the account
    in that state, the one row of `boundary`, a query over the lessons): one statement, so the lessons `boundary`
    counts and the kept counts are of one snapshot. PostgreSQL only (`maintained()`)."""
    view = LessonValueCountView._meta.db_table
    state = "archived = %s" + (" AND protected = %s" if protected is not None else "")
    params: list[Any] = [account_id, list(names), archived]
    if protected is not None:
        params.append(protected)
    kept = (
        f"SELECT coalesce(jsonb_agg(jsonb_build_array(dimension, value, total, parts)), '[]'::jsonb) FROM "
        f"(SELECT dimension, value, sum(n) AS total, count(*) AS parts FROM {view} "
        f"WHERE account_id = %s AND dimension = ANY(%s) AND {state} GROUP BY 1, 2) AS s"
    )
    sql, extra = (boundary[0], list(boundary[1])) if boundary else ("SELECT 1 AS none", [])
    # Serially (lore.serial): a few small index range scans, which two parallel workers made twice as slow (Last
    # agent open at 1M: 27–31 → 14 ms).
    with without_parallel_workers(), connection.cursor() as cursor:
        cursor.execute(f"SELECT ({kept}), b.* FROM ({sql}) AS b", params + extra)
        found, *row = cursor.fetchone()
    counts: dict[str, dict[int, int]] = {name: {} for name in names}
    parts = 0
    for dimension, value, total, summed in json.loads(found) if isinstance(found, str) else found:
        parts += int(summed)
        if int(total):
            counts[dimension][int(value)] = int(total)
    fold_if_many(account_id, parts)
    return counts, (tuple(row) if boundary else None)
