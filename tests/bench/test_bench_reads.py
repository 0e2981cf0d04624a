"""bench/reads.py on a tiny PostgreSQL store: the figures it reports can tell the two bumps apart, and it leaves
the store as it found it (no assertion on a time)."""

from __future__ import annotations

import pytest

from bench.reads import reads_bench
from bench.store import identities_ensure, store_ensure
from lore.models import Lesson, LessonRead
from tests.services import require_postgres

COUNTERS = ("pk", "read_count", "last_read_at", "opened_count", "last_opened_at")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_reads_bench_sees_in_place_bumps_clear_the_visibility_map_and_buffered_ones_not() -> None:
    require_postgres()
    account, _ = store_ensure(500, log=False)
    before = list(Lesson.objects.filter(account=account).order_by("pk").values_list(*COUNTERS))
    result = reads_bench(identities_ensure(account), pages=20)
    writes = result["writes_per_page"]
    assert [w["lesson_rows"] for w in writes["in_place"].values()] == [1, 50, 200]
    assert [w["lesson_rows"] for w in writes["buffered"].values()] == [0, 0, 0]
    assert len({w["statements"] for w in writes["buffered"].values()}) == 1
    visible = result["all_visible"]
    assert visible["after_buffered"] == visible["vacuumed"] == 1.0
    assert visible["after_in_place"] < 1.0 and visible["after_fold"] < 1.0
    assert visible["after_fold_and_vacuum"] == 1.0
    assert result["fold"]["rows"] == result["fold"]["buffered_rows"] == 20 * 50
    assert list(Lesson.objects.filter(account=account).order_by("pk").values_list(*COUNTERS)) == before
    assert not LessonRead.objects.exists()
