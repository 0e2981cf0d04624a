"""The bins of a condition's histogram (lore.bins, issue 28 part 1): edges derived from the registry, a log scale
where values span decades, one GROUP BY, and a split on an edge that counts exactly what the preset counts count.
Runs on SQLite, and on PostgreSQL with DATABASE_URL set."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.http import QueryDict
from django.utils import timezone

from explorer.queries import condition_base, condition_choice_counts, condition_distribution
from explorer.state import ExplorerState
from lore.bins import Distribution, bin_edges, split_at
from lore.conditions import CONDITIONS, CONDITIONS_BY_KEY, PARAMS
from lore.demo import demo_store_create
from lore.models import Lesson

pytestmark = pytest.mark.django_db

VIEWS = ["", "kind=lesson&host=codex", "retention=min_age_days:30,min_opened_count:1", "archived=1"]


def every_choice(cond) -> list[tuple[str, int]]:  # noqa: ANN001
    """The presets of both directions and a few values off them."""
    out = [(cond.retention, v) for v in cond.retention_presets]
    out += [(cond.reverse, v) for v in cond.reverse_presets] if cond.reverse else []
    return out


def test_the_edges_hold_every_preset_of_both_directions_as_a_split() -> None:
    for cond in CONDITIONS:
        edges = bin_edges(cond)
        for name, value in every_choice(cond):
            assert split_at(PARAMS[name], value) in edges, (cond.key, name, value)
        assert list(edges) == sorted(set(edges))


def test_days_and_counters_are_cut_on_a_log_scale_and_the_score_in_even_steps() -> None:
    for key in ("created", "last_open", "recurrence", "delivered", "chosen"):
        edges = [e for e in bin_edges(CONDITIONS_BY_KEY[key]) if e > 0]
        low, high = PARAMS[CONDITIONS_BY_KEY[key].retention].bounds
        assert edges[-1] >= high / 5 and edges[0] <= max(low, 1)  # the bins reach across the unit's bounds …
        assert len(edges) <= 16  # … in few bins: a decade is a handful of them, not hundreds
        assert max(b / a for a, b in zip(edges, edges[1:], strict=False)) <= 10  # no gap wider than a decade
    score = bin_edges(CONDITIONS_BY_KEY["decay"])
    assert score[0] == 0 and score[-1] == 99  # 100 (immune, or just opened) is a bin of its own
    assert max(b - a for a, b in zip(score, score[1:], strict=False)) <= 20


def test_a_value_that_must_split_exactly_becomes_an_edge_and_one_out_of_bounds_does_not() -> None:
    created = CONDITIONS_BY_KEY["created"]
    assert 45 in bin_edges(created, extra=[45])
    assert 99_999 not in bin_edges(created, extra=[99_999])
    assert 100 not in bin_edges(CONDITIONS_BY_KEY["decay"], extra=[100])


@pytest.mark.parametrize("query", VIEWS)
def test_the_count_on_each_side_of_an_edge_equals_the_preset_count_for_that_threshold(
    account, query: str
) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=160, seed=28)
    now = timezone.now()
    state = ExplorerState.from_query(QueryDict(query))
    compared = 0
    for cond in CONDITIONS:
        typed = {"days": [45, 400], "count": [4, 40, 250], "score": [15, 33]}[cond.unit]
        choices = every_choice(cond) + [(cond.retention, v) for v in typed]
        if cond.reverse:
            choices += [(cond.reverse, v) for v in typed]
        dist = condition_distribution(account, state, cond, now=now, extra=typed + [v - 1 for v in typed])
        expected = condition_choice_counts(account, state, cond, choices, now=now)
        kept = [dist.kept(PARAMS[name], value) for name, value in choices]
        assert kept == expected, (query, cond.key)
        # The other side is the rest of the lessons in view: what the bars add up to.
        assert dist.total == condition_base(account, state, cond, now=now).count()
        compared += sum(expected)
    assert compared  # the store is not empty: the check compares numbers, not zeros


def test_the_bars_add_up_to_the_lessons_in_view_with_the_condition_left_out(account) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=80, seed=29)
    now = timezone.now()
    state = ExplorerState.from_query(QueryDict("retention=max_opened_count:0&kind=lesson"))
    in_view = Lesson.objects.filter(
        account=account, archived_at__isnull=True, protected=False, kind="lesson"
    ).count()
    for cond in CONDITIONS:
        if cond.key == "chosen":
            assert condition_distribution(account, state, cond, now=now).total == in_view
    created = condition_distribution(account, state, CONDITIONS_BY_KEY["created"], now=now)
    chosen_zero = Lesson.objects.filter(
        account=account, archived_at__isnull=True, protected=False, kind="lesson", opened_count=0
    ).count()
    assert created.total == chosen_zero


def test_a_split_inside_a_bin_gives_the_range_the_bin_allows(account) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=120, seed=30)
    now = timezone.now()
    state = ExplorerState.from_query(QueryDict(""))
    cond = CONDITIONS_BY_KEY["created"]
    dist = condition_distribution(account, state, cond, now=now)
    assert 45 not in dist.edges
    fewest, most = dist.kept_range(PARAMS["min_age_days"], 45)
    exact = condition_choice_counts(account, state, cond, [("min_age_days", 45)], now=now)[0]
    assert fewest <= exact <= most
    assert dist.kept(PARAMS["min_age_days"], 45) is None
    assert most - fewest == dist.counts[sum(1 for e in dist.edges if e < 45)]


def test_never_opened_lessons_count_on_the_older_side_but_never_within(account) -> None:  # noqa: ANN001
    from tests.factories import LessonFactory

    now = timezone.now()
    LessonFactory(account=account, key="new-never", created_at=now - timedelta(days=3), last_opened_at=None)
    LessonFactory(
        account=account,
        key="old-opened",
        created_at=now - timedelta(days=300),
        last_opened_at=now - timedelta(days=3),
    )
    LessonFactory(account=account, key="old-never", created_at=now - timedelta(days=300), last_opened_at=None)
    dist = condition_distribution(
        account, ExplorerState.from_query(QueryDict("")), CONDITIONS_BY_KEY["last_open"], now=now
    )
    assert dist.kept(PARAMS["opened_within_days"], 7) == 1  # old-opened only
    assert dist.kept(PARAMS["unseen_days"], 7) == 1  # old-never
    assert dist.total == 3 and sum(dist.never) == 2


def test_the_decay_score_is_grouped_once_and_splits_exactly_at_every_score(account) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=100, seed=31)
    now = timezone.now()
    state = ExplorerState.from_query(QueryDict(""))
    cond = CONDITIONS_BY_KEY["decay"]
    values = list(range(0, 101, 7)) + [100]
    dist = condition_distribution(account, state, cond, now=now, extra=values)
    expected = condition_choice_counts(
        account, state, cond, [("max_decay_score", v) for v in values], now=now
    )
    assert [dist.kept(PARAMS["max_decay_score"], v) for v in values] == expected


def test_a_histogram_is_one_query_whatever_the_number_of_bins(account, django_assert_num_queries) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=30, seed=32)
    state = ExplorerState.from_query(QueryDict("kind=lesson"))
    for cond in CONDITIONS:
        with django_assert_num_queries(1):
            dist = condition_distribution(account, state, cond, now=timezone.now(), extra=[7, 77, 777])
        assert isinstance(dist, Distribution) and len(dist.counts) == len(dist.edges) + 1


def test_where_no_counts_are_kept_every_histogram_is_the_aggregate_query(account) -> None:  # noqa: ANN001
    """SQLite keeps no counts (no triggers): every section counts its lessons with the one aggregate query. On
    PostgreSQL every section of the active view over the whole store is kept (the decay score since its cells)."""
    from lore.bins import kept_distribution
    from lore.value_counts import maintained

    demo_store_create(account, lessons=60, seed=4)
    now = timezone.now()
    state = ExplorerState.from_query(QueryDict(""))
    for cond in CONDITIONS:
        kept = kept_distribution(account.pk, cond, archived=False, now=now)
        assert (kept is None) == (not maintained()), cond.key
        dist = condition_distribution(account, state, cond, now=now)
        assert dist.total == condition_base(account, state, cond, now=now).count()
