"""Purge of long-archived lessons (issue 15 part 3): hard-deleted after `purge_after_days`, in batches that
re-check eligibility, leaving a tombstone that restore, history and export answer with."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config.celery import PURGE_TASK, app
from lore import purge
from lore.models import Lesson, LessonEvent, LessonEventBatch, LessonTag, PurgeRun, Tombstone, content_hash
from lore.schedule import next_fire, sweep_schedule
from lore.services import lesson_protect, lessons_archive, lessons_restore
from lore.tasks import nightly_purge
from tests.factories import AccountFactory, LessonFactory

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def archived(account, days_ago: float, **kw) -> Lesson:
    lesson = LessonFactory(account=account, tags=["ci"], **kw)
    lessons_archive(
        account=account, lesson_ids=[lesson.pk], reason="by hand", now=NOW - timedelta(days=days_ago)
    )
    lesson.refresh_from_db()
    return lesson


def test_archived_lessons_older_than_purge_after_days_are_hard_deleted_with_their_tags_and_events() -> None:
    account = AccountFactory()
    old, recent = archived(account, 181), archived(account, 179)
    active = LessonFactory(account=account)
    run = purge.account_purge(account, now=NOW)
    assert run is not None and run.status == PurgeRun.Status.DONE and run.purged == 1
    assert set(Lesson.objects.values_list("pk", flat=True)) == {recent.pk, active.pk}
    assert not LessonTag.objects.filter(lesson_id=old.pk).exists()
    assert not LessonEvent.objects.filter(lesson_id=old.pk).exists()
    assert not LessonEventBatch.objects.filter(
        first_lesson_id__lte=old.pk, last_lesson_id__gte=old.pk
    ).exists()


def test_a_purge_takes_the_purged_lessons_out_of_the_batches_that_logged_them() -> None:
    """An archive batch's one audit row (issue 29) keeps the lessons not purged, and goes when none is left."""
    account = AccountFactory()
    old, young = LessonFactory(account=account), LessonFactory(account=account)
    lessons_archive(account=account, lesson_ids=[old.pk], now=NOW - timedelta(days=200))
    lessons_archive(account=account, lesson_ids=[young.pk], now=NOW - timedelta(days=100))
    lessons_restore(account=account, lesson_ids=[old.pk, young.pk])
    lessons_archive(account=account, lesson_ids=[old.pk, young.pk], now=NOW - timedelta(days=190))
    assert purge.account_purge(account, now=NOW).purged == 2
    assert not LessonEventBatch.objects.exists()

    kept, gone = LessonFactory(account=account), LessonFactory(account=account)
    lessons_archive(account=account, lesson_ids=[kept.pk, gone.pk], now=NOW - timedelta(days=200))
    lesson_protect(account=account, lesson=kept, protected=True)
    assert purge.account_purge(account, now=NOW).purged == 1
    batch = LessonEventBatch.objects.get()
    assert (batch.lesson_ids, batch.first_lesson_id, batch.last_lesson_id) == ([kept.pk], kept.pk, kept.pk)


def test_a_purged_lesson_leaves_a_tombstone_with_scope_key_content_hash_archived_at_purged_at_and_run() -> (
    None
):
    account = AccountFactory()
    old = archived(account, 200)
    run = purge.account_purge(account, now=NOW)
    tomb = Tombstone.objects.get()
    assert (tomb.scope, tomb.key, tomb.lesson_id) == (old.scope, old.key, old.pk)
    assert tomb.content_hash == content_hash(old.content)
    assert tomb.archived_at == old.archived_at and tomb.purged_at == NOW and tomb.purge_run == run


def test_protected_and_active_lessons_are_never_purged() -> None:
    account = AccountFactory()
    pinned = archived(account, 400)
    lesson_protect(account=account, lesson=pinned)
    active = LessonFactory(account=account, created_at=NOW - timedelta(days=900))
    purge.account_purge(account, now=NOW)
    assert Lesson.objects.filter(pk__in=[pinned.pk, active.pk]).count() == 2
    assert not Tombstone.objects.exists()


def test_purge_after_days_zero_never_purges() -> None:
    account = AccountFactory(purge_after_days=0)
    archived(account, 4000)
    assert purge.account_purge(account, now=NOW) is None
    assert Lesson.objects.count() == 1


def test_the_purge_goes_in_batches_and_a_second_run_finds_nothing() -> None:
    account = AccountFactory()
    for _ in range(5):
        archived(account, 365)
    run = purge.account_purge(account, now=NOW, batch_size=2)
    assert run is not None and run.purged == 5 and Tombstone.objects.count() == 5
    again = purge.account_purge(account, now=NOW, batch_size=2)
    assert again is not None and again.purged == 0


