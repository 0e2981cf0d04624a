"""The tenancy matrix: account B (and nobody at all) tries every REST endpoint, dashboard URL, CLI command and
MCP tool on account A's objects. Every attempt answers 404 (401 without valid credentials); what B can list
holds nothing of A's; and A's whole state (export, policies, runs, events, reads, tokens) does not move.

The endpoints are enumerated, not listed: REST operations from the OpenAPI document, dashboard URLs from the URL
resolver, CLI commands from lorekit's argument parser and MCP tools from the server's tool list. A new endpoint
joins the matrix by itself; one whose parameters the matrix cannot aim at A's objects fails loudly.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from config.api import api as ninja_api
from lore.accounts import token_create, token_revoke
from lore.models import Lesson
from policies.models import PolicyRun, RetentionPolicy
from policies.tasks import nightly_sweep
from tests.reliability.conftest import A_MARKER, SCOPE, World, tenant_state, world_build

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
        "finding_id": [f.pk for f in world.findings],
        "garden_run_id": [r.pk for r in world.garden_runs],
        "job_id": [world.job.pk],
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
            # A change B would make to A's object, in the fields this endpoint takes (a policy's name, …).
            aimed_fields = {"name": "b renames it", "min_age_days": None}
            props = schema.get("properties", {})
            body = {k: v for k, v in aimed_fields.items() if k in props} if content_type else None
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
    runs = {
        RetentionPolicy.objects.get(pk=run.policy_id).account_id: run
        for run in PolicyRun.objects.filter(trigger="nightly")
    }
    assert set(runs) == {world.account.pk, other_account.pk}
    assert list(
        Lesson.objects.filter(archived_by_run=runs[other_account.pk]).values_list("pk", flat=True)
    ) == [b_lesson.pk]
    a_archived = Lesson.objects.filter(archived_by_run=runs[world.account.pk])
    assert set(a_archived.values_list("account_id", flat=True)) == {world.account.pk}
    assert world.active in a_archived and world.protected not in a_archived


# ---------------------------------------------------------------- the CLI and the MCP server, as real processes


def cli_commands() -> list[tuple[str, ...]]:
    """Every leaf command of lorekit's parser: ("groom",), ("policy", "create"), …"""
    import argparse

    from lorekit.cli import build_parser

    def leaves(parser: argparse.ArgumentParser, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
        found: list[tuple[str, ...]] = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found += leaves(sub, (*prefix, name)) or [(*prefix, name)]
        return found

    return leaves(build_parser(), ())


CLI_COMMANDS = cli_commands()
NOT_FOUND, AUTH = 3, 4


def cli_attempts(command: tuple[str, ...], world: World) -> list[tuple[list[str], int | str, str | None]]:
    """(arguments, expected exit code or "own", stdin) for B's uses of one command against A's objects."""
    policy, active, archived, protected = world.policy.pk, world.active, world.archived, world.protected
    import_line = json.dumps({"scope": SCOPE, "key": active.key, "content": "b's import"}) + "\n"
    cases: dict[tuple[str, ...], list[tuple[list[str], int | str, str | None]]] = {
        ("groom",): [(["--policy-id", str(world.global_policy.pk), "--run", "--yes"], NOT_FOUND, None)],
        ("policy", "create"): [(["--name", "b's", "--scope", "global", "--min-age-days", "1"], "own", None)],
        ("policy", "update"): [([str(policy), "--name", "b's now", "--clear-min-age-days"], NOT_FOUND, None)],
        ("policy", "list"): [([], "own", None)],
        ("policy", "show"): [([str(policy)], NOT_FOUND, None)],
        ("policy", "delete"): [([str(policy)], NOT_FOUND, None)],
        ("pin",): [([active.address], NOT_FOUND, None)],
        ("unpin",): [([protected.address], NOT_FOUND, None)],
        ("protect",): [([protected.address, "--off"], NOT_FOUND, None)],
        ("restore",): [([archived.address], NOT_FOUND, None)],
        ("read",): [([active.address], NOT_FOUND, None)],
        ("show",): [([archived.address], NOT_FOUND, None)],
        ("write",): [([active.address, "b's own text"], "own", None)],
        ("list",): [(["--archived", "--scope", SCOPE], "own", None)],
        ("search",): [(["a-secret"], "own", None)],
        ("export",): [([], "own", None)],
        ("import",): [(["-"], "own", import_line)],
        ("garden",): [
            (["--apply", str(world.findings[0].pk)], NOT_FOUND, None),
            (["--undo", str(world.findings[1].pk)], NOT_FOUND, None),
        ],
    }
    assert command in cases, f"lorekit {' '.join(command)}: teach the tenancy matrix how B would aim it at A"
    return [([*command, *args], expected, stdin) for args, expected, stdin in cases[command]]


@pytest.fixture
def intruder_env(live_server, intruder_token: str) -> dict[str, str]:  # noqa: ANN001
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("LOREKIT_")}
    env.update(LOREKIT_URL=live_server.url, LOREKIT_TOKEN=intruder_token)
    return env


