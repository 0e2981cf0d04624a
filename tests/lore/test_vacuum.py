"""Issue 16: a bulk change of the lessons leaves their pages all-visible again (lore.vacuum). Every count is an
index-only scan that reads the table for each page a change left not all-visible; after one archive run and its
undo at 1M the preview's count read 256,658 heap tuples and took ten times as long. A run, an undo, a purge, an
import or a gardener change of VACUUM_AFTER_ROWS lessons or more queues one VACUUM (ANALYZE) after it commits."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from lore.models import Account, Lesson
from lore.purge import account_purge
from lore.rules.rule import Rule
from lore.services import lessons_archive
from lore.transfer import import_numbered
from lore.vacuum import lessons_vacuum, lessons_vacuum_soon
from policies import grooming
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
LESSONS = 300  # a dozen pages or more
UNUSED = Rule(scope="repo::acme/app", conditions={"max_opened_count": 0})


@pytest.fixture(autouse=True)
def _postgres(settings) -> None:  # noqa: ANN001
    require_postgres()
    settings.LORE_VACUUM_AFTER_ROWS = 100


@pytest.fixture
def lessons(account: Account) -> Account:
    """LESSONS unused lessons, then a VACUUM: every page all-visible to start with."""
    now = timezone.now()
    Lesson.objects.bulk_create(
        Lesson(
            account=account,
            scope="repo::acme/app",
            key=f"lesson-{i}",
            content=f"what was learnt the {i}th time, written out at some length " * 3,
            kind="lesson",
            created_at=now,
            updated_at=now,
        )
        for i in range(LESSONS)
    )
    assert lessons_vacuum()
    assert all_visible_share() == 1.0
    return account


def all_visible_share() -> float:
    """The share of the lessons' pages the visibility map marks all-visible, as ANALYZE reads it from the map."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE lore_lesson")
        cursor.execute("SELECT relallvisible, relpages FROM pg_class WHERE oid = 'lore_lesson'::regclass")
        visible, pages = cursor.fetchone()
    return visible / pages if pages else 1.0


def run_unused(account: Account):  # noqa: ANN201
    run = grooming.run_start(account=account, rule=UNUSED, trigger="manual")
    assert run is not None
    return grooming.run_execute(run.pk)


def test_an_archive_run_of_many_lessons_leaves_every_page_all_visible(lessons: Account) -> None:
    run = run_unused(lessons)
    assert run.archived == LESSONS
    assert all_visible_share() == 1.0


def test_without_the_vacuum_an_archive_run_leaves_the_pages_to_the_heap(lessons: Account, settings) -> None:  # noqa: ANN001
    """The check above can fail: with the threshold out of reach, the same run leaves the pages not all-visible."""
    settings.LORE_VACUUM_AFTER_ROWS = LESSONS + 1
    run_unused(lessons)
    assert all_visible_share() < 0.5


def test_an_undo_of_many_lessons_leaves_every_page_all_visible(lessons: Account, settings) -> None:  # noqa: ANN001
    settings.LORE_VACUUM_AFTER_ROWS = LESSONS + 1
    run = run_unused(lessons)
    assert all_visible_share() < 0.5
    settings.LORE_VACUUM_AFTER_ROWS = 100
    assert grooming.run_undo(run) == LESSONS
    assert all_visible_share() == 1.0


def test_a_purge_of_many_lessons_leaves_every_page_all_visible(lessons: Account, settings) -> None:  # noqa: ANN001
    settings.LORE_VACUUM_AFTER_ROWS = LESSONS + 1
    lessons_archive(account=lessons, lesson_ids=list(Lesson.objects.values_list("pk", flat=True)))
    Lesson.objects.update(archived_at=timezone.now() - timedelta(days=400))
    Account.objects.filter(pk=lessons.pk).update(purge_after_days=30)
    lessons.refresh_from_db()
    settings.LORE_VACUUM_AFTER_ROWS = 100
    run = account_purge(lessons)
    assert run is not None and run.purged == LESSONS
    assert all_visible_share() == 1.0


def test_an_import_of_many_lessons_leaves_every_page_all_visible(lessons: Account) -> None:
    lines = (
        (
            n,
            json.dumps(
                {"scope": "repo::acme/app", "key": f"imported-{n}", "content": "an imported lesson " * 5}
            ),
        )
        for n in range(1, LESSONS + 1)
    )
    report = import_numbered(lessons, lines)
    assert report.created == LESSONS
    assert all_visible_share() == 1.0


def test_a_change_below_the_threshold_queues_no_vacuum(lessons: Account) -> None:
    assert lessons_vacuum_soon(99) is False
    assert lessons_vacuum_soon(100) is True


def test_a_second_vacuum_while_one_runs_returns_at_once(lessons: Account) -> None:
    """One at a time: another connection holding the lock (a VACUUM going) makes this one a no-op."""
    from lore.vacuum import _VACUUM_LOCK

    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [_VACUUM_LOCK])
        assert lessons_vacuum() is False
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_VACUUM_LOCK])
        assert lessons_vacuum() is True
    finally:
        other.close()


def test_a_vacuum_asked_for_inside_a_transaction_is_skipped_not_an_error(lessons: Account) -> None:
    with transaction.atomic():
        assert lessons_vacuum() is False


def test_the_vacuum_leaves_the_connections_statement_timeout_as_it_was(lessons: Account) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = '1234ms'")
        lessons_vacuum()
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "1234ms"
        cursor.execute("RESET statement_timeout")


def test_the_lessons_autovacuum_after_two_percent_of_them_change(lessons: Account) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE oid = 'lore_lesson'::regclass")
        options = set(cursor.fetchone()[0] or [])
    assert {
        "autovacuum_vacuum_scale_factor=0.02",
        "autovacuum_analyze_scale_factor=0.02",
        "autovacuum_vacuum_insert_scale_factor=0.02",
    } <= options
