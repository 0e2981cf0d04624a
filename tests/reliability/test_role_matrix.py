"""The role × endpoint matrix: every surface refuses what a role or a token's scopes do not allow, and the
refusal changes nothing (A's whole state, compared before and after).

Enumerated, not listed: REST operations and the scope each needs from the OpenAPI document, dashboard views and
the role each needs from the URL resolver (lore.access.account_view), CLI commands from lorekit's parser, MCP
tools from the server's tool list. A token holding every scope but the one an operation needs gets 403 forbidden
naming that scope; a member below a view's role gets 403; lorekit exits 4 with the reason; MCP answers a tool
error.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from lore.accounts import token_create
from lore.roles import ALL_SCOPES, RANK, Role
from tests.factories import MembershipFactory, UserFactory
from tests.reliability.conftest import SCOPE, World, tenant_state, world_build
from tests.reliability.test_tenancy_matrix import (
    CLI_LEAVES,
    OPERATIONS,
    SCHEMA,
    Attempt,
    _body_schema,
    _operation,
    _own_body,
    _path_targets,
    lorekit_run,
    response_text,
    send,
)

pytestmark = pytest.mark.django_db
FORBIDDEN_EXIT = 4


def scope_of(method: str, path: str) -> str:
    """The scope an operation needs, as the OpenAPI document says."""
    (requirement,) = _operation(method, path)["security"]
    (scopes,) = requirement.values()
    assert len(scopes) == 1, f"{method} {path}: one scope per operation"
    return str(scopes[0])


def state(account) -> dict[str, Any]:  # noqa: ANN001
    """A's whole state; a refused token's own last_used_at moves (it was used) and is left out."""
    found = tenant_state(account)
    found["tokens"] = [{k: v for k, v in row.items() if k != "last_used_at"} for row in found["tokens"]]
    return found


def token_without(account, scope: str) -> str:  # noqa: ANN001
    return token_create(
        account=account, name=f"all but {scope}", scopes=[s for s in ALL_SCOPES if s != scope]
    )[1]


def aimed_attempts(method: str, path: str, world: World) -> list[Attempt]:
    """The operation aimed at A's own objects (or A's collection), with a body that would be valid."""
    content_type, schema = _body_schema(_operation(method, path))
    props = schema.get("properties", {})
    attempts = []
    for label, url in _path_targets(path, world):
        if content_type == "application/x-ndjson":
            line = {"scope": SCOPE, "key": world.active.key, "content": "rewritten by a token without write"}
            attempts.append(Attempt("ndjson", method, url, json.dumps(line) + "\n", content_type, expect=403))
            continue
        body: Any = None
        if content_type:
            body = _own_body(schema)
            if "address" in props:
                body = {"address": world.archived.address, "protected": True}
            if "policy_id" in props:
                body = {"policy_id": world.global_policy.pk}
            if label.startswith("policy_id"):
                body = {"name": "renamed by a token without admin"}
        attempts.append(
            Attempt(label or "collection", method, url, body, content_type or "application/json", expect=403)
        )
    return attempts


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_every_rest_endpoint_answers_403_naming_the_scope_to_a_token_without_it_and_changes_nothing(
    world: World, method: str, path: str
) -> None:
    scope = scope_of(method, path)
    raw = token_without(world.account, scope)
    before = state(world.account)
    failures = []
    for attempt in aimed_attempts(method, path, world):
        response = send(Client(), attempt, raw)
        text = response_text(response)
        error = json.loads(text).get("error", {}) if response.status_code == 403 else {}
        if (
            response.status_code != 403
            or error.get("code") != "forbidden"
            or f"`{scope}`" not in error["message"]
        ):
            failures.append(
                f"{method} {attempt.path} [{attempt.label}] → {response.status_code} {text[:200]}"
            )
    assert failures == []
    assert state(world.account) == before


def test_the_rest_matrix_covers_every_scope() -> None:
    assert {scope_of(m, p) for m, p in OPERATIONS} == set(ALL_SCOPES)
    assert set(SCHEMA["paths"]) == {p for _, p in OPERATIONS}


# ---------------------------------------------------------------- the dashboard


def test_every_dashboard_view_answers_403_to_a_role_below_its_need_and_changes_nothing(world: World) -> None:
    from django.urls import resolve

    from tests.reliability.test_auth import DASHBOARD, dashboard_url

    clients = {}
    for role in (Role.VIEWER, Role.EDITOR):
        person = UserFactory(username=f"matrix-{role}")
        MembershipFactory(account=world.account, user=person, role=role)
        clients[role] = Client()
        clients[role].force_login(person)
    form = {
        "name": "changed",
        "scope": "global",
        "mode": "auto",
        "enabled": "1",
        "role": "admin",
        "username": "x",
    }
    before = state(world.account)
    failures, refused = [], 0
    for name, route in DASHBOARD:
        path = dashboard_url(route, world, action="archive")
        need = resolve(path).func.lore_need  # type: ignore[attr-defined]
        for method in ("get", "post"):
            needed = need.for_method(method.upper())
            for role, client in clients.items():
                if RANK[Role(role)] >= RANK[Role(needed)]:
                    continue
                response = getattr(client, method)(
                    f"/a/{world.account.slug}{path}", form if method == "post" else {}
                )
                if response.status_code == 405:
                    continue
                refused += 1
                if response.status_code != 403:
                    failures.append(
                        f"{role} {method.upper()} {path} ({name}, needs {needed}) → {response.status_code}"
                    )
    assert failures == []
    assert state(world.account) == before
    assert refused >= 20
    print(
        f"role matrix, dashboard: {refused} refused requests over {len(DASHBOARD)} URLs"
    )  # for SECURITY.md (-s)


# ---------------------------------------------------------------- lorekit and MCP, as real processes


def cli_cases(world: World) -> dict[tuple[str, ...], tuple[str, list[str], str | None]]:
    """Per command: the scope it needs (the REST operation it calls decides), its arguments aimed at A, stdin."""
    policy, active, archived, protected = world.policy.pk, world.active, world.archived, world.protected
    line = json.dumps({"scope": SCOPE, "key": active.key, "content": "rewritten"}) + "\n"
    return {
        ("groom",): ("groom", ["--policy-id", str(world.global_policy.pk), "--run", "--yes"], None),
        ("policy", "create"): ("admin", ["--name", "n", "--scope", "global", "--min-age-days", "1"], None),
        ("policy", "update"): ("admin", [str(policy), "--name", "renamed"], None),
        ("policy", "list"): ("read", [], None),
        ("policy", "show"): ("read", [str(policy)], None),
        ("policy", "delete"): ("admin", [str(policy)], None),
        ("pin",): ("write", [active.address], None),
        ("unpin",): ("write", [protected.address], None),
        ("protect",): ("write", [protected.address, "--off"], None),
        ("restore",): ("write", [archived.address], None),
        ("read",): ("read", [active.address], None),
        ("show",): ("read", [archived.address], None),
        ("write",): ("write", [active.address, "rewritten"], None),
        ("list",): ("read", ["--scope", SCOPE], None),
        ("search",): ("read", ["a-secret"], None),
        ("export",): ("read", [], None),
        ("import",): ("write", ["-"], line),
        ("garden",): ("groom", ["--apply", str(world.findings[0].pk)], None),
    }


@pytest.fixture
def env_of(live_server):  # noqa: ANN001, ANN201
    import os

    def make(raw: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOREKIT_")}
        env.update(LOREKIT_URL=live_server.url, LOREKIT_TOKEN=raw)
        return env

    return make


@pytest.mark.django_db(transaction=True)
def test_every_cli_command_exits_4_naming_the_scope_its_token_lacks_and_changes_nothing(
    account, env_of
) -> None:  # noqa: ANN001
    world = world_build(account)
    cases = cli_cases(world)
    assert sorted(cases) == sorted(CLI_LEAVES), "teach the role matrix what the new command needs"
    tokens = {scope: token_without(account, scope) for scope in ALL_SCOPES}
    before = state(account)
    failures = []
    for command, (scope, args, stdin) in cases.items():
        done = lorekit_run(env_of(tokens[scope]), [*command, *args], stdin)
        lines = done.stderr.strip().splitlines()
        if done.returncode != FORBIDDEN_EXIT or len(lines) != 1 or f"`{scope}`" not in lines[0]:
            failures.append(f"lorekit {' '.join(command)} → {done.returncode}: {done.stderr[:300]}")
    assert failures == []
    assert state(account) == before


def mcp_cases(world: World) -> dict[str, tuple[str, dict[str, Any]]]:
    policy = world.policy.pk
    return {
        "memory.write": ("write", {"scope": SCOPE, "key": world.active.key, "content": "rewritten"}),
        "memory.list": ("read", {}),
        "memory.search": ("read", {"query": "a-secret"}),
        "memory.read": ("read", {"address": world.active.address}),
        "memory.restore": ("write", {"address": world.archived.address}),
        "memory.protect": ("write", {"address": world.protected.address, "protected": False}),
        "policy.list": ("read", {}),
        "policy.create": ("admin", {"name": "n", "scope": "global", "min_age_days": 1}),
        "policy.update": ("admin", {"id": policy, "name": "renamed"}),
        "policy.delete": ("admin", {"id": policy}),
        "groom.preview": ("read", {"policy_id": policy}),
        "groom.run": ("groom", {"policy_id": world.global_policy.pk}),
        "garden.report": ("read", {}),
        "garden.apply": ("groom", {"id": world.findings[0].pk}),
        "garden.undo": ("groom", {"id": world.findings[1].pk}),
    }


@pytest.mark.django_db(transaction=True)
def test_every_mcp_tool_answers_a_tool_error_naming_the_scope_its_token_lacks_and_changes_nothing(
    account, env_of
) -> None:  # noqa: ANN001
    from tests.lorekit.mcp_session import with_session

    world = world_build(account)
    cases = mcp_cases(world)
    tokens = {scope: token_without(account, scope) for scope in ALL_SCOPES}
    before = state(account)
    answers: list[tuple[str, bool, str]] = []
    for scope in ALL_SCOPES:

        async def script(session, scope=scope):  # noqa: ANN001, ANN202
            names = [tool.name for tool in (await session.list_tools()).tools]
            for name in names:
                needed, arguments = cases[name]
                if needed == scope:
                    result = await session.call_tool(name, dict(arguments))
                    answers.append((name, result.is_error, result.content[0].text))
            return names

        names = with_session(env_of(tokens[scope]), script)
        assert sorted(names) == sorted(cases), "teach the role matrix what the new tool needs"
    failures = [
        (n, text[:200]) for n, is_error, text in answers if not (is_error and f"`{cases[n][0]}`" in text)
    ]
    assert failures == [] and len(answers) == len(cases)
    assert state(account) == before
