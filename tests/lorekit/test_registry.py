"""lorekit's registry is generated from lore/conditions.py and must equal it: the single source of every flag
and every MCP tool schema."""

from __future__ import annotations

from pathlib import Path

from lore.api.registry_export import TARGET, render
from lore.conditions import DIMENSIONS, PARAMS, POLICY_DIMENSIONS, RETENTION_PARAMS
from lore.selectors import SORTS
from lorekit import registry
from lorekit.cli import build_parser
from policies.models import RetentionPolicy


def test_the_generated_file_is_up_to_date() -> None:
    assert Path(registry.__file__).resolve() == TARGET
    assert TARGET.read_text() == render(), "stale: run .venv/bin/python -m lore.api.registry_export"


def test_lorekits_lists_equal_the_registrys() -> None:
    assert [(p.name, p.low, p.high, p.reverse) for p in registry.PARAMS] == [
        (p.name, *p.bounds, p.is_reverse) for p in PARAMS.values()
    ]
    assert [p.name for p in registry.RETENTION_PARAMS] == [p.name for p in RETENTION_PARAMS]
    assert [(d.name, d.modes, d.in_policy) for d in registry.DIMENSIONS] == [
        (d.name, d.modes, d.in_policy) for d in DIMENSIONS
    ]
    assert [d.name for d in registry.POLICY_DIMENSIONS] == [d.name for d in POLICY_DIMENSIONS]
    assert registry.SORTS == tuple(SORTS)
    assert registry.POLICY_MODES == tuple(RetentionPolicy.Mode.values)


def _flags(*command: str) -> set[str]:
    parser = build_parser()
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        sub = action.choices[command[0]]  # type: ignore[index]
    for name in command[1:]:
        sub = sub._subparsers._group_actions[0].choices[name]  # type: ignore[union-attr,index]
    return {flag for action in sub._actions for flag in action.option_strings}


def test_every_condition_and_dimension_has_its_flag_its_mode_and_its_clear_form() -> None:
    update = _flags("policy", "update")
    for param in RETENTION_PARAMS:
        assert {param.flag, "--clear-" + param.flag[2:]} <= update
        assert param.flag in _flags("groom") and param.flag in _flags("policy", "create")
    for dim in POLICY_DIMENSIONS:
        assert {dim.flag, f"{dim.flag}-mode", "--clear-" + dim.flag[2:]} <= update
        assert {dim.flag, f"{dim.flag}-mode"} <= _flags("groom")
    listing = _flags("list")
    assert {p.flag for p in PARAMS.values()} <= listing
    assert {d.flag for d in DIMENSIONS} <= listing
