"""Celery tasks of the store: thin, idempotent. The work is in lore.purge, lore.transfer_jobs and lore.garden."""

from __future__ import annotations

import logging

from celery import shared_task

from lore import transfer_jobs
from lore.garden.inventory import GardenRunPending, garden_inventory
from lore.limits import (
    GARDEN_TIME_LIMIT,
    READS_FOLD_TIME_LIMIT,
    ROLLUP_TIME_LIMIT,
    TRANSFER_TIME_LIMIT,
    VACUUM_TIME_LIMIT,
)
from lore.models import Account, GardenRun
from lore.purge import account_purge, accounts_to_purge
from lore.reads import reads_fold
from lore.rollups import rollups_nightly
from lore.vacuum import lessons_vacuum
from lore.value_counts import value_counts_fold

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def nightly_purge() -> dict[int, int]:
    """Purge each account's long-archived lessons. One account failing never stops the others; its due lessons
    stay archived and the next sweep takes them again. Answers {account id: lessons purged}."""
    purged: dict[int, int] = {}
    for account in accounts_to_purge():
        try:
            run = account_purge(account)
        except Exception:
            log.exception("purge of account %s failed; the next sweep retries it", account.pk)
            continue
        purged[account.pk] = run.purged if run else 0
    return purged


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=GARDEN_TIME_LIMIT.value,
    time_limit=GARDEN_TIME_LIMIT.value + 30,
)
def garden_inventory_run(run_id: int, actor: str = "") -> str:
    """A queued inventory (lore.garden.queue: `POST /garden/run`, the Findings page, `lorekit garden --run`,
    MCP). A run no longer pending (done, failed) is left as it is; one redelivered after its worker was lost
    starts over. Bounded by GARDEN_TIME_LIMIT and the GARDEN_* limits. Answers the run's final status."""
    run = GardenRun.objects.select_related("account").filter(pk=run_id).first()
    if run is None:
        return "missing"
    return garden_inventory(run.account, run=run, trigger=run.trigger, actor=actor).status


@shared_task(acks_late=True, reject_on_worker_lost=True)
def nightly_garden() -> dict[int, int]:
    """After the sweep: inventory every account, examining only what changed since its last inventory; an
    account whose inventory is already queued or running is skipped. One account failing never stops the others. Answers {account id: new findings}."""
    found: dict[int, int] = {}
    for account in Account.objects.order_by("pk"):
        try:
            found[account.pk] = garden_inventory(account, trigger="nightly").found
        except GardenRunPending:
            log.info(
                "account %s has an inventory queued or running: the nightly one is not started", account.pk
            )
        except Exception:
            log.exception("garden inventory of account %s failed; the next night retries it", account.pk)
    return found


@shared_task(
    acks_late=True, soft_time_limit=TRANSFER_TIME_LIMIT.value, time_limit=TRANSFER_TIME_LIMIT.value + 30
)
def transfer_job_execute(job_id: int) -> str:
    """A dashboard export or import, in the background with progress, bounded by TRANSFER_TIME_LIMIT; answers
    its final status."""
    return transfer_jobs.transfer_job_execute(job_id).status


@shared_task(acks_late=True)
def transfer_jobs_expire() -> int:
    """Every hour: export files past TRANSFER_EXPIRES are deleted (their links answer 410), and jobs past
    TRANSFER_TIME_LIMIT are marked failed."""
    return transfer_jobs.transfer_jobs_expire() + transfer_jobs.transfer_jobs_mark_stale()


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=READS_FOLD_TIME_LIMIT.value + 5,
    time_limit=READS_FOLD_TIME_LIMIT.value + 30,
)
def reads_fold_all() -> dict[str, object]:
    """Every minute: fold buffered reads into the lessons' counters (lore.reads), bounded by READS_FOLD_RUN_MAX
    and READS_FOLD_TIME_LIMIT. Each batch commits whole; a killed run leaves its open batch buffered for the next."""
    return dict(reads_fold().as_dict())


@shared_task(
    acks_late=True,
    soft_time_limit=READS_FOLD_TIME_LIMIT.value + 5,
    time_limit=READS_FOLD_TIME_LIMIT.value + 30,
)
def value_counts_fold_all() -> int:
    """Every minute: the per-value counts' appended changes summed into one row per value (lore.value_counts).
    One statement: a fold that is killed changes nothing, and the next one does its work."""
    return value_counts_fold()


@shared_task(
    acks_late=True, soft_time_limit=VACUUM_TIME_LIMIT.value + 5, time_limit=VACUUM_TIME_LIMIT.value + 30
)
def lessons_vacuum_task() -> bool:
    """After a bulk change of the lessons (lore.vacuum.lessons_vacuum_soon): VACUUM (ANALYZE) them, so the counts'
    index-only scans skip the table again. One at a time; answers whether this one ran."""
    return lessons_vacuum()


@shared_task(
    acks_late=True, soft_time_limit=ROLLUP_TIME_LIMIT.value + 30, time_limit=ROLLUP_TIME_LIMIT.value + 60
)
def nightly_rollups() -> dict[str, object]:
    """Minutes after midnight UTC: each account's daily rollup of the day that ended, its read events past the
    horizon rolled up and deleted, its lesson events nothing shows pruned (lore.rollups). Idempotent: a second
    run that night writes nothing new; bounded by ROLLUP_TIME_LIMIT and ROLLUP_BATCH."""
    report = rollups_nightly()
    return {"days": report.days, "reads_rolled": report.reads_rolled, "events_pruned": report.events_pruned}
