"""The lesson indexes serve the queries they were made for (PostgreSQL: plans, not timings; bench/ has those)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models import Count, Q
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import explorer.queries
from explorer.queries import cards_and_matrix
from explorer.state import ExplorerState
from lore.candidates import candidates
from lore.conditions import DIMENSIONS, PARAMS, DimFilter
from lore.decay import DECAY_INPUTS
from lore.models import Lesson
from lore.rules.rule import Rule
from lore.selectors import lessons_filtered, text_search_q
from policies.models import PolicyRun
from tests.services import require_postgres

# Committed rows, so that VACUUM can set the visibility map an index-only scan relies on.
pytestmark = pytest.mark.django_db(transaction=True)


def _plan(queryset) -> str:  # noqa: ANN001
    """The plan PostgreSQL picks when it must use an index if one can serve the query."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        return queryset.explain()


def _lessons(account, n: int = 600) -> None:  # noqa: ANN001
    """Enough lessons, with fresh statistics, for the planner's choice between indexes to be meaningful."""
    now = timezone.now()
    Lesson.objects.bulk_create(
        Lesson(
            account=account,
            scope="repo::acme/app",
            key=f"lesson-{i}",
            content="x",
            kind=["bus", "lesson", "todo", "decision", "gotcha", "preference", "convention"][i % 7],
            host=["aw", "codex", "claude-code"][i % 3],
            created_at=now - timedelta(days=i % 700),
            updated_at=now,
        )
        for i in range(n)
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE lore_lesson")


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
    assert "Index Cond: ((account_id = " in plan and "kind" in plan.split("Filter")[0]


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


def test_the_cards_and_matrix_group_their_keys_in_the_order_the_counting_index_stores_them() -> None:
    from explorer.queries import _group_by

    keys = {"scope": "scope", "r": "host", "c": "kind"}
    assert _group_by("lesson_page_counts", keys) == "scope, r, c"
    assert _group_by("lesson_active_facts", keys) == "c, r, scope"
    assert _group_by("lesson_page_counts", {"scope": "scope", "r": "trigger", "c": "kind"}) == "scope, c, r"


def test_the_unfiltered_page_groups_its_counts_as_the_page_index_streams_them_without_sorting(
    account, monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    """PostgreSQL 15 groups in the order written: in the index's order the pass is grouped as it streams. (The
    unfiltered page reads the kept page counts, lore.value_counts; this is the pass it runs without them.)"""
    require_postgres()
    _lessons(account)
    state = ExplorerState.from_query(QueryDict(""))
    monkeypatch.setattr(explorer.queries, "maintained", lambda: False)
    with CaptureQueriesContext(connection) as queries:
        cards_and_matrix(account, state, now=timezone.now())
    counting = next(q["sql"] for q in queries.captured_queries if "GROUP BY" in q["sql"])
    with transaction.atomic(), connection.cursor() as cursor:
        for setting in ("enable_seqscan", "enable_bitmapscan", "enable_hashagg"):
            cursor.execute(f"SET LOCAL {setting} = off")
        cursor.execute("EXPLAIN " + counting)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Only Scan using lesson_page_counts" in plan
    assert "GroupAggregate" in plan and "Sort" not in plan


def test_undo_walks_a_runs_lessons_in_id_order_through_the_partial_run_index(account) -> None:  # noqa: ANN001
    require_postgres()
    _lessons(account)
    run = PolicyRun.objects.create(account=account, trigger="cli", rule_snapshot={})
    Lesson.objects.filter(account=account, kind="bus").update(archived_at=timezone.now(), archived_by_run=run)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE lore_lesson")
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


def test_the_covering_index_carries_every_column_a_rule_can_filter_on_but_the_read_counter() -> None:
    """Adding a condition or dimension to the registry must come with its column in lesson_active_facts."""
    facts = next(i for i in Lesson._meta.indexes if i.name == "lesson_active_facts")
    carried = {Lesson._meta.get_field(f).column for f in (*facts.fields, *facts.include)}
    wanted = {
        Lesson._meta.get_field(p.condition.field).column
        for p in PARAMS.values()
        if p.condition.unit != "score"
    }
    wanted |= set(DECAY_INPUTS)  # the decay score is computed from these
    wanted |= {"created_at"}  # unseen_days falls back to it
    wanted |= {Lesson._meta.get_field(d.field).column for d in DIMENSIONS if not d.is_tags}
    wanted |= {"scope", "key", "protected"}
    assert wanted - carried == {"read_count"}


def test_searching_active_lessons_uses_the_full_text_index_and_archived_ones_are_still_found(account) -> None:  # noqa: ANN001
    require_postgres()
    _lessons(account)
    Lesson.objects.filter(account=account, key="lesson-7").update(archived_at=timezone.now(), content="zebra")
    Lesson.objects.filter(account=account, key="lesson-8").update(content="zebra")
    # The search as one predicate (a common word's reading; a rare word's is in test_search_plan).
    active = Lesson.objects.filter(account=account, archived_at__isnull=True).filter(text_search_q("zebra"))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # GIN is read through a bitmap scan
        assert "Bitmap Index Scan on lesson_search" in active.values("pk").explain()
    assert list(active.values_list("key", flat=True)) == ["lesson-8"]
    assert list(lessons_filtered(account, Rule(), q="zebra").values_list("key", flat=True)) == ["lesson-8"]
    archived = lessons_filtered(account, Rule(), q="zebra", archived=True)
    assert list(archived.values_list("key", flat=True)) == ["lesson-7"]


@pytest.mark.parametrize(
    ("sort", "archived", "index"),
    [
        ("newest", False, "lesson_active_newest"),
        ("opened_count", False, "lesson_active_chosen"),
        ("updated", False, "lesson_active_updated"),
        ("archived", True, "lesson_archived_recent"),
    ],
)
def test_every_list_order_reads_its_own_index_and_stops_after_a_page(account, sort, archived, index) -> None:  # noqa: ANN001
    require_postgres()
    _lessons(account)
    if archived:
        Lesson.objects.filter(account=account, kind="bus").update(archived_at=timezone.now())
    from lore.selectors import KEYSETS

    field = KEYSETS[sort][0]
    page = lessons_filtered(account, Rule(), archived=archived).order_by(f"-{field}", "-pk")[:51]
    plan = _plan(page)
    assert f"Index Scan using {index}" in plan and "Sort" not in plan.split("Index Scan")[0]


def test_the_decisions_a_run_respects_are_found_by_their_own_index_not_the_event_log(account) -> None:  # noqa: ANN001
    require_postgres()
    from lore.models import DECISIONS_A_RUN_RESPECTS, LessonEvent

    plan = _plan(LessonEvent.objects.filter(action__in=DECISIONS_A_RUN_RESPECTS, at__gt=timezone.now()))
    assert "lessonevent_decision_at" in plan


def test_the_explorers_filtered_counts_read_the_active_lessons_from_the_covering_index_only(account) -> None:  # noqa: ANN001
    require_postgres()
    _lessons(account)
    state = ExplorerState.from_query(
        QueryDict("retention=min_age_days:90,max_opened_count:0&kind=bus&host=aw")
    )
    with CaptureQueriesContext(connection) as captured:
        cards, _ = cards_and_matrix(account, state, now=timezone.now())
    (counting,) = [q["sql"] for q in captured.captured_queries if "GROUP BY" in q["sql"]]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        cursor.execute("EXPLAIN " + counting)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Only Scan using lesson_active_facts" in plan
    assert cards.lessons == candidates(account, state.rule).count() > 0
