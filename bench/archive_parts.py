"""Where one archive batch and one restore batch spend their time, and what each candidate design would change
(issue 29, docs/scaling.md "Archive and undo").

    [DATABASE_URL=postgres://…/lore_bench_1m] .venv/bin/python bench/archive_parts.py [--cycles 5] [--only WORDS] [--fillfactor]
                                               [--json out.json]

Against a loaded bench store (bench/run.py loads it). Every variant is one batch of ARCHIVE_BATCH lessons of the
~10% rule, in its own transaction, rolled back; the variants take turns (the order rotates every cycle) on
different lessons, and the store is vacuumed after each cycle, so they are compared in the same run on the same
machine. For the restore, the rule's candidates are archived first by a real run, and undone at the end.
`--fillfactor` instead times the bare UPDATEs on two copies of the lessons table, at fillfactor 100 and 80.
PostgreSQL only; needs a superuser (session_replication_role turns the count triggers off for one transaction;
DROP INDEX inside a rolled-back transaction takes an index away for one batch).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

LESSONS = "lore_lesson"


def _explained(plan: dict[str, Any]) -> dict[str, float]:
    """Times (ms) and WAL of an EXPLAIN (ANALYZE, WAL, FORMAT JSON): the whole statement, its triggers, and the
    nodes that lock the rows, update them and insert the audit events. A node's figures include its children's
    (the events' INSERT reads the UPDATE's rows, so its time includes the UPDATE's); the WAL is the top node's,
    which includes every CTE but not the triggers, which run after the plan."""
    top = plan["Plan"]
    out: dict[str, float] = {
        "total_ms": plan["Execution Time"],
        "trigger_ms": sum(t["Time"] for t in plan.get("Triggers", [])),
        # JIT compilation, when the planner's cost estimate crossed jit_above_cost (0 when it did not).
        "jit_ms": plan.get("JIT", {}).get("Timing", {}).get("Total", 0.0),
        "wal_records": top.get("WAL Records", 0),
        "wal_fpi": top.get("WAL FPI", 0),
        "wal_bytes": top.get("WAL Bytes", 0),
        "lock_ms": 0.0,
        "update_ms": 0.0,
        "events_ms": 0.0,
    }

    def walk(node: dict[str, Any]) -> None:
        kind = node["Node Type"]
        if kind == "LockRows":
            out["lock_ms"] = max(out["lock_ms"], node["Actual Total Time"])
        if kind == "ModifyTable":
            key = "update_ms" if node.get("Operation") == "Update" else "events_ms"
            out[key] += node["Actual Total Time"]
        for child in node.get("Plans", []):
            walk(child)

    walk(top)
    return out


_EVENTS_INSERT = re.compile(r"logged AS \(\s*INSERT INTO .*?RETURNING lessons(, first_lesson_id)?\s*\)", re.S)
# The batch statements: the archive's (one UPDATE, issue 29) and the restore's (a locking pick first).
_BATCH_STATEMENTS = ("WITH picked AS", "WITH changed AS")
# The CTEs with which a batch counts its own lessons (lore.value_counts.state_moves_counted); without them the
# statement's UPDATE trigger counts them.
_SELF_COUNTED = re.compile(r"flagged AS \(.*?\bpaged AS \(.*?RETURNING 1\),\s*", re.S)
# Issue 29 measured against what it replaced: an audit event per lesson (what the batch statement wrote before).
_PER_LESSON_LOGGED = (
    "logged_each AS (INSERT INTO lore_lessonevent (account_id, lesson_id, action, actor, run_id, detail, at) "
    "SELECT account_id, id, %s, %s, %s, %s, %s FROM changed RETURNING lesson_id), "
    "logged AS (SELECT count(*) AS lessons, min(lesson_id) AS first_lesson_id FROM logged_each)"
)
_NOT_LOGGED = "logged AS (SELECT count(*) AS lessons, min(id) AS first_lesson_id FROM changed)"


@contextmanager
def _rewritten(
    *, events: bool = True, lock: bool = True, per_lesson_events: bool = False, counted_here: bool = True
) -> Iterator[None]:
    """The product's batch statement without its audit event (the changed ids stand in for the logged ones),
    without its explicit row lock (the UPDATE still locks what it changes), with an audit event per lesson as
    before issue 29, or without counting its own lessons (the UPDATE trigger counts them, as before issue 29's
    third pass): measurement only, what each costs."""
    from django.db import connection

    def wrapper(execute, sql, params, many, context):  # noqa: ANN001, ANN202
        if sql.lstrip().startswith(_BATCH_STATEMENTS):
            if per_lesson_events:
                sql, n = _EVENTS_INSERT.subn(_PER_LESSON_LOGGED, sql)
                assert n == 1, "the batch statement changed: update bench/archive_parts.py"
            if not events:
                sql, n = _EVENTS_INSERT.subn(_NOT_LOGGED, sql)
                assert n == 1, "the batch statement changed: update bench/archive_parts.py"
                params = list(params)[:-5]  # the event's five values
            if not counted_here:
                sql, n = _SELF_COUNTED.subn("", sql)
                assert n == 1, "the batch statement changed: update bench/archive_parts.py"
            if not lock and sql.lstrip().startswith("WITH picked AS"):
                assert " FOR UPDATE" in sql
                sql = sql.replace(" FOR UPDATE", "", 1)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield


@contextmanager
def _explaining(into: list[dict[str, Any]]) -> Iterator[None]:
    """Run the product's one-statement batch as EXPLAIN (ANALYZE, BUFFERS, WAL) instead, keep the plan, and answer
    the caller what the statement would have (its figures), so the service goes on as usual."""
    from django.db import connection

    def wrapper(execute, sql, params, many, context):  # noqa: ANN001, ANN202
        if not sql.lstrip().startswith(_BATCH_STATEMENTS):
            return execute(sql, params, many, context)
        cursor = context["cursor"]
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) " + sql, params)
        raw = cursor.fetchone()[0]
        plan = (json.loads(raw) if isinstance(raw, str) else raw)[0]
        into.append(plan)
        rows = _changed_rows(plan)
        if sql.lstrip().startswith("WITH changed AS"):  # the product's: (how many changed, the lowest id)
            return cursor.execute("SELECT %s, NULL", [rows])
        # The locking pick first: (the last id picked, how many changed, the lowest id).
        return cursor.execute("SELECT 0, %s, NULL", [rows])

    with connection.execute_wrapper(wrapper):
        yield


def _changed_rows(plan: dict[str, Any]) -> int:
    found = []

    def walk(node: dict[str, Any]) -> None:
        if node["Node Type"] == "ModifyTable" and node.get("Operation") == "Update":
            found.append(node["Actual Rows"])
        for child in node.get("Plans", []):
            walk(child)

    walk(plan["Plan"])
    return found[0] if found else 0


def _rolled_back(setup: Sequence[str], work: Callable[[], int]) -> tuple[float, int]:
    """`work` (answering rows changed) timed inside a transaction that `setup` prepares, then rolled back."""
    from django.db import connection, transaction

    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 0")
            for statement in setup:
                cursor.execute(statement)
        started = time.perf_counter()
        rows = work()
        seconds = time.perf_counter() - started
        transaction.set_rollback(True)
    return seconds, rows


def _bare(ids: Sequence[int], assignments: str, values: list[object]) -> Callable[[], int]:
    """The bare UPDATE of bench/archive.py (the ceiling), for one batch."""
    from django.db import connection

    def work() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {LESSONS} SET {assignments} WHERE id = ANY(%s::bigint[])", [*values, list(ids)]
            )
            return cursor.rowcount

    return work


TRIGGERS_OFF = "SET LOCAL session_replication_role = replica"


def _per_value_counts() -> list[str]:
    """Setup that puts back the count triggers as they were before issue 29 packed them (migration 0023: a
    LessonValueCount or LessonPageCount row per value a statement moved), for one rolled-back batch."""
    import importlib

    old = importlib.import_module("lore.migrations.0023_lessonpagecount").INSTALL
    return [statement for statement in old if statement.startswith("CREATE OR REPLACE FUNCTION")]


def _grouping_sets_counts() -> list[str]:
    """Setup of a candidate measured, not built: the UPDATE trigger's 2 × (dimensions + 1) GROUP BYs over the
    moved rows as one aggregate with GROUPING SETS over both sides at once (old rows −1, new rows +1), packed the
    same way as the product's trigger."""
    from lore.value_counts import CHANGES, COUNTED, PAGE_COUNTS, TRIGGERS, _function, _moved

    fields = list(dict.fromkeys(("scope", "host", "kind", *(d.field for d in COUNTED))))
    side = lambda a, n: (  # noqa: E731
        f"SELECT {a}_account_id AS account_id, {a}_archived AS archived, {a}_protected AS protected, "
        + ", ".join(f"{a}_{f}::text AS {f}" for f in fields)
        + f", {n} AS n FROM moved"
    )
    sets = ", ".join(["(scope, host, kind)", *(f"({d.field})" for d in COUNTED)])
    dimension = (
        "CASE WHEN GROUPING(scope) = 0 THEN NULL "
        + " ".join(f"WHEN GROUPING({d.field}) = 0 THEN '{d.name}'" for d in COUNTED)
        + " END"
    )
    value = "CASE " + " ".join(f"WHEN GROUPING({d.field}) = 0 THEN {d.field}" for d in COUNTED) + " END"
    insert = f"INSERT INTO {CHANGES} (account_id, dimension, archived, protected, counts)"
    body = _moved(COUNTED) + (
        f", sides AS ({side('o', -1)} UNION ALL {side('w', 1)}), "
        f"grouped AS MATERIALIZED (SELECT account_id, archived, protected, scope, host, kind, {dimension} AS dimension, "
        f"{value} AS value, sum(n)::integer AS n FROM sides GROUP BY account_id, archived, protected, "
        f"GROUPING SETS ({sets}) HAVING sum(n) <> 0), "
        f"counted AS ({insert} SELECT account_id, dimension, archived, protected, jsonb_object_agg(value, n) "
        "FROM grouped WHERE dimension IS NOT NULL AND value <> '' GROUP BY 1, 2, 3, 4 RETURNING 1) "
        f"{insert} SELECT account_id, '{PAGE_COUNTS}', archived, protected, "
        "jsonb_agg(jsonb_build_array(scope, host, kind, n)) FROM grouped WHERE dimension IS NULL GROUP BY 1, 3, 4;"
    )
    return [_function(TRIGGERS["UPDATE"][0], body)]


EVENTS_ACCOUNT_INDEX = "lore_lessonevent_account_id_a8d98097"


def _within(
    make: Callable[[Sequence[int]], Callable[[], int]], **rewrite: Any
) -> Callable[[Sequence[int]], Callable[[], int]]:
    def made(batch: Sequence[int]) -> Callable[[], int]:
        work = make(batch)

        def run() -> int:
            with _rewritten(**rewrite):
                return work()

        return run

    return made


def _drop(*indexes: str) -> list[str]:
    return [f"DROP INDEX {name}" for name in indexes]


def measure(cycles: int, only: Sequence[str] = (), skip: Sequence[str] = ()) -> dict[str, Any]:
    import django

    django.setup()
    from django.db.models import Q
    from django.utils import timezone

    from bench.archive import ARCHIVE_SET, RESTORE_SET
    from bench.scenarios import rule_10pct
    from bench.store import ACCOUNT, bench_events_clear, store_vacuum
    from lore.candidates import archive_guard, candidates
    from lore.limits import ARCHIVE_BATCH
    from lore.models import Account, Lesson, LessonEvent, LessonEventBatch
    from lore.services import (
        _RESTORED,
        _archivable,
        _batch_one_statement,
        _ids_batch_one_statement,
        candidate_ids,
        lessons_archive_batch,
        lessons_with_ids,
    )
    from lore.vacuum import lessons_vacuum
    from policies import grooming

    account = Account.objects.get(name=ACCOUNT)
    since = timezone.now()
    rule = rule_10pct()
    run = grooming.run_start(account=account, rule=rule, trigger="cli", actor="bench-parts")
    assert run is not None
    size = ARCHIVE_BATCH.value
    reason = "ad-hoc groom run"
    ids = list(candidate_ids(candidates(account, rule, now=timezone.now())))
    guard = archive_guard(rule, timezone.now())

    def product_archive(batch: Sequence[int], guarded: bool = True) -> Callable[[], int]:
        def work() -> int:
            return lessons_archive_batch(
                account=account,
                lesson_ids=batch,
                guard=guard if guarded else Q(),
                run_id=run.pk,
                reason=reason,
                actor="bench-parts",
                now=timezone.now(),
            )

        return work

    def unguarded_archive(batch: Sequence[int]) -> Callable[[], int]:
        return product_archive(batch, guarded=False)

    def locked_first_archive(batch: Sequence[int], pick_guard: Q | None = None) -> Callable[[], int]:
        """The archive batch as it was before issue 29's third pass: lock the batch's rows in id order in a
        SELECT … FOR UPDATE, then UPDATE them where the guard holds (`_batch_one_statement`, the restore's statement)."""

        def work() -> int:
            picking = lessons_with_ids(batch).order_by("pk")
            if pick_guard is not None:
                picking = picking.filter(pick_guard)
            return _batch_one_statement(
                picking,
                Lesson.objects.filter(_archivable(account)).filter(Q() if pick_guard is not None else guard),
                {"archived_at": timezone.now(), "archived_by_run_id": run.pk, "archive_reason": reason},
                limit=len(batch),
                event=(LessonEvent.Action.ARCHIVED, "bench-parts", run.pk, reason, timezone.now()),
            )[1]

        return work

    def guard_in_lock_archive(batch: Sequence[int]) -> Callable[[], int]:
        """Candidate 3: the guard repeated by the locking SELECT (FOR UPDATE re-checks it on a row changed
        meanwhile), not by the UPDATE."""
        return locked_first_archive(batch, pick_guard=guard)

    def product_restore(batch: Sequence[int]) -> Callable[[], int]:
        def work() -> int:
            qs = Lesson.objects.filter(account=account, archived_at__isnull=False, pk__in=list(batch))
            return _batch_one_statement(
                qs.order_by("pk"),
                Lesson.objects.filter(archived_at__isnull=False),
                _RESTORED,
                limit=len(batch),
                event=(LessonEvent.Action.RESTORED, "bench-parts", run.pk, "undo", timezone.now()),
            )[1]

        return work

    def ids_restore(batch: Sequence[int]) -> Callable[[], int]:
        """Tried in issue 29's fourth pass and not kept: the archive's statement (one UPDATE over the batch's ids,
        no locking SELECT first) used for the restore."""

        def work() -> int:
            qs = Lesson.objects.filter(account=account, archived_at__isnull=False, archived_by_run_id=run.pk)
            return _ids_batch_one_statement(
                qs,
                batch,
                _RESTORED,
                archived_before=True,
                event=(LessonEvent.Action.RESTORED, "bench-parts", run.pk, "undo", timezone.now()),
            )[0]

        return work

    archive_variants: dict[str, tuple[list[str], Callable[[Sequence[int]], Callable[[], int]]]] = {
        "product batch": ([], product_archive),
        "product batch, no counts (triggers off, not counted here)": (
            [TRIGGERS_OFF],
            _within(product_archive, counted_here=False),
        ),
        "product batch of 5000": ([], product_archive),
        "product batch of 10000": ([], product_archive),
        "product batch without lesson_page_counts": (_drop("lesson_page_counts"), product_archive),
        "product batch without audit events": ([], _within(product_archive, events=False)),
        "product batch, counted by the trigger": ([], _within(product_archive, counted_here=False)),
        "product batch, locked in a SELECT first, counted by the trigger (before issue 29's third pass)": (
            [],
            _within(locked_first_archive, counted_here=False),
        ),
        "product batch without the eligibility guard": ([], unguarded_archive),
        "product batch, the guard in the locking SELECT": (
            [],
            _within(guard_in_lock_archive, counted_here=False),
        ),
        "product batch, no counts, no events": (
            [TRIGGERS_OFF],
            _within(product_archive, events=False, counted_here=False),
        ),
        "product batch, an audit event per lesson (before issue 29)": (
            [],
            _within(product_archive, per_lesson_events=True),
        ),
        "product batch, events without their account index": (_drop(EVENTS_ACCOUNT_INDEX), product_archive),
        "product batch, per-value count rows (before issue 29)": (
            _per_value_counts(),
            _within(product_archive, counted_here=False),
        ),
        "product batch as before issue 29 (per-value count rows, an event per lesson)": (
            _per_value_counts(),
            _within(product_archive, per_lesson_events=True, counted_here=False),
        ),
        "product batch, counts by GROUPING SETS": (
            _grouping_sets_counts(),
            _within(product_archive, counted_here=False),
        ),
        "bare UPDATE (triggers off)": (
            [TRIGGERS_OFF],
            lambda b: _bare(b, ARCHIVE_SET, [timezone.now(), run.pk, reason]),
        ),
        "bare UPDATE with the count triggers": (
            [],
            lambda b: _bare(b, ARCHIVE_SET, [timezone.now(), run.pk, reason]),
        ),
        "bare UPDATE without lesson_page_counts": (
            [TRIGGERS_OFF, *_drop("lesson_page_counts")],
            lambda b: _bare(b, ARCHIVE_SET, [timezone.now(), run.pk, reason]),
        ),
    }
    restore_variants: dict[str, tuple[list[str], Callable[[Sequence[int]], Callable[[], int]]]] = {
        "product batch": ([], product_restore),
        "product batch, counted by the trigger (before issue 29's third pass)": (
            [],
            _within(product_restore, counted_here=False),
        ),
        "product batch, no counts (triggers off, not counted here)": (
            [TRIGGERS_OFF],
            _within(product_restore, counted_here=False),
        ),
        "product batch of 5000": ([], product_restore),
        "product batch of 10000": ([], product_restore),
        "product batch without lesson_page_counts": (_drop("lesson_page_counts"), product_restore),
        "product batch without audit events": ([], _within(product_restore, events=False)),
        "product batch, one UPDATE over its ids (tried in issue 29's fourth pass)": ([], ids_restore),
        "product batch without the explicit row lock": ([], _within(product_restore, lock=False)),
        "product batch, no counts, events, lock": (
            [TRIGGERS_OFF],
            _within(product_restore, events=False, lock=False, counted_here=False),
        ),
        "product batch, an audit event per lesson (before issue 29)": (
            [],
            _within(product_restore, per_lesson_events=True),
        ),
        "product batch, per-value count rows (before issue 29)": (
            _per_value_counts(),
            _within(product_restore, counted_here=False),
        ),
        "product batch as before issue 29 (per-value count rows, an event per lesson)": (
            _per_value_counts(),
            _within(product_restore, per_lesson_events=True, counted_here=False),
        ),
        "product batch, counts by GROUPING SETS": (
            _grouping_sets_counts(),
            _within(product_restore, counted_here=False),
        ),
        "bare UPDATE (triggers off)": ([TRIGGERS_OFF], lambda b: _bare(b, RESTORE_SET, [])),
        "bare UPDATE with the count triggers": ([], lambda b: _bare(b, RESTORE_SET, [])),
        "bare UPDATE without lesson_page_counts": (
            [TRIGGERS_OFF, *_drop("lesson_page_counts")],
            lambda b: _bare(b, RESTORE_SET, []),
        ),
    }

    def rounds(
        variants: dict[str, tuple[list[str], Callable[[Sequence[int]], Callable[[], int]]]],
        lesson_ids: list[int],
        explain_with: Callable[[Sequence[int]], Callable[[], int]],
    ) -> dict[str, Any]:
        variants = {
            k: v
            for k, v in variants.items()
            if (not only or any(w in k for w in only)) and not any(w in k for w in skip)
        }
        times: dict[str, list[float]] = {name: [] for name in variants}
        plans: list[dict[str, Any]] = []
        names = list(variants)
        for cycle in range(cycles):
            taken = 0  # distinct lessons within a cycle; the vacuum after it puts them back

            def take(n: int) -> list[int]:
                nonlocal taken
                if taken + n > len(lesson_ids):
                    raise SystemExit(f"{len(lesson_ids)} lessons are too few for these variants")
                taken += n
                return lesson_ids[taken - n : taken]

            order = names[cycle % len(names) :] + names[: cycle % len(names)]
            for name in order:
                setup, make = variants[name]
                batch = take(int(name.rsplit(" ", 1)[1]) if name.startswith("product batch of") else size)
                seconds, rows = _rolled_back(setup, make(batch))
                times[name].append(seconds * 1000 / max(rows, 1) * size)  # ms per `size` lessons
            # One more batch of the product's, explained (EXPLAIN ANALYZE adds its own timing overhead).
            with _explaining(plans):
                _rolled_back([], explain_with(take(size)))
            lessons_vacuum(analyze=False)
        parts = [_explained(p) for p in plans]
        return {
            "ms_per_batch_median": {k: round(statistics.median(v), 1) for k, v in times.items()},
            "ms_per_batch_all": {k: [round(x, 1) for x in v] for k, v in times.items()},
            "explained_median": {k: round(statistics.median(p[k] for p in parts), 2) for k in parts[0]},
        }

    lessons_vacuum(analyze=False)
    result: dict[str, Any] = {"batch": size, "candidates": len(ids), "cycles": cycles}
    result["archive"] = rounds(archive_variants, ids, product_archive)
    # The restore's variants on lessons a real run archived (committed), undone afterwards.
    run = grooming.run_execute(run.pk)
    archived = list(Lesson.objects.filter(archived_by_run=run).order_by("pk").values_list("pk", flat=True))
    lessons_vacuum(analyze=False)
    result["restore"] = rounds(restore_variants, archived, product_restore)
    result["archived"] = len(archived)
    grooming.run_undo(run, actor="bench-parts")
    assert not Lesson.objects.filter(archived_by_run=run).exists()
    bench_events_clear(account, since)
    LessonEvent.objects.filter(run=run).delete()
    LessonEventBatch.objects.filter(run=run).delete()
    store_vacuum()
    return result


FILLFACTORS = (100, 80)


def fillfactor_measure(cycles: int) -> dict[str, Any]:
    """The bare archive and restore UPDATE of the same 2,000 lessons on copies of the lessons table that differ only
    in their fillfactor (each copy freshly packed, with every index of `lore_lesson` and no trigger), alternating,
    rolled back: whether room left on the page makes these updates HOT or cheaper. The copies are dropped after."""
    import django

    django.setup()
    from django.db import connection, transaction
    from django.utils import timezone

    from bench.archive import ARCHIVE_SET, RESTORE_SET
    from bench.scenarios import rule_10pct
    from bench.store import ACCOUNT
    from lore.candidates import candidates
    from lore.limits import ARCHIVE_BATCH
    from lore.models import Account
    from lore.services import candidate_ids

    size = ARCHIVE_BATCH.value
    account = Account.objects.get(name=ACCOUNT)
    ids = list(candidate_ids(candidates(account, rule_10pct(), now=timezone.now())))
    tables = {ff: f"bench_lesson_ff{ff}" for ff in FILLFACTORS}

    def sql(statement: str, params: Sequence[object] = ()) -> Any:
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            return cursor.fetchall() if cursor.description else cursor.rowcount

    def update(
        table: str, assignments: str, values: list[object], batch: Sequence[int]
    ) -> tuple[float, int, int]:
        with transaction.atomic():
            sql("SET LOCAL statement_timeout = 0")
            started = time.perf_counter()
            rows = sql(
                f"UPDATE {table} SET {assignments} WHERE id = ANY(%s::bigint[])", [*values, list(batch)]
            )
            seconds = time.perf_counter() - started
            ((hot,),) = sql("SELECT n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = %s", [table])
            transaction.set_rollback(True)
        return seconds * 1000 / max(rows, 1) * size, rows, hot

    def alternate(assignments: str, values: list[object], lesson_ids: list[int]) -> dict[str, Any]:
        times: dict[int, list[float]] = {ff: [] for ff in FILLFACTORS}
        hot: dict[int, int] = dict.fromkeys(FILLFACTORS, 0)
        updated: dict[int, int] = dict.fromkeys(FILLFACTORS, 0)
        for cycle in range(cycles):
            order = FILLFACTORS[cycle % len(FILLFACTORS) :] + FILLFACTORS[: cycle % len(FILLFACTORS)]
            batch = lesson_ids[cycle * size : (cycle + 1) * size]  # the same lessons on every copy
            for ff in order:
                ms, rows, hot_rows = update(tables[ff], assignments, values, batch)
                times[ff].append(ms)
                hot[ff] += hot_rows
                updated[ff] += rows
            for table in tables.values():
                sql(f"VACUUM {table}")
        return {
            f"fillfactor {ff}": {
                "ms_per_batch_median": round(statistics.median(times[ff]), 1),
                "ms_per_batch_all": [round(x, 1) for x in times[ff]],
                "updated": updated[ff],
                "hot_updated": hot[ff],
            }
            for ff in FILLFACTORS
        }

    result: dict[str, Any] = {"batch": size, "cycles": cycles}
    try:
        for ff, table in tables.items():
            sql(f"DROP TABLE IF EXISTS {table}")
            sql(f"CREATE TABLE {table} (LIKE {LESSONS} INCLUDING ALL) WITH (fillfactor = {ff})")
            sql(f"INSERT INTO {table} SELECT * FROM {LESSONS} ORDER BY id")
            sql(f"VACUUM ANALYZE {table}")
        pages = sql("SELECT relname, relpages FROM pg_class WHERE relname = ANY(%s)", [list(tables.values())])
        result["table_pages"] = dict(pages)
        result["archive"] = alternate(ARCHIVE_SET, [timezone.now(), None, "fillfactor"], ids)
        for table in tables.values():  # archived for real on the copies, to restore
            sql(
                f"UPDATE {table} SET {ARCHIVE_SET} WHERE id = ANY(%s::bigint[])",
                [timezone.now(), None, "x", ids],
            )
            sql(f"VACUUM {table}")
        result["restore"] = alternate(RESTORE_SET, [], ids)
    finally:
        for table in tables.values():
            sql(f"DROP TABLE IF EXISTS {table}")
    return result


def main() -> int:
    from bench.run import _child_env

    # The environment a size's child process of bench/run.py gets, for what the caller did not set.
    url = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/lore_bench_1m"
    os.environ.update(
        {k: v for k, v in _child_env(url).items() if k not in os.environ or k == "DATABASE_URL"}
    )
    parser = argparse.ArgumentParser(prog="bench/archive_parts.py", description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated words: only the variants naming one")
    parser.add_argument("--skip", default="", help="comma-separated words: leave out the variants naming one")
    parser.add_argument(
        "--fillfactor",
        action="store_true",
        help="instead: the bare UPDATEs on copies at fillfactor 100 and 80",
    )
    parser.add_argument("--json", default="", help="also write the figures to this file")
    args = parser.parse_args()
    if args.fillfactor:
        result = fillfactor_measure(args.cycles)
    else:
        result = measure(
            args.cycles,
            [w.strip() for w in args.only.split(",") if w.strip()],
            [w.strip() for w in args.skip.split(",") if w.strip()],
        )
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
