"""The counter rules of the seed and DESIGN.md §3, one test per sentence."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from lore.inputs import LessonInput
from lore.models import Lesson, ReadEvent
from lore.services import lesson_open, lesson_write, lessons_deliver

pytestmark = pytest.mark.django_db


def write(account, key="use-uv", scope="repo::acme/app", **extra):  # noqa: ANN001, ANN201
    data = LessonInput.from_data({"scope": scope, "key": key, "content": "use uv", **extra})
    return lesson_write(account=account, data=data)[0]


def test_a_write_bumps_recurrence(account) -> None:  # noqa: ANN001
    lesson = write(account)
    assert lesson.seen_count == 1
    lesson = write(account)
    assert lesson.seen_count == 2
    assert Lesson.objects.count() == 1


def test_a_list_page_bumps_delivered_for_every_lesson_on_it_in_one_statement(
    account,
    django_assert_num_queries,  # noqa: ANN001
) -> None:
    lessons = [write(account, key=f"k{i}") for i in range(20)]
    with django_assert_num_queries(4):  # savepoint, UPDATE, INSERT ReadEvent, release
        lessons_deliver(
            account=account, lesson_ids=[x.pk for x in lessons], scope="repo::acme/app", surface="api"
        )
    assert set(Lesson.objects.values_list("read_count", flat=True)) == {1}
    assert set(Lesson.objects.values_list("opened_count", flat=True)) == {0}
    event = ReadEvent.objects.get()
    assert event.lesson_count == 20


def test_a_deliberate_open_bumps_chosen_last_agent_open_and_delivered(account) -> None:  # noqa: ANN001
    lesson = lesson_open(account=account, lesson=write(account), surface="mcp")
    assert (lesson.read_count, lesson.opened_count) == (1, 1)
    assert lesson.last_opened_at is not None and lesson.last_read_at is not None


def test_reading_never_moves_last_updated(account) -> None:  # noqa: ANN001
    lesson = write(account)
    before = lesson.updated_at
    lessons_deliver(account=account, lesson_ids=[lesson.pk], scope="global", surface="api")
    lesson = lesson_open(account=account, lesson=lesson, surface="cli")
    assert lesson.updated_at == before


def test_a_write_moves_last_updated(account) -> None:  # noqa: ANN001
    lesson = write(account)
    later = timezone.now() + timedelta(seconds=5)
    data = LessonInput.from_data({"scope": "repo::acme/app", "key": "use-uv", "content": "use uv!"})
    lesson, created = lesson_write(account=account, data=data, now=later)
    assert not created and lesson.updated_at == later and lesson.content == "use uv!"


def test_opened_count_never_exceeds_read_count(account) -> None:  # noqa: ANN001
    lesson = write(account)
    for _ in range(3):
        lesson = lesson_open(account=account, lesson=lesson, surface="mcp")
    lessons_deliver(account=account, lesson_ids=[lesson.pk], scope="global", surface="api")
    lesson.refresh_from_db()
    assert lesson.opened_count <= lesson.read_count


def test_a_write_to_an_archived_key_restores_it(account) -> None:  # noqa: ANN001
    lesson = write(account)
    Lesson.objects.filter(pk=lesson.pk).update(archived_at=timezone.now())
    lesson = write(account)
    assert lesson.archived_at is None
    assert lesson.events.filter(action="restored").exists()
