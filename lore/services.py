"""The only code that changes lessons (DESIGN.md §1, §3). Each state change writes its audit event here: a
LessonEvent for one lesson, a LessonEventBatch for an archive or restore batch (lore.events).

| surface                         | seen | read, last_read | opened, last_opened | updated_at | ReadEvent |
| write                           | +1   |                 |                     | now        |           |
| list/search page, single fetch  |      | +1              |                     |            | 1         |
| deliberate agent open           |      | +1              | +1, now             |            | 1         |

Reads are buffered (lore.reads): a read appends rows to LessonRead in one INSERT and the fold moves them into the
lesson columns; every surface shows the columns plus the pending rows.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.db.models import BigIntegerField, BooleanField, CharField, DateTimeField, F, Q, QuerySet, Value
from django.db.models.expressions import RawSQL
from django.db.models.sql import UpdateQuery
from django.utils import timezone

from lore.activity import activity_record
from lore.events import BATCH_COLUMNS, BATCH_FROM_CHANGED, BATCHES, event_batch_write
from lore.garden.signatures import claims_sync, signatures_sync
from lore.inputs import LessonInput
from lore.limits import ARCHIVE_BATCH
from lore.models import Account, Activity, Lesson, LessonEvent, LessonTag, ReadEvent
from lore.reads import lesson_exact, reads_record
from lore.vacuum import lessons_vacuum_soon
from lore.value_counts import state_moves_columns, state_moves_counted

Action = LessonEvent.Action


def tags_sync(account: Account, tags_by_lesson: Mapping[int, Sequence[str]]) -> None:
    """Make LessonTag rows mirror each lesson's tag list (two statements for any number of lessons)."""
    if not tags_by_lesson:
        return
    LessonTag.objects.filter(lesson_id__in=list(tags_by_lesson)).delete()
    LessonTag.objects.bulk_create(
        [
            LessonTag(lesson_id=lesson_id, account=account, tag=tag)
            for lesson_id, tags in tags_by_lesson.items()
            for tag in dict.fromkeys(tags)
        ],
        batch_size=2000,
    )


def _locked_in_id_order(account: Account, lesson_ids: Iterable[int]) -> Q:
    """`pk IN (those rows, locked in id order)`. Every statement that updates many lessons locks its rows
    through this, so two of them (two list pages, a page and an archive batch) always take their row locks in
    the same order and cannot deadlock, whatever plan PostgreSQL picks for each. One statement still."""
    rows = Lesson.objects.filter(account=account, pk__in=list(lesson_ids)).order_by("pk")
    return Q(pk__in=rows.select_for_update().values("pk"))


_EVENT_COLUMNS = "account_id, lesson_id, action, actor, run_id, detail, at"


def events_for(
    lessons: QuerySet[Lesson], *, action: str, actor: str, run_id: int | None, detail: str, now: datetime
) -> list[int]:
    """One audit event per lesson of `lessons`, written by the database in one INSERT … SELECT (no Python object
    per row: a grooming batch logs thousands). Returns the ids of the lessons logged."""
    rows = (
        lessons.order_by()
        .annotate(
            e_action=Value(action, output_field=CharField()),
            e_actor=Value(actor, output_field=CharField()),
            e_run=Value(run_id, output_field=BigIntegerField()),
            e_detail=Value(detail, output_field=CharField()),
            e_at=Value(now, output_field=DateTimeField()),
        )
        .values_list("account_id", "pk", "e_action", "e_actor", "e_run", "e_detail", "e_at")
    )
    select, params = rows.query.sql_with_params()
    table = LessonEvent._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {table} ({_EVENT_COLUMNS}) {select} RETURNING lesson_id", params)
        return [row[0] for row in cursor.fetchall()]


