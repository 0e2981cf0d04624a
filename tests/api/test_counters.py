"""Counter effects through the API, exactly as DESIGN.md §3 and the seed say."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from lore.models import Lesson, ReadEvent
from lore.reads import reads_settle
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def counters(lesson: Lesson) -> tuple[int, int, int]:
    """The lesson's counters once its account's buffered reads are folded (lore.reads)."""
    reads_settle(lesson.account)
    lesson.refresh_from_db()
    return lesson.seen_count, lesson.read_count, lesson.opened_count


def test_a_list_page_bumps_delivered_for_every_lesson_on_it_and_nothing_else(api, account) -> None:  # noqa: ANN001
    week_ago = timezone.now() - timedelta(days=7)
    lessons = [
        LessonFactory(account=account, key=f"k{i}", read_count=10, created_at=week_ago) for i in range(5)
    ]
    off_page = LessonFactory(account=account, scope="global", key="elsewhere", read_count=10)
    body = api.get("/memories", scope="repo::acme/app").json()
    assert {item["read_count"] for item in body["items"]} == {11}
    for lesson in lessons:
        assert counters(lesson) == (1, 11, 0)
        assert lesson.updated_at == week_ago and lesson.last_opened_at is None
    assert counters(off_page) == (1, 10, 0)
    event = ReadEvent.objects.get()
    assert (event.scope, event.surface, event.lesson_count) == ("repo::acme/app", "api", 5)


def test_a_search_page_and_a_post_list_page_deliver_too(api, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="use-uv", read_count=0)
    api.post("/memories/list", {})
    api.post("/memories/search", {"query": "uv"})
    assert counters(lesson) == (1, 2, 0)


def test_get_memory_by_id_bumps_delivered_not_chosen(api, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="k", read_count=3)
    before = lesson.updated_at
    body = api.get(f"/memories/{lesson.pk}").json()
    assert (body["read_count"], body["opened_count"], body["last_opened_at"]) == (4, 0, None)
    assert counters(lesson) == (1, 4, 0)
    assert lesson.last_opened_at is None and lesson.updated_at == before


def test_post_read_bumps_chosen_last_agent_open_and_delivered_never_updated_at(api, account) -> None:  # noqa: ANN001
    month_ago = timezone.now() - timedelta(days=30)
    lesson = LessonFactory(account=account, key="k", read_count=3, created_at=month_ago)
    body = api.as_surface("mcp").post("/memories/read", {"address": "repo::acme/app::k"}).json()
    assert (body["read_count"], body["opened_count"]) == (4, 1)
    assert counters(lesson) == (1, 4, 1)
    assert lesson.last_opened_at is not None and lesson.last_opened_at > month_ago
    assert lesson.updated_at == month_ago
    assert ReadEvent.objects.get().surface == "mcp"


def test_the_surface_header_is_recorded_and_defaults_to_api(api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="k")
    api.as_surface("cli").post("/memories/read", {"address": "repo::acme/app::k"})
    api.as_surface("dashboard").get("/memories")  # a client cannot pass for the dashboard
    api.get("/memories")
    assert list(ReadEvent.objects.order_by("pk").values_list("surface", flat=True)) == ["cli", "api", "api"]


def test_an_open_is_always_a_subset_of_reads(api, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="k", read_count=0)
    for _ in range(3):
        api.post("/memories/read", {"address": "repo::acme/app::k"})
    api.get("/memories")
    _, read, opened = counters(lesson)
    assert (read, opened) == (4, 3)


def test_preview_run_export_and_policy_pages_move_no_counter(api, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(
        account=account, key="k", read_count=5, created_at=timezone.now() - timedelta(days=100)
    )
    api.post("/memories/groom/preview", {"scope": "global", "unseen_days": 90})
    b"".join(api.get("/memories/export").streaming_content)
    api.get("/policies")
    assert counters(lesson) == (1, 5, 0)
    assert not ReadEvent.objects.exists()
