"""The race of seeds/004 on PostgreSQL, with real connections: eligibility is checked again when the archive
happens, so a lesson protected, restored or rewritten after the run read its candidates is not archived."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection, transaction
from django.utils import timezone

from lore.candidates import archive_guard
from lore.events import lesson_history
from lore.inputs import LessonInput
from lore.models import Account, Lesson
from lore.rules.rule import Rule
from lore.services import lesson_protect, lesson_restore, lesson_write, lessons_archive
from policies import grooming
from policies.models import PolicyRun
from tests.factories import AccountFactory, LessonFactory
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RULE = Rule(scope="repo::acme/app", conditions={"max_opened_count": 0})


def in_thread(work: Callable[[], object]) -> threading.Thread:
    """Run `work` on its own database connection (a second client), closing it afterwards."""

    def body() -> None:
        try:
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=body)
    thread.start()
    return thread


def _some_backend_waits(condition: str, timeout: float) -> bool:
    """Whether, within `timeout` seconds, some backend of this database waits on a lock matching `condition`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                f"AND wait_event_type = 'Lock' AND {condition}"
            )
            if cursor.fetchone()[0]:
                return True
        time.sleep(0.02)
    return False


def wait_until_blocked_on_a_lock(timeout: float = 30.0) -> None:
    """Until some other backend of this database waits on a row lock (the archive UPDATE behind a writer)."""
    if not _some_backend_waits("query LIKE 'UPDATE%%lore_lesson%%'", timeout):
        raise AssertionError("the archive UPDATE never waited for the row lock")


def wait_until_a_transaction_waits(timeout: float = 30.0) -> None:
    """Until some backend of this database waits for another transaction (a batch behind a row that client
    holds); returns at the timeout too, and the test's own assertions tell what happened."""
    _some_backend_waits("wait_event = 'transactionid'", timeout)


@pytest.fixture
def account() -> Account:
    require_postgres()
    return AccountFactory(name="race")


def test_a_lesson_protected_while_its_batch_waits_is_not_archived(account: Account) -> None:
    """The writer holds the row when the archive UPDATE arrives; PostgreSQL re-checks the guard after it commits."""
    target, bystander = LessonFactory(account=account), LessonFactory(account=account)
    guard = archive_guard(RULE, timezone.now())
    protected, release = threading.Event(), threading.Event()
    result: dict[str, list[int]] = {}

    def protect_and_hold() -> None:
        with transaction.atomic():
            lesson_protect(account=account, lesson=Lesson.objects.get(pk=target.pk))
            protected.set()
            release.wait(30)

    def archive() -> None:
        result["archived"] = lessons_archive(
            account=account, lesson_ids=[target.pk, bystander.pk], guard=guard, run_id=None
        )

    writer = in_thread(protect_and_hold)
    assert protected.wait(30)
    archiver = in_thread(archive)
    wait_until_blocked_on_a_lock()
    release.set()
    writer.join(30)
    archiver.join(30)
    assert result["archived"] == [bystander.pk]
    target.refresh_from_db()
    assert target.protected and target.archived_at is None


@pytest.mark.parametrize("change", ["protect", "restore", "rewrite"])
def test_a_lesson_changed_by_another_client_between_batches_is_not_archived(
    account: Account, change: str
) -> None:
    lessons = [LessonFactory(account=account, key=f"k{i:02d}") for i in range(6)]
    target = lessons[3]
    if change == "restore":  # archived by hand before the run started, so not among its candidates then
        lessons_archive(account=account, lesson_ids=[target.pk], reason="by hand")

    def other_client() -> None:
        lesson = Lesson.objects.get(pk=target.pk)
        if change == "protect":
            lesson_protect(account=account, lesson=lesson)
        elif change == "restore":
            lesson_restore(account=account, lesson=lesson)
        else:
            data = LessonInput.from_data({"scope": lesson.scope, "key": lesson.key, "content": "rewritten"})
            lesson_write(account=account, data=data)

    def between_batches(run: PolicyRun) -> None:
        if run.archived == 1:
            in_thread(other_client).join(30)

    run = grooming.run_start(account=account, rule=RULE, trigger=PolicyRun.Trigger.MANUAL)
    run = grooming.run_execute(run.pk, batch_size=1, on_batch=between_batches)
    target.refresh_from_db()
    assert target.archived_at is None
    expected = {lesson.pk for lesson in lessons} - {target.pk}
    assert set(Lesson.objects.filter(archived_by_run=run).values_list("pk", flat=True)) == expected
    assert (run.status, run.archived) == ("done", 5)


def _lock_free(lesson_id: int) -> bool:
    """Whether this connection can lock the lesson's row right now (NOWAIT), released at once."""
    from django.db import OperationalError

    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT id FROM lore_lesson WHERE id = %s FOR UPDATE NOWAIT", [lesson_id])
            transaction.set_rollback(True)
        return True
    except OperationalError:
        return False


