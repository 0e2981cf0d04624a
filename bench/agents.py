"""Agent load (issue 16): N agents at once against a real gunicorn, each cycling list → search → read over HTTP,
and the Explorer page's p95 measured on that same server idle and then under that load.

An agent here never thinks between calls (a closed loop): the heaviest load N agents can make. A statement over
the web statement timeout answers 503; those are counted as errors, never timed, and so is any other non-200.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.config import AGENT_CYCLES, AGENTS
from bench.measure import percentile
from bench.scenarios import Context, Scenario
from bench.webproc import gunicorn_serving, http_client, http_once
from lore import demo

# What the production image runs (Dockerfile, docker-compose.yml).
WEB_WORKERS = 3
IDLE_SAMPLES = 20
# Words the demo store's lessons carry (their topics' slugs): an agent searching for what it wrote. A word no lesson
# carries is another scenario: at 1M it walks the newest-first index to the end (see bench/RESULTS.md).
SEARCH_WORDS = tuple(sorted({w for slug, _ in demo.TOPICS for w in slug.split("-") if len(w) >= 5}))
LIST_LIMIT = 50


@dataclass
class Tally:
    """What one kind of request did: the times of its 200s, and how many answered what."""

    samples_ms: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, response: httpx.Response, ms: float) -> bool:
        with self.lock:
            self.statuses[response.status_code] += 1
            if response.status_code == 200:
                self.samples_ms.append(ms)
        return response.status_code == 200

    def summary(self) -> dict[str, Any]:
        return {
            "ok": len(self.samples_ms),
            "errors_503": self.statuses[503],
            "errors_other": sum(n for code, n in self.statuses.items() if code not in (200, 503)),
            **_times(self.samples_ms),
        }


def _times(samples: list[float]) -> dict[str, float | None]:
    if not samples:
        return {"median_ms": None, "p95_ms": None}
    return {"median_ms": round(statistics.median(samples), 1), "p95_ms": round(percentile(samples, 95), 1)}


def _timed(tally: Tally, client: httpx.Client, method: str, url: str, **kwargs: Any) -> httpx.Response:
    started = time.perf_counter()
    response = client.request(method, url, **kwargs)
    tally.record(response, (time.perf_counter() - started) * 1000)
    return response


def _agent(client: httpx.Client, cycles: int, seed: int, tallies: dict[str, Tally]) -> None:
    """One agent: a filtered list page, a search, then a read of one lesson the list gave, `cycles` times."""
    rng = random.Random(seed)
    kinds = [kind for kind, _ in demo.KINDS]
    for _ in range(cycles):
        listing = {"limit": LIST_LIMIT, "kind": rng.choice(kinds)}
        listed = _timed(tallies["list"], client, "GET", "/api/v1/memories", params=listing)
        words = {"query": rng.choice(SEARCH_WORDS), "limit": 20}
        _timed(tallies["search"], client, "POST", "/api/v1/memories/search", json=words)
        items = listed.json().get("items", []) if listed.status_code == 200 else []
        if items:
            item = rng.choice(items)
            address = {"scope": item["scope"], "key": item["key"]}
            _timed(tallies["read"], client, "POST", "/api/v1/memories/read", json=address)


def _explorer_samples(client: httpx.Client, page: Scenario, tally: Tally, *, until: Any, least: int) -> None:  # noqa: ANN401
    """The Explorer page, one request after another, until `until()` and at least `least` times."""
    while sum(tally.statuses.values()) < least or not until():
        started = time.perf_counter()
        response = http_once(client, page)
        if response.status_code == 200 and page.expect and page.expect not in response.text:
            raise RuntimeError(f"{page.path} over HTTP does not contain {page.expect!r}")
        tally.record(response, (time.perf_counter() - started) * 1000)


def agent_load_measure(
    ctx: Context,
    page: Scenario,
    *,
    agents: int = AGENTS,
    cycles: int = AGENT_CYCLES,
    workers: int = WEB_WORKERS,
) -> dict[str, Any]:
    """Idle Explorer p95, then `agents` agents × `cycles` cycles with the Explorer page timed alongside."""
    with gunicorn_serving(workers) as (base, _):
        explorer = http_client(base, ctx, page.who)
        idle = Tally()
        _explorer_samples(explorer, page, idle, until=lambda: True, least=IDLE_SAMPLES)
        tallies = {kind: Tally() for kind in ("list", "search", "read")}
        clients = [http_client(base, ctx, "token") for _ in range(agents)]
        threads = [
            threading.Thread(target=_agent, args=(client, cycles, number, tallies), daemon=True)
            for number, client in enumerate(clients)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        loaded = Tally()
        _explorer_samples(
            explorer, page, loaded, until=lambda: not any(t.is_alive() for t in threads), least=IDLE_SAMPLES
        )
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
    every = [ms for tally in tallies.values() for ms in tally.samples_ms]
    answered = sum(sum(t.statuses.values()) for t in tallies.values())
    idle_p95, loaded_p95 = _times(idle.samples_ms)["p95_ms"], _times(loaded.samples_ms)["p95_ms"]
    return {
        "agents": agents,
        "cycles": cycles,
        "web_workers": workers,
        "seconds": round(seconds, 1),
        "requests": answered,
        "requests_per_s": round(len(every) / seconds, 1) if seconds else None,
        "errors_503": sum(t.statuses[503] for t in tallies.values()),
        "errors_other": sum(t.summary()["errors_other"] for t in tallies.values()),
        **_times(every),
        "by_kind": {kind: tally.summary() for kind, tally in tallies.items()},
        "explorer_path": page.path,
        "explorer_idle": idle.summary(),
        "explorer_loaded": loaded.summary(),
        "explorer_ratio_p95": round(loaded_p95 / idle_p95, 2) if idle_p95 and loaded_p95 else None,
    }
