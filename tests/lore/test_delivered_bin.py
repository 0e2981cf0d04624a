"""Delivered's stored bin (`Lesson.delivered_bin`): the database keeps each lesson's bin of the histogram's edges,
carried by the covering index, so the Delivered section of a filtered view counts from the index alone while a
read that stays inside its bin remains a HOT update (issue 28)."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models import F
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from explorer.queries import condition_base, condition_distribution
from explorer.state import ExplorerState
from lore.bins import bin_edges
from lore.candidates import candidates
from lore.conditions import CONDITIONS_BY_KEY, PARAMS, DimFilter
from lore.models import DELIVERED_BIN_EDGES, Lesson
from lore.reads import reads_settle
from lore.rules.rule import Rule
from lore.services import lessons_deliver
from tests.services import require_postgres

pytestmark = pytest.mark.django_db(transaction=True)

DELIVERED = CONDITIONS_BY_KEY["delivered"]
KEYS = itertools.count()
# Every edge, a value either side of it, and values far past the last.
VALUES = sorted({v for e in DELIVERED_BIN_EDGES for v in (e - 1, e, e + 1) if v >= 0} | {250_000, 4_000_000})


def _bin(value: int) -> int:
    return sum(1 for edge in DELIVERED_BIN_EDGES if edge < value)


def _lessons(account, values, **fields) -> list[Lesson]:  # noqa: ANN001
    now = timezone.now()
    return Lesson.objects.bulk_create(
        Lesson(
            account=account,
            scope="repo::acme/app",
            key=f"lesson-{next(KEYS)}",
            content="x",
            kind=fields.get("kind", "bus"),
            host=fields.get("host", "claude-code"),
            read_count=v,
            created_at=now - timedelta(days=fields.get("age", 200)),
            updated_at=now,
        )
        for v in values
    )


def test_the_stored_bins_are_cut_at_the_edges_the_delivered_histogram_draws() -> None:
    assert DELIVERED_BIN_EDGES == bin_edges(DELIVERED)
    assert DELIVERED.stored_bin is not None
    assert (DELIVERED.stored_bin.column, DELIVERED.stored_bin.edges) == ("delivered_bin", DELIVERED_BIN_EDGES)


def test_every_lesson_carries_the_bin_of_its_delivered_count_and_a_read_moves_it_across_an_edge(
    account,  # noqa: ANN001
) -> None:
    _lessons(account, VALUES)
    stored = dict(Lesson.objects.filter(account=account).values_list("read_count", "delivered_bin"))
    assert stored == {v: _bin(v) for v in VALUES}
    Lesson.objects.filter(account=account).update(read_count=F("read_count") + 1)  # the fold's own increment
    stored = dict(Lesson.objects.filter(account=account).values_list("read_count", "delivered_bin"))
    assert stored == {v + 1: _bin(v + 1) for v in VALUES}


def test_buffered_reads_folded_into_a_lesson_move_its_bin(account) -> None:  # noqa: ANN001
    (lesson,) = _lessons(account, [2])
    for _ in range(2):
        lessons_deliver(account=account, lesson_ids=[lesson.pk], scope=lesson.scope, surface="api")
    reads_settle(account)
    lesson.refresh_from_db()
    assert (lesson.read_count, lesson.delivered_bin) == (4, _bin(4)) and _bin(4) == _bin(2) + 1


@pytest.mark.parametrize("typed", [[], [4], [40, 250], [0, 1, 99_999, 100_000], [7, 77, 777, 7_777, 77_777]])
def test_delivered_in_a_filtered_view_splits_exactly_at_every_edge_and_typed_value(account, typed) -> None:  # noqa: ANN001
    """Values typed inside a stored bin are counted from the counter, the rest from the bins: each side of every
    edge holds exactly the lessons in view whose Delivered is at most (or above) it."""
    _lessons(account, VALUES * 2, kind="bus")
    _lessons(account, VALUES[::3], kind="lesson")  # out of view
    _lessons(account, VALUES[1::4], kind="bus", age=10)  # out of view: too young
    now = timezone.now()
    state = ExplorerState.from_query(QueryDict("retention=min_age_days:90&kind=bus"))
    dist = condition_distribution(account, state, DELIVERED, now=now, extra=typed)
    in_view = list(condition_base(account, state, DELIVERED, now=now).values_list("read_count", flat=True))
    assert sorted(in_view) == sorted(VALUES * 2)
    for value in [*DELIVERED_BIN_EDGES, *typed]:
        assert dist.kept(PARAMS["max_read_count"], value) == sum(1 for v in in_view if v <= value), value
        assert dist.kept(PARAMS["min_read_count"], value + 1) == sum(1 for v in in_view if v > value), value
    assert dist.total == len(in_view)


def test_a_delivered_condition_selects_exactly_the_lessons_its_counter_does_at_every_edge_and_between(
    account,  # noqa: ANN001
) -> None:
    """A rule's, a preview's and a filtered count's Delivered predicate (`Param.q`) compares the stored bin and,
    off an edge, the counter too: each direction keeps exactly the lessons whose counter is on its side."""
    _lessons(account, VALUES)
    now = timezone.now()
    lessons = Lesson.objects.filter(account=account)
    for value in [*VALUES, 2, 26, 150, 7_777, 99_998]:
        if value <= 100_000:  # the registry's bounds
            at_most = lessons.filter(PARAMS["max_read_count"].q(value, now)).values_list(
                "read_count", flat=True
            )
            assert sorted(at_most) == [v for v in VALUES if v <= value], value
        if 1 <= value <= 100_000:
            at_least = lessons.filter(PARAMS["min_read_count"].q(value, now)).values_list(
                "read_count", flat=True
            )
            assert sorted(at_least) == [v for v in VALUES if v >= value], value


def test_at_a_preset_the_delivered_condition_is_the_stored_bin_alone_and_between_edges_it_keeps_the_counter() -> (
    None
):
    now = timezone.now()
    for name, presets in (
        ("max_read_count", DELIVERED.retention_presets),
        ("min_read_count", DELIVERED.reverse_presets),
    ):
        for value in presets:
            assert "read_count" not in str(PARAMS[name].q(value, now)), (name, value)
        assert "read_count" in str(PARAMS[name].q(26, now)), name


def _plan(sql: str, params) -> str:  # noqa: ANN001
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_the_filtered_delivered_section_reads_the_covering_index_only_unless_a_value_splits_a_stored_bin(
    account,  # noqa: ANN001
) -> None:
    require_postgres()
    _lessons(account, VALUES * 4)
    for kind, host in itertools.product(["lesson", "todo", "gotcha", "bus"], ["aw", "codex", "claude-code"]):
        _lessons(account, VALUES * 4, kind=kind, host=host, age=30)  # out of view: another kind, host or age
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE lore_lesson")
    state = ExplorerState.from_query(
        QueryDict("retention=min_age_days:90,max_opened_count:0&kind=bus&host=claude-code")
    )
    for typed, heap in (([], False), ([50, 500], False), ([26], True)):
        with CaptureQueriesContext(connection) as captured:
            condition_distribution(account, state, DELIVERED, now=timezone.now(), extra=typed)
        (query,) = captured.captured_queries
        plan = _plan(query["sql"], None)
        assert "Index Only Scan using lesson_active_facts" in plan, plan
        assert ("Index Scan using" in plan or "Seq Scan" in plan) == heap, plan


def _hot_updates() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = 'lore_lesson'")
        return int(cursor.fetchone()[0])


def test_a_read_that_stays_inside_its_bin_is_a_hot_update_and_one_that_crosses_an_edge_is_not(
    account,  # noqa: ANN001
) -> None:
    require_postgres()
    inside, crossing = _lessons(account, [10, 30])
    with transaction.atomic():
        before = _hot_updates()
        Lesson.objects.filter(pk=inside.pk).update(read_count=F("read_count") + 5)  # 10 → 15: bin (9, 30]
        assert _hot_updates() == before + 1
        Lesson.objects.filter(pk=crossing.pk).update(read_count=F("read_count") + 1)  # 30 → 31: next bin
        assert _hot_updates() == before + 1


def test_a_rule_with_delivered_at_a_preset_finds_its_candidates_in_the_covering_index_alone(
    account,  # noqa: ANN001
) -> None:
    """The candidate query (preview count and keys, the run's ids) of a rule with a Delivered condition on a stored
    edge never reads the table; a value inside a bin does."""
    require_postgres()
    _lessons(account, VALUES * 4)
    for kind, host in itertools.product(["lesson", "todo", "gotcha", "bus"], ["aw", "codex", "claude-code"]):
        _lessons(account, VALUES * 4, kind=kind, host=host, age=30)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE lore_lesson")
    now = timezone.now()
    bus = {"kind": DimFilter(("bus",), "in")}
    for conditions, heap in (
        ({"max_read_count": 50, "min_age_days": 90}, False),
        ({"max_read_count": 500}, False),
        ({"min_read_count": 10, "min_age_days": 90}, False),
        ({"max_read_count": 26, "min_age_days": 90}, True),
    ):
        pending = candidates(account, Rule(scope="global", conditions=conditions, dimensions=bus), now=now)
        sql, params = pending.order_by().values("pk").query.sql_with_params()
        plan = _plan(f"SELECT count(*) FROM ({sql}) AS candidates", params)
        assert ("Index Only Scan using lesson_active_facts" in plan) != heap, (conditions, plan)
        assert ("Index Scan using" in plan or "Seq Scan" in plan) == heap, (conditions, plan)
