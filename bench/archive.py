"""A grooming run archiving ~10% of the store and its undo, each beside PostgreSQL's own UPDATE of the same rows
(the ceiling, issue 29): rows/s and their ratios, WAL written, HOT updates, audit events per lesson, and the
process's memory across the run."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from bench.config import ARCHIVE_ROUNDS
from bench.scenarios import rule_10pct
from bench.store import Identities, bench_events_clear, store_vacuum
from lore.candidates import candidates
from lore.limits import RUN_STATEMENT_TIMEOUT_MS
from lore.models import Lesson, LessonEvent, LessonEventBatch, PolicyRun
from lore.services import candidate_ids
from lore.timeouts import set_statement_timeout
from lore.vacuum import lessons_vacuum
from policies import grooming

LESSONS = Lesson._meta.db_table
# What a run's UPDATE sets and an undo's clears (lore.services), as the bare UPDATEs set them.
ARCHIVE_SET = "archived_at = %s, archived_by_run_id = %s, archive_reason = %s"
RESTORE_SET = "archived_at = NULL, archived_by_run_id = NULL, archive_reason = '', superseded_by_id = NULL"


def rss_mb(pid: int | str = "self", key: str = "VmRSS") -> float | None:
    """A /proc/<pid>/status memory figure in MB (VmRSS now, VmHWM the peak); None off Linux."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


@dataclass
class RssSampler:
    """Samples this process's RSS every `every` seconds while the block runs."""

    every: float = 0.05
    samples: list[float] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> RssSampler:
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.is_set():
            value = rss_mb()
            if value is not None:
                self.samples.append(value)
            self._stop.wait(self.every)

    def figures(self) -> dict[str, float | None]:
        if not self.samples:
            return {"rss_start_mb": None, "rss_peak_mb": None, "rss_end_mb": None, "rss_growth_mb": None}
        start, peak, end = self.samples[0], max(self.samples), self.samples[-1]
        return {
            "rss_start_mb": round(start, 1),
            "rss_peak_mb": round(peak, 1),
            "rss_end_mb": round(end, 1),
            "rss_growth_mb": round(peak - start, 1),
        }


def _vacuum_seconds() -> float:
    """The VACUUM a run or undo queues after it (lore.vacuum), timed on its own: the worker's work after the run,
    not the run's. The bench's broker is in memory, so the queued task itself never runs."""
    started = time.perf_counter()
    lessons_vacuum()
    return round(time.perf_counter() - started, 2)


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def _wal_lsn() -> int | None:
    """Where PostgreSQL's WAL insertion stands, in bytes (the whole cluster's: another database writing at the same
    time adds to a difference of two). None off PostgreSQL."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")
        return int(cursor.fetchone()[0])


def _lesson_updates(*, in_transaction: bool = False) -> tuple[int, int] | None:
    """(tuples updated, of which HOT) on the lessons table: this transaction's so far, or the table's totals with
    this session's pending counts flushed first. None off PostgreSQL."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        if not in_transaction:
            # A session's counts reach the shared statistics when it goes idle after a forced flush (PostgreSQL 15).
            cursor.execute("SELECT pg_stat_force_next_flush()")
            cursor.execute("SELECT pg_stat_clear_snapshot()")
        view = "pg_stat_xact_user_tables" if in_transaction else "pg_stat_user_tables"
        cursor.execute(f"SELECT n_tup_upd, n_tup_hot_upd FROM {view} WHERE relname = %s", [LESSONS])
        row = cursor.fetchone()
        return (int(row[0]), int(row[1])) if row else None


@dataclass
class Phase:
    """What one timed phase changed: rows, seconds, WAL, updates (and how many were HOT), audit events."""

    rows: int = 0
    seconds: float = 0.0
    wal_bytes: int | None = None
    updated: int | None = None
    hot: int | None = None
    events: int | None = None  # lessons the audit trail logged (each exactly once)
    audit_rows: int | None = None  # rows written for them: one per lesson, or one per batch (issue 29)

    def figures(self) -> dict[str, object]:
        per_row = lambda n: round(n / self.rows, 2) if n is not None and self.rows else None  # noqa: E731
        return {
            "rows": self.rows,
            "seconds": round(self.seconds, 3),
            "rows_per_s": round(self.rows / self.seconds) if self.seconds else None,
            "wal_bytes": self.wal_bytes,
            "wal_bytes_per_row": per_row(self.wal_bytes),
            "updated": self.updated,
            "hot_updated": self.hot,
            "events_per_row": per_row(self.events),
            "audit_rows": self.audit_rows,
        }


def _audited(run: PolicyRun, action: str) -> tuple[int, int]:
    """(lessons the run's `action` logged, audit rows written for them), per lesson and per batch."""
    own = LessonEvent.objects.filter(run=run, action=action).count()
    batches = LessonEventBatch.objects.filter(run=run, action=action).aggregate(
        rows=Count("pk"), n=Sum("lessons")
    )
    return own + int(batches["n"] or 0), own + int(batches["rows"])


def _counters_before() -> tuple[int | None, tuple[int, int] | None]:
    return _wal_lsn(), _lesson_updates()


def _counters_after(phase: Phase, before: tuple[int | None, tuple[int, int] | None]) -> Phase:
    wal, updates = before
    wal_now, updates_now = _wal_lsn(), _lesson_updates()
    if wal is not None and wal_now is not None:
        phase.wal_bytes = wal_now - wal
    if updates is not None and updates_now is not None:
        phase.updated, phase.hot = updates_now[0] - updates[0], updates_now[1] - updates[1]
    return phase


