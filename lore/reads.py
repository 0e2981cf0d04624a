"""Reads without write amplification: the read buffer and its fold (DESIGN.md §3, issue 16).

A read never updates a lesson row. It appends one LessonRead row per lesson it delivers, all in ONE INSERT
whatever the page size (`reads_record`). The counters a lesson shows are its columns plus its pending rows
(`lessons_with_pending` + `pending_apply`, read in the same statement as the lesson, so a fold committing in
between can neither hide nor double a read). The fold (`reads_fold`, every minute from Celery beat;
`reads_settle` for one account) moves buffered rows into the lessons in batches of READS_FOLD_BATCH: each batch
is one transaction that locks its rows, adds their aggregated increments (and the latest times) to the lessons and
deletes exactly those rows (a row naming another account's lesson, or a purged one, moves nothing). A crash rolls the batch back whole: its rows stay buffered and are folded again, so
nothing is lost and nothing is counted twice.

A rule that reads a counter (Delivered, Chosen, Last agent open, the decay score, the Most chosen and Coldest
orders) is evaluated on the lesson columns, so its caller settles the account first (`reads_settle_for`): the
pending rows of one account are at most the reads of one fold interval, READS_FOLD_BATCH rows a transaction.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from django.conf import settings
from django.db import connection, transaction
from django.db.models import (
    Case,
    Count,
    DateTimeField,
    F,
    IntegerField,
    JSONField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Greatest, JSONObject
from django.utils.dateparse import parse_datetime

from lore.decay import ANNOTATION as DECAY
from lore.decay import DECAY_INPUTS, decay_score
from lore.limits import READS_FOLD_BATCH, READS_FOLD_RUN_MAX, READS_FOLD_TIME_LIMIT
from lore.models import Account, Lesson, LessonRead
from lore.rules.rule import Rule
from lore.vacuum import lessons_vacuum


@dataclass(frozen=True)
class Fold:
    """How buffered reads move one counter: `bump` aggregates the rows, `how` combines it with the column."""

    field: str
    bump: str
    aggregate: Any
    how: Literal["add", "latest"]
    opens_only: bool = False  # moved by an open alone (its aggregate counts opened rows only)


FOLDS = (
    Fold("read_count", "reads", Count("pk"), "add"),
    Fold("last_read_at", "last_read", Max("at"), "latest"),
    Fold("opened_count", "opens", Count("pk", filter=Q(opened=True)), "add", opens_only=True),
    Fold("last_opened_at", "last_open", Max("at", filter=Q(opened=True)), "latest", opens_only=True),
)
FOLDS_BY_FIELD = {fold.field: fold for fold in FOLDS}
COUNTER_FIELDS = frozenset(FOLDS_BY_FIELD)
PENDING = "pending_reads"  # the annotation lessons_with_pending adds: {fold.bump: aggregate} or None


# ---------------------------------------------------------------- recording


def reads_record(*, account: Account, lesson_ids: Iterable[int], at: datetime, opened: bool = False) -> None:
    """Delivered +1 (and Chosen +1 when `opened`) for each lesson: one INSERT, whatever the number of lessons."""
    LessonRead.objects.bulk_create(
        [LessonRead(account=account, lesson_id=pk, opened=opened, at=at) for pk in lesson_ids]
    )


# ---------------------------------------------------------------- pending reads, shown


def _bumps(rows: QuerySet[LessonRead]) -> QuerySet[LessonRead, Any]:
    """Per lesson of `rows`: every Fold's aggregate (lesson_id, reads, last_read, opens, last_open)."""
    return rows.order_by().values("lesson_id").annotate(**{fold.bump: fold.aggregate for fold in FOLDS})


def _pending_rows() -> QuerySet[LessonRead]:
    """The pending reads of the outer query's lesson (a correlated sub-select)."""
    return LessonRead.objects.filter(lesson_id=OuterRef("pk"), account_id=OuterRef("account_id"))


def _pending_of(fold: Fold) -> Coalesce | Subquery:
    rows = _bumps(_pending_rows()).values(fold.bump)
    value = Subquery(rows, output_field=IntegerField() if fold.how == "add" else DateTimeField())
    return Coalesce(value, 0) if fold.how == "add" else value


def lessons_with_pending(qs: QuerySet[Lesson]) -> QuerySet[Lesson]:
    """`qs` with each lesson's pending reads, read by the same statement (`pending_apply` adds them): one
    sub-select per lesson answering every Fold's aggregate as one JSON object, where a sub-select per counter
    read the lesson's pending rows four times (bench/RESULTS.md, issue 16 #32)."""
    bumps = JSONObject(**{fold.bump: fold.aggregate for fold in FOLDS})
    pending = _pending_rows().order_by().values("lesson_id").annotate(bumps=bumps).values("bumps")
    return qs.annotate(**{PENDING: Subquery(pending, output_field=JSONField())})


