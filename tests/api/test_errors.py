"""Bad input never crashes: every failure is `{"error": {"code", "message", "field"}}` with a 4xx status."""

from __future__ import annotations

import base64
import json

import pytest
from django.test import Client

from lore.accounts import token_revoke
from lore.models import ApiToken
from tests.api.conftest import Api, error_of
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("token", [None, "", "nope", "lk_not-a-real-token", "lk_" + "x" * 300])
def test_a_missing_or_wrong_token_is_a_401(token) -> None:  # noqa: ANN001
    response = Api(Client(), token).get("/memories")
    assert response.status_code == 401
    assert error_of(response)["code"] == "unauthorized"


def test_a_revoked_token_stops_working_at_once(api, account) -> None:  # noqa: ANN001
    assert api.get("/memories").status_code == 200
    token_revoke(account=account, token_id=ApiToken.objects.get().pk)
    assert api.get("/memories").status_code == 401


@pytest.mark.parametrize("body", ["{not json", '"a string"', "[1, 2]", "null"])
def test_a_body_that_is_not_a_json_object_is_a_400(api, body) -> None:  # noqa: ANN001
    response = api.post("/memories/read", body)
    assert response.status_code == 400
    assert error_of(response)["code"] == "bad_request"


def test_an_unknown_url_is_a_json_404(api) -> None:  # noqa: ANN001
    response = api.get("/nothing/here")
    assert response.status_code == 404 and error_of(response)["code"] == "not_found"


