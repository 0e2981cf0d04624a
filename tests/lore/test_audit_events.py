"""Every lesson an archive batch archives gets exactly one audit event, written by the database in one statement."""

from __future__ import annotations

import pytest
from django.db.models import Q
from django.utils import timezone

from lore.models import LessonEvent
from lore.services import lessons_archive, lessons_restore
from policies.models import PolicyRun
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def test_an_archive_logs_one_archived_event_per_lesson_with_its_run_actor_reason_and_time(account) -> None:  # noqa: ANN001
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
    events = LessonEvent.objects.filter(account=account).order_by("lesson_id")
    assert [e.lesson_id for e in events] == sorted(archived)
    assert {(e.action, e.actor, e.run_id, e.detail, e.at) for e in events} == {
        (LessonEvent.Action.ARCHIVED, "alice", run.pk, "policy “stale”", now)
    }


def test_a_lesson_the_guard_skips_is_neither_archived_nor_logged(account, other_account) -> None:  # noqa: ANN001
    kept = LessonFactory(account=account, protected=True)
    taken = LessonFactory(account=account)
    foreign = LessonFactory(account=other_account)
    archived = lessons_archive(
        account=account, lesson_ids=[kept.pk, taken.pk, foreign.pk], guard=Q(protected=False), actor="bob"
    )
    assert archived == [taken.pk]
    assert list(LessonEvent.objects.values_list("lesson_id", "run_id")) == [(taken.pk, None)]


def test_undo_logs_one_restored_event_per_lesson_of_the_run(account) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account) for _ in range(3)]
    run = PolicyRun.objects.create(account=account, trigger="cli", rule_snapshot={})
    lessons_archive(account=account, lesson_ids=[lesson.pk for lesson in lessons], run_id=run.pk)
    assert lessons_restore(account=account, run_id=run.pk, actor="carol") == 3
    restored = LessonEvent.objects.filter(action=LessonEvent.Action.RESTORED)
    assert sorted(restored.values_list("lesson_id", flat=True)) == sorted(lesson.pk for lesson in lessons)
    assert set(restored.values_list("actor", "run_id", "detail")) == {
        ("carol", run.pk, f"undo of run {run.pk}")
    }
