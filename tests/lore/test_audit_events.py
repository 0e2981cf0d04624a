"""Every lesson an archive or restore batch changes is in exactly one audit entry, written by the database in the
batch's statement: one row per batch holding the lessons' ids (issue 29), read per lesson (lore.events)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Q
from django.utils import timezone

from lore.events import AuditEntry, lesson_history
from lore.models import LessonEvent, LessonEventBatch
from lore.services import lessons_archive, lessons_restore
from policies.models import PolicyRun
from tests.audit import audited
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def test_an_archive_logs_every_lesson_with_its_run_actor_reason_and_time(account) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account) for _ in range(5)]
    run = PolicyRun.objects.create(account=account, trigger="cli", rule_snapshot={})
    now = timezone.now()
    archived = lessons_archive(
        account=account,
        lesson_ids=[lesson.pk for lesson in lessons],
        run_id=run.pk,
        reason="policy “stale”",
        actor="alice",
        now=now,
    )
    assert sorted(archived) == sorted(lesson.pk for lesson in lessons)
    assert audited(account=account) == [
        (pk, LessonEvent.Action.ARCHIVED, "alice", run.pk, "policy “stale”", now) for pk in sorted(archived)
    ]


def test_an_archive_batch_is_one_audit_row_holding_its_lessons_in_id_order(account) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account) for _ in range(4)]
    archived = lessons_archive(account=account, lesson_ids=[lesson.pk for lesson in reversed(lessons)])
    batch = LessonEventBatch.objects.get()
    assert batch.lesson_ids == sorted(archived)
    assert (batch.first_lesson_id, batch.last_lesson_id, batch.lessons) == (min(archived), max(archived), 4)
    assert not LessonEvent.objects.exists()


def test_a_lesson_the_guard_skips_is_neither_archived_nor_logged(account, other_account) -> None:  # noqa: ANN001
    kept = LessonFactory(account=account, protected=True)
    taken = LessonFactory(account=account)
    foreign = LessonFactory(account=other_account)
    archived = lessons_archive(
        account=account, lesson_ids=[kept.pk, taken.pk, foreign.pk], guard=Q(protected=False), actor="bob"
    )
    assert archived == [taken.pk]
    assert [(row[0], row[3]) for row in audited()] == [(taken.pk, None)]


def test_undo_logs_every_lesson_of_the_run_as_restored(account) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account) for _ in range(3)]
    run = PolicyRun.objects.create(account=account, trigger="cli", rule_snapshot={})
    lessons_archive(account=account, lesson_ids=[lesson.pk for lesson in lessons], run_id=run.pk)
    assert lessons_restore(account=account, run_id=run.pk, actor="carol") == 3
    restored = audited(action=LessonEvent.Action.RESTORED)
    assert [row[0] for row in restored] == sorted(lesson.pk for lesson in lessons)
    assert {row[2:5] for row in restored} == {("carol", run.pk, f"undo of run {run.pk}")}


def test_an_undo_larger_than_a_batch_writes_one_row_per_batch(account, settings) -> None:  # noqa: ANN001
    settings.LORE_ARCHIVE_BATCH_SIZE = 2
    lessons = [LessonFactory(account=account) for _ in range(5)]
    run = PolicyRun.objects.create(account=account, trigger="cli", rule_snapshot={})
    lessons_archive(account=account, lesson_ids=[lesson.pk for lesson in lessons], run_id=run.pk)
    assert lessons_restore(account=account, run_id=run.pk) == 5
    batches = LessonEventBatch.objects.filter(action=LessonEvent.Action.RESTORED).order_by("first_lesson_id")
    assert [b.lesson_ids for b in batches] == [
        [lessons[0].pk, lessons[1].pk],
        [lessons[2].pk, lessons[3].pk],
        [lessons[4].pk],
    ]


def test_a_lessons_history_reads_its_own_events_and_the_batches_holding_it(account) -> None:  # noqa: ANN001
    """Archives and restores logged per lesson before issue 29 read beside the batches, newest first."""
    lesson, neighbour = LessonFactory(account=account), LessonFactory(account=account)
    long_ago = timezone.now() - timedelta(days=3)
    LessonEvent.objects.create(
        account=account, lesson=lesson, action=LessonEvent.Action.ARCHIVED, actor="old", at=long_ago
    )
    LessonEvent.objects.create(
        account=account, lesson=lesson, action=LessonEvent.Action.RESTORED, actor="old", at=long_ago
    )
    archived_at = timezone.now()
    lessons_archive(account=account, lesson_ids=[lesson.pk, neighbour.pk], actor="new", now=archived_at)
    lessons_archive(account=account, lesson_ids=[neighbour.pk], actor="other")  # not this lesson's
    history = lesson_history(account.pk, lesson.pk, limit=10)
    assert history[0] == AuditEntry(LessonEvent.Action.ARCHIVED, "new", None, "", archived_at)
    assert [(e.action, e.actor) for e in history[1:]] == [("archived", "old"), ("restored", "old")] or [
        (e.action, e.actor) for e in history[1:]
    ] == [("restored", "old"), ("archived", "old")]
    assert len(lesson_history(account.pk, lesson.pk, limit=2)) == 2


def test_a_batch_between_two_ids_does_not_hold_the_lessons_it_skipped(account) -> None:  # noqa: ANN001
    first, skipped, last = (LessonFactory(account=account) for _ in range(3))
    lessons_archive(account=account, lesson_ids=[first.pk, last.pk])
    assert lesson_history(account.pk, skipped.pk, limit=10) == []
    assert len(lesson_history(account.pk, last.pk, limit=10)) == 1
