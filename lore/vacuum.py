"""The lessons' visibility map after a bulk change.

Every count the Explorer, the filter menu and a preview make is an index-only scan of `lesson_active_facts`, which
skips the table only for pages the visibility map marks all-visible. An UPDATE or DELETE clears that mark on every
page it touches, and an archive run, its undo, a purge or a large import touches nearly every page: the ~10% rule's
preview count at 1M went from 63 to 615 ms (256,658 heap fetches) after one archive and undo, and at 10M to 36 s
(docs/scaling.md). A plain VACUUM sets the marks again (4.3 s at 1M). Autovacuum would, but only once 20% of the
table has changed (its default scale factor), so a run that archives 10% never gets one.

So a change of at least VACUUM_AFTER_ROWS lessons queues one `VACUUM (ANALYZE)` of the lessons after it commits
(`lessons_vacuum_soon`); the task runs one at a time (a session advisory lock: a second one finds it held and
returns at once, since the first one's VACUUM covers its pages too), in autocommit (VACUUM cannot run inside a
transaction), bounded by VACUUM_TIME_LIMIT. PostgreSQL only: SQLite has no visibility map.
"""

from __future__ import annotations

import logging
import time

from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper

from lore.limits import VACUUM_AFTER_ROWS, VACUUM_TIME_LIMIT
from lore.models import Lesson

log = logging.getLogger(__name__)

_VACUUM_LOCK = 0x4C566163  # "LVac": one VACUUM of the lessons at a time


def lessons_vacuum_soon(changed: int) -> bool:
    """After this transaction commits, queue a VACUUM of the lessons when `changed` lessons reach
    VACUUM_AFTER_ROWS (PostgreSQL). Answers whether one was queued."""
    if connection.vendor != "postgresql" or changed < VACUUM_AFTER_ROWS.value:
        return False
    from lore.tasks import lessons_vacuum_task  # lore.tasks imports the services that call this

    transaction.on_commit(lessons_vacuum_task.delay)
    return True


def _wal_flushed(cursor: CursorWrapper, *, within: float = 2.0) -> None:
    """Wait (up to `within` seconds) until the WAL written so far is on disk. Archive and restore batches commit
    without waiting for it (lore.services._BULK_BATCH), and VACUUM marks a page all-visible only once the commits
    of its rows are flushed (it may not set their hint bits before): right after an undo it left a third of a
    test's pages unmarked. PostgreSQL's WAL writer flushes them within a few wal_writer_delay (200 ms by default)."""
    cursor.execute("SELECT pg_current_wal_insert_lsn()")
    written = cursor.fetchone()[0]
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        cursor.execute("SELECT pg_current_wal_flush_lsn() >= %s::pg_lsn", [written])
        if cursor.fetchone()[0]:
            return
        time.sleep(0.01)


def lessons_vacuum(*, analyze: bool = True) -> bool:
    """VACUUM the lessons now (with ANALYZE unless told not to), unless another one is running. Needs autocommit
    (not inside a transaction). Answers whether it ran."""
    if connection.vendor != "postgresql":
        return False
    if not connection.get_autocommit() or connection.in_atomic_block:
        log.warning("lessons_vacuum called inside a transaction; skipped (VACUUM cannot run in one)")
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [_VACUUM_LOCK])
        if not cursor.fetchone()[0]:
            return False
        cursor.execute("SELECT current_setting('statement_timeout')")
        timeout_before = cursor.fetchone()[0]
        try:
            cursor.execute(
                "SELECT set_config('statement_timeout', %s, false)", [str(VACUUM_TIME_LIMIT.value * 1000)]
            )
            _wal_flushed(cursor)
            cursor.execute(f"VACUUM{' (ANALYZE)' if analyze else ''} {Lesson._meta.db_table}")
        finally:
            cursor.execute("SELECT set_config('statement_timeout', %s, false)", [timeout_before])
            cursor.execute("SELECT pg_advisory_unlock(%s)", [_VACUUM_LOCK])
    return True