def _update_returning_ids(lessons: QuerySet[Lesson], **values: object) -> list[int]:
    """`lessons.update(**values)`, answering the ids of exactly the rows it changed (UPDATE … RETURNING, one
    statement): no second query to find them again, which the planner could send through the wrong index."""
    query: UpdateQuery = lessons.query.chain(UpdateQuery)  # type: ignore[assignment]
    query.add_update_values(values)
    statement, params = query.get_compiler(lessons.db).as_sql()
    with connection.cursor() as cursor:
        cursor.execute(f'{statement} RETURNING "{Lesson._meta.db_table}"."id"', params)
        return sorted(row[0] for row in cursor.fetchall())


def _event(lesson: Lesson, action: str, *, actor: str = "", detail: str = "", now: datetime) -> LessonEvent:
    return LessonEvent.objects.create(
        account_id=lesson.account_id, lesson=lesson, action=action, actor=actor, detail=detail, at=now
    )


def _written(lesson: Lesson, *, actor: str, detail: str, now: datetime) -> None:
    _event(lesson, Action.WRITTEN, actor=actor, detail=detail, now=now)
    activity_record(
        account=lesson.account_id,
        action=Activity.Action.LESSON_WRITTEN,
        actor=actor,
        subject=lesson.address,
        lesson_id=lesson.pk,
        detail=detail,
        at=now,
    )


@transaction.atomic
def lesson_write(
    *,
    account: Account,
    data: LessonInput,
    owner: str = "personal",
    actor: str = "",
    now: datetime | None = None,
) -> tuple[Lesson, bool]:
    """Write a lesson (upsert on scope+key). A rewrite is a recurrence; a rewrite of an archived key restores it.
    Its gardener signature and its `supersedes` claims are kept in the same transaction.

    Returns (lesson, created).
    """
    lesson, created = _lesson_upsert(account=account, data=data, owner=owner, actor=actor, now=now)
    signatures_sync(account, [lesson])
    claims_sync(account, {lesson.pk: data.supersedes})
    return lesson, created


def _lesson_upsert(
    *, account: Account, data: LessonInput, owner: str, actor: str, now: datetime | None
) -> tuple[Lesson, bool]:
    now = now or timezone.now()
    fields = {"content": data.content, "tags": data.tags, **data.dims}
    existing = (
        Lesson.objects.select_for_update().filter(account=account, scope=data.scope, key=data.key).first()
    )
    if existing is None:
        try:
            with transaction.atomic():
                lesson = Lesson.objects.create(
                    account=account,
                    scope=data.scope,
                    key=data.key,
                    owner=owner,
                    seen_count=1,
                    created_at=now,
                    updated_at=now,
                    **fields,
                )
        except IntegrityError:  # a concurrent first write won the race: this one is a recurrence
            existing = Lesson.objects.select_for_update().get(account=account, scope=data.scope, key=data.key)
        else:
            tags_sync(account, {lesson.pk: data.tags})
            _written(lesson, actor=actor, detail="created", now=now)
            return lesson, True
    was_archived = existing.archived_at is not None
    Lesson.objects.filter(pk=existing.pk).update(
        seen_count=F("seen_count") + 1,
        updated_at=now,
        archived_at=None,
        archived_by_run=None,
        archive_reason="",
        superseded_by=None,
        **fields,
    )
    if was_archived:
        _event(existing, Action.RESTORED, actor=actor, detail="rewritten while archived", now=now)
    if list(existing.tags) != list(data.tags):  # a recurrence usually repeats its tags: leave their rows be
        tags_sync(account, {existing.pk: data.tags})
    _written(existing, actor=actor, detail="rewritten", now=now)
    existing.refresh_from_db()
    return existing, False


def lessons_deliver(
    *, account: Account, lesson_ids: Sequence[int], scope: str, surface: str, now: datetime | None = None
) -> None:
    """A page (or one lesson) handed to a reader: Delivered +1 for each, buffered (lore.reads): one INSERT of
    read rows and one ReadEvent, whatever the page size. No lesson row is written."""
    ids = sorted(set(lesson_ids))
    if not ids:
        return
    now = now or timezone.now()
    with transaction.atomic():
        reads_record(account=account, lesson_ids=ids, at=now)
        ReadEvent.objects.create(account=account, scope=scope, surface=surface, lesson_count=len(ids), at=now)


