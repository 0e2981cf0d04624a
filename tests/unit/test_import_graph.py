"""Arrows point down: `lore` at the ground, `explorer` and `policies` above it, `config` on top (its entry points
wire the apps together). Read from the source with ast, so a lazy import inside a function counts too."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("lore", "explorer", "policies", "config", "lorekit")
# Known arrows, each with its reason; the tests still fail on any other. Mend them by moving the thing, then
# delete the entry.
KNOWN_UPWARD: set[tuple[str, str]] = set()
KNOWN_MIGRATION_IMPORTS = {
    # Django writes a callable default by its import path (lore.models._default_scopes); it must stay importable.
    "lore/migrations/0011_roles_scopes_slugs.py",
    # A data migration that renames auto-named policies with the wording of the day (the registry's auto_name).
    "policies/migrations/0003_auto_names_follow_labels.py",
    # Bands are derived data the inventory compares with bands live code writes: recomputed with the scheme of the day.
    "lore/migrations/0025_resign_bands.py",
}
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
    upward = [
        (path, target)
        for path, target in imports_of(package)
        if target in forbidden and (path, target) not in KNOWN_UPWARD
    ]
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


def test_no_migration_imports_live_code() -> None:
    """A migration builds what it built the day it was written: it reads models through `apps`, never the
    product's modules (whose expressions and registries move on)."""
    importing = []
    for package in ("lore", "explorer", "policies"):
        for path in sorted((ROOT / package / "migrations").glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                module = node.module if isinstance(node, ast.ImportFrom) else None
                names = [module] if module else [a.name for a in getattr(node, "names", [])]
                if isinstance(node, ast.Import | ast.ImportFrom) and any(
                    (name or "").split(".")[0] in PRODUCT for name in names
                ):
                    importing.append(str(path.relative_to(ROOT)))
    assert sorted(set(importing) - KNOWN_MIGRATION_IMPORTS) == []


def test_the_search_index_of_lores_table_is_created_by_a_lore_migration() -> None:
    source = (ROOT / "lore" / "migrations" / "0015_lesson_search_index.py").read_text()
    assert 'SearchVector("key", "content", config="simple")' in source
    from lore.selectors import SEARCH_CONFIG, lesson_search_vector

    assert lesson_search_vector().deconstruct() == (
        "django.contrib.postgres.search.SearchVector",
        ("key", "content"),
        {"config": SEARCH_CONFIG},
    )
    assert SEARCH_CONFIG == "simple"
