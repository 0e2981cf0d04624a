"""`/api/v1/memories`: write, list, search, fetch, open, protect, restore, export, import (DESIGN.md §10)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from lore.models import Lesson, LessonEvent
from tests.api.conftest import error_of
from tests.audit import audited
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def test_a_first_write_creates_the_lesson_with_the_tokens_owner(api) -> None:  # noqa: ANN001
    response = api.post(
        "/memories",
        {"scope": "repo::Acme/App", "key": "use-uv", "content": "use uv, not pip", "tags": "python,tooling"},
    )
    assert response.status_code == 201
    body = response.json()
    assert body["address"] == "repo::acme/app::use-uv"
    assert body["tags"] == ["python", "tooling"]
    assert (body["seen_count"], body["read_count"], body["opened_count"]) == (1, 0, 0)
    assert body["owner"] == "personal"


def test_writing_the_same_key_again_is_a_recurrence_that_rewrites_it(api) -> None:  # noqa: ANN001
    api.post("/memories", {"scope": "global", "key": "k", "content": "one", "kind": "lesson"})
    response = api.post("/memories", {"scope": "global", "key": "k", "content": "two", "kind": "gotcha"})
    assert response.status_code == 200
    assert (response.json()["seen_count"], response.json()["content"], response.json()["kind"]) == (
        2,
        "two",
        "gotcha",
    )


def test_a_write_to_an_archived_key_restores_it(api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, scope="global", key="k", archived_at=timezone.now())
    body = api.post("/memories", {"scope": "global", "key": "k", "content": "back"}).json()
    assert body["archived_at"] is None
    assert len(audited(action="restored")) == 1


def test_list_filters_by_scope_dimension_and_condition(api, account) -> None:  # noqa: ANN001
    old = timezone.now() - timedelta(days=120)
    LessonFactory(account=account, key="old-bus", kind="bus", created_at=old)
    LessonFactory(account=account, key="new-bus", kind="bus")
    LessonFactory(account=account, key="old-lesson", kind="lesson", created_at=old)
    LessonFactory(account=account, scope="repo::other/app", key="elsewhere", kind="bus", created_at=old)
    page = api.get("/memories", scope="repo::acme/app", kind="bus", min_age_days=90).json()
    assert [item["key"] for item in page["items"]] == ["old-bus"]
    body = api.post(
        "/memories/list", {"scope": "repo::acme/app", "kind": ["bus"], "retention": "min_age_days:90"}
    )
    assert [item["key"] for item in body.json()["items"]] == ["old-bus"]


def test_a_repo_scope_covers_its_branches(api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, scope="branch::acme/app::main", key="on-main")
    LessonFactory(account=account, scope="repo::acme/app", key="on-repo")
    keys = {item["key"] for item in api.get("/memories", scope="repo::acme/app").json()["items"]}
    assert keys == {"on-main", "on-repo"}


def test_sort_opened_count_lists_the_most_chosen_first_on_get_and_post(api, account) -> None:  # noqa: ANN001
    for key, opened in (("rare", 1), ("popular", 40), ("never", 0), ("some", 7)):
        LessonFactory(account=account, key=key, opened_count=opened, read_count=100)
    expected = ["popular", "some", "rare", "never"]
    assert [i["key"] for i in api.get("/memories", sort="opened_count").json()["items"]] == expected
    assert [
        i["key"] for i in api.post("/memories/list", {"sort": "opened_count"}).json()["items"]
    ] == expected


def test_keyset_pages_follow_the_cursor_without_repeats_or_gaps(api, account) -> None:  # noqa: ANN001
    for i in range(7):
        LessonFactory(account=account, key=f"k{i}", opened_count=i % 3)
    for sort in ("newest", "opened_count"):
        seen, cursor = [], None
        while True:
            query = {"sort": sort, "limit": 3, **({"cursor": cursor} if cursor else {})}
            page = api.get("/memories", **query).json()
            seen += [item["key"] for item in page["items"]]
            cursor = page["next_cursor"]
            if not cursor:
                break
        assert sorted(seen) == [f"k{i}" for i in range(7)]


def test_a_list_page_is_one_query_for_the_rows_whatever_its_size(
    api, account, django_assert_max_num_queries
) -> None:  # noqa: ANN001
    for i in range(30):
        LessonFactory(account=account, key=f"k{i}", tags=["a", "b"])
    # token lookup, last_used_at, the page (pending reads read by the same statement),
    # savepoint + INSERT of read rows + ReadEvent + release
    with django_assert_max_num_queries(8):
        assert len(api.get("/memories", limit=30, tags="a").json()["items"]) == 30


def test_search_matches_every_word_in_the_key_or_content(api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="use-uv", content="prefer uv over pip")
    LessonFactory(account=account, key="pin-node", content="pin node 20")
    body = api.post("/memories/search", {"query": "uv pip"}).json()
    assert [item["key"] for item in body["items"]] == ["use-uv"]


def test_get_by_id_answers_the_lesson(api, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="k")
    assert api.get(f"/memories/{lesson.pk}").json()["address"] == "repo::acme/app::k"


def test_protect_pins_and_unpins_by_address_or_scope_and_key(api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="load-bearing")
    body = api.post(
        "/memories/protect", {"address": "repo::acme/app::load-bearing", "protected": True}
    ).json()
    assert body["protected"] is True
    body = api.post(
        "/memories/protect", {"scope": "repo::acme/app", "key": "load-bearing", "protected": False}
    )
    assert body.json()["protected"] is False
    assert list(LessonEvent.objects.values_list("action", flat=True).order_by("pk")) == [
        "protected",
        "unprotected",
    ]


def test_restore_brings_an_archived_lesson_back(api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="gone", archived_at=timezone.now())
    body = api.post("/memories/restore", {"address": "repo::acme/app::gone"}).json()
    assert body["archived_at"] is None


def test_reading_an_archived_lesson_says_restore_it_first(api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="gone", archived_at=timezone.now())
    response = api.post("/memories/read", {"address": "repo::acme/app::gone"})
    assert response.status_code == 409
    assert error_of(response)["code"] == "archived"


def test_export_streams_every_field_and_import_round_trips_it(api, account, other_account, other_api) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="a", read_count=321, opened_count=4, tags=["x"], protected=True)
    LessonFactory(account=account, key="b", archived_at=timezone.now())
    response = api.get("/memories/export")
    assert response["Content-Type"] == "application/x-ndjson"
    lines = b"".join(response.streaming_content).decode().splitlines()
    *rows, trailer = [json.loads(line) for line in lines]
    assert trailer == {"export": "complete", "lessons": 2, "tombstones": 0}  # an import skips it
    assert {r["key"] for r in rows} == {"a", "b"}
    assert rows[0]["read_count"] == 321 and rows[0]["protected"] is True
    imported = other_api.client.post(
        "/api/v1/memories/import",
        "\n".join(lines),
        content_type="application/x-ndjson",
        **other_api.headers(),
    )
    assert imported.json() == {"created": 2, "updated": 0, "failed": [], "failed_total": 0}
    copy = Lesson.objects.get(account=other_account, key="a")
    assert (copy.read_count, copy.opened_count, copy.tags, copy.protected) == (321, 4, ["x"], True)


def test_an_import_reports_bad_lines_by_number_and_keeps_the_good_ones(api) -> None:  # noqa: ANN001
    body = (
        '{"scope":"global","key":"k","content":"c"}\nnot json\n{"scope":"repo:x","key":"k","content":"c"}\n'
    )
    response = api.client.post(
        "/api/v1/memories/import", body, content_type="application/x-ndjson", **api.headers()
    )
    report = response.json()
    assert report["created"] == 1
    assert [f["line"] for f in report["failed"]] == [2, 3]


def test_an_import_that_imports_nothing_is_a_422_that_still_names_the_lines(api) -> None:  # noqa: ANN001
    response = api.client.post(
        "/api/v1/memories/import", "nope\n", content_type="application/x-ndjson", **api.headers()
    )
    assert response.status_code == 422
    assert response.json()["report"]["failed"][0]["line"] == 1
    empty = api.client.post(
        "/api/v1/memories/import", "", content_type="application/x-ndjson", **api.headers()
    )
    assert empty.status_code == 422