def lesson_open(*, account: Account, lesson: Lesson, surface: str, now: datetime | None = None) -> Lesson:
    """A deliberate agent fetch of one lesson: Delivered, Chosen and Last agent open move (buffered, lore.reads).
    Answers the lesson with its exact counters, this open included."""
    if lesson.account_id != account.pk:  # another account's lesson: nothing moves, nothing is recorded
        raise Lesson.DoesNotExist(f"no lesson {lesson.pk} in account {account.pk}")
    now = now or timezone.now()
    with transaction.atomic():
        reads_record(account=account, lesson_ids=[lesson.pk], at=now, opened=True)
        ReadEvent.objects.create(account=account, scope=lesson.scope, surface=surface, lesson_count=1, at=now)
    exact = lesson_exact(Lesson.objects.filter(pk=lesson.pk))
    if exact is None:
        raise Lesson.DoesNotExist(f"no lesson {lesson.pk} in account {account.pk}")
    return exact


@transaction.atomic
def lesson_protect(*, account: Account, lesson: Lesson, protected: bool = True, actor: str = "") -> Lesson:
    """Pin (protect) or unpin a lesson; no policy or manual run archives a protected lesson."""
    now = timezone.now()
    changed = (
        Lesson.objects.filter(account=account, pk=lesson.pk)
        .exclude(protected=protected)
        .update(protected=protected)
    )
    if changed:
        _event(lesson, Action.PROTECTED if protected else Action.UNPROTECTED, actor=actor, now=now)
        activity_record(
            account=account,
            action=Activity.Action.LESSON_PINNED if protected else Activity.Action.LESSON_UNPINNED,
            actor=actor,
            subject=lesson.address,
            lesson_id=lesson.pk,
            at=now,
        )
    lesson.refresh_from_db()
    return lesson


def _archivable(account: Account) -> Q:
    """What any archive repeats inside its UPDATE: the account's active lessons, never a protected one."""
    return Q(account=account, archived_at__isnull=True, protected=False)


def lessons_archive(
    *,
    account: Account,
    lesson_ids: Sequence[int],
    guard: Q | None = None,
    run_id: int | None = None,
    reason: str = "",
    superseded_by: int | None = None,
    actor: str = "",
    now: datetime | None = None,
) -> list[int]:
    """Archive these lessons in one UPDATE that repeats `guard` (the candidate predicate), so a lesson
    restored or rewritten since it was selected is skipped. A protected lesson is never archived, by a run or by
    hand. `superseded_by` records the lesson that replaces them (the gardener). Returns the ids archived."""
    now = now or timezone.now()
    with transaction.atomic():
        archived = _update_returning_ids(
            Lesson.objects.filter(_archivable(account), _locked_in_id_order(account, lesson_ids)).filter(
                guard or Q()
            ),
            archived_at=now,
            archived_by_run_id=run_id,
            archive_reason=reason[:200],
            superseded_by_id=superseded_by,
        )
        if archived:
            event_batch_write(
                account_id=account.pk,
                lesson_ids=archived,
                action=Action.ARCHIVED,
                actor=actor,
                run_id=run_id,
                detail=reason[:500],
                now=now,
            )
            if run_id is None:  # a run is one row of activity, recorded when it starts
                _lessons_activity(
                    account,
                    Activity.Action.LESSON_ARCHIVED,
                    count=len(archived),
                    first_id=archived[0],
                    actor=actor,
                    now=now,
                )
        lessons_vacuum_soon(len(archived))
    return archived


def _lessons_activity(
    account: Account, action: str, *, count: int, first_id: int, actor: str, now: datetime
) -> None:
    """One activity row for a change by hand to one or many lessons (named when it is one)."""
    one = Lesson.objects.filter(pk=first_id).first() if count == 1 else None
    activity_record(
        account=account,
        action=action,
        actor=actor,
        subject=one.address if one else f"{count:,} lessons",
        lesson_id=one.pk if one else None,
        at=now,
    )