def lorekit_run(env: dict[str, str], args: list[str], stdin: str | None = None) -> Any:
    import subprocess

    from tests.lorekit.conftest import lorekit_command

    return subprocess.run(
        [*lorekit_command(), *args],
        env=env,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


CLI_LEAVES = [
    c for c in CLI_COMMANDS if c != ("mcp",)
]  # `lorekit mcp` is the MCP server: tested tool by tool


@pytest.mark.django_db(transaction=True)
def test_every_cli_command_is_refused_across_tenants_and_changes_nothing(account, intruder_env) -> None:  # noqa: ANN001
    world = world_build(account)
    before = tenant_state(account)
    stranger = {**intruder_env, "LOREKIT_TOKEN": "lk_" + "x" * 43}
    refused, own = [], []
    for command in CLI_LEAVES:
        attempts = cli_attempts(command, world)
        refused += [a for a in attempts if a[1] != "own"]
        own += [a for a in attempts if a[1] == "own"]

    def attempt(case: tuple[list[str], int | str, str | None]) -> str | None:
        args, expected, stdin = case
        done = lorekit_run(stranger if expected == AUTH else intruder_env, args, stdin)
        if expected == "own":
            ok = done.returncode == 0 and A_MARKER not in done.stdout + done.stderr
        else:
            ok = done.returncode == expected and len(done.stderr.strip().splitlines()) == 1
        return (
            None
            if ok
            else f"lorekit {' '.join(args)} → {done.returncode}: {done.stdout[:200]} {done.stderr[:300]}"
        )

    refused += [(["read", world.active.address], AUTH, None), (["export"], AUTH, None)]  # no valid token
    # Independent calls, so the processes run side by side; B's own writes last (they reuse A's addresses).
    # (One at a time on SQLite: the live server's threads share the one in-memory test connection.)
    with ThreadPoolExecutor(max_workers=8 if connection.vendor == "postgresql" else 1) as pool:
        failures = [f for f in pool.map(attempt, refused) if f] + [f for f in pool.map(attempt, own) if f]
    assert failures == []
    assert tenant_state(account) == before
    assert len(refused) + len(own) == len(CLI_LEAVES) + 2 + 1  # garden is tried with --apply and --undo


def test_the_cli_matrix_covers_every_command_of_the_parser() -> None:
    assert ("mcp",) in CLI_COMMANDS and len(CLI_LEAVES) >= 17


MCP_NOT_FOUND = "not found"


def mcp_attempts(world: World) -> dict[str, list[tuple[dict[str, Any], str]]]:
    """Per tool: (arguments, "refused" or "own") for B's uses of it against A's objects."""
    policy = world.policy.pk
    return {
        "memory.write": [({"scope": SCOPE, "key": world.active.key, "content": "b's own"}, "own")],
        "memory.list": [({}, "own"), ({"scope": SCOPE, "archived": True}, "own")],
        "memory.search": [({"query": "a-secret"}, "own")],
        "memory.read": [
            ({"address": world.active.address}, "refused"),
            ({"scope": SCOPE, "key": world.active.key}, "refused"),
        ],
        "memory.restore": [({"address": world.archived.address}, "refused")],
        "memory.protect": [
            ({"address": world.active.address}, "refused"),
            ({"address": world.protected.address, "protected": False}, "refused"),
        ],
        "policy.list": [({}, "own")],
        "policy.create": [({"name": "b's", "scope": "global", "min_age_days": 1}, "own")],
        "policy.update": [({"id": policy, "name": "b's now", "min_age_days": None}, "refused")],
        "policy.delete": [({"id": policy}, "refused")],
        "groom.preview": [
            ({"policy_id": policy}, "refused"),
            ({"scope": "global", "min_age_days": 1}, "own"),
        ],
        "groom.run": [
            ({"policy_id": world.global_policy.pk}, "refused"),
            ({"scope": SCOPE, "min_age_days": 1}, "own"),
        ],
        "garden.report": [({}, "own"), ({"status": "applied", "run": True}, "own")],
        "garden.apply": [({"id": world.findings[0].pk}, "refused")],
        "garden.undo": [({"id": world.findings[1].pk}, "refused")],
    }


@pytest.mark.django_db(transaction=True)
def test_every_mcp_tool_is_refused_across_tenants_and_changes_nothing(
    account, intruder_env: dict[str, str]
) -> None:  # noqa: ANN001
    from tests.lorekit.mcp_session import with_session

    world = world_build(account)
    cases = mcp_attempts(world)
    before = tenant_state(account)

    async def script(session):  # noqa: ANN001, ANN202
        names = [tool.name for tool in (await session.list_tools()).tools]
        answers = []
        for wanted in ("refused", "own"):  # B's own writes last: they may reuse A's addresses in B's account
            for name in names:
                for arguments, expected in cases.get(name, []):
                    if expected == wanted:
                        result = await session.call_tool(name, dict(arguments))
                        answers.append((name, arguments, expected, result.is_error, result.content[0].text))
        return names, answers

    names, answers = with_session(intruder_env, script)
    assert sorted(names) == sorted(cases), "teach the tenancy matrix how B would aim the new tool at A"
    failures = [
        (name, arguments, text[:200])
        for name, arguments, expected, is_error, text in answers
        if (expected == "own" and (is_error or A_MARKER in text))
        or (
            expected == "refused"
            and not (is_error and ("no such" in text.lower() or "no lesson" in text.lower()))
        )
    ]
    assert failures == []
    assert tenant_state(account) == before


# ---------------------------------------------------------------- the dashboard, every URL of the resolver

# The values a <str:…> segment of a dashboard URL takes (the rest of a URL's segments are ids of A's objects).
DASHBOARD_WORDS = {"action": ("pin", "unpin", "archive", "restore")}
POLICY_FORM = {"name": "b's now", "scope": "global", "mode": "auto", "enabled": "on", "min_age_days": "1"}


def dashboard_targets(route: str, world: World) -> list[str]:
    """The route filled with each of A's objects its segments can name (and each word a <str:> takes)."""
    import itertools
    import re

    choices = {
        "lesson_id": [lsn.pk for lsn in world.lessons],
        "policy_id": [p.pk for p in world.policies],
        "run_id": [world.run.pk],
        "token_id": [world.token.pk],
        "job_id": [world.job.pk],
        "membership_id": [world.member.pk],
        "finding_id": [f.pk for f in world.findings],
        **DASHBOARD_WORDS,
    }
    names = re.findall(r"<(?:\w+:)?(\w+)>", route)
    for name in names:
        assert name in choices, f"{route}: teach the tenancy matrix what <{name}> names"
    urls = []
    for combo in itertools.product(*(choices[name] for name in names)):
        values = dict(zip(names, combo, strict=True))
        urls.append(re.sub(r"<(?:\w+:)?(\w+)>", lambda m, v=values: str(v[m.group(1)]), route))  # type: ignore[misc]
    return urls


def dashboard_collection_requests(route: str, world: World) -> list[tuple[str, str, dict[str, Any]]]:
    """B's own use of a URL without ids, aimed as close to A's data as a form or a query string gets."""
    aimed = {
        "scope": SCOPE,
        "run": world.run.pk,
        "archived": "1",
        "q": "secret",
        "section": "kind",
        "lesson": world.active.pk,
        "policy": world.policy.pk,
    }
    posts = {
        "ids": [str(lsn.pk) for lsn in world.lessons],
        "state": f"scope={SCOPE}&archived=1",
        **POLICY_FORM,
        "owner": "personal",
    }
    return [("get", route, aimed), ("post", route, posts)]


def dashboard_leaks(text: str) -> bool:
    return A_MARKER in text or "a-secret-" in text  # A's content, policy and token names, lesson keys


def test_every_dashboard_url_answers_404_across_tenants_and_changes_nothing(world: World, intruder) -> None:  # noqa: ANN001
    """B in its own account aimed at A's objects (/a/<b>/…), B in A's account (/a/<a>/…), and nobody at all."""
    from tests.reliability.test_auth import DASHBOARD

    b = Client()
    b.force_login(intruder)
    nobody = Client()
    own, theirs = f"/a/{intruder.memberships.get().account.slug}", f"/a/{world.account.slug}"
    before = tenant_state(world.account)
    failures: list[str] = []
    tried = 0
    for _, route in DASHBOARD:
        if "<" not in route:
            for method, path, data in dashboard_collection_requests(route, world):
                response = getattr(b, method)(own + path, data)
                tried += 1
                if response.status_code >= 500 or dashboard_leaks(response.content.decode()):
                    failures.append(
                        f"B {method.upper()} {own + path} → {response.status_code} shows A's data"
                    )
                inside = getattr(b, method)(theirs + path, data)
                tried += 1
                if inside.status_code not in (404, 405):
                    failures.append(f"B {method.upper()} {theirs + path} → {inside.status_code}")
            continue
        for path in dashboard_targets(route, world):
            for prefix in (own, theirs):
                url = prefix + path
                answers = {m: getattr(b, m)(url, POLICY_FORM if m == "post" else {}) for m in ("get", "post")}
                tried += 2
                served = {m: r.status_code for m, r in answers.items() if r.status_code != 405}
                if not served or set(served.values()) != {404}:
                    failures.append(f"B {url} → {served}")
            for method in ("get", "post"):
                response = getattr(nobody, method)(theirs + path)
                tried += 1
                if response.status_code != 405 and not (
                    response.status_code == 302 and response["Location"].startswith("/login/")
                ):
                    failures.append(f"anonymous {method.upper()} {theirs + path} → {response.status_code}")
    assert failures == []
    assert tenant_state(world.account) == before
    assert tried >= 4 * len(DASHBOARD)
