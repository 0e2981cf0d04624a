"""Timing: warm-up, then interleaved rounds (every scenario once per round, in a shuffled order), median and p95.

Server time is the time of one request through the whole Django stack (middleware, view, template, ORM) with
django.test.Client, or of one in-process call; the database is the real PostgreSQL server.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass, field

from django.db import connection
from django.test.utils import CaptureQueriesContext

from bench.scenarios import BenchError, Context, Scenario


@dataclass
class Outcome:
    scenario: Scenario
    samples_ms: list[float] = field(default_factory=list)
    queries: list[dict[str, object]] = field(default_factory=list)
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and bool(self.samples_ms)

    def summary(self) -> dict[str, object]:
        s = self.scenario
        out: dict[str, object] = {"label": s.label, "target": s.target, "method": s.method, "path": s.path}
        if self.error:
            out["error"] = self.error
            return out
        out.update(
            {
                "n": len(self.samples_ms),
                "median_ms": round(statistics.median(self.samples_ms), 2),
                "p95_ms": round(percentile(self.samples_ms, 95), 2),
                "min_ms": round(min(self.samples_ms), 2),
                "max_ms": round(max(self.samples_ms), 2),
                "queries": len(self.queries),
                "sql_ms": round(sum(float(str(q["time"])) for q in self.queries) * 1000, 2),
            }
        )
        return out


def percentile(samples: list[float], pct: float) -> float:
    """Nearest-rank percentile (p95 of 20 samples is the 19th smallest)."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def _probe(scenario: Scenario, ctx: Context, warmup: int) -> Outcome:
    """Warm the scenario up and capture its queries once; an error marks it unavailable instead of failing."""
    outcome = Outcome(scenario)
    try:
        for _ in range(warmup):
            scenario.once(ctx)
        with CaptureQueriesContext(connection) as captured:
            scenario.once(ctx)
        outcome.queries = list(captured.captured_queries)
    except BenchError as exc:
        outcome.error = str(exc)
    return outcome


def rounds_run(
    scenarios: list[Scenario], ctx: Context, *, rounds: int, warmup: int, seed: int = 13, log=None
) -> list[Outcome]:  # noqa: ANN001
    """Warm-up every scenario, then `rounds` interleaved rounds. Returns one Outcome per scenario, in order."""
    outcomes = [_probe(s, ctx, warmup) for s in scenarios]
    live = [o for o in outcomes if not o.error]
    rng = random.Random(seed)
    for number in range(rounds):
        order = live[:]
        rng.shuffle(order)
        for outcome in order:
            started = time.perf_counter()
            outcome.scenario.once(ctx)
            outcome.samples_ms.append((time.perf_counter() - started) * 1000)
        if log:
            log(f"\r  round {number + 1}/{rounds}", end="")
    if log:
        log("")
    return outcomes