def candidate_ids(lessons: QuerySet[Lesson]) -> array[int]:
    """The ids of `lessons`, ascending, as a compact array (8 bytes each: a million candidates take 8 MB).
    Sorted here: the database would sort them by walking the primary key through the whole table.
    Read through a plain cursor, a chunk of rows at a time: a server-side cursor (what `QuerySet.iterator` opens)
    is never planned in parallel, and Django's row iterator cost as much again as the query (255 of ~400 ms for
    98k ids at 1M, issue 29)."""
    sql, params = lessons.order_by().values_list("pk", flat=True).query.sql_with_params()
    ids: array[int] = array("q")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(_IDS_CHUNK):
            ids.extend(row[0] for row in rows)
    return array("q", sorted(ids))


_IDS_CHUNK = 20_000


def bigint_array(ids: Iterable[int]) -> str:
    """`ids` as one PostgreSQL array literal, for a `%s::bigint[]` parameter: psycopg adapts a list of 2,000 ints
    element by element in Python (2.3 ms), the text takes 0.6 ms (issue 29)."""
    return "{" + ",".join(map(str, map(int, ids))) + "}"


def lessons_with_ids(ids: Sequence[int]) -> QuerySet[Lesson]:
    """The lessons with these ids. On PostgreSQL the ids travel as one array parameter, not a placeholder each."""
    if connection.vendor == "postgresql":
        return Lesson.objects.filter(pk__in=RawSQL("SELECT unnest(%s::bigint[])", (bigint_array(ids),)))
    return Lesson.objects.filter(pk__in=list(ids))


# A run's or an undo's batch commits without waiting for its WAL to reach the disk: a commit waited 4–6 ms for
# the flush at 1M, per batch of 2,000 (issue 29). A crash can lose the last batches committed (at most three
# wal_writer_delay, 0.6 s by default), each whole with its audit row and the run's counter, as a kill mid-run would;
# the next run or Undo completes the job. The run's final status and an undo's activity row commit with the wait,
# and a commit that waits flushes every commit before it, so a run reported done is on disk.
_BULK_BATCH = "SET LOCAL synchronous_commit = off"
# What an archive or restore batch returns of its changed lessons: the id for its audit row, the counted columns
# for the count changes it appends itself (lore.value_counts.state_moves_counted).
_CHANGED_COLUMNS = ", ".join(f'"{Lesson._meta.db_table}"."{c}"' for c in ("id", *state_moves_columns()))


def lessons_archive_batch(
    *,
    account: Account,
    lesson_ids: Sequence[int],
    guard: Q,
    run_id: int | None,
    reason: str,
    actor: str,
    now: datetime,
) -> int:
    """One batch of a run: these lessons archived where `guard` still holds, with the batch's audit row. Returns
    how many were archived.

    On PostgreSQL the batch is one statement (`_ids_batch_one_statement`) that re-checks the guard on each lesson
    as it locks it. Elsewhere it is `lessons_archive`.
    """
    if connection.vendor != "postgresql":
        return len(
            lessons_archive(
                account=account,
                lesson_ids=lesson_ids,
                guard=guard,
                run_id=run_id,
                reason=reason,
                actor=actor,
                now=now,
            )
        )
    changing = Lesson.objects.filter(_archivable(account)).filter(guard)
    values = {"archived_at": now, "archived_by_run_id": run_id, "archive_reason": reason[:200]}
    event = (Action.ARCHIVED, actor, run_id, reason[:500], now)
    return _ids_batch_one_statement(changing, lesson_ids, values, archived_before=False, event=event)[0]


