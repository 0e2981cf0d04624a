"""Everything the README and SECURITY.md point a reader to is in the repository (issue 17, point 8)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", "SECURITY.md", "docs/architecture.md"]
LINK = re.compile(r"\]\(([^)#\s]+)[^)]*\)")  # [text](path) and ![alt](path)
CODE_PATH = re.compile(r"`((?:[\w.-]+/)+[\w.-]*|[\w-]+\.md)`")  # `lore/conditions.py`, `bench/`, `DESIGN.md`


def pointed_to(doc: str) -> set[str]:
    text = (ROOT / doc).read_text()
    paths = {p for p in LINK.findall(text) if "://" not in p and not p.startswith("mailto:")}
    paths |= {p for p in CODE_PATH.findall(text) if not p.startswith(("/", "http"))}
    return paths


@pytest.mark.parametrize("doc", DOCS)
def test_every_file_the_docs_point_to_is_in_the_repository(doc: str) -> None:
    base = (ROOT / doc).parent
    missing = sorted(
        p for p in pointed_to(doc) if not ((base / p).exists() or (ROOT / p).exists() or _is_test_name(p))
    )
    assert missing == [], f"{doc} points to {missing}"


def _is_test_name(path: str) -> bool:
    """A test module named by its file name, or a file the product writes under var/ when it runs."""
    return path.startswith("var/") or any(ROOT.glob(f"tests/**/{path}"))


@pytest.mark.parametrize("doc", DOCS)
def test_the_docs_never_point_to_the_teams_own_notes(doc: str) -> None:
    text = (ROOT / doc).read_text()
    assert "DESIGN.md" not in text and "shared/" not in text
