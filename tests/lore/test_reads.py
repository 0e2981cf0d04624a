"""The read buffer (lore.reads): reads append, the fold moves them into the lessons, nothing is lost or doubled.

Real databases only: the fold tests run on SQLite and on PostgreSQL (the suite's two passes); the crash tests
hold a real row lock from a second connection, so the fold fails (lock_timeout) or is killed (SIGKILL of a real
process) with a batch open, on PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import OperationalError, close_old_connections, connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.celery import READS_FOLD_TASK, app
from lore.limits import READS_FOLD_BATCH
from lore.models import Account, Lesson, LessonRead
from lore.reads import (
    lesson_exact,
    pending_count,
    reads_counters,
    reads_fold,
    reads_record,
    reads_settle,
    reads_settle_for,
    rule_fields,
)
from lore.rules.rule import Rule
from lore.selectors import lessons_page, sort_field
from lore.services import lesson_open, lessons_deliver
from lore.tasks import reads_fold_all
from tests.factories import AccountFactory, LessonFactory
from tests.services import require_postgres

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def stored(lesson: Lesson) -> tuple[int, int]:
    """Delivered and Chosen as the lesson row holds them (nothing pending added)."""
    lesson.refresh_from_db()
    return lesson.read_count, lesson.opened_count


def deliver(account: Account, lessons: list[Lesson], times: int = 1) -> None:
    for _ in range(times):
        lessons_deliver(account=account, lesson_ids=[x.pk for x in lessons], scope="global", surface="api")


# ---------------------------------------------------------------- recording


def test_a_page_of_any_size_is_one_insert_of_read_rows_and_updates_no_lesson(account) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account, key=f"k{i}", read_count=0) for i in range(200)]
    statements = []
    for size in (1, 50, 200):
        with CaptureQueriesContext(connection) as captured:
            deliver(account, lessons[:size])
        sql = [q["sql"] for q in captured.captured_queries]
        assert not [s for s in sql if s.startswith("UPDATE")]
        assert len([s for s in sql if s.startswith("INSERT") and "lore_lessonread" in s]) == 1
        statements.append(len(sql))
    assert len(set(statements)) == 1  # the same statements for 1, 50 or 200 lessons
    assert LessonRead.objects.count() == 251


def test_a_read_leaves_the_lesson_rows_as_they_were(account) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account, key=f"k{i}", read_count=7, opened_count=2) for i in range(5)]
    before = list(Lesson.objects.order_by("pk").values_list("read_count", "opened_count", "last_opened_at"))
    deliver(account, lessons, times=3)
    lesson_open(account=account, lesson=lessons[0], surface="mcp")
    after = list(Lesson.objects.order_by("pk").values_list("read_count", "opened_count", "last_opened_at"))
    assert after == before


@pytest.mark.postgres
def test_a_read_writes_no_new_version_of_a_lesson_row_on_postgresql(account) -> None:  # noqa: ANN001
    require_postgres()
    lessons = [LessonFactory(account=account, key=f"k{i}") for i in range(10)]

    def versions() -> list[tuple[int, str]]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT id, xmin::text FROM lore_lesson ORDER BY id")
            return cursor.fetchall()

    before = versions()
    deliver(account, lessons, times=5)
    lesson_open(account=account, lesson=lessons[3], surface="mcp")
    assert versions() == before


# ---------------------------------------------------------------- exact counters, pending included


def test_a_lesson_shows_its_pending_reads_added_to_its_stored_counters(account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, read_count=10, opened_count=1, last_opened_at=None)
    deliver(account, [lesson], times=3)
    opened_at = timezone.now() + timedelta(seconds=5)
    lesson_open(account=account, lesson=lesson, surface="mcp", now=opened_at)
    shown = lesson_exact(Lesson.objects.filter(pk=lesson.pk))
    assert shown is not None
    assert (shown.read_count, shown.opened_count, shown.last_opened_at) == (14, 2, opened_at)
    assert shown.last_read_at == opened_at
    assert stored(lesson) == (10, 1)


def test_a_page_shows_pending_reads_and_pages_on_the_stored_order(account) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account, key=f"k{i}", opened_count=i) for i in range(6)]
    for _ in range(4):
        lesson_open(account=account, lesson=lessons[0], surface="mcp")
    qs = Lesson.objects.filter(account=account)
    first = lessons_page(qs, sort="opened_count", limit=3)
    second = lessons_page(qs, sort="opened_count", limit=3, cursor=first.next_cursor)
    assert [x.key for x in first.rows + second.rows] == ["k5", "k4", "k3", "k2", "k1", "k0"]
    assert second.rows[-1].opened_count == 4  # shown exact, though stored 0 until the fold


def test_reads_of_another_accounts_lesson_are_neither_shown_nor_folded(account, other_account) -> None:  # noqa: ANN001
    theirs = LessonFactory(account=other_account, read_count=3)
    reads_record(account=account, lesson_ids=[theirs.pk], at=timezone.now(), opened=True)
    shown = lesson_exact(Lesson.objects.filter(pk=theirs.pk))
    assert shown is not None and (shown.read_count, shown.opened_count) == (3, 0)
    reads_settle(account)
    assert stored(theirs) == (3, 0) and not LessonRead.objects.exists()


# ---------------------------------------------------------------- the fold (every database)


def test_a_fold_moves_every_buffered_read_into_the_lessons_and_empties_the_buffer(account) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account, key=f"k{i}", read_count=5, last_read_at=None) for i in range(4)]
    deliver(account, lessons, times=2)
    later = timezone.now() + timedelta(minutes=1)
    lesson_open(account=account, lesson=lessons[1], surface="mcp", now=later)
    report = reads_fold()
    assert (report.folded, report.accounts, report.complete) == (9, 1, True)
    assert [stored(x) for x in lessons] == [(7, 0), (8, 1), (7, 0), (7, 0)]
    lessons[1].refresh_from_db()
    assert lessons[1].last_opened_at == later and lessons[1].last_read_at == later
    assert not LessonRead.objects.exists()


def test_a_fold_never_moves_a_time_backwards(account) -> None:  # noqa: ANN001
    recent = timezone.now()
    lesson = LessonFactory(account=account, last_read_at=recent, last_opened_at=recent)
    lesson_open(account=account, lesson=lesson, surface="mcp", now=recent - timedelta(days=3))
    reads_fold()
    lesson.refresh_from_db()
    assert lesson.last_read_at == recent and lesson.last_opened_at == recent


def test_a_fold_in_batches_counts_each_read_once(account, settings) -> None:  # noqa: ANN001
    settings.LORE_READS_FOLD_BATCH = 7
    assert READS_FOLD_BATCH.value == 7
    lessons = [LessonFactory(account=account, key=f"k{i}", read_count=0) for i in range(5)]
    deliver(account, lessons, times=6)  # 30 rows: four full batches and a short one
    assert reads_fold().folded == 30
    assert {stored(x) for x in lessons} == {(6, 0)}


def test_a_bounded_fold_stops_between_batches_and_the_rest_stays_shown(account, settings) -> None:  # noqa: ANN001
    settings.LORE_READS_FOLD_BATCH = 4
    lesson = LessonFactory(account=account, read_count=0)
    deliver(account, [lesson], times=10)
    report = reads_fold(max_rows=4)
    assert (report.folded, report.complete) == (4, False)
    assert stored(lesson) == (4, 0) and pending_count(account) == 6
    shown = lesson_exact(Lesson.objects.filter(pk=lesson.pk))
    assert shown is not None and shown.read_count == 10
    assert reads_fold().folded == 6 and stored(lesson) == (10, 0)


def test_a_fold_of_a_purged_lesson_drops_its_reads(account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account)
    deliver(account, [lesson], times=2)
    Lesson.objects.filter(pk=lesson.pk).delete()
    assert reads_fold().folded == 2 and not LessonRead.objects.exists()


def test_the_every_minute_task_folds_and_is_on_the_beat_schedule(account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, read_count=0)
    deliver(account, [lesson], times=3)
    assert reads_fold_all() == {"folded": 3, "accounts": 1, "complete": True}
    assert stored(lesson) == (3, 0)
    entry = app.conf.beat_schedule["reads-fold"]
    assert entry["task"] == READS_FOLD_TASK == reads_fold_all.name
    assert entry["schedule"].minute == set(range(60))


# ---------------------------------------------------------------- which rules settle the account first


def test_rules_and_orders_on_counters_settle_and_others_do_not(account) -> None:  # noqa: ANN001
    assert reads_counters(rule_fields(Rule(conditions={"max_opened_count": 0})))
    assert reads_counters(rule_fields(Rule(conditions={"unseen_days": 30})))
    assert reads_counters(rule_fields(Rule(conditions={"max_decay_score": 10})))
    assert reads_counters(rule_fields(Rule(), sort_field("coldest")))
    assert reads_counters(rule_fields(Rule(), sort_field("opened_count")))
    assert not reads_counters(rule_fields(Rule(conditions={"min_age_days": 30, "max_seen_count": 1})))
    assert not reads_counters(rule_fields(Rule(), sort_field("newest")))
    lesson = LessonFactory(account=account, read_count=0)
    deliver(account, [lesson])
    assert reads_settle_for(account, rule_fields(Rule(conditions={"min_age_days": 30}))) == 0
    assert stored(lesson) == (0, 0)
    assert reads_settle_for(account, rule_fields(Rule(conditions={"max_read_count": 3}))) == 1
    assert stored(lesson) == (1, 0)


def test_a_rule_on_chosen_folds_the_pending_opens_and_leaves_the_deliveries_buffered(account) -> None:  # noqa: ANN001
    now = timezone.now()
    opened, delivered = (
        LessonFactory(account=account, read_count=0),
        LessonFactory(account=account, read_count=0),
    )
    deliver(account, [opened, delivered], times=2)
    lesson_open(account=account, lesson=opened, surface="mcp", now=now)
    folded = [
        reads_settle_for(account, rule_fields(Rule(conditions=conditions)))
        for conditions in ({"max_opened_count": 0}, {"unseen_days": 30}, {"max_decay_score": 10})
    ]
    assert folded == [1, 0, 0]  # the one open, then nothing left that these rules read
    assert stored(opened) == (1, 1)  # the open folded: Delivered +1 and Chosen +1, with its time
    assert Lesson.objects.get(pk=opened.pk).last_opened_at == now
    assert stored(delivered) == (0, 0) and pending_count(account) == 4  # the deliveries wait for the fold
    shown = lesson_exact(Lesson.objects.filter(pk=opened.pk))
    assert (shown.read_count, shown.opened_count) == (3, 1)  # exact as shown: pending deliveries added
    assert reads_settle_for(account, rule_fields(Rule(conditions={"max_read_count": 3}))) == 4
    assert stored(opened) == (3, 1) and stored(delivered) == (2, 0) and pending_count(account) == 0


# ---------------------------------------------------------------- concurrency and crashes (PostgreSQL)


def _lock_lesson(pk: int, locked: threading.Event, release: threading.Event) -> None:
    """Hold a row lock on one lesson from another connection until `release`."""
    try:
        with transaction.atomic():
            list(Lesson.objects.filter(pk=pk).select_for_update().values_list("pk"))
            locked.set()
            release.wait(60)
    finally:
        close_old_connections()
        connection.close()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_fold_failing_between_batches_loses_and_doubles_nothing(settings) -> None:  # noqa: ANN001
    require_postgres()
    settings.LORE_READS_FOLD_BATCH = 10
    account = AccountFactory(name="fold-fails")
    lessons = [LessonFactory(account=account, key=f"k{i}", read_count=0) for i in range(10)]
    deliver(account, lessons, times=3)  # 30 rows, in page order: batch 3 holds the third page
    late = LessonFactory(account=account, key="late", read_count=0)
    deliver(account, [late])  # row 31: the fourth batch
    locked, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_lock_lesson, args=(late.pk, locked, release))
    holder.start()
    try:
        assert locked.wait(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '200ms'")
        with pytest.raises(OperationalError, match="lock timeout"):
            reads_fold()
    finally:
        release.set()
        holder.join()
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")
    assert [stored(x) for x in lessons] == [(3, 0)] * 10  # the three batches before the failure: committed
    assert (
        stored(late) == (0, 0) and pending_count(account) == 1
    )  # the failed one: rolled back, still buffered
    assert reads_fold().folded == 1
    assert stored(late) == (1, 0) and [stored(x) for x in lessons] == [(3, 0)] * 10


FOLD_SCRIPT = """
import django, sys
django.setup()
from lore.reads import reads_fold
print(reads_fold(), flush=True)
"""


def _a_fold_waits_on_a_lock() -> bool:
    """Some backend of the test database (the child's fold) waits on a row lock."""
    name = settings.DATABASES["default"]["NAME"]
    with connections["default"].cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'", [name]
        )
        return bool(cursor.fetchone()[0])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_fold_process_killed_mid_batch_loses_and_doubles_nothing() -> None:
    require_postgres()
    account = AccountFactory(name="fold-killed")
    lessons = [LessonFactory(account=account, key=f"k{i}", read_count=0, opened_count=0) for i in range(20)]
    for lesson in lessons:
        lesson_open(account=account, lesson=lesson, surface="mcp")
    deliver(account, lessons, times=4)
    locked, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_lock_lesson, args=(lessons[-1].pk, locked, release))
    holder.start()
    name = settings.DATABASES["default"]["NAME"]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{name}",
        "LORE_READS_FOLD_BATCH": "1000",
        "DEBUG": "1",
    }
    try:
        assert locked.wait(10)
        process = subprocess.Popen(
            [sys.executable, "-c", FOLD_SCRIPT],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        # The batch is open in the child: it locked its read rows and waits for the lesson this test holds.
        deadline = time.monotonic() + 60
        while not _a_fold_waits_on_a_lock() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _a_fold_waits_on_a_lock(), process.communicate(timeout=5)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        release.set()
        holder.join()
    assert process.returncode == -signal.SIGKILL
    assert {stored(x) for x in lessons} == {(0, 0)} and pending_count(account) == 100
    reads_settle(account)
    assert {stored(x) for x in lessons} == {(5, 1)} and pending_count(account) == 0
