"""Sizes, database names and the targets of issue 7, declared once."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

PG_SERVER = "postgres://postgres@127.0.0.1:5432"
DEFAULT_ROUNDS = 25
WARMUP = 3


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
        """Which column of the targets table applies: the 100k one up to 300k lessons, else the 1M one."""
        return "100k" if self.lessons <= 300_000 else "1m"


def size_parse(text: str) -> Size:
    """`100k`, `1m`, `5000` → Size; ValueError otherwise."""
    match = re.fullmatch(r"\s*(\d+)\s*([kKmM]?)\s*", text)
    if not match:
        raise ValueError(f"not a size: {text!r} (use e.g. 100k, 1m, 5000)")
    number = int(match.group(1)) * {"": 1, "k": 1000, "m": 1_000_000}[match.group(2).lower()]
    if not 1 <= number <= 5_000_000:
        raise ValueError("a size is between 1 and 5m lessons")
    return Size(label=match.group(0).strip().lower(), lessons=number)


@dataclass(frozen=True)
class Target:
    key: str
    what: str
    unit: str  # "ms" (p95 at most), "rows/s" (at least), "x" (at least), "MB" (at most)
    limit_100k: float
    limit_1m: float

    def limit(self, tier: str) -> float:
        return self.limit_100k if tier == "100k" else self.limit_1m

    def met(self, value: float | None, tier: str) -> bool | None:
        if value is None:
            return None
        bound = self.limit(tier)
        return value <= bound if self.unit in ("ms", "MB") else value >= bound


TARGETS: tuple[Target, ...] = (
    Target("explorer_page", "Explorer full page, p95", "ms", 150, 400),
    Target("partial", "htmx partial after a filter change, p95", "ms", 100, 300),
    Target("menu_counts", "filter-menu section counts, p95", "ms", 100, 300),
    Target("preview", "preview of a ~10% rule, p95", "ms", 100, 500),
    Target("archive", "archive run (rows/s)", "rows/s", 10_000, 10_000),
    Target("api_page", "50-row API page with read bump, p95", "ms", 50, 60),
    Target("ratio", "ours vs Django admin with facets, same filters (× faster, p95)", "x", 3, 5),
    Target("rss", "web process peak RSS", "MB", 200, 200),
)
TARGETS_BY_KEY = {t.key: t for t in TARGETS}
