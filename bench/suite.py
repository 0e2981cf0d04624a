"""One size of the bench, run inside a process whose Django database is that size's bench database."""

from __future__ import annotations

import sys
import time
from typing import Any

from django.utils import timezone

from bench.archive import archive_run_measure
from bench.config import ARCHIVE_ROUNDS, WARMUP, Size
from bench.explain import explains_collect
from bench.measure import Outcome, rounds_run
from bench.scenarios import Context, scenarios_build, scenarios_select
from bench.store import identities_ensure, store_ensure, store_shape, store_vacuum
from bench.webproc import web_drive
from lore.reads import reads_fold
from lore.value_counts import value_counts_fold


def _log(text: str, end: str = "\n") -> None:
    print(text, end=end, file=sys.stderr, flush=True)


def _wanted(part: str, only: list[str]) -> bool:
    return not only or part in only


def pairs_compare(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """Ours vs the admin for each comparable view: how many times faster (admin time / our time)."""
    by_name = {o.scenario.name: o for o in outcomes if o.ok}
    pairs = []
    for ours in by_name.values():
        admin = by_name.get(ours.scenario.compare_with or "")
        if admin is None:
            continue
        mine, theirs = ours.summary(), admin.summary()
        pairs.append(
            {
                "ours": ours.scenario.name,
                "admin": admin.scenario.name,
                "ours_p95_ms": mine["p95_ms"],
                "admin_p95_ms": theirs["p95_ms"],
                "ratio_median": round(float(theirs["median_ms"]) / float(mine["median_ms"]), 2),  # type: ignore[arg-type]
                "ratio_p95": round(float(theirs["p95_ms"]) / float(mine["p95_ms"]), 2),  # type: ignore[arg-type]
            }
        )
    return pairs


def bench_size(
    size: Size,
    *,
    rounds: int,
    only: list[str],
    warmup: int = WARMUP,
    web: bool = True,
    web_requests: int = 300,
    archive: bool = True,
    explain: bool = False,
    agents: int = 0,
    agent_cycles: int = 0,
    archive_rounds: int = ARCHIVE_ROUNDS,
    garden_corpus: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Load (or reuse) the store, measure every available scenario, then the web process and a grooming run.
    `garden_corpus`: the gardener's evaluation on its corpora (`corpus_bench`), when this process has already
    measured it: it depends on the code and the corpora, not on the store."""
    _log(f"[{size.label}] store of {size.lessons:,} lessons")
    account, loaded = store_ensure(size.lessons)
    # Start from the store as the every-minute folds and autovacuum leave it (the reads and count changes earlier
    # runs buffered folded in, a visibility map for index-only scans, fresh statistics), whatever ran against it
    # before: quick when there is nothing to do. Within the run nothing folds: the hot lessons' pending reads grow
    # from round to round, so the pages that show them are measured on the pessimistic side.
    reads_fold()
    value_counts_fold()
    store_vacuum()
    ids = identities_ensure(account)
    ctx = Context(ids=ids, now=timezone.now())
    every = scenarios_build(ctx)
    chosen = scenarios_select(every, only)
    available = [s for s in chosen if s.available()]
    _log(
        f"[{size.label}] {len(available)} scenarios, {rounds} interleaved rounds after {warmup} warm-up each"
    )
    started = time.monotonic()
    outcomes = rounds_run(available, ctx, rounds=rounds, warmup=warmup, log=_log)
    for failed in (o for o in outcomes if o.error):  # never timed; said out loud, and "not run" in the report
        _log(f"[{size.label}] NOT MEASURED {failed.error}")
    result: dict[str, Any] = {
        "size": size.label,
        "lessons": size.lessons,
        "tier": size.tier,
        "store_loaded_now": loaded,
        "store": store_shape(account),
        "rounds": rounds,
        "warmup": warmup,
        "rounds_seconds": round(time.monotonic() - started, 1),
        "scenarios": {o.scenario.name: o.summary() for o in outcomes},
        "not_available": [s.name for s in chosen if s not in available],
        "pairs": pairs_compare(outcomes),
    }
    if explain:
        _log(f"[{size.label}] EXPLAIN (ANALYZE, BUFFERS) of the slowest store queries")
        result["explain"] = explains_collect(outcomes)
    live = [o.scenario for o in outcomes if o.ok]
    if web and live:
        _log(f"[{size.label}] gunicorn, 1 worker: peak RSS")
        ours = [s for s in live if s.group != "admin"]
        admin = [s for s in live if s.group == "admin"]
        result["web"] = {
            "ours": web_drive(ours, ctx, requests=web_requests),
            "admin": web_drive(admin, ctx, requests=max(len(admin), web_requests // 10)),
        }
    if _wanted("garden", only):
        from bench.garden import inventory_bench_process
        from bench.garden_eval import corpus_bench

        _log(
            f"[{size.label}] the gardener: held-out and development corpora, a full inventory, a nightly re-run"
        )
        corpus = garden_corpus if garden_corpus is not None else corpus_bench()
        result["garden"] = {"corpus": corpus, "inventory": inventory_bench_process(account)}
    if agents and _wanted("agents", only):
        from bench.agents import agent_load_measure

        page = next(s for s in every if s.name == "explorer.page")
        _log(
            f"[{size.label}] agent load: {agents} agents × {agent_cycles} cycles, Explorer p95 idle vs loaded"
        )
        result["agents"] = agent_load_measure(ctx, page, agents=agents, cycles=agent_cycles)
    if _wanted("reads", only):
        from bench.reads import reads_bench

        _log(f"[{size.label}] read bumps in place vs buffered, the visibility map, the fold")
        result["reads"] = reads_bench(ids)
    if archive and _wanted("archive", only):
        _log(
            f"[{size.label}] grooming run of the ~10% rule and its undo, beside the bare UPDATE of the same rows, "
            f"{archive_rounds} rounds"
        )
        result["archive"] = archive_run_measure(ids, rounds=archive_rounds)
    return result