def _later_of(first: Any, second: Any) -> Greatest:
    """The later of two times, either of which may be NULL (SQLite's MAX() is NULL when an argument is)."""
    return Greatest(Coalesce(first, second), Coalesce(second, first))


def _folded(fold: Fold, bump: Any) -> Any:
    """The counter's column with `bump` folded in, as SQL: added, or the later time."""
    return F(fold.field) + bump if fold.how == "add" else _later_of(F(fold.field), bump)


def _exact(field: str) -> Any:
    """The expression of a counter with its pending reads, for SQL that must read it exact (the decay shown)."""
    fold = FOLDS_BY_FIELD[field]
    return _folded(fold, _pending_of(fold))


def lessons_with_exact_decay(qs: QuerySet[Lesson], now: datetime) -> QuerySet[Lesson]:
    """`qs` with each lesson's decay score as shown: from its last open and Chosen with pending reads included.
    (Rules and the Coldest order read the stored columns, after reads_settle_for.)"""
    score = decay_score(now, last_open=_exact("last_opened_at"), opened=_exact("opened_count"))
    return qs.annotate(**{DECAY: score})


def lesson_decay_score_exact(lesson: Lesson, now: datetime) -> int:
    """One lesson's decay score as shown (pending reads included)."""
    return int(
        lessons_with_exact_decay(Lesson.objects.filter(pk=lesson.pk), now).values_list(DECAY, flat=True)[0]
    )


def _latest(first: datetime | None, second: datetime | None) -> datetime | None:
    return max((t for t in (first, second) if t is not None), default=None)


def _time(value: object) -> datetime | None:
    """A time out of the pending reads' JSON: ISO text (PostgreSQL's, with its offset, or SQLite's, in UTC)."""
    if value is None:
        return None
    parsed = parse_datetime(str(value))
    if parsed is None:
        raise ValueError(f"not a time: {value!r}")
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def pending_apply(lessons: Iterable[Lesson]) -> None:
    """Fold each lesson's pending reads (annotated by lessons_with_pending) into its counters, in memory only."""
    for lesson in lessons:
        bumps = getattr(lesson, PENDING) or {}
        for fold in FOLDS:
            pending = bumps.get(fold.bump)
            current = getattr(lesson, fold.field)
            if fold.how == "add":
                setattr(lesson, fold.field, current + int(pending or 0))
            else:
                setattr(lesson, fold.field, _latest(current, _time(pending)))


def lesson_exact(qs: QuerySet[Lesson]) -> Lesson | None:
    """The first lesson of `qs` with its exact counters (pending reads included), or None."""
    lesson = lessons_with_pending(qs).first()
    if lesson is not None:
        pending_apply([lesson])
    return lesson


def pending_count(account: Account) -> int:
    """Reads of the account not yet folded."""
    return LessonRead.objects.filter(account=account).count()


# ---------------------------------------------------------------- the fold


def _apply_postgresql(account_id: int, batch: QuerySet[LessonRead]) -> None:
    """One UPDATE … FROM (the batch, aggregated per lesson), on the account's lessons only."""
    bumps_sql, params = _bumps(batch).query.sql_with_params()
    sets = ", ".join(
        f"{f.field} = l.{f.field} + b.{f.bump}"
        if f.how == "add"
        else f"{f.field} = GREATEST(l.{f.field}, b.{f.bump})"
        for f in FOLDS
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Lesson._meta.db_table} AS l SET {sets} FROM ({bumps_sql}) AS b"
            " WHERE l.id = b.lesson_id AND l.account_id = %s",
            (*params, account_id),
        )


def _apply_portable(account_id: int, batch: QuerySet[LessonRead]) -> None:
    """One UPDATE with a CASE per counter (SQLite: no UPDATE … FROM a subquery's columns by name)."""
    bumps = list(_bumps(batch))
    if not bumps:
        return

    def per_lesson(fold: Fold) -> Case:
        output = IntegerField() if fold.how == "add" else DateTimeField()
        whens = [When(pk=row["lesson_id"], then=Value(row[fold.bump], output_field=output)) for row in bumps]
        return Case(*whens, output_field=output)

    updates = {fold.field: _folded(fold, per_lesson(fold)) for fold in FOLDS}
    lessons = Lesson.objects.filter(account_id=account_id, pk__in=[row["lesson_id"] for row in bumps])
    lessons.update(**updates)


