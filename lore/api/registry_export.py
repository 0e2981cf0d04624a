"""Renders `lorekit/registry.py`: the registry's names and bounds as plain data, for a client without Django.

lorekit must never import Django (it runs on an agent's machine with nothing but httpx and mcp), yet its flags
and MCP tool schemas must come from the registry, not from a hand-written list. So the registry is the single
source and lorekit/registry.py is GENERATED from it:

    .venv/bin/python -m lore.api.registry_export          # rewrite lorekit/registry.py
    .venv/bin/python -m lore.api.registry_export --check  # exit 1 if it is stale

tests/lorekit/test_registry.py fails whenever the file differs from what this module renders, so adding a
condition or a dimension to lore/conditions.py cannot silently skip the CLI or the MCP server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from lore.conditions import DIMENSIONS, NAME_MAX, PARAMS, SIGNALS, unit_word

TARGET = Path(__file__).resolve().parents[2] / "lorekit" / "registry.py"

HEADER = '''"""GENERATED from lore/conditions.py by `python -m lore.api.registry_export`: do not edit by hand.

The condition and dimension registry's names, units and bounds as plain data, so that lorekit (which never
imports Django) derives its flags and MCP tool schemas from the registry. tests/lorekit/test_registry.py fails
when this file is stale; regenerate it with the command above.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """One direction of a condition: `min_age_days`, `max_opened_count`, … (reverse ones are explore-only)."""

    name: str
    label: str
    unit: str
    unit_word: str  # "days" or "times", as messages say it
    low: int
    high: int
    reverse: bool
    phrase: str
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Dimension:
    """A dimension filter: values (OR within) and a mode; `in_policy` is False for Explorer-only ones."""

    name: str
    label: str
    modes: tuple[str, ...]
    in_policy: bool

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def mode_param(self) -> str:
        return f"{self.name}_mode"

    @property
    def default_mode(self) -> str:
        return self.modes[0]


@dataclass(frozen=True)
class Signal:
    """A time or counter of a lesson, as the seed names it (Recurrence, Delivered, Chosen, …)."""

    key: str
    label: str
    field: str
    kind: str
    meaning: str


'''

FOOTER = """
RETENTION_PARAMS: tuple[Param, ...] = tuple(p for p in PARAMS if not p.reverse)
POLICY_DIMENSIONS: tuple[Dimension, ...] = tuple(d for d in DIMENSIONS if d.in_policy)
"""


def registry_data() -> dict[str, Any]:
    """The registry as plain data, in registry order."""
    from lore.selectors import SORTS  # needs the app registry: imported once Django is set up

    return {
        "params": [
            {
                "name": p.name,
                "label": p.condition.label,
                "unit": p.condition.unit,
                "unit_word": unit_word(p.condition.unit),
                "low": p.bounds[0],
                "high": p.bounds[1],
                "reverse": p.is_reverse,
                "phrase": p.value_phrase(2).replace("2", "N"),
                "help": p.condition.help,
            }
            for p in PARAMS.values()
        ],
        "dimensions": [
            {"name": d.name, "label": d.label, "modes": d.modes, "in_policy": d.in_policy} for d in DIMENSIONS
        ],
        "signals": [
            {"key": s.key, "label": s.label, "field": s.field, "kind": s.kind, "meaning": s.meaning}
            for s in SIGNALS
        ],
        "sorts": tuple(SORTS),
        "policy_modes": ("review", "auto"),
        "name_max": NAME_MAX,
    }


def _literal(value: object) -> str:
    """A Python literal in the house format (double quotes), so the generated file passes `ruff format`."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, tuple | list):
        return "(" + ", ".join(_literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def _call(name: str, fields: dict[str, Any]) -> list[str]:
    one_line = f"    {name}(" + ", ".join(f"{k}={_literal(v)}" for k, v in fields.items()) + "),"
    if len(one_line) <= 110:
        return [one_line]
    return [f"    {name}(", *(f"        {k}={_literal(v)}," for k, v in fields.items()), "    ),"]


def render() -> str:
    data = registry_data()
    lines = [HEADER.rstrip("\n"), "", "", "PARAMS: tuple[Param, ...] = ("]
    for p in data["params"]:
        lines += _call("Param", p)
    lines += [")", "DIMENSIONS: tuple[Dimension, ...] = ("]
    for d in data["dimensions"]:
        lines += _call("Dimension", d)
    lines += [")", "SIGNALS: tuple[Signal, ...] = ("]
    for sig in data["signals"]:
        lines += _call("Signal", sig)
    lines += [
        ")",
        f"SORTS: tuple[str, ...] = {_literal(data['sorts'])}",
        f"POLICY_MODES: tuple[str, ...] = {_literal(data['policy_modes'])}",
        f"NAME_MAX = {data['name_max']}  # a policy's name, typed or automatic",
    ]
    return "\n".join(lines) + "\n" + FOOTER


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        current = TARGET.read_text() if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is stale: run python -m lore.api.registry_export", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    import django

    django.setup()
    raise SystemExit(main(sys.argv[1:]))
