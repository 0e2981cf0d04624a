"""`/api/v1/policies`: create (name required), list, show, PATCH (null clears), delete (the rule only)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from lore.models import Lesson
from policies.models import RetentionPolicy
from tests.api.conftest import error_of
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def create(api, **body):  # noqa: ANN001, ANN201
    return api.post("/policies", {"scope": "repo::acme/app", **body})


def test_create_answers_the_policy_with_review_mode_and_disabled_by_default(api) -> None:  # noqa: ANN001
    response = create(api, name="stale repo lore", unseen_days=90)
    assert response.status_code == 201
    body = response.json()
    assert (body["name"], body["unseen_days"], body["mode"], body["enabled"]) == (
        "stale repo lore",
        90,
        "review",
        False,
    )
    assert body["summary"] == "unopened >90d in repo::acme/app"


def test_the_api_requires_a_name(api) -> None:  # noqa: ANN001
    response = create(api, unseen_days=90)
    assert response.status_code == 422 and error_of(response)["field"] == "name"
    assert create(api, name="   ", unseen_days=90).status_code == 422


def test_an_auto_policy_starts_disabled_unless_enabled_explicitly(api) -> None:  # noqa: ANN001
    assert create(api, name="a", unseen_days=90, mode="auto").json()["enabled"] is False
    assert create(api, name="b", unseen_days=90, mode="auto", enabled=True).json()["enabled"] is True


def test_dimension_filters_carry_their_modes(api) -> None:  # noqa: ANN001
    body = create(
        api,
        name="stale ci review events",
        kind="bus",
        kind_mode="in",
        tags=["ci::pr-review-state"],
        tags_mode="all",
        min_age_days=30,
    ).json()
    assert (body["kind"], body["kind_mode"], body["tags"], body["tags_mode"]) == (
        ["bus"],
        "in",
        ["ci::pr-review-state"],
        "all",
    )


def test_list_and_show(api) -> None:  # noqa: ANN001
    first = create(api, name="b rule", unseen_days=90).json()
    create(api, name="a rule", max_opened_count=0, min_age_days=90)
    assert [p["name"] for p in api.get("/policies").json()] == ["a rule", "b rule"]
    assert api.get(f"/policies/{first['id']}").json()["name"] == "b rule"


def test_patch_sets_what_is_given_and_clears_what_is_null(api) -> None:  # noqa: ANN001
    policy = create(api, name="unused lore", min_age_days=90, max_opened_count=0, kind=["bus"]).json()
    body = api.patch(
        f"/policies/{policy['id']}", {"max_opened_count": None, "kind": None, "host": "reviewer,aw"}
    ).json()
    assert (body["max_opened_count"], body["min_age_days"]) == (None, 90)
    assert (body["kind"], body["host"], body["name"]) == ([], ["reviewer", "aw"], "unused lore")


def test_patch_null_on_a_mode_clears_it_back_to_its_default(api) -> None:  # noqa: ANN001
    policy = create(api, name="p", unseen_days=90, kind=["bus"], kind_mode="nin").json()
    body = api.patch(f"/policies/{policy['id']}", {"kind_mode": None}).json()
    assert (body["kind"], body["kind_mode"]) == (["bus"], "in")
    body = api.patch(f"/policies/{policy['id']}", {"kind": ["todo"], "kind_mode": None}).json()
    assert (body["kind"], body["kind_mode"]) == (["todo"], "in")


def test_patch_of_a_mode_without_its_filter_is_refused_naming_the_filter(api) -> None:  # noqa: ANN001
    policy = create(api, name="p", unseen_days=90).json()
    response = api.patch(f"/policies/{policy['id']}", {"host_mode": "nin"})
    assert response.status_code == 422
    error = error_of(response)
    assert error["field"] == "host" and "no Host filter" in error["message"]
    assert api.patch(f"/policies/{policy['id']}", {"host_mode": None}).status_code == 200
    assert RetentionPolicy.objects.get().host == []


def test_patch_cannot_leave_a_policy_without_a_condition(api) -> None:  # noqa: ANN001
    policy = create(api, name="p", unseen_days=90).json()
    response = api.patch(f"/policies/{policy['id']}", {"unseen_days": None})
    assert response.status_code == 422
    assert RetentionPolicy.objects.get().unseen_days == 90


def test_patch_enables_and_switches_mode(api) -> None:  # noqa: ANN001
    policy = create(api, name="p", unseen_days=90).json()
    body = api.patch(f"/policies/{policy['id']}", {"mode": "auto", "enabled": True}).json()
    assert (body["mode"], body["enabled"]) == ("auto", True)


def test_delete_removes_the_rule_only(api, account) -> None:  # noqa: ANN001
    archived = LessonFactory(account=account, key="gone", archived_at=timezone.now())
    LessonFactory(account=account, key="kept")
    policy = create(api, name="p", unseen_days=90).json()
    assert api.delete(f"/policies/{policy['id']}").status_code == 204
    assert not RetentionPolicy.objects.exists()
    assert Lesson.objects.count() == 2
    archived.refresh_from_db()
    assert archived.archived_at is not None
    assert api.get(f"/policies/{policy['id']}").status_code == 404


def test_the_policy_list_is_a_fixed_number_of_queries(api, django_assert_max_num_queries) -> None:  # noqa: ANN001
    for i in range(10):
        create(api, name=f"p{i}", unseen_days=90, kind=["bus"])
    with django_assert_max_num_queries(3):  # token, last_used_at, the policies
        assert len(api.get("/policies").json()) == 10
