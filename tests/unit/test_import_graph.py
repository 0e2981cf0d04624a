"""Arrows point down: `lore` at the ground, `explorer` and `policies` above it, `config` on top (its entry points
wire the apps together). Read from the source with ast, so a lazy import inside a function counts too."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("lore", "explorer", "policies", "config", "lorekit")
HAND_MODE = re.compile(r'f"\{(?!self\.name\})[^}]*\}_mode"')


def imports_of(package: str) -> list[tuple[str, str]]:
    """(module file, imported top-level product package) for every import in `package`'s source."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = (
                [node.module]
                if isinstance(node, ast.ImportFrom) and node.module and not node.level
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                top = name.split(".")[0]
                if top in PRODUCT and top != package:
                    found.append((str(path.relative_to(ROOT)), top))
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("lore", {"explorer", "policies", "config"}),
        ("explorer", {"policies", "config"}),
        ("policies", {"config"}),
        ("lorekit", {"lore", "explorer", "policies", "config"}),
    ],
)
def test_nothing_imports_upwards(package: str, forbidden: set[str]) -> None:
    upward = [(path, target) for path, target in imports_of(package) if target in forbidden]
    assert upward == []


def test_the_rule_language_has_one_parser_and_one_writer() -> None:
    """Only lore.rules reads `?retention=` or writes it back; nothing else splits a rule's text by hand."""
    spellers = []
    for package in ("lore", "explorer", "policies"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = str(path.relative_to(ROOT))
            if relative.startswith("lore/rules/") or "/migrations/" in relative:
                continue
            text = path.read_text()
            # The registry's own `mode_param` (f"{self.name}_mode") is the declaration; any other is a copy.
            if 'partition(":")' in text or 'f"{name}:{value}"' in text or HAND_MODE.search(text):
                spellers.append(relative)
    assert spellers == []
