"""The decay score through the REST API (issue 15 part 2): every lesson carries it, `sort=coldest` lists the
coldest first with a cursor, and `max_decay_score` filters lists and drives policy previews."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from tests.factories import LessonFactory


def days_ago(n: float):  # noqa: ANN201
    return timezone.now() - timedelta(days=n)


def test_every_lesson_the_api_answers_with_carries_its_decay_score(api, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="cold", created_at=days_ago(34.9))
    pinned = LessonFactory(account=account, key="pinned", created_at=days_ago(400), protected=True)
    assert api.get(f"/memories/{lesson.pk}").json()["decay_score"] == 50
    assert api.get(f"/memories/{pinned.pk}").json()["decay_score"] == 100
    items = api.get("/memories").json()["items"]
    assert {i["key"]: i["decay_score"] for i in items} == {"cold": 50, "pinned": 100}


def test_sort_coldest_pages_the_coldest_first_with_a_cursor(api, account) -> None:  # noqa: ANN001
    for i, age in enumerate([1, 300, 40, 90, 5, 200]):
        LessonFactory(account=account, key=f"k{i}", created_at=days_ago(age + 0.1))
    first = api.get("/memories", sort="coldest", limit=4).json()
    second = api.get("/memories", sort="coldest", limit=4, cursor=first["next_cursor"]).json()
    scores = [i["decay_score"] for i in first["items"] + second["items"]]
    assert scores == sorted(scores) and len(scores) == 6 and second["next_cursor"] is None
    assert first["items"][0]["key"] == "k1"


def test_max_decay_score_filters_the_list_and_a_policy_preview(api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="fresh", created_at=days_ago(1))
    LessonFactory(account=account, key="stale", created_at=days_ago(200))
    items = api.get("/memories", max_decay_score=10).json()["items"]
    assert [i["key"] for i in items] == ["stale"]
    preview = api.post("/memories/groom/preview", {"scope": "global", "max_decay_score": 10}).json()
    assert preview["count"] == 1 and [k["key"] for k in preview["keys"]] == ["stale"]
    assert api.get("/memories", max_decay_score=101).status_code == 422


def test_a_policy_carries_max_decay_score_and_its_run_archives_what_the_preview_showed(api, account) -> None:  # noqa: ANN001
    from lore.models import Lesson

    LessonFactory(account=account, key="fresh", created_at=days_ago(1))
    LessonFactory(account=account, key="stale", created_at=days_ago(200))
    LessonFactory(account=account, key="pinned", created_at=days_ago(900), protected=True)
    created = api.post("/policies", {"scope": "global", "name": "cold lore", "max_decay_score": 10})
    assert created.status_code == 201, created.json()
    policy = created.json()
    assert policy["max_decay_score"] == 10 and policy["summary"] == "decay score ≤ 10 in all scopes"
    preview = api.post("/memories/groom/preview", {"policy_id": policy["id"]}).json()
    run = api.post("/memories/groom/run", {"policy_id": policy["id"]}).json()
    assert preview["count"] == run["count"] == 1
    assert set(Lesson.objects.filter(archived_at__isnull=False).values_list("key", flat=True)) == {"stale"}
