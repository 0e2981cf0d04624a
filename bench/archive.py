"""A grooming run archiving ~10% of the store and its undo: rows/s, and the process's memory across the run."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from django.utils import timezone

from bench.scenarios import rule_10pct
from bench.store import Identities, bench_events_clear, store_vacuum
from lore.limits import RUN_STATEMENT_TIMEOUT_MS
from lore.timeouts import set_statement_timeout
from lore.vacuum import lessons_vacuum
from policies import grooming


def rss_mb(pid: int | str = "self", key: str = "VmRSS") -> float | None:
    """A /proc/<pid>/status memory figure in MB (VmRSS now, VmHWM the peak); None off Linux."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


@dataclass
class RssSampler:
    """Samples this process's RSS every `every` seconds while the block runs."""

    every: float = 0.05
    samples: list[float] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> RssSampler:
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.is_set():
            value = rss_mb()
            if value is not None:
                self.samples.append(value)
            self._stop.wait(self.every)

    def figures(self) -> dict[str, float | None]:
        if not self.samples:
            return {"rss_start_mb": None, "rss_peak_mb": None, "rss_end_mb": None, "rss_growth_mb": None}
        start, peak, end = self.samples[0], max(self.samples), self.samples[-1]
        return {
            "rss_start_mb": round(start, 1),
            "rss_peak_mb": round(peak, 1),
            "rss_end_mb": round(end, 1),
            "rss_growth_mb": round(peak - start, 1),
        }


def _vacuum_seconds() -> float:
    """The VACUUM a run or undo queues after it (lore.vacuum), timed on its own: the worker's work after the run,
    not the run's. The bench's broker is in memory, so the queued task itself never runs."""
    started = time.perf_counter()
    lessons_vacuum()
    return round(time.perf_counter() - started, 2)


def archive_run_measure(ids: Identities) -> dict[str, object]:
    """Archive what the ~10% rule catches (a real PolicyRun, batched UPDATEs), then undo it, each followed by the
    VACUUM it queues; put the store back."""
    since = timezone.now()
    # What the run's task sets (policies.tasks), not what the scenarios' web requests left on this connection.
    set_statement_timeout(RUN_STATEMENT_TIMEOUT_MS)
    rule = rule_10pct()
    run = grooming.run_start(account=ids.account, rule=rule, trigger="cli", actor="bench")
    assert run is not None
    with RssSampler() as run_memory:
        started = time.perf_counter()
        run = grooming.run_execute(run.pk)
        run_seconds = time.perf_counter() - started
    vacuum_after_run = _vacuum_seconds()
    with RssSampler() as undo_memory:
        started = time.perf_counter()
        restored = grooming.run_undo(run, actor="bench")
        undo_seconds = time.perf_counter() - started
    vacuum_after_undo = _vacuum_seconds()
    bench_events_clear(ids.account, since)
    store_vacuum()
    return {
        "matched": run.matched,
        "archived": run.archived,
        "run_seconds": round(run_seconds, 2),
        "run_rows_per_s": round(run.archived / run_seconds) if run_seconds else None,
        "run_memory": run_memory.figures(),
        "restored": restored,
        "undo_seconds": round(undo_seconds, 2),
        "undo_rows_per_s": round(restored / undo_seconds) if undo_seconds else None,
        "undo_memory": undo_memory.figures(),
        "vacuum_after_run_seconds": vacuum_after_run,
        "vacuum_after_undo_seconds": vacuum_after_undo,
    }
