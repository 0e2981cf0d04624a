"""Issue 14, point 5: a dead run never blocks its policy.

- A run whose worker died is shown `interrupted` (not "already has a run going"), its page offers to complete it,
  and Run now completes the job: both runs together archive every lesson the policy matched.
- An Undo killed half-way (a real web server, SIGKILL) counts exactly the lessons it restored, Undo on the run
  page resumes it, the run's restored count is then every lesson restored across both attempts, and the page
  stops offering Undo.

The worker killed mid-run for real is tests/policies/test_tasks_worker.py.
"""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from lore.models import Account, Lesson
from lore.rules.rule import Rule
from policies import grooming
from policies.models import PolicyRun, RetentionPolicy
from policies.services import policy_create
from tests.reliability import processes
from tests.services import require_postgres
from tests.urls import AccountClient, in_account

SCOPE = "repo::acme/app"
UNUSED = Rule(scope=SCOPE, conditions={"max_opened_count": 0})


class WorkerDied(BaseException):
    """Stands in for SIGKILL inside the test process: nothing catches it, no cleanup marks the run."""


def lessons_create(account: Account, count: int, **extra: object) -> None:
    now = timezone.now()
    Lesson.objects.bulk_create(
        [
            Lesson(
                account=account,
                scope=SCOPE,
                key=f"k{i:05d}",
                content="x",
                created_at=now,
                updated_at=now,
                **extra,
            )
            for i in range(count)
        ],
        batch_size=2000,
    )


