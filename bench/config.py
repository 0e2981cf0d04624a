"""Sizes, database names and the targets (issue 7 at 100k, issue 16 at 1M and 10M), declared once."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

PG_SERVER = "postgres://postgres@127.0.0.1:5432"
DEFAULT_ROUNDS = 25
WARMUP = 3
# The agent-load scenario (bench/agents.py): concurrent agents and list+search+read cycles each.
AGENTS = 16
AGENT_CYCLES = 20
# Rounds of the archive scenario (bench/archive.py): each one the bare UPDATE, the run, the bare restore, the undo.
ARCHIVE_ROUNDS = 3


@dataclass(frozen=True)
class Size:
    label: str
    lessons: int

    @property
    def database(self) -> str:
        # BENCH_DB_PREFIX: several people benching on one server each keep their own stores.
        return f"{os.environ.get('BENCH_DB_PREFIX', 'lore_bench')}_{self.label}"

    @property
    def tier(self) -> str:
        """Which bounds of the targets table apply: 100k up to 300k lessons, 1M up to 3M, else 10M."""
        return "100k" if self.lessons <= 300_000 else "1m" if self.lessons <= 3_000_000 else "10m"


def size_parse(text: str) -> Size:
    """`100k`, `1m`, `5000` → Size; ValueError otherwise."""
    match = re.fullmatch(r"\s*(\d+)\s*([kKmM]?)\s*", text)
    if not match:
        raise ValueError(f"not a size: {text!r} (use e.g. 100k, 1m, 5000)")
    number = int(match.group(1)) * {"": 1, "k": 1000, "m": 1_000_000}[match.group(2).lower()]
    if not 1 <= number <= 10_000_000:
        raise ValueError("a size is between 1 and 10m lessons")
    return Size(label=match.group(0).strip().lower(), lessons=number)


@dataclass(frozen=True)
class Target:
    """One row of the targets table: a figure and its bound per tier (None: no target at that tier)."""

    key: str
    what: str
    unit: str  # "ms", "rows/s", "x" (× faster / × slower), "MB"
    limits: dict[str, float | None]
    at_most: bool  # the figure must stay at or below the bound (else at or above it)

    def limit(self, tier: str) -> float | None:
        return self.limits.get(tier)

    def met(self, value: float | None, tier: str) -> bool | None:
        bound = self.limit(tier)
        if value is None or bound is None:
            return None
        return value <= bound if self.at_most else value >= bound


def _tiers(k100: float | None, m1: float | None, m10: float | None) -> dict[str, float | None]:
    return {"100k": k100, "1m": m1, "10m": m10}


# 100k: issue 7's targets. 1M: issue 16's ("close to the machine's limit"). 10M: issue 16's "every Explorer
# view ≤ 1 s p95 with exact counts, preview ≤ 1 s, archive ≥ 50k rows/s".
TARGETS: tuple[Target, ...] = (
    Target("explorer_page", "Explorer full page, p95", "ms", _tiers(150, 150, 1000), at_most=True),
    Target("partial", "htmx partial after a filter change, p95", "ms", _tiers(100, 300, 1000), at_most=True),
    Target("partial_counts", "counts after a swap, p95", "ms", _tiers(100, 100, 1000), at_most=True),
    Target("menu_counts", "filter-menu section counts, p95", "ms", _tiers(100, 60, 1000), at_most=True),
    Target("preview", "preview of a ~10% rule, p95", "ms", _tiers(100, 150, 1000), at_most=True),
    # Issue 29: the archive and its undo against PostgreSQL's own UPDATE of the same rows in the same run (a fixed
    # rows/s was a guess above what the machine's PostgreSQL does; DESIGN.md §16).
    Target(
        "archive",
        "archive run ÷ the bare archive UPDATE of its rows (rows/s)",
        "x",
        _tiers(0.8, 0.8, 0.8),
        at_most=False,
    ),
    Target(
        "undo",
        "undo ÷ the bare restore UPDATE of its rows (rows/s)",
        "x",
        _tiers(0.8, 0.8, 0.8),
        at_most=False,
    ),
    Target("api_page", "50-row API page with read bump, p95", "ms", _tiers(50, 60, None), at_most=True),
    Target(
        "ratio",
        "ours vs Django admin with facets, same filters (× faster, p95)",
        "x",
        _tiers(3, 10, 10),
        at_most=False,
    ),
    Target(
        "agent_load",
        "Explorer page p95 under 16 agents ÷ idle (× slower)",
        "x",
        _tiers(None, 2, 2),
        at_most=True,
    ),
    Target("rss", "web process peak RSS", "MB", _tiers(200, 200, 200), at_most=True),
)
TARGETS_BY_KEY = {t.key: t for t in TARGETS}
