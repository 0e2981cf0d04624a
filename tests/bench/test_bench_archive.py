"""bench/archive.py: the archive and undo measured beside PostgreSQL's bare UPDATE of the same rows (issue 29), and
how the report judges them (no assertion on a time)."""

from __future__ import annotations

import pytest
from django.db.models import Q

from bench.archive import ARCHIVE_SET, RESTORE_SET, _bare_update, archive_run_measure
from bench.config import TARGETS_BY_KEY
from bench.report import runs_table, target_value
from bench.store import identities_ensure, store_ensure
from lore.models import Lesson, LessonEvent, LessonEventBatch
from lore.value_counts import page_counts
from tests.services import require_postgres


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_bare_updates_are_rolled_back_and_leave_the_kept_counts_as_they_were() -> None:
    require_postgres()
    account, _ = store_ensure(300, log=False)
    ids = list(
        Lesson.objects.filter(account=account, archived_at__isnull=True).values_list("pk", flat=True)[:50]
    )
    counts = sorted(page_counts(account.pk, Q()))

    archived = _bare_update(ids, ARCHIVE_SET, ["2026-01-01T00:00:00Z", None, "bench"])
    restored = _bare_update(ids, RESTORE_SET, [])

    assert archived.rows == restored.rows == 50
    assert archived.hot == 0 and archived.updated == 50  # archived_at is in index predicates: never HOT
    assert not Lesson.objects.filter(pk__in=ids, archived_at__isnull=False).exists()
    assert sorted(page_counts(account.pk, Q())) == counts


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_every_round_sets_the_run_and_the_undo_beside_their_bare_update_and_puts_the_store_back() -> None:
    require_postgres()
    account, _ = store_ensure(500, log=False)
    events = LessonEvent.objects.count(), LessonEventBatch.objects.count()

    result = archive_run_measure(identities_ensure(account), rounds=2)

    assert len(result["rounds"]) == 2
    for each in result["rounds"]:
        assert each["archive"]["rows"] == each["bare_archive"]["rows"] == each["undo"]["rows"] > 0
        assert each["bare_restore"]["rows"] == each["undo"]["rows"]
        assert each["archive"]["events_per_row"] == each["undo"]["events_per_row"] == 1.0
        assert each["archive"]["audit_rows"] == each["undo"]["audit_rows"] == 1  # one batch each (issue 29)
        assert each["archive_ratio"] is not None and each["undo_ratio"] is not None
    assert result["archive_ratio"] is not None and result["undo_ratio"] is not None
    assert not Lesson.objects.filter(account=account, archived_by_run__isnull=False).exists()
    assert (LessonEvent.objects.count(), LessonEventBatch.objects.count()) == events


def _archive_result(**run: object) -> dict[str, object]:
    return {"size": "1m", "tier": "1m", "scenarios": {}, "archive": run}


def test_the_archive_targets_are_the_ratios_to_the_bare_updates_with_the_rows_per_second_in_the_note() -> (
    None
):
    phase = {"rows": 1000, "rows_per_s": 800, "wal_bytes_per_row": 4000.0, "updated": 1000, "hot_updated": 0}
    run = {
        "rounds": [
            {
                "archive": {**phase, "events_per_row": 1.0},
                "bare_archive": {**phase, "rows_per_s": 1000, "events_per_row": 0.0},
                "undo": {**phase, "rows_per_s": 450, "events_per_row": 1.0},
                "bare_restore": {**phase, "rows_per_s": 500, "events_per_row": 0.0},
                "archive_ratio": 0.8,
                "undo_ratio": 0.9,
                "vacuum_after_run_seconds": 0.1,
                "vacuum_after_undo_seconds": 0.1,
                "run_memory": {"rss_growth_mb": 0.0},
            }
        ],
        "archived": 1000,
        "run_rows_per_s": 800,
        "undo_rows_per_s": 450,
        "bare_archive_rows_per_s": 1000,
        "bare_restore_rows_per_s": 500,
        "archive_ratio": 0.8,
        "undo_ratio": 0.9,
    }
    archive, note = target_value(TARGETS_BY_KEY["archive"], _archive_result(**run))
    undo, undo_note = target_value(TARGETS_BY_KEY["undo"], _archive_result(**run))

    assert (archive, undo) == (0.8, 0.9)
    assert TARGETS_BY_KEY["archive"].met(archive, "1m") and TARGETS_BY_KEY["undo"].met(undo, "1m")
    assert "800 rows/s vs bare archive UPDATE 1,000 rows/s" in note
    assert "450 rows/s vs bare restore UPDATE 500 rows/s" in undo_note
    (row,) = runs_table({"sizes": {"1m": _archive_result(**run)}})[2:]
    assert "| 0.80× |" in row and "| 0.90× |" in row


def test_results_from_before_the_ceiling_was_measured_are_not_judged() -> None:
    old = _archive_result(archived=98_502, run_rows_per_s=19_606, undo_rows_per_s=10_513)
    value, note = target_value(TARGETS_BY_KEY["archive"], old)
    assert value is None and "no ceiling" in note
