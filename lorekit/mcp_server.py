"""`lorekit mcp`: the MCP tools over stdio, served with the official `mcp` SDK's low-level Server.

Each tool calls the REST API through the same LoreClient as the CLI (with `X-Lore-Surface: mcp`, so reads
are recorded as MCP reads). Tool input schemas are JSON Schema derived from lorekit.registry, which is
generated from the server's registry: every condition and dimension filter is reachable from every tool that
takes a rule, and every field beside the rule (scope, sort, limit, a policy's name, …) is the registry's Option,
the same one lorekit's flag is built from (tests/lorekit/test_tool_schemas.py compares them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from lorekit.client import LoreClient, LoreError, dumps
from lorekit.registry import (
    DIMENSIONS,
    GARDEN_OPTION,
    OPTION,
    PARAMS,
    POLICY_DIMENSIONS,
    RETENTION_PARAMS,
    Dimension,
    Option,
    Param,
)

JSON_TYPES = {"string": "string", "integer": "integer", "boolean": "boolean"}


def option_schema(option: Option, **overrides: Any) -> dict[str, Any]:
    """The JSON Schema of a request field beside the rule, from the registry's Option (as its CLI flag is)."""
    schema: dict[str, Any] = {"description": option.help}
    if option.kind == "choice":
        schema["enum"] = list(option.choices)
    else:
        schema["type"] = JSON_TYPES[option.kind]
    low, high = ("minimum", "maximum") if option.kind == "integer" else ("minLength", "maxLength")
    if option.low is not None:
        schema[low] = option.low
    if option.high is not None:
        schema[high] = option.high
    if option.default is not None:
        schema["default"] = option.default
    return {**schema, **overrides}


SCOPE = option_schema(OPTION["scope"])
ADDRESS = {"type": "string", "description": "SCOPE::KEY, e.g. repo::acme/app::use-uv"}


def param_schemas(params: tuple[Param, ...], *, nullable: bool = False) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for p in params:
        kind: Any = ["integer", "null"] if nullable else "integer"
        props[p.name] = {
            "type": kind,
            "minimum": p.low,
            "maximum": p.high,
            "description": f"{p.label}: {p.phrase}. {p.help}".strip(),
        }
    return props


def dimension_schemas(
    dims: tuple[Dimension, ...], *, nullable: bool = False, modes: bool = True
) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for d in dims:
        values: dict[str, Any] = {
            "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}],
            "description": f"{d.label} values (a list or comma-separated); OR within, AND across dimensions",
        }
        if nullable:
            values["anyOf"].append({"type": "null"})
            values["description"] += "; null removes the filter"
        props[d.name] = values
        if modes:
            props[d.mode_param] = {"enum": list(d.modes), "description": f"default {d.default_mode}"}
    return props


def obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


def rule_schema(*, nullable: bool = False) -> dict[str, Any]:
    return {
        **param_schemas(RETENTION_PARAMS, nullable=nullable),
        **dimension_schemas(POLICY_DIMENSIONS, nullable=nullable),
    }


FILTERS = {
    "scope": {**SCOPE, "description": SCOPE["description"] + " (default global: the whole account)"},
    "retention": option_schema(OPTION["retention"]),
    **param_schemas(PARAMS),
    **dimension_schemas(DIMENSIONS),
    **{name: option_schema(OPTION[name]) for name in ("sort", "limit", "cursor", "archived")},
}
POLICY_FIELDS = {name: option_schema(OPTION[name]) for name in ("name", "scope", "mode", "enabled")}
POLICY_ID = option_schema(OPTION["id"])
GROOM = obj({"policy_id": option_schema(OPTION["policy_id"]), "scope": SCOPE, **rule_schema()})
GROOM_RUN = obj(
    {
        **GROOM["properties"],
        "as_of": {
            "type": "string",
            "format": "date-time",
            "description": "groom.preview's as_of: archive exactly what that preview answered (refused when over an "
            "hour old or its policy changed since)",
        },
    }
)
TARGET = obj({"address": ADDRESS, "scope": SCOPE, "key": {"type": "string"}})


def target(args: dict[str, Any]) -> dict[str, Any]:
    return {k: args[k] for k in ("address", "scope", "key") if k in args}


def groom_preview(client: LoreClient, args: dict[str, Any]) -> dict[str, Any]:
    """The REST preview plus when it was taken (its Lore-As-Of header): an MCP result has no headers."""
    preview, as_of = client.groom_preview_taken(args)
    return {**preview, "as_of": as_of}


def policy_delete(client: LoreClient, policy_id: int) -> dict[str, int]:
    client.policy_delete(policy_id)
    return {"deleted": policy_id}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]
    call: Callable[[LoreClient, dict[str, Any]], Any]


