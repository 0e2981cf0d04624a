"""Issue 16 #29: the preview's statements run without parallel workers, and the setting comes back afterwards,
in autocommit and inside a caller's transaction (PostgreSQL; a plan test, no timings)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from lore.rules.rule import Rule
from lore.serial import SETTING, without_parallel_workers
from policies import grooming
from tests.factories import LessonFactory
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgres() -> None:
    require_postgres()


def _workers() -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SHOW {SETTING}")
        return str(cursor.fetchone()[0])


def test_statements_inside_run_serially_and_the_setting_comes_back() -> None:
    before = _workers()
    assert before != "0"
    with without_parallel_workers():
        assert _workers() == "0"
    assert _workers() == before


def test_the_setting_comes_back_inside_a_callers_transaction() -> None:
    before = _workers()
    with transaction.atomic():
        with without_parallel_workers():
            assert _workers() == "0"
        assert _workers() == before  # the rest of the caller's transaction keeps its parallel plans


def test_the_previews_count_and_keys_are_read_without_parallel_workers(account) -> None:  # noqa: ANN001
    LessonFactory.create_batch(3, account=account, kind="bus", opened_count=0)
    rule = Rule(conditions={"max_opened_count": 0}, dimensions={})
    with CaptureQueriesContext(connection) as queries:
        found = grooming.preview(account, rule, keys_limit=2)
    assert found.count == 3 and len(found.keys) == 2
    sql = [q["sql"] for q in queries.captured_queries]
    serial_from = next(i for i, s in enumerate(sql) if "set_config" in s and "'0'" in s)
    restored_at = max(i for i, s in enumerate(sql) if "set_config" in s)
    reads = [i for i, s in enumerate(sql) if 'FROM "lore_lesson"' in s]
    assert reads and all(serial_from < i < restored_at for i in reads)


def test_a_statement_timeout_inside_still_answers_as_a_timeout() -> None:
    """The error of a statement in the block is the one the caller sees (a timeout becomes a 503), not a failed
    reset in an aborted transaction."""
    from django.db import OperationalError

    from lore.timeouts import is_statement_timeout

    with pytest.raises(OperationalError) as caught:
        with without_parallel_workers(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 50")
            cursor.execute("SELECT pg_sleep(1)")
    assert is_statement_timeout(caught.value)
    assert _workers() != "0"


def _setting(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SHOW {name}")
        return str(cursor.fetchone()[0])


def test_serially_without_jit_sets_both_in_one_round_trip_and_puts_both_back() -> None:
    from lore.serial import serially_without_jit

    before = (_workers(), _setting("jit"))
    with transaction.atomic():
        with CaptureQueriesContext(connection) as queries, serially_without_jit():
            assert (_workers(), _setting("jit")) == ("0", "off")
        setting = [q["sql"] for q in queries.captured_queries if "set_config" in q["sql"]]
        assert len(setting) == 2  # one to set both, one to put both back
        assert (_workers(), _setting("jit")) == before