def _ids_batch_one_statement(
    changing: QuerySet[Lesson],
    lesson_ids: Sequence[int],
    values: Mapping[str, object],
    *,
    archived_before: bool,
    event: tuple[str, str, int | None, str, datetime],
) -> tuple[int, int | None]:
    """PostgreSQL: one batch of a run as one statement (bench/archive_parts.py also times it as a restore, which
    issue 29's fourth pass tried and did not keep: see docs/scaling.md). The lessons of `lesson_ids` that
    `changing` still describes get `values` (every one moved between active and archived, nothing else), the
    statement appends their count changes itself (lore.value_counts.state_moves_counted) and the batch's audit
    row `event` (action, actor, run, detail, at) holding the ids it changed — as CTEs: `UPDATE … WHERE id =
    ANY(ids) AND <changing> RETURNING` → INSERT of the counts and of the audit row (lore.events). Returns (how many
    changed, the lowest id changed).

    The UPDATE locks what it changes and, on a row another client changed meanwhile, re-checks `changing` on the
    newest version (READ COMMITTED), so the re-check is atomic without a locking SELECT first (a LockRows pass and
    a second primary-key lookup per lesson: 13 of 68 ms of an archive batch of 2,000 at 1M, issue 29). It takes
    its row locks in id order, like every statement that changes many lessons (`_locked_in_id_order`): a B-tree
    scan of `id = ANY(…)` returns the rows in key order, and the heap-order scans (sequential, bitmap) are
    switched off for the batch's transaction so the planner cannot pick one. The transaction commits without
    waiting for the disk (`_BULK_BATCH`)."""
    table = Lesson._meta.db_table
    these = RawSQL(
        f'"{table}"."id" = ANY(%s::bigint[])', (bigint_array(lesson_ids),), output_field=BooleanField()
    )
    update: UpdateQuery = changing.filter(these).query.chain(UpdateQuery)  # type: ignore[assignment]
    update.add_update_values(dict(values))
    change, change_params = update.get_compiler(Lesson.objects.db).as_sql()
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        cursor.execute(f"{_BULK_BATCH}; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off")
        cursor.execute(
            f"""
            WITH changed AS ({change} RETURNING {_CHANGED_COLUMNS}),
            {state_moves_counted("changed", archived_before=archived_before)},
            logged AS (
                INSERT INTO {BATCHES} ({BATCH_COLUMNS})
                SELECT {BATCH_FROM_CHANGED} FROM changed HAVING count(*) > 0
                RETURNING lessons, first_lesson_id
            )
            SELECT coalesce((SELECT lessons FROM logged), 0), (SELECT first_lesson_id FROM logged)
            """,
            [*change_params, *event],
        )
        changed, first = cursor.fetchone()
    return int(changed), first


def _batch_one_statement(
    picking: QuerySet[Lesson],
    changing: QuerySet[Lesson],
    values: dict[str, object],
    *,
    limit: int,
    event: tuple[str, str, int | None, str, datetime],
) -> tuple[int | None, int, int | None]:
    """PostgreSQL: one batch of a bulk restore as one statement. The first `limit` lessons of `picking` (id
    order) are locked, those of them `changing` still describes get `values` (archived → active, nothing else),
    their count changes are appended by the statement itself (lore.value_counts.state_moves_counted), and each
    changed batch gets its audit event `event` (action, actor, run, detail, at), one row holding the changed ids
    — as CTEs: pick → UPDATE … RETURNING → INSERT of the counts and the batch's event (lore.events). No id list
    crosses the wire and nothing is read twice. Returns (the last id picked, None when nothing was left; how many
    changed; the lowest id changed)."""
    with transaction.atomic(savepoint=False):
        picked, picked_params = picking.select_for_update().values("pk")[:limit].query.sql_with_params()
        update: UpdateQuery = changing.filter(pk__in=RawSQL('SELECT "pk" FROM picked', ())).query.chain(
            UpdateQuery
        )  # type: ignore[assignment]
        update.add_update_values(values)
        change, change_params = update.get_compiler(Lesson.objects.db).as_sql()
        with connection.cursor() as cursor:
            cursor.execute(_BULK_BATCH)
            cursor.execute(
                f"""
                WITH picked AS ({picked}),
                changed AS ({change} RETURNING {_CHANGED_COLUMNS}),
                {state_moves_counted("changed", archived_before=True)},
                logged AS (
                    INSERT INTO {BATCHES} ({BATCH_COLUMNS})
                    SELECT {BATCH_FROM_CHANGED} FROM changed HAVING count(*) > 0
                    RETURNING lessons, first_lesson_id
                )
                SELECT (SELECT max("pk") FROM picked), coalesce((SELECT lessons FROM logged), 0),
                       (SELECT first_lesson_id FROM logged)
                """,
                [*picked_params, *change_params, *event],
            )
            last, changed_count, first = cursor.fetchone()
    return last, int(changed_count), first


