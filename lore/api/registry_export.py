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

POLICY_MODES = ("review", "auto")  # policies.models.RetentionPolicy.Mode (tests/lorekit/test_registry.py)
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
class Option:
    """A request field beside the rule (scope, sort, limit, a policy's name …): one CLI flag and one MCP tool
    property each. `kind`: string, integer, boolean or choice; `low`/`high` bound an integer's value or a
    string's length (None: unbounded)."""

    name: str
    kind: str
    help: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    default: str | int | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


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
OPTION: dict[str, Option] = {o.name: o for o in OPTIONS}
GARDEN_OPTION: dict[str, Option] = {o.name: o for o in GARDEN_OPTIONS}
RETENTION_PARAMS: tuple[Param, ...] = tuple(p for p in PARAMS if not p.reverse)
POLICY_DIMENSIONS: tuple[Dimension, ...] = tuple(d for d in DIMENSIONS if d.in_policy)
"""


def _option(name: str, kind: str, help_text: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "kind": kind, "help": help_text, **more}


def options_data() -> list[dict[str, Any]]:
    """The fields of list, search, policy and groom requests beside the rule, as the API's schemas bound them."""
    from lore.api.schemas import CURSOR_MAX, SCOPE_HELP
    from lore.limits import SEARCH_TEXT_MAX
    from lore.rules.filterset import RETENTION_TEXT_MAX
    from lore.selectors import DEFAULT_SORT, MAX_LIMIT, PAGE_DEFAULT, SORTS

    return [
        _option("scope", "string", SCOPE_HELP),
        _option(
            "retention",
            "string",
            "conditions in URL form, e.g. min_age_days:90,max_opened_count:0",
            high=RETENTION_TEXT_MAX,
        ),
        _option(
            "sort",
            "choice",
            "newest (default), opened_count (most chosen first) or coldest (lowest decay score first)",
            choices=tuple(SORTS),
            default=DEFAULT_SORT,
        ),
        _option("limit", "integer", "lessons per page", low=1, high=MAX_LIMIT, default=PAGE_DEFAULT),
        _option("cursor", "string", "next_cursor of the previous page", high=CURSOR_MAX),
        _option("archived", "boolean", "archived lessons instead of active ones"),
        _option("query", "string", "every word in the key or the content", low=1, high=SEARCH_TEXT_MAX.value),
        _option("id", "integer", "the policy's id", low=1),
        _option("policy_id", "integer", "a saved policy (instead of scope + rule)", low=1),
        _option("name", "string", "the policy's name", low=1, high=NAME_MAX),
        _option(
            "mode",
            "choice",
            "review (run by hand, default) or auto (swept nightly once enabled)",
            choices=POLICY_MODES,
            default=POLICY_MODES[0],
        ),
        _option("enabled", "boolean", "auto policies are swept only when enabled"),
    ]


def garden_options_data() -> list[dict[str, Any]]:
    from lore.limits import GARDEN_TIME_LIMIT
    from lore.models import Finding

    return [
        _option(
            "kind",
            "choice",
            "near duplicates, superseded, expired ephemera or possible duplicates (semantic, review-only)",
            choices=tuple(Finding.Kind.values),
        ),
        _option("scope", "string", "a scope family: repo::OWNER/REPO covers its branches"),
        _option(
            "status",
            "choice",
            "open (default), dismissed or applied",
            choices=tuple(Finding.Status.values),
            default=Finding.Status.OPEN.value,
        ),
        _option("run", "boolean", "queue an inventory for the worker first (what changed since the last)"),
        _option(
            "wait",
            "integer",
            "with run: wait up to this many seconds for the inventory to finish",
            low=0,
            high=GARDEN_TIME_LIMIT.value,
            default=0,
        ),
        _option("id", "integer", "a finding's id", low=1),
        _option(
            "keep",
            "integer",
            "with apply: the lesson to keep (required for a possible duplicate; the others are retired)",
            low=1,
        ),
    ]


def registry_data() -> dict[str, Any]:
    """The registry as plain data, in registry order."""
    from lore.models import GardenRun
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
        "policy_modes": POLICY_MODES,
        "name_max": NAME_MAX,
        "options": options_data(),
        "garden_options": garden_options_data(),
        "garden_run_pending": tuple(GardenRun.PENDING),
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


# (the generated tuple's name, its dataclass, the key of registry_data holding its rows), in file order
TUPLES = (
    ("PARAMS", "Param", "params"),
    ("DIMENSIONS", "Dimension", "dimensions"),
    ("SIGNALS", "Signal", "signals"),
    ("OPTIONS", "Option", "options"),
    ("GARDEN_OPTIONS", "Option", "garden_options"),
)


def render() -> str:
    data = registry_data()
    lines = [HEADER.rstrip("\n"), ""]
    for name, cls, key in TUPLES:
        lines += [")" if len(lines) > 2 else "", f"{name}: tuple[{cls}, ...] = ("]
        for row in data[key]:
            lines += _call(cls, row)
    lines += [
        ")",
        f"SORTS: tuple[str, ...] = {_literal(data['sorts'])}",
        f"POLICY_MODES: tuple[str, ...] = {_literal(data['policy_modes'])}",
        f"NAME_MAX = {data['name_max']}  # a policy's name, typed or automatic",
        f"GARDEN_RUN_PENDING: tuple[str, ...] = {_literal(data['garden_run_pending'])}  # an inventory not finished",
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
