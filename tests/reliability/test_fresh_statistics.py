"""Issue 14, point 7: PostgreSQL's planner statistics are refreshed (ANALYZE) after a large import and after
seed_demo, so a cluster with autovacuum off does not plan a million lessons from an empty table's statistics."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.db import connection

from lore.models import Account
from lore.transfer import import_lines
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgres() -> None:
    require_postgres()


def analyze_count(table: str = "lore_lesson") -> int:
    """How many times `table` was ANALYZEd by hand (autovacuum's own runs are counted apart)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT analyze_count FROM pg_stat_user_tables WHERE relname = %s", [table])
        return int(cursor.fetchone()[0])


def lines(count: int, prefix: str) -> list[str]:
    return [json.dumps({"scope": "global", "key": f"{prefix}{i}", "content": "c"}) for i in range(count)]


def test_an_import_above_import_analyze_min_runs_analyze_and_a_smaller_one_does_not(
    account: Account,
    settings,  # noqa: ANN001
) -> None:
    settings.LORE_IMPORT_ANALYZE_MIN = 50
    before = analyze_count()
    import_lines(account, lines(49, "small-"))
    assert analyze_count() == before
    import_lines(account, lines(50, "large-"))
    assert analyze_count() == before + 1


def test_an_import_that_also_queues_a_vacuum_still_analyzes_the_tags_now(
    account: Account,
    settings,  # noqa: ANN001
) -> None:
    """The VACUUM (ANALYZE) a large import queues (lore.vacuum) covers the lessons only, and later."""
    settings.LORE_IMPORT_ANALYZE_MIN = 50
    settings.LORE_VACUUM_AFTER_ROWS = 50
    before = analyze_count("lore_lessontag")
    import_lines(account, lines(50, "large-"))
    assert analyze_count("lore_lessontag") == before + 1


def test_seed_demo_runs_analyze(account: Account) -> None:
    before = analyze_count()
    call_command("seed_demo", "--lessons", "50", "--account", "fresh-demo", verbosity=0)
    assert analyze_count() > before
