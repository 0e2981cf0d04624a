"""A real Celery worker (a subprocess: `python -m celery -A config worker`) on the machine's Redis, working on
the PostgreSQL test database. Not eager mode: tasks travel through the broker, and the worker is killed for real.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from config.celery import app
from lore.conditions import DimFilter
from lore.models import Account, Lesson
from lore.rules.rule import Rule
from policies.models import PolicyRun, RetentionPolicy
from policies.services import policy_create
from tests.audit import audited
from tests.factories import AccountFactory, LessonFactory
from tests.services import redis_url, require_postgres, require_redis

pytestmark = [pytest.mark.celery, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
UNUSED = Rule(scope="repo::acme/app", conditions={"max_opened_count": 0})


def wait_for(check: Callable[[], object], what: str, timeout: float = 90.0, every: float = 0.05) -> object:
    """Poll until `check()` is truthy (a timeout for waiting, not an assertion about speed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


class Worker:
    """`celery -A config worker` in its own process group, its log collected line by line."""

    def __init__(self, env: dict[str, str]) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--loglevel=INFO",
                "--concurrency=2",
                "--pool=prefork",
                "--without-mingle",
                "--without-gossip",
                "-n",
                f"engine-test-{uuid.uuid4().hex[:8]}@%h",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        wait_for(
            lambda: any(" ready." in line for line in self.lines) or self.process.poll() is not None, "worker"
        )
        if self.process.poll() is not None:
            raise AssertionError("the worker did not start:\n" + "".join(self.lines[-40:]))

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def log(self) -> str:
        return "".join(self.lines)

    def succeeded(self, task: str) -> list[str]:
        return re.findall(rf"Task {re.escape(task)}\[[^\]]+\] succeeded in [^:]+: (.*)", self.log())

    def pool_pids(self) -> list[int]:
        children = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == self.process.pid:
                    children.append(int(entry.name))
        return children

    def kill(self) -> None:
        """SIGKILL the whole worker: no warm shutdown, no chance to ack, reject or clean up."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def worker_env() -> dict[str, str]:
    require_postgres()
    require_redis()
    import redis

    broker = redis_url()
    redis.Redis.from_url(broker).flushdb()  # no leftover messages from an earlier session
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": broker,
        "CELERY_BROKER_URL": broker,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "LORE_ARCHIVE_BATCH_SIZE": "5",
        "PYTHONUNBUFFERED": "1",
    }


@pytest.fixture
def start_worker(worker_env: dict[str, str]) -> Iterator[Callable[[], Worker]]:
    workers: list[Worker] = []

    def start() -> Worker:
        workers.append(Worker(worker_env))
        return workers[-1]

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def send(worker_env: dict[str, str]) -> Iterator[Callable[..., None]]:
    """Publish a task to the worker's broker (the test process's own tasks stay eager elsewhere)."""
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    with app.connection_for_write(worker_env["CELERY_BROKER_URL"]) as broker:

        def publish(task_name: str, *args: object) -> None:
            app.send_task(task_name, args=args, connection=broker)

        yield publish
    app.conf.task_always_eager = eager


SWEEP = "policies.tasks.nightly_sweep"


@pytest.fixture
def account() -> Account:
    return AccountFactory(name="worker")


def runs_of(policy: RetentionPolicy) -> list[PolicyRun]:
    return list(PolicyRun.objects.filter(policy_id=policy.pk).order_by("pk"))


def test_the_nightly_task_archives_for_auto_enabled_policies_only(account, start_worker, send) -> None:  # noqa: ANN001
    buses = [LessonFactory(account=account, kind="bus", key=f"bus-{i}") for i in range(10)]
    others = [LessonFactory(account=account, kind="gotcha", key=f"gotcha-{i}") for i in range(10)]
    enabled = policy_create(
        account=account,
        rule=Rule(scope="repo::acme/app", dimensions={"kind": DimFilter(("bus",), "in")}),
        name="auto and enabled",
        mode="auto",
        enabled=True,
    )
    not_enabled = policy_create(
        account=account, rule=UNUSED, name="auto, created without enabled", mode="auto"
    )
    review = policy_create(account=account, rule=UNUSED, name="review", mode="review", enabled=True)
    worker = start_worker()
    send(SWEEP)
    wait_for(lambda: worker.succeeded(SWEEP) and worker.succeeded("policies.tasks.execute_run"), "the sweep")
    [run] = runs_of(enabled)
    assert (run.status, run.trigger, run.matched, run.archived) == ("done", "nightly", 10, 10)
    assert set(Lesson.objects.filter(archived_by_run=run)) == set(buses)
    assert not Lesson.objects.filter(pk__in=[x.pk for x in others], archived_at__isnull=False).exists()
    assert runs_of(not_enabled) == [] and runs_of(review) == []


def test_two_copies_of_the_nightly_task_started_together_run_a_policy_once(
    account, start_worker, send
) -> None:  # noqa: ANN001
    for i in range(30):
        LessonFactory(account=account, key=f"k{i}")
    policy = policy_create(account=account, rule=UNUSED, name="auto", mode="auto", enabled=True)
    worker = start_worker()
    send(SWEEP)
    send(SWEEP)
    results = wait_for(lambda: len(worker.succeeded(SWEEP)) == 2 and worker.succeeded(SWEEP), "both sweeps")
    [run] = runs_of(policy)
    assert sorted(results) == sorted(["[]", f"[{run.pk}]"])
    wait_for(lambda: PolicyRun.objects.get(pk=run.pk).status == "done", "the run")
    assert Lesson.objects.filter(archived_by_run=run).count() == 30


def assert_every_lesson_archived_or_untouched(account: Account, run: PolicyRun) -> int:
    """Each lesson is either archived by the run (with its event) or exactly as it was; returns how many."""
    run.refresh_from_db()
    archived = Lesson.objects.filter(account=account, archived_by_run=run)
    untouched = Lesson.objects.filter(account=account, archived_at__isnull=True, archived_by_run__isnull=True)
    assert archived.count() + untouched.count() == Lesson.objects.filter(account=account).count()
    assert not archived.filter(archived_at__isnull=True).exists()
    events = {row[0] for row in audited(action="archived", run=run)}
    assert events == set(archived.values_list("pk", flat=True))
    assert not events & set(untouched.values_list("pk", flat=True))
    assert run.archived == archived.count()  # the run's counter commits with each batch
    assert run.archived % 5 == 0  # whole batches only
    return run.archived


@pytest.fixture
def large(account: Account) -> RetentionPolicy:
    """2,000 lessons a policy archives in batches of 5: long enough to kill the worker in the middle. Among
    them, 100 protected and 100 chosen lessons the policy must never touch, killed worker or not."""
    now = timezone.now()
    Lesson.objects.bulk_create(
        [
            Lesson(
                account=account,
                scope="repo::acme/app",
                key=f"k{i:04d}",
                content="x",
                created_at=now,
                updated_at=now,
            )
            for i in range(2000)
        ]
        + [
            Lesson(
                account=account,
                scope="repo::acme/app",
                key=f"keep{i:03d}",
                content="x",
                created_at=now,
                updated_at=now,
                protected=i % 2 == 0,
                read_count=3,
                opened_count=i % 2,
            )
            for i in range(200)
        ]
    )
    return policy_create(account=account, rule=UNUSED, name="large", mode="auto", enabled=True)


def rows_of(account: Account) -> dict[int, dict[str, object]]:
    return {row["id"]: row for row in Lesson.objects.filter(account=account).values()}


def assert_the_rest_exactly_as_before(account: Account, before: dict[int, dict[str, object]]) -> None:
    """Every lesson no run archived is as it was, to the last counter and timestamp."""
    for pk, row in rows_of(account).items():
        if row["archived_by_run_id"] is None:
            assert row == before[pk]


def assert_only_the_candidates_archived(account: Account) -> None:
    active = Lesson.objects.filter(account=account, archived_at__isnull=True)
    assert sorted(active.values_list("key", flat=True)) == [f"keep{i:03d}" for i in range(200)]


def running_with_progress(policy: RetentionPolicy) -> PolicyRun | None:
    return PolicyRun.objects.filter(policy_id=policy.pk, status="running", archived__gte=50).first()


def test_killing_the_worker_mid_run_leaves_lessons_archived_or_untouched_and_the_next_run_completes(
    account,
    large,
    start_worker,
    send,  # noqa: ANN001
) -> None:
    before = rows_of(account)
    worker = start_worker()
    send(SWEEP)
    first = wait_for(lambda: running_with_progress(large), "the run to be under way")
    worker.kill()
    done_before = assert_every_lesson_archived_or_untouched(account, first)
    assert_the_rest_exactly_as_before(account, before)
    assert 0 < done_before < 2000
    assert PolicyRun.objects.get(pk=first.pk).status == "running"  # nobody has looked yet

    worker = start_worker()
    send(SWEEP)  # the next sweep finds the dead run, marks it, and finishes the job
    wait_for(lambda: len(runs_of(large)) == 2 and runs_of(large)[1].status == "done", "the next run")
    first, second = runs_of(large)
    assert first.status == "interrupted" and "stopped mid-run" in first.error
    assert first.archived == done_before
    assert (second.matched, second.archived) == (2000 - done_before, 2000 - done_before)
    assert_only_the_candidates_archived(account)
    assert_the_rest_exactly_as_before(account, before)


def test_a_pool_process_killed_mid_run_gets_its_run_marked_interrupted_on_redelivery(
    account,
    large,
    start_worker,
    send,  # noqa: ANN001
) -> None:
    worker = start_worker()
    send(SWEEP)
    first = wait_for(lambda: running_with_progress(large), "the run to be under way")
    for pid in worker.pool_pids():  # the worker survives; the task is rejected and redelivered
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: PolicyRun.objects.get(pk=first.pk).status == "interrupted", "the redelivered task")
    done_before = assert_every_lesson_archived_or_untouched(account, first)
    assert 0 < done_before < 2000
    send(SWEEP)
    wait_for(lambda: len(runs_of(large)) == 2 and runs_of(large)[1].status == "done", "the next run")
    assert_only_the_candidates_archived(account)
