"""Exact counters through every surface while reads are buffered (lore.reads): pending reads are shown, and a
rule on a counter (preview, run, unseen_days) sees them."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from lore.models import Lesson, LessonRead
from lore.rules.rule import Rule
from lore.services import lesson_open, lessons_deliver
from policies import grooming
from policies.models import PolicyRun
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db

SCOPE = "repo::acme/app"


def stored(lesson: Lesson) -> tuple[int, int]:
    lesson.refresh_from_db()
    return lesson.read_count, lesson.opened_count


def test_every_api_answer_shows_the_reads_not_yet_folded(api, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="k", read_count=10, opened_count=2)
    for _ in range(3):
        lessons_deliver(account=account, lesson_ids=[lesson.pk], scope=SCOPE, surface="mcp")
    assert (
        api.get("/memories", scope=SCOPE).json()["items"][0]["read_count"] == 14
    )  # 10 + 3 pending + this page
    assert api.post("/memories/search", {"query": "k"}).json()["items"][0]["read_count"] == 15
    assert api.get(f"/memories/{lesson.pk}").json()["read_count"] == 16
    opened = api.post("/memories/read", {"address": lesson.address}).json()
    assert (opened["read_count"], opened["opened_count"]) == (17, 3)
    assert opened["last_opened_at"] is not None
    pinned = api.post("/memories/protect", {"address": lesson.address, "protected": True}).json()
    assert (pinned["read_count"], pinned["opened_count"]) == (17, 3)
    lines = [
        json.loads(line) for line in b"".join(api.get("/memories/export").streaming_content).splitlines()
    ]
    assert [(x["read_count"], x["opened_count"]) for x in lines if x.get("key") == "k"] == [(17, 3)]
    assert stored(lesson) == (10, 2)  # all of it still buffered: no answer wrote the lesson row
    assert LessonRead.objects.count() == 7


def test_a_list_filtered_on_a_counter_sees_the_reads_not_yet_folded(api, account) -> None:  # noqa: ANN001
    chosen = LessonFactory(account=account, key="chosen", opened_count=0)
    LessonFactory(account=account, key="never", opened_count=0)
    lesson_open(account=account, lesson=chosen, surface="mcp")
    body = api.get("/memories", scope=SCOPE, retention="max_opened_count:0").json()
    assert [item["key"] for item in body["items"]] == ["never"]
    body = api.get("/memories", scope=SCOPE, sort="opened_count").json()
    assert [(item["key"], item["opened_count"]) for item in body["items"]] == [("chosen", 1), ("never", 0)]


def test_preview_and_run_agree_with_opens_not_yet_folded(account) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account, key=f"k{i}", opened_count=0) for i in range(6)]
    for lesson in lessons[:2]:
        lesson_open(account=account, lesson=lesson, surface="mcp")
    rule = Rule(scope=SCOPE, conditions={"max_opened_count": 0})
    preview = grooming.preview(account, rule)
    assert preview.count == 4
    run = grooming.run_start(
        account=account, rule=rule, trigger=PolicyRun.Trigger.MANUAL, as_of=preview.taken_at
    )
    assert run is not None
    run = grooming.run_execute(run.pk)
    assert (run.matched, run.archived) == (preview.count, preview.count)
    assert grooming.run_keys(run) == preview.keys
    assert not Lesson.objects.filter(pk__in=[x.pk for x in lessons[:2]], archived_at__isnull=False).exists()


def test_unseen_days_reads_the_last_open_not_yet_folded(account) -> None:  # noqa: ANN001
    long_ago = timezone.now() - timedelta(days=400)
    opened = LessonFactory(account=account, key="opened", created_at=long_ago, last_opened_at=long_ago)
    LessonFactory(account=account, key="forgotten", created_at=long_ago, last_opened_at=long_ago)
    lesson_open(account=account, lesson=opened, surface="cli")
    for _ in range(5):  # deliveries never reset the clock
        lessons_deliver(account=account, lesson_ids=[opened.pk], scope=SCOPE, surface="api")
    preview = grooming.preview(account, Rule(scope=SCOPE, conditions={"unseen_days": 90}))
    assert [key["key"] for key in preview.keys] == ["forgotten"]


def test_the_decay_score_shown_counts_an_open_not_yet_folded(api, account) -> None:  # noqa: ANN001
    long_ago = timezone.now() - timedelta(days=400)
    lesson = LessonFactory(account=account, key="k", created_at=long_ago, last_opened_at=None, opened_count=0)
    assert api.get(f"/memories/{lesson.pk}").json()["decay_score"] == 0
    lesson_open(account=account, lesson=lesson, surface="mcp")
    assert api.get(f"/memories/{lesson.pk}").json()["decay_score"] == 100
    assert api.get("/memories", scope=SCOPE).json()["items"][0]["decay_score"] == 100
    assert stored(lesson)[1] == 0  # Chosen still buffered
