"""Celery tasks: thin, idempotent, taking ids. The work is in policies.grooming."""

from __future__ import annotations

from functools import partial

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

from lore.limits import RUN_STATEMENT_TIMEOUT_MS, RUN_TIME_LIMIT
from lore.schedule import sweep_slot_start
from lore.timeouts import set_statement_timeout
from policies import grooming


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=RUN_TIME_LIMIT.value,
    time_limit=RUN_TIME_LIMIT.value + 30,
)
def execute_run(run_id: int) -> int:
    """Execute one recorded run, as its own task: one policy's run never holds up another's. Bounded by
    RUN_TIME_LIMIT (then it is interrupted, and Run now completes it) and, per statement, RUN_STATEMENT_TIMEOUT_MS.
    A redelivery after a worker died marks it interrupted instead."""
    set_statement_timeout(RUN_STATEMENT_TIMEOUT_MS)
    try:
        return grooming.run_execute(run_id).archived
    except SoftTimeLimitExceeded:
        grooming.run_interrupt_overtime(run_id)
        return 0


@shared_task(acks_late=True)
def runs_mark_stale() -> int:
    """Every minute: a run whose worker died (no lock held, or no heartbeat for RUN_HEARTBEAT_STALE) becomes
    `interrupted`, so its policy can be run again and the run completed."""
    return grooming.runs_mark_stale()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def nightly_sweep() -> list[int]:
    """Run every auto + enabled policy once per tick of the schedule; a policy with a run going is skipped."""
    runs = grooming.nightly_runs_start(since=sweep_slot_start(timezone.now()))
    for run in runs:
        transaction.on_commit(partial(execute_run.delay, run.pk))
    return [run.pk for run in runs]