def test_a_lesson_restored_after_it_was_picked_is_not_purged() -> None:
    """The locking SELECT repeats the eligibility: a lesson restored between pick and delete stays."""
    account = AccountFactory()
    target, other = archived(account, 300), archived(account, 300)
    original = Lesson.objects.select_for_update

    def restore_then_lock() -> object:
        Lesson.objects.filter(pk=target.pk).update(archived_at=None)
        return original()

    Lesson.objects.select_for_update = restore_then_lock  # type: ignore[method-assign]
    try:
        run = purge.account_purge(account, now=NOW)
    finally:
        Lesson.objects.select_for_update = original  # type: ignore[method-assign]
    assert run is not None and run.purged == 1
    assert Lesson.objects.filter(pk=target.pk).exists() and not Lesson.objects.filter(pk=other.pk).exists()


def test_a_failed_batch_leaves_everything_archived_and_retryable() -> None:
    account = AccountFactory()
    lessons = [archived(account, 300) for _ in range(3)]
    original = Tombstone.objects.bulk_create

    def fail(*args: object, **kwargs: object) -> object:
        raise RuntimeError("disk full")

    Tombstone.objects.bulk_create = fail  # type: ignore[method-assign]
    try:
        with pytest.raises(RuntimeError):
            purge.account_purge(account, now=NOW)
    finally:
        Tombstone.objects.bulk_create = original  # type: ignore[method-assign]
    failed = PurgeRun.objects.get()
    assert failed.status == PurgeRun.Status.FAILED and "disk full" in failed.error
    assert Lesson.objects.filter(pk__in=[lesson.pk for lesson in lessons]).count() == 3
    assert LessonTag.objects.filter(lesson_id__in=[lesson.pk for lesson in lessons]).count() == 3
    assert purge.account_purge(account, now=NOW).purged == 3  # type: ignore[union-attr]


def test_the_nightly_sweep_schedules_the_purge_task_and_it_purges_each_account() -> None:
    assert app.conf.beat_schedule["nightly-purge"]["task"] == PURGE_TASK == nightly_purge.name
    first, second, never = AccountFactory(), AccountFactory(), AccountFactory(purge_after_days=0)
    for account in (first, second, never):
        archived(account, 10_000 / 24)  # ~417 days
    result = nightly_purge()
    assert result == {first.pk: 1, second.pk: 1}
    assert Lesson.objects.filter(account=never).count() == 1


def test_the_purge_of_a_batch_is_a_bounded_number_of_statements() -> None:
    account = AccountFactory()
    for _ in range(4):
        archived(account, 300)
    with CaptureQueriesContext(connection) as small:
        purge.account_purge(account, now=NOW)
    for _ in range(40):
        archived(account, 300)
    with CaptureQueriesContext(connection) as large:
        purge.account_purge(account, now=NOW)
    assert len(large) == len(small)


def test_next_fire_is_the_first_sweep_at_or_after() -> None:
    schedule = sweep_schedule("0 3 * * *")
    assert next_fire(schedule, datetime(2026, 12, 1, 2, 59, tzinfo=UTC)) == datetime(
        2026, 12, 1, 3, 0, tzinfo=UTC
    )
    assert next_fire(schedule, datetime(2026, 12, 1, 3, 0, 1, tzinfo=UTC)) == datetime(
        2026, 12, 2, 3, 0, tzinfo=UTC
    )


def test_the_forecast_says_how_many_lessons_will_be_purged_on_which_day() -> None:
    account = AccountFactory()
    for _ in range(3):
        archived(account, 170)  # due 10 days from NOW, at 12:00 → purged by the 03:00 sweep the day after
    archived(account, 100)
    forecast = purge.purge_forecast(account, now=NOW)
    assert forecast is not None and str(forecast) == "3 lessons will be purged on 2026-12-12"


def test_an_archived_row_says_in_how_many_days_it_will_be_purged() -> None:
    account = AccountFactory()
    lesson = archived(account, 170)
    assert purge.purge_in_words(account, lesson, NOW) == "purged in 11 days"
    account.purge_after_days = 0
    assert purge.purge_in_words(account, lesson, NOW) == ""


def test_a_purge_that_deleted_lessons_is_one_row_of_the_account_activity() -> None:
    from lore.models import Activity

    account = AccountFactory()
    archived(account, 200), archived(account, 300), archived(account, 10)
    purge.account_purge(account, now=NOW)
    row = Activity.objects.get(account=account, action="lessons.purged")
    assert row.actor == "nightly sweep" and row.subject == "2 archived lessons"
    assert "tombstone" in row.detail and f"{NOW - timedelta(days=180):%Y-%m-%d}" in row.detail
    purge.account_purge(account, now=NOW)  # nothing left to purge: no second row
    assert Activity.objects.filter(account=account, action="lessons.purged").count() == 1
