"""Who did what: every change records its actor (a person, a token by name, a command, the nightly sweep) in the
lesson's history and the account's activity (a policy's history is its slice of it)."""

from __future__ import annotations

import pytest
from django.test import Client

from lore.activity import NIGHTLY_SWEEP, activities_of, activities_page
from lore.models import Activity, LessonEvent
from policies import grooming
from policies.models import PolicyRun, RetentionPolicy
from tests.api.conftest import Api
from tests.audit import audited
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db
A = Activity.Action


def actions(account) -> list[tuple[str, str]]:  # noqa: ANN001
    return [(row.action, row.actor) for row in _changes(account).order_by("at", "id")]


def _changes(account):  # noqa: ANN001, ANN202
    """The account's activity but for the test token's own creation (the fixture's set-up)."""
    return activities_of(account).exclude(action=A.TOKEN_CREATED)


def test_a_write_over_rest_records_the_token_by_name_in_the_lessons_history_and_the_activity(
    api: Api, account
) -> None:  # noqa: ANN001
    body = {"scope": "repo::acme/app", "key": "use-uv", "content": "use uv"}
    assert api.post("/memories", body).status_code in (200, 201)
    api.post("/memories", body)
    events = list(LessonEvent.objects.filter(account=account).values_list("action", "actor", "detail"))
    assert events == [("written", "token tests", "created"), ("written", "token tests", "rewritten")]
    assert actions(account) == [(A.LESSON_WRITTEN, "token tests")] * 2
    assert activities_of(account).first().subject == "repo::acme/app::use-uv"


def test_pin_archive_and_restore_from_the_sheet_record_the_person(logged_in: Client, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account)
    for action in ("pin", "unpin", "archive", "restore"):
        logged_in.post(f"/a/acme/explorer/lessons/{lesson.pk}/{action}/")
    assert actions(account) == [
        (A.LESSON_PINNED, "alice"),
        (A.LESSON_UNPINNED, "alice"),
        (A.LESSON_ARCHIVED, "alice"),
        (A.LESSON_RESTORED, "alice"),
    ]
    assert {row[2] for row in audited(lesson.pk)} == {"alice"}


def test_a_policys_history_records_created_edited_enabled_run_undone_and_deleted_with_their_actors(
    api: Api, account
) -> None:  # noqa: ANN001
    LessonFactory(account=account, opened_count=0)
    policy = api.post(
        "/policies", {"name": "unused", "scope": "global", "max_opened_count": 0, "mode": "auto"}
    ).json()
    api.patch(f"/policies/{policy['id']}", {"name": "unused lore"})
    api.patch(f"/policies/{policy['id']}", {"enabled": True})
    run = grooming.nightly_runs_start(since=None)[0]
    grooming.run_execute(run.pk)
    grooming.run_undo(PolicyRun.objects.get(pk=run.pk), actor="bob")
    history = [
        (row.action, row.actor) for row in activities_of(account, policy_id=policy["id"]).order_by("at", "id")
    ]
    assert history == [
        (A.POLICY_CREATED, "token tests"),
        (A.POLICY_EDITED, "token tests"),
        (A.POLICY_ENABLED, "token tests"),
        (A.RUN_STARTED, NIGHTLY_SWEEP),
        (A.RUN_UNDONE, "bob"),
    ]
    assert api.delete(f"/policies/{policy['id']}").status_code == 204
    assert not RetentionPolicy.objects.exists()
    assert (
        activities_of(account, policy_id=policy["id"]).first().action == A.POLICY_DELETED
    )  # history outlives it


def test_a_run_is_one_row_of_activity_however_many_lessons_it_archives(api: Api, account) -> None:  # noqa: ANN001
    for _ in range(30):
        LessonFactory(account=account, opened_count=0)
    api.post("/memories/groom/run", {"scope": "global", "max_opened_count": 0})
    assert len(audited(account=account, action="archived")) == 30
    assert [row.action for row in _changes(account)] == [A.RUN_STARTED]


def test_the_activity_is_scoped_to_its_account_and_filtered_by_actor_and_action(
    api: Api, other_api: Api, account
) -> None:  # noqa: ANN001
    api.post("/memories", {"scope": "repo::a/b", "key": "k1", "content": "x"})
    other_api.post("/memories", {"scope": "repo::a/b", "key": "k2", "content": "x"})
    LessonFactory(account=account)
    assert len(_changes(account)) == 1
    assert len(activities_of(account, actor="token tests", action=A.LESSON_WRITTEN)) == 1
    assert not activities_of(account, actor="someone else")


def test_activity_pages_are_keyset_pages_that_cover_every_row_once(account) -> None:  # noqa: ANN001
    from lore.activity import activity_record

    for n in range(7):
        activity_record(account=account, action=A.LESSON_WRITTEN, actor="a", subject=f"s{n}")
    seen, cursor = [], ""
    while True:
        page = activities_page(activities_of(account), cursor=cursor, size=3)
        seen += [row.subject for row in page.rows]
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    assert seen == [f"s{n}" for n in reversed(range(7))]
    assert activities_page(activities_of(account), cursor="garbage", size=3).rows  # a bad cursor starts over
