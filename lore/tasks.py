"""Celery tasks of the store: thin, idempotent. The work is in lore.purge and lore.transfer_jobs."""

from __future__ import annotations

import logging

from celery import shared_task

from lore import transfer_jobs
from lore.limits import TRANSFER_TIME_LIMIT
from lore.purge import account_purge, accounts_to_purge

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