def test_an_archive_batch_takes_its_row_locks_in_id_order(account: Account) -> None:
    """Every statement that changes many lessons locks them in id order, so two of them never deadlock: a batch
    waiting on a lesson another client holds has locked the lessons before it and none after it."""
    lessons = [LessonFactory(account=account, key=f"k{i:02d}") for i in range(6)]
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            Lesson.objects.select_for_update().get(pk=lessons[3].pk)
            held.set()
            release.wait(30)

    holder = in_thread(hold)
    assert held.wait(30)
    run = grooming.run_start(account=account, rule=RULE, trigger=PolicyRun.Trigger.MANUAL)
    runner = in_thread(lambda: grooming.run_execute(run.pk))
    wait_until_a_transaction_waits()
    try:
        assert [_lock_free(lesson.pk) for lesson in lessons] == [False, False, False, False, True, True]
    finally:
        release.set()
        holder.join(30)
        runner.join(30)
    assert Lesson.objects.filter(archived_by_run=run).count() == 6


def test_a_runs_batches_commit_without_waiting_for_the_disk_and_its_last_write_waits(
    account: Account,
) -> None:
    """A batch's commit does not wait for its WAL to reach the disk (a crash loses whole batches, never part of
    one: the next run completes the job); the run's final status does wait, which flushes every batch before it,
    so a run reported done or an undo reported finished is on disk. The same for an undo's batches."""
    LessonFactory.create_batch(5, account=account)
    seen: list[tuple[str, str]] = []

    def wrapper(execute, sql, params, many, context):  # noqa: ANN001, ANN202
        if sql.startswith('UPDATE "policies_policyrun" SET'):
            with connection.cursor() as cursor:
                cursor.execute("SHOW synchronous_commit")
                seen.append((sql.split('" SET "')[1].split('"')[0], cursor.fetchone()[0]))
        return execute(sql, params, many, context)

    run = grooming.run_start(account=account, rule=RULE, trigger=PolicyRun.Trigger.MANUAL)
    with connection.execute_wrapper(wrapper):
        run = grooming.run_execute(run.pk, batch_size=2)
    # Claimed (status), matched counted, three batches, done.
    assert seen == [("status", "on"), ("matched", "on"), *[("archived", "off")] * 3, ("status", "on")]
    assert run.archived == 5

    seen.clear()
    with connection.execute_wrapper(wrapper):
        assert grooming.run_undo(run) == 5
    assert seen == [("restored", "off")]
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"


def _undo_waiting_on(
    account: Account, hold: Callable[[Lesson], None]
) -> tuple[PolicyRun, list[Lesson], list]:
    """A run that archived six lessons, and its Undo started while another client holds the fourth lesson in
    `hold`'s transaction: returns the run, the lessons, and whether each could be locked while the Undo waited."""
    lessons = [LessonFactory(account=account, key=f"k{i:02d}") for i in range(6)]
    run = grooming.run_execute(
        grooming.run_start(account=account, rule=RULE, trigger=PolicyRun.Trigger.MANUAL).pk
    )
    assert run.archived == 6
    held, release = threading.Event(), threading.Event()

    def holder_body() -> None:
        with transaction.atomic():
            hold(Lesson.objects.select_for_update().get(pk=lessons[3].pk))
            held.set()
            release.wait(30)

    holder = in_thread(holder_body)
    assert held.wait(30)
    undoer = in_thread(lambda: grooming.run_undo(run, actor="alice"))
    wait_until_a_transaction_waits()
    try:
        free = [_lock_free(lesson.pk) for lesson in lessons]
    finally:
        release.set()
        holder.join(30)
        undoer.join(30)
    run.refresh_from_db()
    return run, lessons, free


def test_an_undo_batch_takes_its_row_locks_in_id_order(account: Account) -> None:
    """The Undo's batch, like the run's, locks its lessons in id order: waiting on the lesson another client
    holds, it has locked the lessons before it and none after it."""
    run, lessons, free = _undo_waiting_on(account, lambda lesson: None)
    assert free == [False, False, False, False, True, True]
    assert run.restored == 6
    assert not Lesson.objects.filter(
        pk__in=[lesson.pk for lesson in lessons], archived_at__isnull=False
    ).exists()


@pytest.mark.parametrize("change", ["restored by hand", "restored and archived again by hand"])
def test_a_lesson_another_client_changes_while_the_undo_waits_is_left_as_that_client_left_it(
    account: Account, change: str
) -> None:
    """The Undo's batch re-checks, on the newest version of each lesson it locks, that the lesson is still
    archived by the run: one restored meanwhile is not restored or logged twice, one archived again by someone
    else stays archived."""

    def hold(lesson: Lesson) -> None:
        lesson_restore(account=account, lesson=lesson, actor="bob")
        if change != "restored by hand":
            lessons_archive(account=account, lesson_ids=[lesson.pk], reason="by hand", actor="bob")

    run, lessons, _ = _undo_waiting_on(account, hold)
    target = Lesson.objects.get(pk=lessons[3].pk)
    assert run.restored == 5
    assert (target.archived_at is not None, target.archived_by_run_id) == (change != "restored by hand", None)
    restores = [e for e in lesson_history(account.pk, target.pk, limit=10) if e.action == "restored"]
    assert [e.actor for e in restores] == ["bob"]
    others = Lesson.objects.filter(pk__in=[lesson.pk for lesson in lessons if lesson.pk != target.pk])
    assert not others.filter(archived_at__isnull=False).exists()
