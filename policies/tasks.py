"""Celery tasks: thin, idempotent, taking ids. The work is in policies.grooming."""

from __future__ import annotations

from functools import partial

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from config.celery import sweep_slot_start
from policies import grooming


@shared_task(acks_late=True, reject_on_worker_lost=True)
def execute_run(run_id: int) -> int:
    """Execute one recorded run (a redelivery after a worker died marks it interrupted instead)."""
    return grooming.run_execute(run_id).archived


@shared_task(acks_late=True, reject_on_worker_lost=True)
def nightly_sweep() -> list[int]:
    """Run every auto + enabled policy once per tick of the schedule; a policy with a run going is skipped."""
    runs = grooming.nightly_runs_start(since=sweep_slot_start(timezone.now()))
    for run in runs:
        transaction.on_commit(partial(execute_run.delay, run.pk))
    return [run.pk for run in runs]
