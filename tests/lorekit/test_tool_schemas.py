"""MCP tool schemas and lorekit's flags come from one generated registry (lorekit.registry): for every parameter
of every MCP tool, the command that does the same job takes it with the same type, choices and bounds."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from lorekit.cli import build_parser
from lorekit.mcp_server import TOOLS

COMMANDS = {
    "memory.write": ("write",),
    "memory.list": ("list",),
    "memory.search": ("search",),
    "memory.read": ("read",),
    "memory.restore": ("restore",),
    "memory.protect": ("protect",),
    "policy.list": ("policy", "list"),
    "policy.create": ("policy", "create"),
    "policy.update": ("policy", "update"),
    "policy.delete": ("policy", "delete"),
    "groom.preview": ("groom",),
    "groom.run": ("groom",),
    "garden.report": ("garden",),
    "garden.apply": ("garden",),
    "garden.undo": ("garden",),
}
# A tool parameter its command takes under another name (or not as a flag at all: None), and why.
OTHERWISE: dict[tuple[str, str], str | None] = {
    **{
        (tool, "scope"): "address"
        for tool in ("memory.write", "memory.read", "memory.restore", "memory.protect")
    },
    **{
        (tool, "key"): "address"
        for tool in ("memory.write", "memory.read", "memory.restore", "memory.protect")
    },
    ("memory.protect", "protected"): "off",  # pin/unpin, protect --off: the same boolean, inverted
    ("groom.run", "as_of"): None,  # the CLI's --run confirms the preview it has just taken itself
    ("garden.apply", "id"): "apply",  # garden --apply ID…
    ("garden.undo", "id"): "undo",  # garden --undo ID
}


def command_parser(*names: str) -> argparse.ArgumentParser:
    parser: Any = build_parser()
    for name in names:
        parser = parser._subparsers._group_actions[0].choices[name]
    return parser


def cli_shape(action: argparse.Action) -> dict[str, Any]:
    if action.choices is not None:
        return {"enum": list(action.choices)}
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction) or (
        isinstance(action, argparse._StoreConstAction) and isinstance(action.const, bool)
    ):
        return {"type": "boolean"}
    if isinstance(action, argparse._AppendAction):
        return {"type": "array"}
    low, high = getattr(action.type, "low", None), getattr(action.type, "high", None)
    if low is not None or high is not None:
        return {"type": "integer", "minimum": low, "maximum": high}
    assert action.type in (None, str) or action.dest == "address", (action.dest, action.type)
    return {"type": "string"}


def mcp_shape(schema: dict[str, Any]) -> dict[str, Any]:
    if "enum" in schema:
        return {"enum": schema["enum"]}
    kinds = schema.get("type") or [option["type"] for option in schema["anyOf"]]
    kinds = [kinds] if isinstance(kinds, str) else [k for k in kinds if k != "null"]
    if "string" in kinds:  # a list of values, or one comma-separated string: the flag's form
        return {"type": "string"}
    (kind,) = kinds
    if kind == "integer":
        return {"type": "integer", "minimum": schema.get("minimum"), "maximum": schema.get("maximum")}
    return {"type": kind}


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_every_mcp_tool_parameter_is_its_commands_flag_with_the_same_type_choices_and_bounds(tool) -> None:  # noqa: ANN001
    actions = {action.dest: action for action in command_parser(*COMMANDS[tool.name])._actions}
    for name, schema in tool.schema["properties"].items():
        dest = OTHERWISE.get((tool.name, name), name)
        if dest is None:
            continue
        assert dest in actions, f"{tool.name}.{name} has no lorekit flag"
        if dest == name:
            assert cli_shape(actions[dest]) == mcp_shape(schema), f"{tool.name}.{name}"


def test_the_list_commands_flags_and_the_list_tools_schema_take_the_same_sort_limit_and_query_bounds() -> (
    None
):
    tools = {tool.name: tool.schema["properties"] for tool in TOOLS}
    actions = {action.dest: action for action in command_parser("search")._actions}
    assert tools["memory.search"]["query"]["maxLength"] > 0
    assert (
        cli_shape(actions["limit"])
        == mcp_shape(tools["memory.list"]["limit"])
        == {
            "type": "integer",
            "minimum": 1,
            "maximum": 200,
        }
    )
    assert actions["sort"].default == tools["memory.list"]["sort"]["default"] == "newest"