def run_killed_after_first_batch(policy: RetentionPolicy) -> PolicyRun:
    """A run whose worker died after one batch of 10, left `running` with a heartbeat that has stopped."""
    run = grooming.run_start(account=policy.account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    assert run is not None

    def die(_: PolicyRun) -> None:
        raise WorkerDied

    with pytest.raises(WorkerDied):
        grooming.run_execute(run.pk, batch_size=10, on_batch=die)
    stopped = timezone.now() - grooming.STALE_AFTER - timedelta(seconds=1)
    PolicyRun.objects.filter(pk=run.pk).update(heartbeat_at=stopped)
    run.refresh_from_db()
    assert (run.status, run.archived) == ("running", 10)
    return run


@pytest.mark.django_db
def test_a_dead_run_is_shown_interrupted_and_run_now_offers_to_complete_it(
    account: Account,
    logged_in: Client,
    django_capture_on_commit_callbacks,  # noqa: ANN001
) -> None:
    lessons_create(account, 35)
    policy = policy_create(account=account, rule=UNUSED, name="unused")
    dead = run_killed_after_first_batch(policy)

    run_page = logged_in.get(reverse("policies:run", args=[dead.pk])).content.decode()
    assert 'data-status="interrupted"' in run_page
    complete = reverse("policies:run_new", args=[policy.pk])
    assert f'href="{in_account(account, complete)}" data-complete-run' in run_page
    assert (
        "Complete the interrupted run"
        in logged_in.get(reverse("policies:detail", args=[policy.pk])).content.decode()
    )

    confirm = logged_in.get(complete).content.decode()
    assert "already has a run going" not in confirm
    assert f'data-interrupted-run="{dead.pk}"' in confirm and 'data-preview-count="25"' in confirm
    as_of = re.search(r'name="as_of" value="([^"]+)"', confirm)
    assert as_of is not None
    with django_capture_on_commit_callbacks(execute=True):  # the task is sent on commit; Celery is eager here
        logged_in.post(complete, {"as_of": as_of.group(1)})

    first, second = PolicyRun.objects.filter(policy_id=policy.pk).order_by("pk")
    assert (first.status, first.archived) == ("interrupted", 10)
    assert (second.status, second.matched, second.archived) == ("done", 25, 25)
    assert not Lesson.objects.filter(account=account, archived_at__isnull=True).exists()
    assert (
        "Complete the interrupted run"
        not in logged_in.get(reverse("policies:detail", args=[policy.pk])).content.decode()
    )


@pytest.mark.django_db
def test_the_run_page_stops_offering_undo_when_nothing_it_archived_is_left_archived(
    account: Account,
    logged_in: Client,
) -> None:
    lessons_create(account, 3)
    policy = policy_create(account=account, rule=UNUSED, name="unused")
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    assert run is not None
    grooming.run_execute(run.pk)
    page = reverse("policies:run", args=[run.pk])
    assert "Undo this run" in logged_in.get(page).content.decode()
    # Every lesson restored one by one (not by Undo): nothing is left for Undo to do.
    for lesson in Lesson.objects.filter(account=account):
        logged_in.post(reverse("explorer:restore"), {"ids": [lesson.pk]})
    assert not Lesson.objects.filter(account=account, archived_at__isnull=False).exists()
    assert "Undo this run" not in logged_in.get(page).content.decode()


# ---------------------------------------------------------------- an Undo killed half-way, for real

UNDO_LESSONS = 12_000  # six restore batches: time to kill the server between two of them


def archived_by_a_finished_run(account: Account) -> PolicyRun:
    policy = policy_create(account=account, rule=UNUSED, name="large")
    now = timezone.now()
    run = PolicyRun.objects.create(
        account=account,
        policy_id=policy.pk,
        policy_name=policy.name,
        trigger=PolicyRun.Trigger.MANUAL,
        status=PolicyRun.Status.DONE,
        matched=UNDO_LESSONS,
        archived=UNDO_LESSONS,
        started_at=now,
        finished_at=now,
    )
    lessons_create(account, UNDO_LESSONS, archived_at=now, archived_by_run=run, archive_reason="policy")
    return run


def still_archived(run: PolicyRun) -> int:
    return Lesson.objects.filter(archived_by_run=run, archived_at__isnull=False).count()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_undo_killed_half_way_counts_what_it_restored_and_undo_resumes_and_counts_every_lesson(
    account: Account,
    user,  # noqa: ANN001
    tmp_path: Path,
) -> None:
    require_postgres()
    run = archived_by_a_finished_run(account)
    client = AccountClient(account)
    client.force_login(user)
    page = reverse("policies:run", args=[run.pk])

    port = processes.free_port()
    server = processes.web_server(port, tmp_path / "web.log")
    base = f"http://127.0.0.1:{port}"
    browser = requests.Session()
    browser.cookies.set("sessionid", client.cookies["sessionid"].value)
    try:
        form = browser.get(base + in_account(account, page), timeout=30).text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
        assert token is not None and "Undo this run" in form
        undo = threading.Thread(
            target=lambda: _post_quietly(
                browser, base + in_account(account, reverse("policies:undo", args=[run.pk])), token.group(1)
            ),
            daemon=True,
        )
        undo.start()
        processes.wait_until(
            lambda: 0 < UNDO_LESSONS - still_archived(run) < UNDO_LESSONS - 2000,
            "the Undo to be under way",
            every=0.005,
            process=server,
        )
    finally:
        processes.kill(server)
    undo.join(timeout=30)

    run.refresh_from_db()
    restored_first = UNDO_LESSONS - still_archived(run)
    assert 0 < restored_first < UNDO_LESSONS
    assert run.restored == restored_first  # counted with the lessons, batch by batch
    assert "Undo this run" in client.get(page).content.decode()  # what is left can still be undone

    # Undo again: it resumes. Right after the kill, the dead server's statement may still hold its batch's rows past
    # the 10 s statement timeout on a loaded machine: that answers 503 ("try again"), and a person tries again.
    processes.until_answered(lambda: client.post(reverse("policies:undo", args=[run.pk])))
    run.refresh_from_db()
    assert still_archived(run) == 0
    assert run.restored == UNDO_LESSONS  # every restored lesson, across both attempts
    assert "Undo this run" not in client.get(page).content.decode()


def _post_quietly(session: requests.Session, url: str, token: str) -> None:
    try:
        session.post(url, data={"csrfmiddlewaretoken": token}, headers={"Referer": url}, timeout=120)
    except requests.RequestException:
        pass  # the server was killed under it
