"""Daily rollups, and event tables that stay bounded (issue 28, parts 2 and 3).

The nightly rollup (`rollups_nightly`, Celery beat `nightly-rollups`, minutes after midnight UTC) does three
things per account, each idempotent and bounded by ROLLUP_TIME_LIMIT:

1. `rollups_keep` writes one `DailyRollup` row per day that ended since the last one (at most
   ROLLUP_BACKFILL_DAYS of them): lessons active, archived and purged at the end of the day, findings opened and
   applied, lessons delivered, runs (and how many were interrupted), rows archived and undone. A row is written
   once; a second run that night finds nothing to do. The day's counts come from rows still kept (the backfill
   never reaches past the horizon); the lesson totals are counted when the row is written, so only the day just
   ended gets them, and a backfilled day leaves them empty rather than guess.
2. `read_events_compact` moves `ReadEvent` rows older than EVENTS_HORIZON_DAYS into `DailyReads` (per day, scope
   and surface): each batch DELETEs its rows … RETURNING them and adds their sums in the same transaction, so a
   row is counted in the rollup exactly when it leaves the table. The Read card adds the two
   (`deliveries_between`), whole rolled-up days only; the horizon is never under 90 days (every preset window of
   the card, and its all-time default, is then answered by rows alone).
3. `lesson_events_prune` deletes the lesson events that nothing shows any more: older than the horizon, and not
   among the LESSON_HISTORY_SHOWN newest of their lesson (what its sheet shows). The event that archived a lesson
   still archived by that run is always kept. An archive or restore batch's one row (LessonEventBatch, issue 29)
   is kept: it is one row for up to ARCHIVE_BATCH lessons, and a purge takes its purged lessons out of it. Undo and a run's "what it archived" read the lessons'
   `archived_by_run`, which pruning never touches; a run's counts live on the run.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock

from django.db import connection, transaction
from django.db.models import Count, Max, Q, Subquery, Sum
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from lore.events import restored_by_runs
from lore.limits import (
    EVENTS_HORIZON_DAYS,
    LESSON_HISTORY_SHOWN,
    ROLLUP_BACKFILL_DAYS,
    ROLLUP_BATCH,
    ROLLUP_TIME_LIMIT,
)
from lore.models import (
    Account,
    Activity,
    DailyReads,
    DailyRollup,
    Finding,
    Lesson,
    LessonEvent,
    PolicyRun,
    ReadEvent,
    RollupState,
    Tombstone,
)
from lore.scopes import GLOBAL, scope_q
from lore.value_counts import maintained, page_counts

HORIZON_FLOOR_DAYS = 90  # the Read card's longest preset and its all-time window (explorer.state)
NOT_COUNTED_AS_READS = (ReadEvent.Surface.DASHBOARD,)  # a person browsing is not a delivery the card counts
STOPPED = (PolicyRun.Status.INTERRUPTED, PolicyRun.Status.FAILED)
ARCHIVED = LessonEvent.Action.ARCHIVED.value


def horizon_days() -> int:
    """EVENTS_HORIZON_DAYS, never under the floor that keeps every preset of the Read card on rows."""
    return max(EVENTS_HORIZON_DAYS.value, HORIZON_FLOOR_DAYS)


def day_start(day: date) -> datetime:
    """Midnight at the start of `day`, in the project's time zone (UTC)."""
    return datetime.combine(day, clock.min, timezone.get_current_timezone())


def day_of(moment: datetime) -> date:
    return timezone.localdate(moment)


# ---------------------------------------------------------------- reads: rows and rollups, added


def _whole_days(since: datetime | None, until: datetime | None) -> Q:
    """Rolled-up days lying wholly inside [since, until)."""
    q = Q()
    if since is not None:
        first = day_of(since)
        q &= Q(day__gte=first if day_start(first) >= since else first + timedelta(days=1))
    if until is not None:
        q &= Q(day__lt=day_of(until))
    return q


