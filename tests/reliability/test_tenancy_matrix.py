"""The tenancy matrix: account B (and nobody at all) tries every REST endpoint, dashboard URL, CLI command and
MCP tool on account A's objects. Every attempt answers 404 (401 without valid credentials); what B can list
holds nothing of A's; and A's whole state (export, policies, runs, events, reads, tokens) does not move.

The endpoints are enumerated, not listed: REST operations from the OpenAPI document, dashboard URLs from the URL
resolver, CLI commands from lorekit's argument parser and MCP tools from the server's tool list. A new endpoint
joins the matrix by itself; one whose parameters the matrix cannot aim at A's objects fails loudly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.test import Client

from config.api import api as ninja_api
from lore.accounts import token_create, token_revoke
from lore.models import Lesson
from policies.models import PolicyRun, RetentionPolicy
from policies.tasks import nightly_sweep
from tests.reliability.conftest import A_MARKER, SCOPE, World, tenant_state

pytestmark = pytest.mark.django_db

SCHEMA = ninja_api.get_openapi_schema()
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
OPERATIONS = [
    (method.upper(), path)
    for path, item in SCHEMA["paths"].items()
    for method in item
    if method in HTTP_METHODS
]
API_PREFIX = "/api/v1"


# ---------------------------------------------------------------- requests aimed at A's objects


@dataclass
class Attempt:
    """One request: `expect` is 404 (aimed at an object of A), 401, or "own" (B's own collection: 2xx, and
    nothing of A's in the answer)."""

    label: str
    method: str
    path: str
    body: Any = None
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    expect: int | str = 404


def _operation(method: str, path: str) -> dict[str, Any]:
    return SCHEMA["paths"][path][method.lower()]  # type: ignore[no-any-return]


def _body_schema(op: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    content = op.get("requestBody", {}).get("content", {})
    if not content:
        return None, {}
    content_type, spec = next(iter(content.items()))
    schema = spec.get("schema", {})
    if "$ref" in schema:
        schema = SCHEMA["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return content_type, schema


def _path_targets(path: str, world: World) -> list[tuple[str, str]]:
    """The path with its {params} filled with each of A's objects of that kind."""
    ids = {
        "lesson_id": [lsn.pk for lsn in world.lessons],
        "policy_id": [p.pk for p in world.policies],
        "run_id": [world.run.pk],
        "token_id": [world.token.pk],
    }
    params = [p["name"] for p in _operation_params(path)]
    if not params:
        return [("", path)]
    assert len(params) == 1, f"{path}: teach the tenancy matrix to aim at several path parameters"
    name = params[0]
    assert name in ids, f"{path}: teach the tenancy matrix which of A's objects `{name}` names"
    return [(f"{name}={pk}", path.replace("{" + name + "}", str(pk))) for pk in ids[name]]


def _operation_params(path: str) -> list[dict[str, Any]]:
    found = {
        p["name"]: p
        for item in SCHEMA["paths"][path].values()
        for p in item.get("parameters", [])
        if p["in"] == "path"
    }
    return list(found.values())


OWN_FILLERS = {"scope": SCOPE, "key": "a-secret-active", "content": "b's own text", "name": "b's rule"}


def _own_body(schema: dict[str, Any]) -> dict[str, Any]:
    """A body of B's own (required fields filled), as close to A's data as it can get: same scope, same key."""
    props = schema.get("properties", {})
    body = {name: OWN_FILLERS[name] for name in schema.get("required", []) if name in OWN_FILLERS}
    missing = [n for n in schema.get("required", []) if n not in body and n != "query"]
    assert not missing, f"teach the tenancy matrix a value for {missing}"
    if "query" in props:
        body["query"] = "a-secret"
    if "scope" in props:
        body["scope"] = SCOPE
    if "min_age_days" in props:
        body["min_age_days"] = 1
    return body


def attempts_by_intruder(method: str, path: str, world: World) -> list[Attempt]:
    """Every way B can aim this operation at A's objects, plus B's own use of it (which must show nothing of A)."""
    op = _operation(method, path)
    content_type, schema = _body_schema(op)
    props = schema.get("properties", {})
    attempts: list[Attempt] = []
    for label, url in _path_targets(path, world):
        aimed = bool(label)
        if content_type == "application/x-ndjson":
            line = {"scope": SCOPE, "key": world.active.key, "content": "b's import"}
            attempts.append(
                Attempt("own ndjson", method, url, json.dumps(line) + "\n", content_type, expect="own")
            )
            continue
        if "policy_id" in props:
            for policy in world.policies:
                attempts.append(Attempt(f"policy_id={policy.pk}", method, url, {"policy_id": policy.pk}))
        if "address" in props:
            for lesson in world.lessons:
                for flag in [None, True, False] if "protected" in props else [None]:
                    extra = {} if flag is None else {"protected": flag}
                    attempts.append(
                        Attempt(
                            f"address {lesson.key} {extra}", method, url, {"address": lesson.address, **extra}
                        )
                    )
                    attempts.append(
                        Attempt(
                            f"scope+key {lesson.key} {extra}",
                            method,
                            url,
                            {"scope": lesson.scope, "key": lesson.key, **extra},
                        )
                    )
            continue
        if aimed:
            body = {"name": "b renames it", "min_age_days": None} if content_type else None
            attempts.append(Attempt(label, method, url, body))
            continue
        attempts.append(
            Attempt("own", method, url, _own_body(schema) if content_type else None, expect="own")
        )
    return attempts


def attempts_without_credentials(method: str, path: str, world: World, revoked: str) -> list[Attempt]:
    first = attempts_by_intruder(method, path, world)[0]
    return [
        Attempt(
            f"{name}: {first.label}", first.method, first.path, first.body, first.content_type, headers, 401
        )
        for name, headers in (
            ("no credentials", {}),
            ("unknown token", {"HTTP_AUTHORIZATION": "Bearer lk_" + "x" * 43}),
            ("revoked token of A", {"HTTP_AUTHORIZATION": f"Bearer {revoked}"}),
            ("not a bearer", {"HTTP_AUTHORIZATION": f"Basic {world.raw_token}"}),
        )
    ]


def send(client: Client, attempt: Attempt, token: str | None) -> Any:
    headers = dict(attempt.headers)
    if token is not None:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    handler = getattr(client, attempt.method.lower())
    if attempt.method == "GET":
        return handler(attempt.path, **headers)
    body = attempt.body
    data = body if isinstance(body, str) or body is None else json.dumps(body)
    return handler(attempt.path, data or "", content_type=attempt.content_type, **headers)


def response_text(response: Any) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def check(response: Any, attempt: Attempt) -> str | None:
    """None when the answer is what the matrix expects, else what went wrong."""
    text = response_text(response)
    where = f"{attempt.method} {attempt.path} [{attempt.label}] → {response.status_code} {text[:300]}"
    if attempt.expect == "own":
        if response.status_code >= 300 or A_MARKER in text:
            return where
        return None
    if response.status_code != attempt.expect:
        return where
    error = json.loads(text).get("error", {})
    if set(error) != {"code", "message", "field"} or not error["message"]:
        return f"{where}: not the error envelope"
    return None


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_every_rest_endpoint_answers_404_or_401_across_tenants_and_changes_nothing(
    world: World, intruder_token: str, method: str, path: str
) -> None:
    revoked_token, revoked = token_create(account=world.account, name="old laptop")
    token_revoke(account=world.account, token_id=revoked_token.pk)
    before = tenant_state(world.account)
    client = Client()
    failures = []
    for attempt in attempts_without_credentials(method, path, world, revoked):
        failures.append(check(send(client, attempt, None), attempt))
    for attempt in attempts_by_intruder(method, path, world):
        failures.append(check(send(client, attempt, intruder_token), attempt))
    assert [f for f in failures if f] == []
    assert tenant_state(world.account) == before


def test_the_rest_matrix_covers_every_operation_of_the_openapi_document() -> None:
    paths = {path for _, path in OPERATIONS}
    assert paths == set(SCHEMA["paths"]) and len(OPERATIONS) >= 17
    assert all(path.startswith(API_PREFIX) for path in paths)


# ---------------------------------------------------------------- `global` means this account only


def test_a_global_policy_run_in_b_archives_nothing_of_a(
    world: World, other_account, intruder_token: str
) -> None:  # noqa: ANN001
    from tests.factories import LessonFactory

    b_lesson = LessonFactory(account=other_account, key="b-old", created_at=world.active.created_at)
    before = tenant_state(world.account)
    client = Client()
    policy = send(
        client,
        Attempt(
            "",
            "POST",
            f"{API_PREFIX}/policies",
            {"name": "b everything old", "scope": "global", "min_age_days": 1},
        ),
        intruder_token,
    ).json()
    run = send(
        client,
        Attempt("", "POST", f"{API_PREFIX}/memories/groom/run", {"policy_id": policy["id"]}),
        intruder_token,
    ).json()
    adhoc = send(
        client,
        Attempt("", "POST", f"{API_PREFIX}/memories/groom/run", {"scope": "global", "max_opened_count": 100}),
        intruder_token,
    ).json()
    assert run["keys"] == [{"scope": SCOPE, "key": "b-old"}] and adhoc["count"] == 0
    b_lesson.refresh_from_db()
    assert b_lesson.archived_at is not None
    assert tenant_state(world.account) == before


def test_the_nightly_sweep_runs_each_accounts_global_policy_on_that_account_only(
    world: World,
    other_account,
    django_capture_on_commit_callbacks,  # noqa: ANN001
) -> None:
    from tests.factories import LessonFactory

    b_lesson = LessonFactory(account=other_account, key="b-old", created_at=world.active.created_at)
    RetentionPolicy.objects.create(
        account=other_account, name="b global", scope="global", min_age_days=1, mode="auto", enabled=True
    )
    with django_capture_on_commit_callbacks(execute=True):
        nightly_sweep()
    runs = {run.policy.account_id: run for run in PolicyRun.objects.filter(trigger="nightly")}
    assert set(runs) == {world.account.pk, other_account.pk}
    assert list(
        Lesson.objects.filter(archived_by_run=runs[other_account.pk]).values_list("pk", flat=True)
    ) == [b_lesson.pk]
    a_archived = Lesson.objects.filter(archived_by_run=runs[world.account.pk])
    assert set(a_archived.values_list("account_id", flat=True)) == {world.account.pk}
    assert world.active in a_archived and world.protected not in a_archived
