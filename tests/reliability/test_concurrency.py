"""Concurrency on PostgreSQL, with real connections (one per thread) and real commits.

- 16 threads delivering, opening and rewriting the same lessons through the REST API: every counter exact.
- A policy run racing pins, restores and rewrites in other threads: none of the lessons touched during the run
  ends up archived, and every archived lesson is archived completely (timestamp, run, event).
- Two copies of the nightly task started at the same instant: each policy runs once.

Bounded: a fixed number of iterations per thread, a store of a few thousand lessons.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import close_old_connections, connection
from django.test import Client
from django.utils import timezone

from lore.accounts import token_create
from lore.inputs import LessonInput
from lore.models import Account, Lesson, ReadEvent
from lore.reads import reads_settle
from lore.services import lesson_protect, lesson_restore, lesson_write
from policies import grooming
from policies.models import PolicyRun, RetentionPolicy
from policies.tasks import nightly_sweep
from tests.factories import AccountFactory
from tests.reliability.conftest import assert_archived_completely
from tests.reliability.processes import until_answered
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 16
ROUNDS = 12  # per thread: 16 × 12 rounds of (fetch, open, list page, rewrite)
SCOPE = "repo::acme/app"
OLD = timezone.now() - timedelta(days=400)


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    require_postgres()


def in_threads(work: Callable[[int], Any], count: int) -> list[BaseException]:
    """Run `work(i)` in `count` threads, each on its own connection, released together; the errors raised."""
    start = threading.Barrier(count)
    errors: list[BaseException] = []

    def body(i: int) -> None:
        try:
            start.wait()
            work(i)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def bulk_lessons(account: Account, count: int, *, prefix: str = "k", **extra: Any) -> list[Lesson]:
    return Lesson.objects.bulk_create(
        [
            Lesson(
                account=account,
                scope=SCOPE,
                key=f"{prefix}{i:05d}",
                content=f"lesson {i}",
                created_at=OLD,
                updated_at=OLD,
                **extra,
            )
            for i in range(count)
        ]
    )


def test_sixteen_threads_fetching_opening_listing_and_rewriting_through_the_api_lose_no_count() -> None:
    account = AccountFactory(name="busy")
    raw = token_create(account=account, name="agents")[1]
    lessons = bulk_lessons(account, 4)
    target = lessons[0]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}

    def agent(i: int) -> None:
        client = Client()
        for n in range(ROUNDS):
            fetched = until_answered(lambda: client.get(f"/api/v1/memories/{target.pk}", **auth))
            assert fetched.status_code == 200, fetched.content
            read = until_answered(
                lambda: client.post(
                    "/api/v1/memories/read",
                    {"address": target.address},
                    content_type="application/json",
                    **auth,
                )
            )
            assert read.status_code == 200, read.content
            page = until_answered(
                lambda: client.post(
                    "/api/v1/memories/list", {"scope": SCOPE}, content_type="application/json", **auth
                )
            )
            assert page.status_code == 200 and len(page.json()["items"]) == 4, page.content
            body = json.dumps({"scope": SCOPE, "key": target.key, "content": f"thread {i} round {n}"})
            written = until_answered(
                lambda body=body: client.post(
                    "/api/v1/memories", body, content_type="application/json", **auth
                )
            )
            assert written.status_code == 200, written.content

    assert in_threads(agent, THREADS) == []
    calls = THREADS * ROUNDS
    reads_settle(account)  # the buffered reads, folded (lore.reads)
    target.refresh_from_db()
    assert (target.seen_count, target.opened_count, target.read_count) == (1 + calls, calls, 3 * calls)
    assert target.last_opened_at is not None and target.updated_at > OLD
    for other in lessons[1:]:
        other.refresh_from_db()
        assert (other.read_count, other.opened_count, other.seen_count, other.updated_at) == (
            calls,
            0,
            1,
            OLD,
        )
    reads = ReadEvent.objects.filter(account=account)
    assert reads.count() == 3 * calls
    assert sum(reads.values_list("lesson_count", flat=True)) == calls * (1 + 1 + 4)


def _racer(
    run_id: int,
    pick: Callable[[], Lesson | None],
    act: Callable[[Lesson], None],
    touched: set[int],
    limit: int,
) -> None:
    """While the run is running: act on lessons (at most `limit`), remembering which ones it finished with."""
    while (status := PolicyRun.objects.get(pk=run_id).status) != PolicyRun.Status.RUNNING:
        if status != PolicyRun.Status.PENDING:
            return
    for _ in range(limit):
        lesson = pick()
        if (
            lesson is None
            or not PolicyRun.objects.filter(pk=run_id, status=PolicyRun.Status.RUNNING).exists()
        ):
            return
        if act(lesson):
            touched.add(lesson.pk)


def test_a_policy_run_racing_pins_restores_and_rewrites_archives_none_of_them(settings) -> None:  # noqa: ANN001
    settings.LORE_ARCHIVE_BATCH_SIZE = 20
    account = AccountFactory(name="raced")
    store = bulk_lessons(account, 3000)
    # Every third lesson was archived by an earlier run: the restorer brings those back during this one.
    earlier = PolicyRun.objects.create(account=account, trigger="manual", status="done")
    Lesson.objects.filter(pk__in=[lsn.pk for lsn in store[::3]]).update(
        archived_at=OLD, archived_by_run=earlier
    )
    policy = RetentionPolicy.objects.create(account=account, name="old", scope=SCOPE, min_age_days=30)
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    assert run is not None
    ids_archived_before = [lsn.pk for lsn in store[::3]]
    ids_active = [lsn.pk for lsn in store if lsn.pk not in set(ids_archived_before)]
    rng = random.Random(8)
    # Aim at lessons the run has not reached yet: the upper part of the id range.
    ahead = ids_active[len(ids_active) // 3 :]
    rng.shuffle(ahead)
    to_pin, to_rewrite = ahead[:200], ahead[200:400]
    to_restore = ids_archived_before[len(ids_archived_before) // 3 :]
    rng.shuffle(to_restore)
    pinned: set[int] = set()
    rewritten: set[int] = set()
    restored: set[int] = set()

    def popper(ids: list[int]) -> Callable[[], Lesson | None]:
        queue = list(ids)
        return lambda: Lesson.objects.get(pk=queue.pop()) if queue else None

    def pin(lesson: Lesson) -> bool:
        return lesson_protect(account=account, lesson=lesson).archived_at is None

    def restore(lesson: Lesson) -> bool:
        return lesson_restore(account=account, lesson=lesson).archived_at is None

    def rewrite(lesson: Lesson) -> bool:
        return not lesson_write(
            account=account,
            data=LessonInput.from_data({"scope": lesson.scope, "key": lesson.key, "content": "rewritten"}),
        )[0].is_archived

    workers = {
        0: lambda: grooming.run_execute(run.pk),
        1: lambda: _racer(run.pk, popper(to_pin), pin, pinned, 200),
        2: lambda: _racer(run.pk, popper(to_rewrite), rewrite, rewritten, 200),
        3: lambda: _racer(run.pk, popper(to_restore), restore, restored, 200),
    }
    assert in_threads(lambda i: workers[i](), len(workers)) == []

    run.refresh_from_db()
    assert run.status == PolicyRun.Status.DONE
    assert pinned and rewritten and restored, "the racers never overlapped the run: make the store larger"
    touched = pinned | rewritten | restored
    archived_touched = Lesson.objects.filter(pk__in=touched, archived_at__isnull=False)
    assert list(archived_touched.values_list("key", flat=True)) == []
    assert_archived_completely(account, run)


def test_two_copies_of_the_nightly_task_started_together_run_each_policy_once() -> None:
    account = AccountFactory(name="nightly")
    bulk_lessons(account, 300)
    rounds = 3
    for round_number in range(rounds):
        policies = [
            RetentionPolicy.objects.create(
                account=account,
                name=f"round {round_number} policy {i}",
                scope=SCOPE,
                min_age_days=30 + i,
                mode="auto",
                enabled=True,
            )
            for i in range(3)
        ]
        started: list[list[int]] = [[], []]

        def sweep(i: int, started: list[list[int]] = started) -> None:
            started[i].extend(nightly_sweep())

        assert in_threads(sweep, 2) == []
        for policy in policies:
            runs = PolicyRun.objects.filter(policy_id=policy.pk)
            assert runs.count() == 1, (round_number, policy.name, list(runs.values("status", "trigger")))
            assert runs.get().status == PolicyRun.Status.DONE
        assert sorted(started[0] + started[1]) == sorted(
            PolicyRun.objects.filter(policy_id__in=[p.pk for p in policies]).values_list("pk", flat=True)
        )
        RetentionPolicy.objects.filter(pk__in=[p.pk for p in policies]).update(enabled=False)