def _bare_update(ids: Sequence[int], assignments: str, values: list[object]) -> Phase:
    """PostgreSQL's own UPDATE of these lessons (the ceiling): one statement setting `assignments`, with no
    count triggers, no guard, no audit events, no batches and no commit: rolled back, then vacuumed away."""
    phase = Phase()
    if connection.vendor != "postgresql" or not ids:
        return phase
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 0")
        # Statement-level count triggers off for this transaction only (needs a superuser, as the bench's server).
        cursor.execute("SET LOCAL session_replication_role = replica")
        wal = _wal_lsn()
        started = time.perf_counter()
        cursor.execute(
            f"UPDATE {LESSONS} SET {assignments} WHERE id = ANY(%s::bigint[])", [*values, list(ids)]
        )
        phase.seconds = time.perf_counter() - started
        phase.rows = cursor.rowcount
        phase.wal_bytes = (_wal_lsn() or 0) - (wal or 0)
        phase.updated, phase.hot = _lesson_updates(in_transaction=True) or (None, None)
        phase.events = 0
        transaction.set_rollback(True)
    lessons_vacuum(analyze=False)  # its dead row versions gone before the next phase, as after a run
    return phase


def _archive_round(ids: Identities) -> dict[str, object]:
    """One round: the bare archive UPDATE of the rule's candidates, the run that archives them, the bare restore
    UPDATE of what it archived, and the undo; each run and undo followed by the VACUUM it queues."""
    since = timezone.now()
    set_statement_timeout(RUN_STATEMENT_TIMEOUT_MS)  # what the run's task sets (policies.tasks)
    rule = rule_10pct()
    run = grooming.run_start(account=ids.account, rule=rule, trigger="cli", actor="bench")
    assert run is not None
    reason = "ad-hoc groom run"
    picked = candidate_ids(candidates(ids.account, rule, now=timezone.now()))
    bare_archive = _bare_update(picked, ARCHIVE_SET, [timezone.now(), run.pk, reason])
    before = _counters_before()
    with RssSampler() as run_memory:
        started = time.perf_counter()
        run = grooming.run_execute(run.pk)
        archive = Phase(rows=run.archived, seconds=time.perf_counter() - started)
    archive.events, archive.audit_rows = _audited(run, LessonEvent.Action.ARCHIVED)
    _counters_after(archive, before)
    vacuum_after_run = _vacuum_seconds()
    archived = list(Lesson.objects.filter(archived_by_run=run).values_list("pk", flat=True))
    bare_restore = _bare_update(archived, RESTORE_SET, [])
    before = _counters_before()
    with RssSampler() as undo_memory:
        started = time.perf_counter()
        restored = grooming.run_undo(run, actor="bench")
        undo = Phase(rows=restored, seconds=time.perf_counter() - started)
    undo.events, undo.audit_rows = _audited(run, LessonEvent.Action.RESTORED)
    _counters_after(undo, before)
    vacuum_after_undo = _vacuum_seconds()
    bench_events_clear(ids.account, since)
    store_vacuum()
    return {
        "matched": run.matched,
        "archive": archive.figures(),
        "bare_archive": bare_archive.figures(),
        "undo": undo.figures(),
        "bare_restore": bare_restore.figures(),
        "archive_ratio": _ratio(archive, bare_archive),
        "undo_ratio": _ratio(undo, bare_restore),
        "run_memory": run_memory.figures(),
        "undo_memory": undo_memory.figures(),
        "vacuum_after_run_seconds": vacuum_after_run,
        "vacuum_after_undo_seconds": vacuum_after_undo,
    }


def _ratio(product: Phase, bare: Phase) -> float | None:
    """The product's rows/s over the bare UPDATE's (1.0: as fast as PostgreSQL's own UPDATE of the same rows)."""
    if not (product.seconds and bare.seconds and product.rows and bare.rows):
        return None
    return round((product.rows / product.seconds) / (bare.rows / bare.seconds), 3)


def archive_run_measure(ids: Identities, *, rounds: int = ARCHIVE_ROUNDS) -> dict[str, object]:
    """Archive what the ~10% rule catches (a real PolicyRun, batched UPDATEs) and undo it, `rounds` times, each
    beside PostgreSQL's bare UPDATE of the same rows (the ceiling); put the store back. The headline figures are
    the medians over the rounds, the ratios taken within each round."""
    each = [_archive_round(ids) for _ in range(max(rounds, 1))]

    def median_of(phase: str, key: str = "rows_per_s") -> float | None:
        return _median([r[phase][key] for r in each if r[phase].get(key) is not None])  # type: ignore[index]

    def median_ratio(key: str) -> float | None:
        return _median([r[key] for r in each if r[key] is not None])  # type: ignore[misc]

    first = each[0]
    return {
        "rounds": each,
        "matched": first["matched"],
        "archived": first["archive"]["rows"],  # type: ignore[index]
        "restored": first["undo"]["rows"],  # type: ignore[index]
        "run_seconds": median_of("archive", "seconds"),
        "run_rows_per_s": median_of("archive"),
        "undo_seconds": median_of("undo", "seconds"),
        "undo_rows_per_s": median_of("undo"),
        "bare_archive_rows_per_s": median_of("bare_archive"),
        "bare_restore_rows_per_s": median_of("bare_restore"),
        "archive_ratio": median_ratio("archive_ratio"),
        "undo_ratio": median_ratio("undo_ratio"),
        "run_memory": first["run_memory"],
        "undo_memory": first["undo_memory"],
        "vacuum_after_run_seconds": _median([r["vacuum_after_run_seconds"] for r in each]),  # type: ignore[misc]
        "vacuum_after_undo_seconds": _median([r["vacuum_after_undo_seconds"] for r in each]),  # type: ignore[misc]
    }
