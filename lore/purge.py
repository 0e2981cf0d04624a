"""Purge: archived lessons are hard-deleted `Account.purge_after_days` after they were archived (0 = never),
leaving a Tombstone (DESIGN.md §15; seeds 003 and 004).

Each batch is one transaction: lock the picked lessons in id order *with the eligibility in the locking SELECT*
(PostgreSQL re-reads a row a concurrent restore changed and drops it), then delete those lessons with their
tags, events and every other row that points at them (by id), take their ids out of the archive and restore
batches' audit rows (lore.events), and write one tombstone each. A restore that
commits first wins (its lesson no longer matches); a restore that comes after waits for the lock, then finds the
tombstone and answers "purged on …". A failed batch rolls back whole: nothing deleted, nothing tombstoned, the
next sweep takes it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from lore.activity import NIGHTLY_SWEEP, activity_record
from lore.events import event_batches_forget
from lore.limits import PURGE_BATCH
from lore.models import Account, Activity, Lesson, PurgeRun, Tombstone, content_hash
from lore.vacuum import lessons_vacuum_soon


class Purged(Exception):
    """The lesson asked for was purged: only its tombstone remains."""

    def __init__(self, tombstone: Tombstone) -> None:
        self.tombstone = tombstone
        super().__init__(purged_message(tombstone))


def purged_message(tombstone: Tombstone) -> str:
    return (
        f"{tombstone.address} was purged on {tombstone.purged_at:%Y-%m-%d} "
        f"(archived {tombstone.archived_at:%Y-%m-%d}): it can no longer be restored, write it again"
    )


def purge_cutoff(account: Account, now: datetime) -> datetime | None:
    """Lessons archived before this are due; None when the account never purges."""
    if not account.purge_after_days:
        return None
    return now - timedelta(days=account.purge_after_days)


def purgeable(account: Account, cutoff: datetime) -> Q:
    """Still archived, archived before the cutoff, not protected: what the purge's locking SELECT repeats."""
    return Q(account=account, archived_at__isnull=False, archived_at__lt=cutoff, protected=False)


def lessons_purge_next(
    *, account: Account, run: PurgeRun, cutoff: datetime, after: int, limit: int, now: datetime
) -> tuple[int | None, int]:
    """One batch: the next `limit` due lessons after id `after`. Returns (last id picked or None, purged)."""
    ids = list(
        Lesson.objects.filter(purgeable(account, cutoff), pk__gt=after)
        .order_by("pk")
        .values_list("pk", flat=True)[:limit]
    )
    if not ids:
        return None, 0
    with transaction.atomic():
        locked = list(
            Lesson.objects.select_for_update()
            .filter(purgeable(account, cutoff), pk__in=ids)
            .order_by("pk")
            .values_list("pk", "scope", "key", "content", "archived_at", "archived_by_run_id")
        )
        if locked:
            # Django's collector deletes tags, events and any other row pointing at these lessons by lesson id.
            Lesson.objects.filter(pk__in=[row[0] for row in locked]).delete()
            event_batches_forget(account, [row[0] for row in locked])
            Tombstone.objects.bulk_create(
                [
                    Tombstone(
                        account=account,
                        lesson_id=pk,
                        scope=scope,
                        key=key,
                        content_hash=content_hash(content),
                        archived_at=archived_at or now,  # never None: the SELECT asked for archived
                        archived_by_run_id=archived_by_run_id,
                        purged_at=now,
                        purge_run=run,
                    )
                    for pk, scope, key, content, archived_at, archived_by_run_id in locked
                ]
            )
            PurgeRun.objects.filter(pk=run.pk).update(purged=run.purged + len(locked))
            run.purged += len(locked)
    return ids[-1], len(locked)


