"""Sweeps isolated per policy and account: each run is its own task, bounded by a statement timeout, so a
pathological policy in one account never delays another account's run (a real worker on Redis, PostgreSQL)."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection

from lore.conditions import DimFilter
from lore.models import Lesson
from lore.rules.rule import Rule
from policies import grooming
from policies.models import PolicyRun
from policies.services import policy_create
from tests.factories import AccountFactory, LessonFactory
from tests.policies.test_tasks_worker import send, start_worker, wait_for, worker_env  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.celery, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
RUN = "policies.tasks.execute_run"


def _policy_with_lessons(name: str):  # noqa: ANN202
    account = AccountFactory(name=name)
    for i in range(10):
        LessonFactory(account=account, kind="bus", key=f"{name}-{i}")
    policy = policy_create(
        account=account,
        rule=Rule(scope="global", dimensions={"kind": DimFilter(("bus",), "in")}),
        name=f"{name} buses",
        mode="auto",
        enabled=True,
    )
    return account, policy


def test_a_stuck_policy_in_one_account_never_delays_another_accounts_run_and_stops_at_its_statement_timeout(
    worker_env,  # noqa: ANN001, F811
    start_worker,  # noqa: ANN001, F811
    send,  # noqa: ANN001, F811
) -> None:
    slow_account, slow_policy = _policy_with_lessons("stuck")
    normal_account, normal_policy = _policy_with_lessons("normal")
    worker_env["LORE_RUN_STATEMENT_TIMEOUT_MS"] = "4000"
    worker = start_worker()
    db = connection.settings_dict
    blocker = psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
    )
    try:
        # Every lesson of the stuck account is row-locked: its run's archive UPDATE can only wait.
        blocker.execute(
            "SELECT id FROM lore_lesson WHERE account_id = %s FOR UPDATE", [slow_account.pk]
        ).fetchall()
        slow_run = grooming.run_start(
            account=slow_account, policy=slow_policy, trigger=PolicyRun.Trigger.NIGHTLY
        )
        normal_run = grooming.run_start(
            account=normal_account, policy=normal_policy, trigger=PolicyRun.Trigger.NIGHTLY
        )
        assert slow_run and normal_run
        send(RUN, slow_run.pk)
        wait_for(lambda: PolicyRun.objects.get(pk=slow_run.pk).status == "running", "the stuck run to start")
        send(RUN, normal_run.pk)
        wait_for(
            lambda: PolicyRun.objects.get(pk=normal_run.pk).status == "done", "the normal run", timeout=60
        )
        # The normal account's run finished while the stuck one was still waiting on its lock.
        assert PolicyRun.objects.get(pk=slow_run.pk).status == "running"
        assert Lesson.objects.filter(account=normal_account, archived_by_run=normal_run).count() == 10
        # The stuck run does not hold the worker forever: its statement timeout ends it.
        wait_for(lambda: PolicyRun.objects.get(pk=slow_run.pk).status != "running", "the stuck run to stop")
    finally:
        blocker.rollback()
        blocker.close()
    stuck = PolicyRun.objects.get(pk=slow_run.pk)
    assert stuck.status == "failed" and "statement timeout" in stuck.error, (
        stuck.status,
        stuck.error,
        worker.log()[-3000:],
    )
    assert not Lesson.objects.filter(account=slow_account, archived_at__isnull=False).exists()
