"""Reads without write amplification (issue 16): the read bump of a 50-lesson page, before and after buffering.

Two implementations of the same bump, measured in the same run on the same store, interleaved page by page:
- `in_place`: what the bump was before lore.reads — one UPDATE of the page's lessons (read_count + 1,
  last_read_at), rows locked in id order, and one ReadEvent (kept here, as it was, only to compare against);
- `buffered`: lore.services.lessons_deliver today — one INSERT of LessonRead rows and one ReadEvent.

Then, with autovacuum off on lore_lesson and the table freshly VACUUMed (every page all-visible), N pages of each
kind over random lessons: the share of lore_lesson's pages still all-visible (pg_visibility), which index-only
scans rely on. Last, the fold of what the buffered reads left: rows/s, the all-visible share after it, and after
the optional VACUUM that LORE_READS_FOLD_VACUUM runs. The lessons touched get their counters back at the end.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from django.db import connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bench.measure import percentile
from bench.store import Identities
from lore.models import Account, Lesson, LessonRead, ReadEvent
from lore.reads import reads_fold
from lore.services import lessons_deliver

PAGE = 50
SEED = 16


def _bump_in_place(account: Account, ids: list[int]) -> None:
    """The read bump before lore.reads (git history of lore.services.lessons_deliver), for comparison."""
    now = timezone.now()
    with transaction.atomic():
        locked = Lesson.objects.filter(account=account, pk__in=ids).order_by("pk").select_for_update()
        Lesson.objects.filter(pk__in=locked.values("pk")).update(
            read_count=F("read_count") + 1, last_read_at=now
        )
        ReadEvent.objects.create(
            account=account, scope="global", surface="api", lesson_count=len(ids), at=now
        )


def _bump_buffered(account: Account, ids: list[int]) -> None:
    lessons_deliver(account=account, lesson_ids=ids, scope="global", surface="api")


def _execute(sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchall() if cursor.description else []


def all_visible_share() -> float:
    """The share of lore_lesson's heap pages marked all-visible in its visibility map, 0–1."""
    _execute("CREATE EXTENSION IF NOT EXISTS pg_visibility")
    visible, pages = _execute(
        "SELECT count(*) FILTER (WHERE all_visible), count(*) FROM pg_visibility_map('lore_lesson')"
    )[0]
    return round(visible / pages, 4) if pages else 1.0


def _vacuum() -> None:
    _execute("VACUUM lore_lesson")


def _versions(ids: list[int]) -> dict[int, str]:
    return dict(_execute("SELECT id, xmin::text FROM lore_lesson WHERE id = ANY(%s)", [ids]))


def _writes_per_bump(
    account: Account, ids: list[int], bump: Callable[[Account, list[int]], None]
) -> dict[str, int]:
    """The write statements of one bump, and the lesson rows it gave a new version (xmin changed)."""
    before = _versions(ids)
    with CaptureQueriesContext(connection) as captured:
        bump(account, ids)
    after = _versions(ids)
    statements = [q for q in captured.captured_queries if q["sql"].startswith(("INSERT", "UPDATE"))]
    return {"statements": len(statements), "lesson_rows": sum(after[pk] != before[pk] for pk in before)}


def _timed(
    samples: list[float], bump: Callable[[Account, list[int]], None], account: Account, ids: list[int]
) -> None:
    started = time.perf_counter()
    bump(account, ids)
    samples.append((time.perf_counter() - started) * 1000)


def _summary(samples: list[float]) -> dict[str, float]:
    return {
        "n": len(samples),
        "median_ms": round(statistics.median(samples), 2),
        "p95_ms": round(percentile(samples, 95), 2),
    }


