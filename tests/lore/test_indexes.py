"""The lesson indexes serve the queries they were made for (PostgreSQL: plans, not timings; bench/ has those)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from lore.candidates import candidates
from lore.conditions import DimFilter, Rule
from lore.models import Lesson
from policies.models import PolicyRun
from tests.factories import LessonFactory
from tests.services import require_postgres

pytestmark = pytest.mark.django_db


def _plan(queryset) -> str:  # noqa: ANN001
    """The plan PostgreSQL picks when it must use an index if one can serve the query."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
    return queryset.explain()


def _lessons(account, n: int = 30) -> None:  # noqa: ANN001
    for i in range(n):
        LessonFactory(account=account, kind=["bus", "lesson", "todo"][i % 3], host=["aw", "codex"][i % 2])


def test_the_candidate_query_reads_only_the_covering_index(account) -> None:  # noqa: ANN001
    require_postgres()
    _lessons(account)
    rule = Rule(
        scope="global",
        conditions={"unseen_days": 90, "max_opened_count": 0},
        dimensions={"kind": DimFilter(("bus", "todo"), "in"), "host": DimFilter(("aw",), "nin")},
    )
    plan = _plan(candidates(account, rule).values("scope", "key"))
    assert "Index Only Scan using lesson_active_facts" in plan


def test_matrix_and_value_counts_group_inside_the_covering_index(account) -> None:  # noqa: ANN001
    require_postgres()
    _lessons(account)
    active = Lesson.objects.filter(account=account, archived_at__isnull=True)
    plan = _plan(active.values_list("host", "kind", "owner").order_by())
    assert "Index Only Scan using lesson_active_facts" in plan


def test_the_explorers_unfiltered_numbers_read_only_the_small_page_index(account) -> None:  # noqa: ANN001
    require_postgres()
    _lessons(account)
    active = Q(archived_at__isnull=True)
    # COUNT(account_id) (never NULL), not COUNT(id): the id is not in the index; reading it sends the scan to the table.
    numbers = (
        Lesson.objects.filter(account=account)
        .values_list("scope", "host", "kind")
        .annotate(
            lessons=Count("account", filter=active),
            protected=Count("account", filter=active & Q(protected=True)),
            archived=Count("account", filter=~active),
        )
        .order_by()
    )
    assert "Index Only Scan using lesson_page_counts" in _plan(numbers)


def test_undo_walks_a_runs_lessons_in_id_order_through_the_partial_run_index(account) -> None:  # noqa: ANN001
    require_postgres()
    run = PolicyRun.objects.create(account=account, trigger="cli", rule_snapshot={})
    _lessons(account)
    Lesson.objects.filter(account=account).update(archived_at=timezone.now(), archived_by_run=run)
    batch = Lesson.objects.filter(account=account, archived_by_run=run, archived_at__isnull=False).order_by(
        "pk"
    )
    assert "using lesson_archived_by_run" in _plan(batch.values_list("pk", flat=True)[:2000])


def test_no_index_holds_the_read_counters_so_a_read_bump_stays_a_hot_update(account) -> None:  # noqa: ANN001
    require_postgres()
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'lore_lesson'")
        definitions = [row[0] for row in cursor.fetchall()]
    assert definitions
    assert not [d for d in definitions if "read_count" in d or "last_read_at" in d]