def deliveries_between(
    account: Account, *, since: datetime | None, until: datetime | None, scope: str = GLOBAL
) -> int:
    """Lessons delivered in [since, until) against `scope` (what the Read card shows): the ReadEvent rows plus
    the rolled-up days, in one query. The dashboard's own reads are left out."""
    raw = ReadEvent.objects.filter(account=account).exclude(surface__in=NOT_COUNTED_AS_READS)
    raw = raw.filter(scope_q(scope))
    if since is not None:
        raw = raw.filter(at__gte=since)
    if until is not None:
        raw = raw.filter(at__lt=until)
    rolled = DailyReads.objects.filter(account=account).exclude(surface__in=NOT_COUNTED_AS_READS)
    rolled = rolled.filter(scope_q(scope)).filter(_whole_days(since, until))
    row = (
        Account.objects.filter(pk=account.pk)
        .annotate(
            raw=Subquery(raw.order_by().values("account_id").annotate(n=Sum("lesson_count")).values("n")),
            rolled=Subquery(rolled.order_by().values("account_id").annotate(n=Sum("deliveries")).values("n")),
        )
        .values_list("raw", "rolled")
        .first()
    )
    return int((row or (0, 0))[0] or 0) + int((row or (0, 0))[1] or 0)


# ---------------------------------------------------------------- one day's figures


@dataclass(frozen=True)
class DayFigures:
    """What the Health page shows for one day. Lesson totals are None for a day nobody counted them."""

    day: date
    active: int | None = None
    archived: int | None = None
    purged: int | None = None
    findings_opened: int = 0
    findings_applied: int = 0
    reads: int = 0
    runs: int = 0
    runs_interrupted: int = 0
    rows_archived: int = 0
    rows_undone: int = 0


def lesson_totals(account: Account) -> tuple[int, int]:
    """(active, archived) lessons now: from the kept page counts on PostgreSQL (a few thousand rows at 1M)."""
    if maintained():
        active = archived = 0
        for *_, is_archived, _protected, lessons in page_counts(account.pk, Q()):
            if is_archived:
                archived += lessons
            else:
                active += lessons
        return active, archived
    totals = Lesson.objects.filter(account=account).aggregate(
        active=Count("pk", filter=Q(archived_at__isnull=True)),
        archived=Count("pk", filter=Q(archived_at__isnull=False)),
    )
    return int(totals["active"]), int(totals["archived"])


def day_figures(account: Account, day: date, *, totals: bool) -> DayFigures:
    """The day's counts from the rows that record them (read events and their rollups, findings, the activity
    log, runs, restore events); with `totals`, the lessons active, archived and purged now."""
    start, end = day_start(day), day_start(day + timedelta(days=1))
    runs = PolicyRun.objects.filter(account=account, created_at__gte=start, created_at__lt=end).aggregate(
        runs=Count("pk"), stopped=Count("pk", filter=Q(status__in=STOPPED)), archived=Sum("archived")
    )
    figures = DayFigures(
        day=day,
        findings_opened=Finding.objects.filter(
            account=account, created_at__gte=start, created_at__lt=end
        ).count(),
        findings_applied=Activity.objects.filter(
            account=account, action=Activity.Action.FINDING_APPLIED, at__gte=start, at__lt=end
        ).count(),
        reads=deliveries_between(account, since=start, until=end),
        runs=int(runs["runs"]),
        runs_interrupted=int(runs["stopped"]),
        rows_archived=int(runs["archived"] or 0),
        rows_undone=restored_by_runs(account, start, end),
    )
    if not totals:
        return figures
    active, archived = lesson_totals(account)
    return DayFigures(
        **{**asdict(figures), "active": active, "archived": archived, "purged": _purged(account, day)}
    )


def _purged(account: Account, day: date) -> int:
    """Tombstones at the end of `day`: the day before's rollup plus the day's purges (a range of one day on the
    tombstone index), or, without that rollup, all of them counted."""
    start, end = day_start(day), day_start(day + timedelta(days=1))
    before = DailyRollup.objects.filter(account=account, day=day - timedelta(days=1), purged__isnull=False)
    known = before.values_list("purged", flat=True).first()
    if known is None:
        return Tombstone.objects.filter(account=account, purged_at__lt=end).count()
    return (
        int(known)
        + Tombstone.objects.filter(account=account, purged_at__gte=start, purged_at__lt=end).count()
    )


