"""Search that prefers current lore (docs/gardener.md): retired lessons leave lists and searches; while a finding is
open its keeper ranks above the lessons it proposes to retire, which say so; a lesson answers what replaced it."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise

import pytest
from django.utils import timezone

from lore.models import Finding, Lesson
from lore.selectors import CursorError, cursor_encode, lessons_page
from tests.api.conftest import error_of
from tests.factories import LessonFactory, finding_open
from tests.lore.garden_helpers import write

pytestmark = pytest.mark.django_db
UV = "Use uv instead of pip for every install; the lockfile is uv.lock and CI checks it."


def keys(page: dict) -> list[str]:
    return [item["key"] for item in page["items"]]


def aged(account, key: str, days: int, content: str = "", **fields) -> Lesson:  # noqa: ANN001, ANN003
    at = timezone.now() - timedelta(days=days)
    return LessonFactory(
        account=account, key=key, content=content or f"about uv {key}", created_at=at, **fields
    )


@pytest.fixture
def duplicates(account):  # noqa: ANN001, ANN201
    """A keeper written long ago and its copy written since: newest first, the copy would come first."""
    keeper = aged(account, "use-uv", 90, UV)
    copy = aged(account, "use-uv-copy", 1, UV.lower())
    finding = finding_open(keeper, [copy])
    return keeper, copy, finding


def test_a_lesson_retired_as_a_duplicate_or_superseded_leaves_search_and_list(
    api, account, django_capture_on_commit_callbacks
) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "use-uv", UV, opened=3)
    write(account, "repo::acme/app", "use-uv-2", UV.lower())
    write(account, "repo::acme/app", "backup", "Backups run nightly with pg_dump.", age_days=200)
    api.post(
        "/memories",
        {
            "scope": "repo::acme/app",
            "key": "backup-now",
            "content": "Backups are continuous WAL archiving.",
            "supersedes": ["repo::acme/app::backup"],
        },
    )
    with django_capture_on_commit_callbacks(execute=True):
        api.post("/garden/run", {"full": True})
    findings = api.get("/findings").json()["items"]
    assert {f["kind"] for f in findings} == {"near_duplicate", "superseded"}
    for finding in findings:
        assert api.post(f"/findings/{finding['id']}/apply").status_code == 200
    assert sorted(keys(api.post("/memories/search", {"query": "uv"}).json())) == ["use-uv"]
    assert keys(api.post("/memories/search", {"query": "backups"}).json()) == ["backup-now"]
    listed = keys(api.get("/memories").json())
    assert sorted(listed) == ["backup-now", "use-uv"]
    archived = keys(api.post("/memories/list", {"archived": True}).json())
    assert sorted(archived) == ["backup", "use-uv-2"]


def test_while_a_finding_is_open_search_and_list_rank_the_keeper_above_the_lessons_proposed_for_retirement(
    api, duplicates
) -> None:  # noqa: ANN001
    keeper, copy, finding = duplicates
    pages = {
        "search": api.post("/memories/search", {"query": "uv pip"}).json(),
        "list (GET)": api.get("/memories").json(),
        "list (POST)": api.post("/memories/list", {"scope": "repo::acme/app"}).json(),
        "most chosen": api.get("/memories", sort="opened_count").json(),
        "coldest": api.get("/memories", sort="coldest").json(),
    }
    for name, page in pages.items():
        assert keys(page) == ["use-uv", "use-uv-copy"], name
        first, second = page["items"]
        assert first["proposed_retirement"] is None, name
        assert second["proposed_retirement"] == {
            "finding_id": finding.pk,
            "kind": "near_duplicate",
            "keeper": {"id": keeper.pk, "address": keeper.address},
        }, name


def test_without_an_open_finding_the_list_keeps_its_order(api, account, duplicates) -> None:  # noqa: ANN001
    _, _, finding = duplicates
    Finding.objects.filter(pk=finding.pk).update(status=Finding.Status.DISMISSED)
    page = api.post("/memories/search", {"query": "uv"}).json()
    assert keys(page) == ["use-uv-copy", "use-uv"]
    assert [item["proposed_retirement"] for item in page["items"]] == [None, None]


def test_a_lesson_rewritten_since_the_inventory_is_no_longer_proposed_for_retirement(api, duplicates) -> None:  # noqa: ANN001
    written = api.post(
        "/memories", {"scope": "repo::acme/app", "key": "use-uv-copy", "content": "uv, and also poetry"}
    )
    assert written.json()["proposed_retirement"] is None
    page = api.get("/memories").json()
    assert keys(page) == ["use-uv-copy", "use-uv"]


def test_expired_ephemera_proposed_for_retirement_come_last_with_no_keeper(api, account) -> None:  # noqa: ANN001
    status = aged(account, "ci-status", 0, "the build is green on commit 4f9c2ab")
    aged(account, "old-rule", 300, "CI must be green before merge")
    finding = finding_open(None, [status], kind=Finding.Kind.EXPIRED_EPHEMERA)
    page = api.get("/memories").json()
    assert keys(page) == ["old-rule", "ci-status"]
    assert page["items"][1]["proposed_retirement"] == {
        "finding_id": finding.pk,
        "kind": "expired_ephemera",
        "keeper": None,
    }


@pytest.mark.parametrize("sort", ["newest", "opened_count", "coldest"])
def test_keyset_pages_of_a_current_first_list_hold_every_lesson_once_current_ones_first(
    api, account, sort
) -> None:  # noqa: ANN001
    lessons = [aged(account, f"k{n}", n, opened_count=n % 4, read_count=n * 7) for n in range(9)]
    keeper = lessons[4]
    retiring = [lessons[0], lessons[3], lessons[7]]
    finding_open(keeper, retiring)
    everything = api.get("/memories", sort=sort, limit=50).json()
    in_order = keys(everything)
    retiring_keys = {lesson.key for lesson in retiring}
    assert set(in_order[-3:]) == retiring_keys and len(in_order) == 9
    current_part = [key for key in in_order if key not in retiring_keys]
    for limit in (1, 2, 3, 6, 8):  # 6: the first part fills the page exactly; 8: the turn inside a page
        seen: list[str] = []
        cursor = None
        while True:
            query = {"sort": sort, "limit": limit, **({"cursor": cursor} if cursor else {})}
            page = api.get("/memories", **query).json()
            seen += keys(page)
            cursor = page["next_cursor"]
            if not cursor:
                break
        assert seen == in_order, (sort, limit)
    assert in_order[: len(current_part)] == current_part


def test_the_current_part_is_in_newest_order(api, account) -> None:  # noqa: ANN001
    lessons = [aged(account, f"k{n}", n) for n in range(5)]
    finding_open(lessons[4], [lessons[0], lessons[2]])
    created = [item["created_at"] for item in api.get("/memories").json()["items"]]
    assert all(a >= b for a, b in pairwise(created[:3])) and all(a >= b for a, b in pairwise(created[3:]))


def test_a_current_first_page_is_a_fixed_number_of_queries_whatever_its_size(
    api, account, django_assert_max_num_queries
) -> None:  # noqa: ANN001
    lessons = [aged(account, f"k{n}", n) for n in range(30)]
    finding_open(lessons[29], lessons[:10])
    finding_open(lessons[28], lessons[10:20])
    # token lookup, last_used_at, the current part, the retiring part, their findings, the keepers' addresses,
    # savepoint + INSERT of read rows + ReadEvent + release
    with django_assert_max_num_queries(10):
        page = api.get("/memories", limit=30).json()
    assert len(page["items"]) == 30
    assert sum(item["proposed_retirement"] is not None for item in page["items"]) == 20


def test_a_cursor_into_the_retiring_part_is_refused_by_a_list_that_is_not_current_first(account) -> None:  # noqa: ANN001
    with pytest.raises(CursorError):
        lessons_page(
            Lesson.objects.filter(account=account), cursor=cursor_encode("newest", None, retiring=True)
        )


def test_a_forged_cursor_mark_is_a_422(api, account) -> None:  # noqa: ANN001
    import base64
    import json

    forged = base64.urlsafe_b64encode(json.dumps(["newest", None, None, None, "other"]).encode()).decode()
    response = api.get("/memories", cursor=forged)
    assert response.status_code == 422 and error_of(response)["field"] == "cursor"


def test_a_lesson_answers_the_lesson_that_replaced_it_and_the_addresses_it_replaced(
    api, account, duplicates
) -> None:  # noqa: ANN001
    keeper, copy, finding = duplicates
    api.post(
        "/memories",
        {
            "scope": "repo::acme/app",
            "key": "use-uv",
            "content": UV,
            "supersedes": ["repo::acme/app::pip-install"],
        },
    )
    Finding.objects.filter(pk=finding.pk).delete()  # the rewrite made it stale
    keeper.refresh_from_db()
    finding = finding_open(keeper, [copy])
    assert api.post(f"/findings/{finding.pk}/apply").status_code == 200
    retired = api.get(f"/memories/{copy.pk}").json()
    assert retired["superseded_by"] == {"id": keeper.pk, "address": keeper.address}
    assert retired["supersedes"] == [] and retired["proposed_retirement"] is None
    opened = api.post("/memories/read", {"address": keeper.address}).json()
    assert opened["superseded_by"] is None
    assert opened["supersedes"] == [copy.address, "repo::acme/app::pip-install"]
    restored = api.post("/memories/restore", {"address": copy.address}).json()
    assert restored["superseded_by"] is None  # a restore clears it
    assert api.get(f"/memories/{keeper.pk}").json()["supersedes"] == ["repo::acme/app::pip-install"]


def test_a_single_lesson_proposed_for_retirement_says_so(api, duplicates) -> None:  # noqa: ANN001
    keeper, copy, finding = duplicates
    answered = api.get(f"/memories/{copy.pk}").json()
    assert answered["proposed_retirement"]["keeper"] == {"id": keeper.pk, "address": keeper.address}
    assert api.get(f"/memories/{keeper.pk}").json()["proposed_retirement"] is None


def test_a_finding_of_another_account_never_demotes_a_lesson(api, other_account, duplicates) -> None:  # noqa: ANN001
    _, _, finding = duplicates
    Finding.objects.filter(pk=finding.pk).update(account=other_account)
    page = api.get("/memories").json()
    assert keys(page) == ["use-uv-copy", "use-uv"]
    assert [item["proposed_retirement"] for item in page["items"]] == [None, None]


def test_an_archived_list_says_what_replaced_each_lesson_in_one_query(
    api, account, django_assert_max_num_queries
) -> None:  # noqa: ANN001
    keeper = aged(account, "keeper", 30)
    copies = [aged(account, f"copy-{n}", n) for n in range(12)]
    assert api.post(f"/findings/{finding_open(keeper, copies).pk}/apply").status_code == 200
    # token lookup, last_used_at, the page, the replacing lessons' addresses, the read rows' four statements
    with django_assert_max_num_queries(8):
        page = api.post("/memories/list", {"archived": True, "limit": 50}).json()
    assert len(page["items"]) == 12
    assert {str(item["superseded_by"]) for item in page["items"]} == {
        str({"id": keeper.pk, "address": keeper.address})
    }
    assert api.get("/memories").json()["items"][0]["superseded_by"] is None


def test_opening_a_retired_lesson_is_a_409_naming_the_lesson_that_replaced_it(api, duplicates) -> None:  # noqa: ANN001
    keeper, copy, finding = duplicates
    api.post(f"/findings/{finding.pk}/apply")
    refused = api.post("/memories/read", {"address": copy.address})
    assert refused.status_code == 409 and error_of(refused) == {
        "code": "archived",
        "message": f"{copy.address} is archived, superseded by {keeper.address}: read that one, or restore this",
        "field": None,
    }


@pytest.mark.postgres
def test_an_inventory_that_records_findings_gives_the_planner_their_statistics(account) -> None:  # noqa: ANN001
    from django.db import connection

    from lore.garden.inventory import garden_inventory
    from tests.services import require_postgres

    require_postgres()
    write(account, "repo::acme/app", "use-uv", UV, opened=3)
    write(account, "repo::acme/app", "use-uv-2", UV.lower())
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM pg_statistic WHERE starelid = 'lore_findingmember'::regclass"
        )  # as before autovacuum's first pass
    assert garden_inventory(account, full=True).found == 1
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stats WHERE tablename = 'lore_findingmember'")
        assert cursor.fetchone()[0] > 0
