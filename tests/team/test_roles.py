"""Roles on memberships and scopes on tokens (what each may do), enforced on the dashboard and the REST API."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from config.api import api as ninja_api
from lore.accounts import ScopeNotAllowed, token_create
from lore.models import ApiToken, Lesson, PolicyRun
from lore.roles import ALL_SCOPES, DEFAULT_TOKEN_SCOPES, ROLE_SCOPES, Role
from lorekit.client import EXIT_AUTH, LoreError
from policies.models import RetentionPolicy
from tests.factories import LessonFactory, MembershipFactory, UserFactory
from tests.urls import AccountClient

pytestmark = pytest.mark.django_db


def member(account, role: str, username: str | None = None) -> AccountClient:  # noqa: ANN001
    person = UserFactory(username=username or f"a-{role}")
    MembershipFactory(account=account, user=person, role=role)
    client = AccountClient(account)
    client.force_login(person)
    return client


def bearer(raw: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


# ---------------------------------------------------------------- tokens and scopes


def test_a_new_token_defaults_to_read_and_write(account) -> None:  # noqa: ANN001
    token, _ = token_create(account=account, name="agent")
    assert token.scopes == ["read", "write"] == list(DEFAULT_TOKEN_SCOPES)


def test_a_token_never_has_more_than_its_creators_role(account) -> None:  # noqa: ANN001
    viewer = UserFactory(username="vic")
    MembershipFactory(account=account, user=viewer, role=Role.VIEWER)
    with pytest.raises(ScopeNotAllowed, match="write"):
        token_create(account=account, name="x", created_by=viewer)
    assert token_create(account=account, name="x", created_by=viewer, scopes=["read"])[0].scopes == ["read"]
    editor = UserFactory(username="eddie")
    MembershipFactory(account=account, user=editor, role=Role.EDITOR)
    with pytest.raises(ScopeNotAllowed, match="admin"):
        token_create(account=account, name="x", created_by=editor, scopes=ALL_SCOPES)
    assert ApiToken.objects.filter(name="x").count() == 1


def test_the_token_form_defaults_to_read_write_and_refuses_a_scope_above_the_role(account) -> None:  # noqa: ANN001
    editor = member(account, Role.EDITOR)
    page = editor.get("/settings/tokens/").content.decode()
    assert 'value="read" checked' in page and 'value="write" checked' in page
    assert 'value="groom">' in page and 'value="admin" disabled' in page
    refused = editor.post(
        "/settings/tokens/", {"name": "ci", "owner": "personal", "scopes": ["read", "admin"]}
    )
    assert refused.status_code == 422 and "cannot grant admin" in refused.content.decode()
    made = editor.post("/settings/tokens/", {"name": "ci", "owner": "personal", "scopes": ["read", "groom"]})
    assert made.status_code == 302
    assert ApiToken.objects.get(name="ci").scopes == ["read", "groom"]


def test_a_token_without_the_scope_answers_403_forbidden_naming_it_and_changes_nothing(account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="k")
    _, raw = token_create(account=account, name="agent")  # read, write
    client = Client()
    body = json.dumps({"name": "sweep", "scope": "global", "min_age_days": 1})
    answer = client.post("/api/v1/policies", body, content_type="application/json", **bearer(raw))
    assert answer.status_code == 403
    error = answer.json()["error"]
    assert error["code"] == "forbidden" and "`admin` scope" in error["message"]
    run = client.post(
        "/api/v1/memories/groom/run",
        json.dumps({"scope": "global", "min_age_days": 0}),
        content_type="application/json",
        **bearer(raw),
    )
    assert run.status_code == 403 and "`groom` scope" in run.json()["error"]["message"]
    assert not RetentionPolicy.objects.exists()
    lesson.refresh_from_db()
    assert lesson.archived_at is None
    reader = token_create(account=account, name="reader", scopes=["read"])[1]
    write = client.post(
        "/api/v1/memories",
        json.dumps({"scope": "global", "key": "n", "content": "x"}),
        content_type="application/json",
        **bearer(reader),
    )
    assert write.status_code == 403 and "`write` scope" in write.json()["error"]["message"]
    assert client.get("/api/v1/memories", **bearer(reader)).status_code == 200
    assert Lesson.objects.count() == 1


def test_every_rest_operation_names_its_scope_in_the_openapi_document() -> None:
    schema = ninja_api.get_openapi_schema()
    scopes = {
        (method, path): op["security"]
        for path, item in schema["paths"].items()
        for method, op in item.items()
    }
    assert all(len(sec) == 1 and len(sec[0]["BearerToken"]) == 1 for sec in scopes.values()), scopes
    named = {key: sec[0]["BearerToken"][0] for key, sec in scopes.items()}
    assert set(named.values()) == set(ALL_SCOPES)
    assert named[("post", "/api/v1/memories")] == "write"
    assert named[("post", "/api/v1/memories/groom/run")] == "groom"
    assert named[("delete", "/api/v1/policies/{policy_id}")] == "admin"
    assert named[("get", "/api/v1/memories/export")] == "read"


def test_lorekit_exits_4_with_the_reason_when_the_server_answers_403() -> None:
    error = LoreError("this token lacks the `groom` scope", status=403, code="forbidden")
    assert error.exit_code == EXIT_AUTH == 4


def test_roles_grant_scopes_in_order() -> None:
    assert ROLE_SCOPES[Role.VIEWER] == ("read",)
    assert set(ROLE_SCOPES[Role.VIEWER]) < set(ROLE_SCOPES[Role.EDITOR]) < set(ROLE_SCOPES[Role.ADMIN])


# ---------------------------------------------------------------- the dashboard


def test_a_viewer_sees_the_explorer_but_no_enabled_run_archive_or_delete_controls(account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="k")
    RetentionPolicy.objects.create(account=account, name="old", scope="global", min_age_days=30, mode="auto")
    viewer = member(account, Role.VIEWER)
    assert viewer.get("/explorer/").status_code == 200
    sheet = viewer.get(f"/explorer/lessons/{lesson.pk}/").content.decode()
    assert 'data-action="archive" disabled aria-describedby="role-edit-reason"' in sheet
    assert "Your role is viewer: only editors and above can" in sheet
    assert "hx-post" not in sheet.split('class="sheet-actions"')[1].split("</div>")[0]
    policies = viewer.get("/settings/policies/").content.decode()
    assert "hx-post" not in policies
    for label in ("Run now", "Edit", "Delete", "New policy", "Enable"):
        assert 'disabled aria-describedby="role-' in policies and f">{label}</button>" in policies, label
    editor = member(account, Role.EDITOR)
    edit_page = editor.get("/settings/policies/").content.decode()
    assert ">Run now</a>" in edit_page and ">Delete</button>" in edit_page  # delete is an admin's


def test_a_forged_post_by_a_viewer_answers_403_and_changes_nothing(account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="k")
    policy = RetentionPolicy.objects.create(account=account, name="old", scope="global", min_age_days=0)
    viewer = member(account, Role.VIEWER)
    for url in (
        f"/explorer/lessons/{lesson.pk}/archive/",
        f"/explorer/lessons/{lesson.pk}/pin/",
        f"/settings/policies/{policy.pk}/run/",
        f"/settings/policies/{policy.pk}/delete/",
        f"/settings/policies/{policy.pk}/enabled/",
    ):
        answer = viewer.post(url, {"enabled": "1"})
        assert answer.status_code == 403, url
        assert "Your role is viewer" in answer.content.decode()
    lesson.refresh_from_db()
    policy.refresh_from_db()
    assert lesson.archived_at is None and not lesson.protected and not policy.enabled
    assert not PolicyRun.objects.filter(policy_id=policy.pk).exists()


def test_an_editor_runs_review_policies_but_only_an_admin_enables_or_deletes(account) -> None:  # noqa: ANN001
    policy = RetentionPolicy.objects.create(
        account=account, name="old", scope="global", min_age_days=0, mode="auto"
    )
    editor = member(account, Role.EDITOR)
    assert editor.post(f"/settings/policies/{policy.pk}/enabled/", {"enabled": "1"}).status_code == 403
    assert editor.post(f"/settings/policies/{policy.pk}/delete/").status_code == 403
    policy.refresh_from_db()
    assert not policy.enabled
    admin = member(account, Role.ADMIN)
    assert admin.post(f"/settings/policies/{policy.pk}/enabled/", {"enabled": "1"}).status_code == 302
    policy.refresh_from_db()
    assert policy.enabled


def walk(patterns, prefix=""):  # noqa: ANN001, ANN201
    """(route, view) of every URL pattern."""
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern.callback


def test_every_dashboard_view_declares_the_role_it_needs() -> None:
    from django.urls import get_resolver

    from lore.access import VIEW_NEEDS

    dashboard = [
        (route, view)
        for route, view in walk(get_resolver().url_patterns)
        if route.startswith("settings/") or route.startswith("explorer/")
    ]
    assert len(dashboard) >= 25
    undeclared = [route for route, view in dashboard if not hasattr(view, "lore_need")]
    assert undeclared == []
    assert len(VIEW_NEEDS) >= len(dashboard)


def test_the_metrics_endpoint_declares_it_needs_the_operator_token_and_healthz_that_it_is_public() -> None:
    from django.urls import get_resolver

    from lore.access import SITE_NEEDS
    from lore.roles import SiteNeed

    declared = {
        route: view.lore_site_need
        for route, view in walk(get_resolver().url_patterns)
        if hasattr(view, "lore_site_need")
    }
    assert declared == {"metrics": SiteNeed.OPERATOR, "healthz": SiteNeed.PUBLIC}
    assert sorted(SITE_NEEDS.values()) == sorted(declared.values())
    assert not any(
        hasattr(view, "lore_need") for route, view in walk(get_resolver().url_patterns) if route in declared
    )