def rollups_keep(account: Account, *, now: datetime) -> int:
    """A DailyRollup row for each day that ended since the account's last one (ROLLUP_BACKFILL_DAYS at most,
    never past the horizon). Answers how many rows were written; 0 when the account is up to date."""
    yesterday = day_of(now) - timedelta(days=1)
    last = DailyRollup.objects.filter(account=account).aggregate(day=Max("day"))["day"]
    backfill = min(ROLLUP_BACKFILL_DAYS.value, horizon_days())
    first = max(day_of(account.created_at), yesterday - timedelta(days=backfill - 1))
    if last is not None:
        first = max(first, last + timedelta(days=1))
    rows = []
    day = first
    while day <= yesterday:
        figures = day_figures(account, day, totals=day == yesterday)
        rows.append(DailyRollup(account=account, computed_at=now, **asdict(figures)))
        day += timedelta(days=1)
    # A concurrent run that wrote the same days wins: its rows are the same figures.
    DailyRollup.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


# ---------------------------------------------------------------- read events past the horizon


def _as_datetime(value: object) -> datetime:
    """A timestamp as the database returned it from raw SQL (SQLite: text in UTC)."""
    if isinstance(value, datetime):
        moment = value
    else:
        parsed = parse_datetime(str(value))
        assert parsed is not None
        moment = parsed
    return moment if timezone.is_aware(moment) else moment.replace(tzinfo=UTC)


def horizon_start(now: datetime) -> datetime:
    """Events before this are rolled up or pruned: midnight, EVENTS_HORIZON_DAYS before today."""
    return day_start(day_of(now) - timedelta(days=horizon_days()))


def _read_events_take(account: Account, before: datetime, limit: int) -> list[tuple[datetime, str, str, int]]:
    """DELETE the account's `limit` oldest read events before `before`, answering exactly the rows deleted."""
    table = ReadEvent._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} WHERE account_id = %s AND at < %s "
            f"ORDER BY at LIMIT %s) RETURNING at, scope, surface, lesson_count",
            [account.pk, connection.ops.adapt_datetimefield_value(before), limit],
        )
        return [(_as_datetime(at), scope, surface, int(n)) for at, scope, surface, n in cursor.fetchall()]


