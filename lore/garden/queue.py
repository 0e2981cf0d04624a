"""Every inventory asked for from the web, lorekit or MCP is queued for the worker: the request records a queued
GardenRun and answers at once; `lore.tasks.garden_inventory_run` does the work. An account has at most one queued
or running inventory (a constraint, so two racing requests cannot both queue one): asking again answers the
pending run. A run no worker finished within GARDEN_TIME_LIMIT (a worker lost for good) is marked failed, so it
never blocks the next one.
"""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from django.db import IntegrityError, transaction
from django.utils import timezone

from lore.limits import GARDEN_TIME_LIMIT
from lore.models import Account, GardenRun

# How long past GARDEN_TIME_LIMIT a pending run may wait for a worker before it counts as abandoned.
ABANDONED_AFTER_GRACE = timedelta(minutes=30)


def garden_run_pending(account: Account) -> GardenRun | None:
    """The account's queued or running inventory, if any (one no worker finished in time is marked failed
    first, so that the page never shows it pending for ever)."""
    garden_runs_abandon(account)
    return GardenRun.objects.filter(account=account, status__in=GardenRun.PENDING).first()


def garden_runs_abandon(account: Account) -> int:
    """Mark failed the account's pending runs that no worker finished in time. Answers how many."""
    cutoff = timezone.now() - timedelta(seconds=GARDEN_TIME_LIMIT.value) - ABANDONED_AFTER_GRACE
    return GardenRun.objects.filter(
        account=account, status__in=GardenRun.PENDING, started_at__lt=cutoff
    ).update(
        status=GardenRun.Status.FAILED,
        finished_at=timezone.now(),
        error="no worker finished it within the gardener's time limit",
    )


def garden_run_queue(
    account: Account, *, full: bool = False, trigger: str = "manual", actor: str = ""
) -> tuple[GardenRun, bool]:
    """Queue an inventory for the worker, or answer the one already queued or running. Answers (run, queued):
    `queued` is False when the run answered was already pending."""
    from lore.tasks import garden_inventory_run  # the tasks module imports the gardener

    garden_runs_abandon(account)
    for _ in range(2):  # a pending run may finish between the refused INSERT and the look-up: try once more
        try:
            with transaction.atomic():
                run = GardenRun.objects.create(
                    account=account,
                    trigger=trigger,
                    full=full,
                    status=GardenRun.Status.QUEUED,
                    started_at=timezone.now(),
                )
        except IntegrityError:
            pending = garden_run_pending(account)
            if pending is not None:
                return pending, False
            continue
        transaction.on_commit(partial(garden_inventory_run.delay, run.pk, actor))
        return run, True
    raise RuntimeError("could not queue an inventory: the pending one kept finishing in between")
