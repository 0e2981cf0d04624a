"""Celery tasks of the store: thin, idempotent. The work is in lore.purge."""

from __future__ import annotations

import logging

from celery import shared_task

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