def lessons_restore(
    *,
    account: Account,
    lesson_ids: Iterable[int] | None = None,
    run_id: int | None = None,
    actor: str = "",
    on_batch: Callable[[int], None] | None = None,
) -> int:
    """Restore archived lessons, by id or every lesson a run archived ("Undo run"). Returns how many.
    `on_batch(restored)` runs inside each batch's transaction, so a counter it keeps commits with the lessons.
    On PostgreSQL the batches commit without waiting for the disk (`_BULK_BATCH`); the activity row written
    after them (here for a restore by hand, by the caller for an undo) waits, and so flushes them."""
    now = timezone.now()
    qs = Lesson.objects.filter(account=account, archived_at__isnull=False)
    if lesson_ids is not None:
        qs = qs.filter(pk__in=list(lesson_ids))
    if run_id is not None:
        qs = qs.filter(archived_by_run_id=run_id)
    restore = _restore_batch_one_statement if connection.vendor == "postgresql" else _restore_batch
    detail = f"undo of run {run_id}" if run_id else ""
    total, after = 0, 0
    first: int | None = None
    while True:
        with transaction.atomic():
            # Locked, so a lesson restored concurrently is neither restored twice nor logged twice.
            last, restored, lowest = restore(
                qs, after=after, actor=actor, run_id=run_id, detail=detail, now=now
            )
            if last is None:
                break
            after, total = last, total + restored
            first = first if first is not None else lowest
            if on_batch is not None and restored:
                on_batch(restored)
    lessons_vacuum_soon(total)
    if total and run_id is None and first is not None:  # an undo is one row of activity (grooming.run_undo)
        _lessons_activity(
            account, Activity.Action.LESSON_RESTORED, count=total, first_id=first, actor=actor, now=now
        )
    return total


_RESTORED: dict[str, object] = {
    "archived_at": None,
    "archived_by_run": None,
    "archive_reason": "",
    "superseded_by": None,
}


def _restore_batch_one_statement(
    qs: QuerySet[Lesson], *, after: int, actor: str, run_id: int | None, detail: str, now: datetime
) -> tuple[int | None, int, int | None]:
    """The next RESTORE_BATCH lessons of `qs` after id `after`, restored and logged in one statement."""
    return _batch_one_statement(
        qs.filter(pk__gt=after).order_by("pk"),
        Lesson.objects.filter(archived_at__isnull=False),
        _RESTORED,
        limit=ARCHIVE_BATCH.value,
        event=(Action.RESTORED, actor, run_id, detail, now),
    )


def _restore_batch(
    qs: QuerySet[Lesson], *, after: int, actor: str, run_id: int | None, detail: str, now: datetime
) -> tuple[int | None, int, int | None]:
    """The same batch in three statements (SQLite): pick and lock, UPDATE, INSERT of the batch's event."""
    picked = list(
        qs.filter(pk__gt=after)
        .select_for_update()
        .order_by("pk")
        .values_list("pk", "account_id")[: ARCHIVE_BATCH.value]
    )
    if not picked:
        return None, 0, None
    batch = [pk for pk, _ in picked]
    Lesson.objects.filter(pk__in=batch, archived_at__isnull=False).update(**_RESTORED)
    event_batch_write(
        account_id=picked[0][1],
        lesson_ids=batch,
        action=Action.RESTORED,
        actor=actor,
        run_id=run_id,
        detail=detail,
        now=now,
    )
    return batch[-1], len(batch), batch[0]


def lesson_restore(*, account: Account, lesson: Lesson, actor: str = "") -> Lesson:
    """Restore one archived lesson (a no-op for an active one)."""
    lessons_restore(account=account, lesson_ids=[lesson.pk], actor=actor)
    lesson.refresh_from_db()
    return lesson