def _fold_batch(account_id: int, *, wait: bool, opens_only: bool = False) -> int:
    """Move up to READS_FOLD_BATCH of the account's oldest buffered reads (`opens_only`: of its opens) into the
    lessons, in one transaction: lock the rows (skipping rows another fold holds, unless `wait`), lock their
    lessons in id order (the order every multi-lesson UPDATE locks in, so no deadlock), add the aggregates,
    delete exactly the rows locked. Each row carries its whole effect (an open is also a delivery), so any
    subset of the rows can be folded before the rest."""
    rows = LessonRead.objects.filter(account_id=account_id)
    if opens_only:
        rows = rows.filter(opened=True)
    with transaction.atomic():
        ids = list(
            rows.order_by("pk")
            .select_for_update(skip_locked=not wait)
            .values_list("pk", flat=True)[: READS_FOLD_BATCH.value]
        )
        if not ids:
            return 0
        batch = LessonRead.objects.filter(pk__in=ids)
        list(
            Lesson.objects.filter(account_id=account_id, pk__in=batch.values("lesson_id"))
            .order_by("pk")
            .select_for_update()
            .values_list("pk", flat=True)
        )
        if connection.vendor == "postgresql":
            _apply_postgresql(account_id, batch)
        else:
            _apply_portable(account_id, batch)
        batch.delete()
    return len(ids)


def reads_settle(account: Account, *, opens_only: bool = False) -> int:
    """Fold every read of the account buffered so far (waiting for a fold in progress to commit), so that what
    follows reads exact counters from the lesson columns; `opens_only`, only its opens (exact Chosen and last
    agent open, deliveries left buffered). Answers the reads folded."""
    folded = 0
    while moved := _fold_batch(account.pk, wait=True, opens_only=opens_only):
        folded += moved
    return folded


def _counters_read(fields: Iterable[str]) -> set[str]:
    """The counters a query on these lesson fields (or the decay score) reads."""
    read = set(fields)
    if DECAY in read:
        read.update(DECAY_INPUTS)
    return read & COUNTER_FIELDS


def reads_counters(fields: Iterable[str]) -> bool:
    """Whether a query on these lesson fields (or the decay score) reads a counter a read moves."""
    return bool(_counters_read(fields))


def rule_fields(rule: Rule, order_field: str = "") -> set[str]:
    """The lesson fields `rule`'s conditions read, and `order_field` (lore.selectors.sort_field)."""
    from lore.conditions import PARAMS

    fields = {PARAMS[name].condition.field for name in rule.conditions if name in PARAMS}
    return fields | {order_field} if order_field else fields


# The counters only an open moves: a query that reads no other counter needs only the opens folded before it.
OPEN_FIELDS = frozenset(fold.field for fold in FOLDS if fold.opens_only)


def reads_settle_for(account: Account, fields: Iterable[str]) -> int:
    """Settle the account before a query on `fields` that reads a counter (one EXISTS when nothing is pending,
    nothing at all when no counter is read). A query on Chosen or the last agent open (a retention rule's
    `unseen_days`, `max_opened_count`, the decay score) folds only the pending opens: the deliveries agents
    buffer all the time do not move what it reads, and stay buffered for the every-minute fold."""
    counters = _counters_read(fields)
    if not counters:
        return 0
    opens_only = counters <= OPEN_FIELDS
    pending = LessonRead.objects.filter(account=account)
    if opens_only:
        pending = pending.filter(opened=True)
    if not pending.exists():
        return 0
    return reads_settle(account, opens_only=opens_only)


@dataclass(frozen=True)
class FoldReport:
    folded: int
    accounts: int
    complete: bool  # False when the run stopped at READS_FOLD_RUN_MAX or READS_FOLD_TIME_LIMIT

    def as_dict(self) -> Mapping[str, object]:
        return {"folded": self.folded, "accounts": self.accounts, "complete": self.complete}


def reads_fold(*, max_rows: int | None = None, time_limit: float | None = None) -> FoldReport:
    """Fold buffered reads of every account, batch by batch, oldest account rows first; stops between batches
    after `max_rows` (READS_FOLD_RUN_MAX) or `time_limit` seconds (READS_FOLD_TIME_LIMIT). Skips rows another
    fold holds. With LORE_READS_FOLD_VACUUM, VACUUMs the lessons afterwards (PostgreSQL)."""
    max_rows = READS_FOLD_RUN_MAX.value if max_rows is None else max_rows
    time_limit = READS_FOLD_TIME_LIMIT.value if time_limit is None else time_limit
    started = time.monotonic()
    folded = accounts = 0
    complete = True
    account_ids = list(
        LessonRead.objects.order_by("account_id").values_list("account_id", flat=True).distinct()
    )
    for account_id in account_ids:
        accounts += 1
        while True:
            if folded >= max_rows or time.monotonic() - started >= time_limit:
                complete = False
                break
            moved = _fold_batch(account_id, wait=False)
            folded += moved
            if moved < READS_FOLD_BATCH.value:
                break
        if not complete:
            break
    if folded and getattr(settings, "LORE_READS_FOLD_VACUUM", False):
        lessons_vacuum(analyze=False)  # the pages the fold rewrote all-visible again
    return FoldReport(folded=folded, accounts=accounts, complete=complete)