def _daily_reads_add(account: Account, taken: Iterable[tuple[datetime, str, str, int]]) -> None:
    """Add rows just deleted to their (day, scope, surface) rollups."""
    sums: dict[tuple[date, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for at, scope, surface, lesson_count in taken:
        key = (day_of(at), scope, surface)
        sums[key][0] += lesson_count
        sums[key][1] += 1
    existing = {
        (row.day, row.scope, row.surface): row
        for row in DailyReads.objects.select_for_update().filter(
            account=account, day__in={day for day, _, _ in sums}
        )
    }
    changed, new = [], []
    for (day, scope, surface), (deliveries, events) in sums.items():
        row = existing.get((day, scope, surface))
        if row is None:
            new.append(DailyReads(account=account, day=day, scope=scope, surface=surface,
                                  deliveries=deliveries, events=events))  # fmt: skip
        else:
            row.deliveries += deliveries
            row.events += events
            changed.append(row)
    DailyReads.objects.bulk_update(changed, ["deliveries", "events"])
    DailyReads.objects.bulk_create(new)


def read_events_compact(account: Account, *, now: datetime, deadline: float) -> int:
    """Roll the account's read events older than the horizon into DailyReads, ROLLUP_BATCH rows a transaction
    (the account row locked, so two runs never add to the same day at once). Answers how many rows went."""
    before, total = horizon_start(now), 0
    while time.monotonic() < deadline:
        with transaction.atomic():
            # FOR NO KEY UPDATE: serializes two rollups of the account, never the reads whose inserts check
            # their account key (FOR KEY SHARE) meanwhile.
            Account.objects.select_for_update(no_key=True).filter(pk=account.pk).first()
            taken = _read_events_take(account, before, ROLLUP_BATCH.value)
            if not taken:
                break
            _daily_reads_add(account, taken)
        total += len(taken)
    return total


# ---------------------------------------------------------------- lesson events nothing shows


def _prune_sql() -> str:
    events, lessons = LessonEvent._meta.db_table, Lesson._meta.db_table
    return f"""
        DELETE FROM {events} WHERE id IN (
          SELECT ranked.id FROM (
            SELECT e.id, e.at, e.action, e.run_id, e.lesson_id,
                   ROW_NUMBER() OVER (PARTITION BY e.lesson_id ORDER BY e.at DESC, e.id DESC) AS newest
            FROM {events} e
            WHERE e.account_id = %s AND e.lesson_id >= %s AND e.lesson_id <= %s
          ) ranked
          WHERE ranked.newest > %s AND ranked.at < %s
            AND NOT (ranked.action = %s AND EXISTS (
              SELECT 1 FROM {lessons} l
              WHERE l.id = ranked.lesson_id AND l.archived_at IS NOT NULL AND l.archived_by_run_id = ranked.run_id
            ))
        )"""


def lesson_events_prune(account: Account, *, now: datetime, deadline: float) -> int:
    """Delete the account's lesson events older than the horizon that no sheet shows (beyond the
    LESSON_HISTORY_SHOWN newest of their lesson), ROLLUP_BATCH lessons a transaction, going on from where the
    last run stopped. Answers how many events went."""
    before = connection.ops.adapt_datetimefield_value(horizon_start(now))
    state, _ = RollupState.objects.get_or_create(account=account)
    total = 0
    while time.monotonic() < deadline:
        ids = list(
            Lesson.objects.filter(account=account, pk__gt=state.events_after_lesson)
            .order_by("pk")
            .values_list("pk", flat=True)[: ROLLUP_BATCH.value]
        )
        with transaction.atomic():
            if ids:
                params = [account.pk, ids[0], ids[-1], LESSON_HISTORY_SHOWN.value, before, ARCHIVED]
                with connection.cursor() as cursor:
                    cursor.execute(_prune_sql(), params)
                    total += max(cursor.rowcount, 0)
            state.events_after_lesson = ids[-1] if ids else 0
            state.save(update_fields=["events_after_lesson"])
        if not ids:
            break  # every lesson seen: the next run starts over
    return total


# ---------------------------------------------------------------- the nightly run


@dataclass
class RollupReport:
    days: int = 0
    reads_rolled: int = 0
    events_pruned: int = 0
    accounts: list[int] = field(default_factory=list)


def rollups_nightly(
    *, now: datetime | None = None, accounts: Iterable[Account] | None = None
) -> RollupReport:
    """Every account's rollups, read events and old lesson events, within ROLLUP_TIME_LIMIT (between batches)."""
    now = now or timezone.now()
    deadline = time.monotonic() + ROLLUP_TIME_LIMIT.value
    report = RollupReport()
    every = list(accounts if accounts is not None else Account.objects.order_by("pk"))
    for account in every:  # the day's rows first, for every account: a few queries each
        report.days += rollups_keep(account, now=now)
    for account in every:  # then the deletions, as far as the time limit lets them go
        if time.monotonic() >= deadline:
            break
        report.reads_rolled += read_events_compact(account, now=now, deadline=deadline)
        report.events_pruned += lesson_events_prune(account, now=now, deadline=deadline)
        report.accounts.append(account.pk)
    return report


# ---------------------------------------------------------------- the Health page


@dataclass(frozen=True)
class Health:
    days: list[DayFigures]  # oldest first, today (live) last; a day without a rollup is a gap of zeros
    rolled_days: int  # how many of them came from rollups

    @property
    def today(self) -> DayFigures:
        return self.days[-1]


def account_health(account: Account, *, now: datetime, days: int = 90) -> Health:
    """The last `days` days of the account (today live, the rest from DailyRollup): a few queries whatever the
    size of the store."""
    today = day_of(now)
    first = today - timedelta(days=days - 1)
    names = [f.name for f in DailyRollup._meta.fields if f.name in DayFigures.__dataclass_fields__]
    rows = {
        row["day"]: DayFigures(**row)
        for row in DailyRollup.objects.filter(account=account, day__gte=first, day__lt=today).values(*names)
    }
    series = [
        rows.get(first + timedelta(days=i), DayFigures(day=first + timedelta(days=i)))
        for i in range(days - 1)
    ]
    series.append(day_figures(account, today, totals=True))
    return Health(days=series, rolled_days=len(rows))
