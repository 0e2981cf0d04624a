"""Statements that PostgreSQL runs without parallel workers.

A parallel plan pays to start its workers and to gather their rows, and on a small server its workers compete
with the web processes for the same cores. The preview's exact count at 1M on 2 cores lost with them: 83–118 ms
with two workers against 53–84 ms alone, on an index grown by grooming runs; over the API, in two alternating
pairs of 12-round runs beside the admin and the Explorer, 180 / 223 and 196 / 233 ms median / p95 with workers,
111 / 133 and 112 / 144 without (bench/RESULTS.md, issue 16 #29). A whole-server price for workers was tried
and not kept (#25: the unfiltered menu needed its workers then); this is per statement.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from django.db import connection, transaction

SETTING = "max_parallel_workers_per_gather"


@contextmanager
def with_settings(**values: str) -> Iterator[None]:
    """The statements run inside run with these PostgreSQL settings (elsewhere nothing changes), all set in one
    round trip and put back when the block ends, also inside a caller's transaction."""
    if connection.vendor != "postgresql":
        yield
        return
    names = list(values)
    with transaction.atomic(), connection.cursor() as cursor:
        setting = ", ".join("current_setting(%s), set_config(%s, %s, true)" for _ in names)
        cursor.execute(f"SELECT {setting}", [p for n in names for p in (n, n, values[n])])
        previous = cursor.fetchone()[0::2]
        yield  # on an error (a statement timeout) the block rolls back, and the settings with it
        putting_back = ", ".join("set_config(%s, %s, true)" for _ in names)
        cursor.execute(
            f"SELECT {putting_back}", [p for n, v in zip(names, previous, strict=True) for p in (n, v)]
        )


def without_parallel_workers() -> AbstractContextManager[None]:
    """The statements run inside run serially."""
    return with_settings(**{SETTING: "0"})


def serially_without_jit() -> AbstractContextManager[None]:
    """The statements run inside run serially and are never compiled: the planner sizes a statement over a few
    thousand kept rows by its guesses, and compiling one it guesses large costs more than running it (the kept
    decay cells at 1M run in ~40 ms; JIT starts at a guessed cost the same statement reaches at 10M)."""
    return with_settings(**{SETTING: "0", "jit": "off"})