def account_purge(
    account: Account,
    *,
    now: datetime | None = None,
    batch_size: int | None = None,
    actor: str = NIGHTLY_SWEEP,
) -> PurgeRun | None:
    """Purge every due lesson of `account`, batch by batch; None when it never purges. A failing batch marks the
    run failed and stops it: what it held stays archived and is taken again next time."""
    now = now or timezone.now()
    cutoff = purge_cutoff(account, now)
    if cutoff is None:
        return None
    run = PurgeRun.objects.create(account=account, cutoff=cutoff, started_at=now)
    after = 0
    try:
        while True:
            last, _ = lessons_purge_next(
                account=account,
                run=run,
                cutoff=cutoff,
                after=after,
                limit=batch_size or PURGE_BATCH.value,
                now=now,
            )
            if last is None:
                break
            after = last
    except Exception as exc:
        PurgeRun.objects.filter(pk=run.pk).update(
            status=PurgeRun.Status.FAILED,
            finished_at=timezone.now(),
            error=f"{type(exc).__name__}: {exc}"[:2000],
        )
        raise
    PurgeRun.objects.filter(pk=run.pk).update(status=PurgeRun.Status.DONE, finished_at=timezone.now())
    run.refresh_from_db()
    lessons_vacuum_soon(run.purged)
    if run.purged:
        activity_record(
            account=account,
            action=Activity.Action.LESSONS_PURGED,
            actor=actor,
            subject=f"{run.purged:,} archived lesson" + ("" if run.purged == 1 else "s"),
            detail=f"archived before {cutoff:%Y-%m-%d}; a tombstone of each is kept (purge #{run.pk})",
            at=now,
        )
    return run


def accounts_to_purge() -> QuerySet[Account]:
    return Account.objects.filter(purge_after_days__gt=0).order_by("pk")


# ---------------------------------------------------------------- reading: what is coming, what is gone


def tombstone_latest(account: Account, scope: str, key: str) -> Tombstone | None:
    return (
        Tombstone.objects.filter(account=account, scope=scope, key=key).order_by("-purged_at", "-pk").first()
    )


def tombstone_of_lesson(account: Account, lesson_id: int) -> Tombstone | None:
    """The tombstone a purged lesson left under its old id (its dashboard links), this account's only."""
    return Tombstone.objects.filter(account=account, lesson_id=lesson_id).select_related("purge_run").first()


def tombstones_of_lessons(account: Account, lesson_ids: list[int]) -> list[Tombstone]:
    return list(Tombstone.objects.filter(account=account, lesson_id__in=lesson_ids).order_by("lesson_id"))


def purge_day(account: Account, archived_at: datetime) -> date | None:
    """The day the nightly sweep purges a lesson archived at `archived_at`: the first sweep after it is due."""
    if not account.purge_after_days:
        return None
    from lore.schedule import next_sweep

    return next_sweep(archived_at + timedelta(days=account.purge_after_days)).date()


def purge_in_words(account: Account, lesson: Lesson, now: datetime) -> str:
    """ "purged in 12 days" for an archived row; "" when it never will be (never purges, pinned, active)."""
    if lesson.archived_at is None or lesson.protected:
        return ""
    day = purge_day(account, lesson.archived_at)
    if day is None:
        return ""
    days = (day - now.date()).days
    if days <= 0:
        return "purged at the next sweep"
    return "purged tomorrow" if days == 1 else f"purged in {days} days"


@dataclass(frozen=True)
class PurgeForecast:
    day: date
    count: int

    def __str__(self) -> str:
        noun = "lesson" if self.count == 1 else "lessons"
        return f"{self.count:,} {noun} will be purged on {self.day:%Y-%m-%d}"


def purge_forecast(account: Account, now: datetime | None = None) -> PurgeForecast | None:
    """The next purge that will delete something: its day and how many lessons it takes (as of today)."""
    if not account.purge_after_days:
        return None
    from lore.schedule import next_sweep

    now = now or timezone.now()
    due = Lesson.objects.filter(account=account, archived_at__isnull=False, protected=False)
    first = due.order_by("archived_at").values_list("archived_at", flat=True).first()
    sweep = next_sweep(max(first + timedelta(days=account.purge_after_days), now) if first else now)
    # Counted even when nothing is archived, so a page costs the same number of queries whatever its store holds.
    count = due.filter(archived_at__lt=sweep - timedelta(days=account.purge_after_days)).count()
    return PurgeForecast(day=sweep.date(), count=count) if count else None