def _cursor(payload: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


BAD_REQUESTS = [
    ("GET", "/memories", {"scope": "repo:acme/app"}, "scope"),
    ("GET", "/memories", {"scope": "repo::acme"}, "scope"),
    ("GET", "/memories", {"min_age_days": "0"}, "min_age_days"),
    ("GET", "/memories", {"max_read_count": "-1"}, "max_read_count"),
    ("GET", "/memories", {"unseen_days": "abc"}, "unseen_days"),
    ("GET", "/memories", {"retention": "bogus:1"}, "retention"),
    ("GET", "/memories", {"max_opened_count": "5", "min_opened_count": "10"}, "min_opened_count"),
    ("GET", "/memories", {"kind_mode": "sometimes"}, "kind_mode"),
    ("GET", "/memories", {"kind": "a\x01b"}, "kind"),
    ("GET", "/memories", {"sort": "random"}, "sort"),
    ("GET", "/memories", {"limit": "0"}, "limit"),
    ("GET", "/memories", {"cursor": "garbage!"}, "cursor"),
    ("GET", "/memories", {"cursor": _cursor(["newest", "2026-13-45T00:00:00", 1])}, "cursor"),
    (
        "GET",
        "/memories",
        {"cursor": _cursor(["opened_count", 10**30, 10**30]), "sort": "opened_count"},
        "cursor",
    ),
    (
        "GET",
        "/memories",
        {"cursor": _cursor(["newest", "2026-01-01T00:00:00+00:00", 1]), "sort": "opened_count"},
        "cursor",
    ),
    ("GET", "/memories", {"unknown": "1"}, "unknown"),
    ("GET", "/memories/abc", {}, "lesson_id"),
    ("GET", f"/memories/{10**30}", {}, "lesson_id"),
    ("POST", "/memories", {"scope": "global", "key": "a::b", "content": "x"}, "key"),
    ("POST", "/memories", {"scope": "global", "key": "k", "content": "nul\x00here"}, "content"),
    ("POST", "/memories", {"scope": "global", "key": "k"}, "content"),
    ("POST", "/memories", {"scope": "global", "key": "k", "content": "x", "tags": [""]}, "tags"),
    ("POST", "/memories/read", {}, "address"),
    ("POST", "/memories/read", {"address": "no-separator"}, "address"),
    ("POST", "/memories/search", {"query": "nul\x00"}, "query"),
    ("POST", "/memories/protect", {"address": "global::k", "protected": "maybe"}, "protected"),
    ("POST", "/memories/groom/preview", {"unseen_days": 90}, "scope"),
    ("POST", "/memories/groom/preview", {"scope": "global", "unseen_days": 0}, "unseen_days"),
    ("POST", "/memories/groom/preview", {"scope": "global", "owner": ["personal"]}, "owner"),
    ("POST", "/memories/groom/preview", {"policy_id": 0}, "policy_id"),
    ("POST", "/policies", {"name": "x" * 201, "scope": "global", "unseen_days": 9}, "name"),
    ("POST", "/policies", {"name": "p", "scope": "global", "unseen_days": 9, "mode": "sometimes"}, "mode"),
    ("POST", "/policies", {"name": "p", "unseen_days": 9}, "scope"),
    ("POST", "/policies", {"name": "p", "scope": "global"}, "conditions"),
    ("PATCH", "/policies/1", {"enabled": "maybe"}, "enabled"),
]

# JSON true/false is never a number and only true/false is a boolean: lax parsing would turn `"unseen_days": true`
# into a 1-day rule, `"policy_id": true` into policy 1, and `"enabled": "yes"` into a nightly sweep.
NOT_A_NUMBER_OR_NOT_A_BOOLEAN = [
    ("POST", "/policies", {"name": "p", "scope": "global", "unseen_days": True}, "unseen_days"),
    ("POST", "/policies", {"name": "p", "scope": "global", "max_opened_count": False}, "max_opened_count"),
    ("POST", "/policies", {"name": "p", "scope": "global", "unseen_days": 9, "enabled": "yes"}, "enabled"),
    ("POST", "/policies", {"name": "p", "scope": "global", "unseen_days": 9, "enabled": 1}, "enabled"),
    ("PATCH", "/policies/1", {"min_age_days": True}, "min_age_days"),
    ("PATCH", "/policies/1", {"enabled": "on"}, "enabled"),
    ("POST", "/memories/groom/preview", {"scope": "global", "min_age_days": True}, "min_age_days"),
    ("POST", "/memories/groom/run", {"scope": "global", "min_age_days": True}, "min_age_days"),
    ("POST", "/memories/groom/run", {"policy_id": True}, "policy_id"),
    ("POST", "/memories/list", {"limit": True}, "limit"),
    ("POST", "/memories/list", {"archived": "yes"}, "archived"),
    ("POST", "/memories/list", {"min_opened_count": True}, "min_opened_count"),
    ("POST", "/memories/protect", {"address": "global::k", "protected": 0}, "protected"),
]


@pytest.mark.parametrize(("method", "path", "data", "field"), NOT_A_NUMBER_OR_NOT_A_BOOLEAN)
def test_a_boolean_is_not_a_number_and_only_true_or_false_is_a_boolean(
    api,
    account,
    method,
    path,
    data,
    field,  # noqa: ANN001
) -> None:
    from policies.models import RetentionPolicy
    from tests.factories import LessonFactory

    LessonFactory(account=account, scope="global", key="k")
    policy = RetentionPolicy.objects.create(account=account, name="p1", scope="global", min_age_days=30)
    response = api.call(method, path.replace("/1", f"/{policy.pk}"), data)
    assert response.status_code == 422, response.content
    assert error_of(response)["field"] == field
    assert RetentionPolicy.objects.count() == 1
    policy.refresh_from_db()
    assert (policy.min_age_days, policy.enabled) == (30, False)


@pytest.mark.parametrize(("method", "path", "data", "field"), BAD_REQUESTS)
def test_bad_input_answers_422_naming_the_field(api, method, path, data, field) -> None:  # noqa: ANN001
    response = api.get(path, **data) if method == "GET" else api.call(method, path, data)
    assert response.status_code == 422, response.content
    error = error_of(response)
    assert error["code"] == "invalid"
    assert error["field"] == field
    assert error["message"]


def test_a_lesson_of_nobody_is_a_404(api) -> None:  # noqa: ANN001
    for response in (
        api.get("/memories/999"),
        api.post("/memories/read", {"address": "global::missing"}),
        api.post("/memories/groom/preview", {"policy_id": 999}),
        api.patch("/policies/999", {"name": "x"}),
    ):
        assert response.status_code == 404 and error_of(response)["code"] == "not_found"


def test_an_oversized_body_is_a_json_413_naming_its_limit(api, settings) -> None:  # noqa: ANN001
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = api.post("/memories", {"scope": "global", "key": "k", "content": "x" * 5000})
    assert response.status_code == 413 and error_of(response)["code"] == "limit_exceeded"
    assert "at most 1,000 bytes" in error_of(response)["message"]
    assert "(limit: REQUEST_BODY_MAX)" in error_of(response)["message"]


def test_an_import_of_impossible_values_reports_lines_instead_of_failing(api) -> None:  # noqa: ANN001
    lines = [
        {"scope": "global", "key": "a", "content": "c", "created_at": "2026-13-45T00:00:00+00:00"},
        {"scope": "global", "key": "b", "content": "c", "read_count": 1, "opened_count": 5},
        {"scope": "global", "key": "c", "content": "c", "owner": "nul\x00", "archive_reason": "\x00"},
    ]
    body = "\n".join(json.dumps(line) for line in lines)
    response = api.client.post(
        "/api/v1/memories/import", body, content_type="application/x-ndjson", **api.headers()
    )
    report = response.json()
    assert report["created"] == 1
    assert [f["field"] for f in report["failed"]] == ["created_at", "opened_count"]


def test_a_lesson_key_with_odd_but_legal_characters_round_trips(api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, scope="global", key="ünïcode key: with spaces/and:colon")
    body = api.post("/memories/read", {"scope": "global", "key": "ünïcode key: with spaces/and:colon"}).json()
    assert body["key"] == "ünïcode key: with spaces/and:colon"