def reads_bench(ids: Identities, *, pages: int = 300) -> dict[str, Any]:
    """The read bump's p95 before/after, statements per page of 1/50/200, all-visible share after `pages` pages of
    reads of each kind, and the fold. PostgreSQL only."""
    if connection.vendor != "postgresql":
        return {"error": "PostgreSQL only"}
    account = ids.account
    all_ids = list(
        Lesson.objects.filter(account=account, archived_at__isnull=True).values_list("pk", flat=True)
    )
    rng = random.Random(SEED)
    plan = [rng.sample(all_ids, PAGE) for _ in range(pages)]
    touched = sorted({pk for page in plan for pk in page} | set(all_ids[:200]))
    saved = _execute(
        "SELECT id, read_count, last_read_at, opened_count, last_opened_at FROM lore_lesson WHERE id = ANY(%s)",
        [touched],
    )
    events_before = (
        ReadEvent.objects.filter(account=account).order_by("-pk").values_list("pk", flat=True).first()
    )
    reads_before = LessonRead.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    LessonRead.objects.filter(account=account).delete()  # a previous bench's leftovers
    result: dict[str, Any] = {"pages": pages, "page_size": PAGE}
    _execute("ALTER TABLE lore_lesson SET (autovacuum_enabled = false)")
    try:
        result["writes_per_page"] = {
            kind: {size: _writes_per_bump(account, all_ids[:size], bump) for size in (1, 50, 200)}
            for kind, bump in (("in_place", _bump_in_place), ("buffered", _bump_buffered))
        }
        # Interleaved latency: each page once in place and once buffered, alternating which goes first.
        in_place: list[float] = []
        buffered: list[float] = []
        for number, page in enumerate(plan):
            if number % 2:
                _timed(in_place, _bump_in_place, account, page)
                _timed(buffered, _bump_buffered, account, page)
            else:
                _timed(buffered, _bump_buffered, account, page)
                _timed(in_place, _bump_in_place, account, page)
        result["bump"] = {"in_place": _summary(in_place), "buffered": _summary(buffered)}
        # The visibility map after the same pages of each kind, from a VACUUMed table each time.
        _vacuum()
        start = all_visible_share()
        for page in plan:
            _bump_in_place(account, page)
        after_in_place = all_visible_share()
        _vacuum()
        LessonRead.objects.filter(account=account).delete()
        for page in plan:
            _bump_buffered(account, page)
        after_buffered = all_visible_share()
        buffered_rows = LessonRead.objects.filter(account=account).count()
        started = time.perf_counter()
        report = reads_fold()
        fold_seconds = time.perf_counter() - started
        after_fold = all_visible_share()
        started = time.perf_counter()
        _vacuum()
        vacuum_seconds = time.perf_counter() - started
        result["all_visible"] = {
            "vacuumed": start,
            "after_in_place": after_in_place,
            "after_buffered": after_buffered,
            "after_fold": after_fold,
            "after_fold_and_vacuum": all_visible_share(),
        }
        result["fold"] = {
            "rows": report.folded,
            "buffered_rows": buffered_rows,
            "seconds": round(fold_seconds, 3),
            "rows_per_s": round(report.folded / fold_seconds) if fold_seconds else None,
            "vacuum_seconds": round(vacuum_seconds, 3),
        }
    finally:
        _restore(saved)
        LessonRead.objects.filter(account=account, pk__gt=reads_before).delete()
        ReadEvent.objects.filter(account=account, pk__gt=events_before or 0).delete()
        _execute("ALTER TABLE lore_lesson RESET (autovacuum_enabled)")
        _vacuum()
    return result


def _restore(saved: list[tuple[Any, ...]]) -> None:
    """Put the touched lessons' counters back as they were before the bench."""
    if not saved:
        return
    columns = list(zip(*saved, strict=True))
    _execute(
        "UPDATE lore_lesson AS l SET read_count = s.read_count, last_read_at = s.last_read_at,"
        " opened_count = s.opened_count, last_opened_at = s.last_opened_at"
        " FROM unnest(%s::bigint[], %s::int[], %s::timestamptz[], %s::int[], %s::timestamptz[])"
        " AS s(id, read_count, last_read_at, opened_count, last_opened_at) WHERE l.id = s.id",
        [list(c) for c in columns],
    )