TOOLS: tuple[Tool, ...] = (
    Tool(
        "memory.write",
        "Write a lesson. Writing the same scope+key again is a recurrence (Recurrence +1) and rewrites it.",
        obj(
            {
                "scope": SCOPE,
                "key": {"type": "string"},
                "content": {"type": "string"},
                **dimension_schemas(POLICY_DIMENSIONS, modes=False),
                "supersedes": {
                    "type": "array",
                    "items": ADDRESS,
                    "description": "addresses of older lessons this one replaces (the gardener proposes them)",
                },
            },
            ("scope", "key", "content"),
        ),
        lambda c, a: c.memory_write(a),
    ),
    Tool(
        "memory.list",
        "List lessons with filters (every condition and dimension). Every lesson returned counts as delivered.",
        obj(FILTERS),
        lambda c, a: c.memory_list(a),
    ),
    Tool(
        "memory.search",
        "Search lessons: every word of query in the key or content, plus the list filters. Delivers the page.",
        obj({"query": option_schema(OPTION["query"]), **FILTERS}, ("query",)),
        lambda c, a: c.memory_search(a.pop("query"), a),
    ),
    Tool(
        "memory.read",
        "Open one lesson deliberately (by address or scope+key). This is what counts as Chosen and moves "
        "Last agent open; list and search results do not.",
        TARGET,
        lambda c, a: c.memory_read(target(a)),
    ),
    Tool("memory.restore", "Restore an archived lesson.", TARGET, lambda c, a: c.memory_restore(target(a))),
    Tool(
        "memory.protect",
        "Protect (pin) a lesson so no policy or groom run archives it; protected=false unpins it.",
        obj({**TARGET["properties"], "protected": {"type": "boolean", "default": True}}),
        lambda c, a: c.memory_protect(target(a), bool(a.get("protected", True))),
    ),
    Tool("policy.list", "List retention policies.", obj({}), lambda c, a: {"policies": c.policy_list()}),
    Tool(
        "policy.create",
        "Save a retention policy: name and scope required, at least one condition or filter.",
        obj({**POLICY_FIELDS, **rule_schema()}, ("name", "scope")),
        lambda c, a: c.policy_create(a),
    ),
    Tool(
        "policy.update",
        "Change a policy: only the fields given change; a condition or filter set to null is removed.",
        obj({"id": POLICY_ID, **POLICY_FIELDS, **rule_schema(nullable=True)}, ("id",)),
        lambda c, a: c.policy_update(int(a.pop("id")), a),
    ),
    Tool(
        "policy.delete",
        "Delete a policy (the rule only: no lesson is touched).",
        obj({"id": POLICY_ID}, ("id",)),
        lambda c, a: policy_delete(c, int(a["id"])),
    ),
    Tool(
        "groom.preview",
        "What a rule (scope + conditions + filters) or a saved policy would archive: {count, keys, as_of}. "
        "Changes nothing; pass as_of to groom.run to archive exactly this set.",
        GROOM,
        lambda c, a: groom_preview(c, a),
    ),
    Tool(
        "groom.run",
        "Archive what groom.preview answers (restorable with memory.restore): {count, keys, run_id}. With the "
        "preview's as_of, exactly what that preview answered.",
        GROOM_RUN,
        lambda c, a: c.groom_run(a),
    ),
)
GARDEN_FILTERS = {
    name: option_schema(GARDEN_OPTION[name]) for name in ("kind", "scope", "status", "run", "wait")
}


def garden_report(client: LoreClient, args: dict[str, Any]) -> dict[str, Any]:
    """The findings; with `run`, an inventory is queued first (its state under "run": queued or running until
    the worker finishes it, unless `wait` seconds were enough)."""
    wait = args.pop("wait", 0) or 0
    if args.pop("run", False):
        run = client.garden_run(wait=float(wait))
        return {**client.findings(args), "run": run}
    return client.findings(args)


TOOLS = (
    *TOOLS,
    Tool(
        "garden.report",
        "The gardener's findings: near duplicates, superseded lessons and expired ephemera, each with its "
        "members, the action proposed for each (keep/retire) and the evidence. Changes nothing.",
        obj(GARDEN_FILTERS),
        garden_report,
    ),
    Tool(
        "garden.apply",
        "Apply one finding: retire its lessons (at most the account's apply cap) as one undoable archive run. "
        "Refused (409) when a lesson changed since the inventory. A possible duplicate (semantic, review-only) "
        "needs `keep`: the id of the lesson to keep, confirmed by a person; the others are retired.",
        obj(
            {"id": option_schema(GARDEN_OPTION["id"]), "keep": option_schema(GARDEN_OPTION["keep"])}, ("id",)
        ),
        lambda c, a: c.finding_apply(
            int(a["id"]), keep=int(a["keep"]) if a.get("keep") is not None else None
        ),
    ),
    Tool(
        "garden.undo",
        "Undo one applied finding: restore every lesson its apply retired, as one run's undo; the finding is "
        "then dismissed. Refused (409) for a finding that is not applied.",
        obj({"id": option_schema(GARDEN_OPTION["id"])}, ("id",)),
        lambda c, a: c.finding_undo(int(a["id"])),
    ),
)
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}


def tool_result(value: Any) -> types.CallToolResult:
    structured = value if isinstance(value, dict) else {"result": value}
    return types.CallToolResult(content=[types.TextContent(text=dumps(value))], structured_content=structured)


def build_server(client: LoreClient) -> Server[Any]:
    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=t.name, description=t.description, input_schema=t.schema) for t in TOOLS]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = TOOLS_BY_NAME.get(params.name)
        if tool is None:
            return types.CallToolResult(
                content=[types.TextContent(text=f"unknown tool {params.name}")], is_error=True
            )
        args = dict(params.arguments or {})
        try:
            value = await anyio.to_thread.run_sync(tool.call, client, args)
        except LoreError as exc:
            message = f"{exc.message}" + (f" (field: {exc.field})" if exc.field else "")
            return types.CallToolResult(
                content=[types.TextContent(text=message)], structured_content=exc.as_dict(), is_error=True
            )
        except (KeyError, TypeError, ValueError) as exc:  # an argument the tool needs is missing or malformed
            message = f"{params.name}: missing or invalid argument {exc}"
            return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)
        return tool_result(value)

    return Server("lorekit", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


def serve(client: LoreClient) -> None:
    """Serve until stdin closes."""
    server = build_server(client)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
