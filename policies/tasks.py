"""Celery tasks: thin, idempotent, taking ids. The work is in policies.grooming."""

from __future__ import annotations

from functools import partial

from celery import shared_task
from django.db import transaction

from policies import grooming
from policies.models import PolicyRun, RetentionPolicy


@shared_task(acks_late=True, reject_on_worker_lost=True)
def execute_run(run_id: int) -> int:
    return grooming.run_execute(run_id).archived


@shared_task(acks_late=True, reject_on_worker_lost=True)
def nightly_sweep() -> list[int]:
    """Run every auto + enabled policy once; a policy with a run already going is skipped."""
    started: list[int] = []
    policies = RetentionPolicy.objects.filter(mode=RetentionPolicy.Mode.AUTO, enabled=True).select_related(
        "account"
    )
    for policy in policies:
        run = grooming.run_start(account=policy.account, policy=policy, trigger=PolicyRun.Trigger.NIGHTLY)
        if run is not None:
            transaction.on_commit(partial(execute_run.delay, run.pk))
            started.append(run.pk)
    return started
