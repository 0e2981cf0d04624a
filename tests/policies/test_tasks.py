"""The Celery tasks, in-process (eager): thin wrappers over grooming. The real worker is in test_tasks_worker."""

from __future__ import annotations

import pytest

from lore.conditions import DimFilter
from lore.models import Lesson
from lore.rules.rule import Rule
from policies import grooming
from policies.models import PolicyRun
from policies.services import policy_create
from policies.tasks import execute_run, nightly_sweep
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db
UNUSED = Rule(scope="repo::acme/app", conditions={"max_opened_count": 0})


def test_the_nightly_sweep_archives_for_auto_and_enabled_policies_only(
    account,
    django_capture_on_commit_callbacks,  # noqa: ANN001
) -> None:
    swept = LessonFactory(account=account, scope="repo::acme/app", kind="bus")
    left = LessonFactory(account=account, scope="repo::acme/app", kind="gotcha")
    review = policy_create(account=account, rule=UNUSED, name="review", mode="review", enabled=True)
    disabled = policy_create(account=account, rule=UNUSED, name="auto, not enabled", mode="auto")
    enabled = policy_create(
        account=account,
        rule=Rule(scope="repo::acme/app", dimensions={"kind": DimFilter(("bus",), "in")}),
        name="auto bus",
        mode="auto",
        enabled=True,
    )
    with django_capture_on_commit_callbacks(execute=True):
        started = nightly_sweep.delay().get()
    assert [PolicyRun.objects.get(pk=pk).policy_id for pk in started] == [enabled.pk]
    swept.refresh_from_db()
    left.refresh_from_db()
    assert swept.archived_at is not None and left.archived_at is None
    assert not PolicyRun.objects.filter(policy_id__in=[review.pk, disabled.pk]).exists()


def test_two_sweeps_in_one_tick_run_a_policy_once(account, django_capture_on_commit_callbacks) -> None:  # noqa: ANN001
    LessonFactory(account=account)
    policy_create(account=account, rule=UNUSED, name="auto", mode="auto", enabled=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert len(nightly_sweep.delay().get()) == 1
        assert nightly_sweep.delay().get() == []
    assert PolicyRun.objects.get().status == "done"


def test_executing_a_finished_run_again_changes_nothing(account) -> None:  # noqa: ANN001
    LessonFactory(account=account)
    run = grooming.run_start(account=account, rule=UNUSED, trigger=PolicyRun.Trigger.API)
    assert execute_run.delay(run.pk).get() == 1
    assert execute_run.delay(run.pk).get() == 1  # the run's own count, unchanged
    assert PolicyRun.objects.get(pk=run.pk).archived == 1
    assert Lesson.objects.filter(archived_by_run=run).count() == 1
