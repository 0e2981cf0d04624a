"""Issue 28, part 1: the histograms of the filter menu's Age & activity sections over the whole store are read from
counts the database keeps (lore.value_counts: per counter value, per creation day, per last-open day, per decay
cell), the one day an edge falls inside (or the decay cells an edge crosses) counted exactly from the lessons. Each check compares them with the aggregate query over the
lessons (lore.bins.distribution) after every kind of write: they must never disagree."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.http import QueryDict
from django.utils import timezone

from explorer.queries import condition_base, condition_choice_counts, condition_distribution
from explorer.state import ExplorerState
from lore import bins
from lore.bins import distribution, kept_distribution
from lore.conditions import CONDITIONS, CONDITIONS_BY_KEY, PARAMS
from lore.demo import demo_store_create
from lore.inputs import LessonInput
from lore.models import Account, Lesson, LessonCountChange
from lore.purge import account_purge
from lore.reads import reads_record, reads_settle
from lore.rules.rule import Rule
from lore.services import lesson_protect, lesson_write, lessons_archive
from lore.value_counts import HISTOGRAM_COUNTED, value_counts_fold
from tests.factories import LessonFactory
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
KEPT = list(CONDITIONS)
TYPED = {"days": [45, 400], "count": [4, 40, 250], "score": [7, 33, 71]}


@pytest.fixture(autouse=True)
def _postgres() -> None:
    require_postgres()


def _state(archived: bool) -> ExplorerState:
    return ExplorerState.from_query(QueryDict("archived=1" if archived else ""))


def assert_histograms_exact(account: Account, now=None) -> int:  # noqa: ANN001
    """Every kept section, active and archived, equals the aggregate query over the same lessons; answers the
    lessons compared (so a check of zeros is seen)."""
    now = now or timezone.now()
    compared = 0
    for archived in (False, True):
        for cond in KEPT:
            extra = TYPED[cond.unit] + [v - 1 for v in TYPED[cond.unit]]
            kept = kept_distribution(account.pk, cond, archived=archived, now=now, extra=extra)
            if (
                kept is None
            ):  # days and the score over the archived lessons: no index to count a boundary with
                assert archived and cond.unit in ("days", "score"), cond.key
                continue
            base = condition_base(account, _state(archived), cond, now=now)
            assert kept == distribution(base, cond, now=now, extra=extra), (cond.key, archived)
            compared += kept.total
    return compared


def _write(account: Account, key: str, **fields: str) -> Lesson:
    data = LessonInput.from_data({"scope": "repo::acme/app", "key": key, "content": f"about {key}", **fields})
    return lesson_write(account=account, data=data)[0]


def test_kept_histograms_equal_the_aggregate_query_on_a_demo_store(account: Account) -> None:
    demo_store_create(account, lessons=400, seed=28, batch=150)
    assert assert_histograms_exact(account) > 0
    value_counts_fold(account.pk)
    assert assert_histograms_exact(account) > 0


def test_kept_histograms_stay_exact_through_writes_rewrites_pins_and_plain_updates(account: Account) -> None:
    demo_store_create(account, lessons=120, seed=5, batch=60)
    first = _write(account, "a", kind="gotcha")
    _write(account, "b", kind="decision")
    assert assert_histograms_exact(account)
    _write(account, "a", kind="gotcha")  # a rewrite: Recurrence moves
    lesson_protect(account=account, lesson=Lesson.objects.get(pk=first.pk))
    now = timezone.now()
    Lesson.objects.filter(account=account, kind="lesson").update(created_at=now - timedelta(days=100))
    Lesson.objects.filter(account=account, key="b").delete()
    assert assert_histograms_exact(account)


def test_kept_histograms_stay_exact_through_read_folds(account: Account) -> None:
    demo_store_create(account, lessons=150, seed=11, batch=75)
    value_counts_fold(account.pk)
    ids = list(Lesson.objects.filter(account=account).order_by("pk").values_list("pk", flat=True))
    now = timezone.now()
    reads_record(account=account, lesson_ids=ids[:90], at=now)  # delivered only
    reads_record(account=account, lesson_ids=ids[40:70], at=now, opened=True)  # chosen: last open moves
    reads_record(account=account, lesson_ids=ids[:5], at=now - timedelta(days=3), opened=True)
    assert reads_settle(account) > 0
    assert assert_histograms_exact(account, now=now + timedelta(seconds=1))
    value_counts_fold(account.pk)
    assert assert_histograms_exact(account, now=now + timedelta(seconds=1))


def test_a_read_fold_appends_one_packed_row_per_moved_counter_and_state(account: Account) -> None:
    """A read bump moves Delivered (and Chosen and the last open when opened): one packed row per dimension it
    moved and state, none for a dimension it did not move."""
    LessonFactory.create_batch(6, account=account, kind="gotcha")
    value_counts_fold(account.pk)
    ids = list(Lesson.objects.filter(account=account).values_list("pk", flat=True))
    reads_record(account=account, lesson_ids=ids, at=timezone.now())
    reads_settle(account)
    moved = set(LessonCountChange.objects.filter(account=account).values_list("dimension", flat=True))
    assert moved == {"h:read_count"}
    assert_histograms_exact(account)


def test_kept_histograms_stay_exact_through_a_runs_archive_its_undo_and_a_purge(account: Account) -> None:
    from policies import grooming
    from policies.models import PolicyRun

    demo_store_create(account, lessons=200, seed=29, batch=100)
    value_counts_fold(account.pk)
    rule = Rule(conditions={"max_opened_count": 1})
    run = grooming.run_start(account=account, rule=rule, trigger=PolicyRun.Trigger.MANUAL)
    assert run is not None
    run = grooming.run_execute(run.pk, batch_size=30)
    assert run.archived > 30
    assert assert_histograms_exact(account)
    assert grooming.run_undo(run) == run.archived
    assert assert_histograms_exact(account)

    lessons_archive(
        account=account,
        lesson_ids=list(Lesson.objects.filter(account=account).values_list("pk", flat=True)[:50]),
    )
    Lesson.objects.filter(account=account, archived_at__isnull=False).update(
        archived_at=timezone.now() - timedelta(days=40)
    )
    account.purge_after_days = 30
    account.save(update_fields=["purge_after_days"])
    purged = account_purge(account)
    assert purged is not None and purged.purged > 0
    assert assert_histograms_exact(account)


@pytest.mark.parametrize("hour", [3, 12, 20])
def test_an_edge_inside_a_day_counts_that_days_lessons_exactly(account: Account, hour: int) -> None:
    """`now - 7 days` falls inside a day: the lessons of that day on its shorter side (before the edge early in
    the day, after it late in the day) are counted from the lessons, the whole days around it from the kept
    counts."""
    now = timezone.now().replace(hour=hour, minute=0, second=0, microsecond=0)
    cutoff = now - timedelta(days=7)
    offsets = [-600, -1, 0, 1, 600, 11 * 3600, -11 * 3600, 86_400, -86_400]
    for i, seconds in enumerate(offsets):
        lesson = LessonFactory(account=account, key=f"d{i}")
        Lesson.objects.filter(pk=lesson.pk).update(
            created_at=cutoff + timedelta(seconds=seconds), last_opened_at=None
        )
    created, last_open = CONDITIONS_BY_KEY["created"], CONDITIONS_BY_KEY["last_open"]
    for cond in (created, last_open):
        dist = kept_distribution(account.pk, cond, archived=False, now=now)
        assert dist is not None
        older = sum(1 for s in offsets if s < 0)
        assert dist.kept(PARAMS[cond.retention], 7) == older, cond.key
    assert assert_histograms_exact(account, now=now)


def test_the_unfiltered_menu_reads_the_kept_counts_and_a_filtered_one_the_aggregate_query(
    account: Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo_store_create(account, lessons=100, seed=3, batch=50)
    now = timezone.now()
    counted = {cond.key: condition_distribution(account, _state(False), cond, now=now) for cond in CONDITIONS}

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the unfiltered view counted the lessons")

    monkeypatch.setattr(bins, "_by_edge", refuse)
    monkeypatch.setattr(bins, "_grouped", refuse)
    for cond in KEPT:
        assert condition_distribution(account, _state(False), cond, now=now) == counted[cond.key]
        choices = [(cond.retention, v) for v in cond.retention_presets]
        dist = counted[cond.key]
        assert [dist.kept(PARAMS[n], v) for n, v in choices] == condition_choice_counts(
            account, _state(False), cond, choices, now=now
        )
    filtered = ExplorerState.from_query(QueryDict("kind=lesson"))
    with pytest.raises(AssertionError, match="counted the lessons"):
        condition_distribution(account, filtered, CONDITIONS_BY_KEY["chosen"], now=now)


def _decay_lessons(account: Account, now, n: int = 240) -> None:  # noqa: ANN001
    """Lessons spread over strength products and last opens so that edges cross many cells: some never opened,
    some opened a fraction of a day around an edge's cut of their cell, some pinned, some archived."""
    import random

    rng = random.Random(2803)
    for i in range(n):
        lesson = LessonFactory(account=account, key=f"decay-{i}")
        chosen, seen = rng.choice([0, 0, 1, 2, 5, 40]), rng.choice([1, 1, 2, 3, 9])
        opened = rng.random() < 0.7
        at = now - timedelta(days=rng.uniform(0, 400), hours=rng.uniform(0, 24))
        Lesson.objects.filter(pk=lesson.pk).update(
            opened_count=chosen,
            seen_count=seen,
            created_at=at - timedelta(days=rng.uniform(0, 30)) if opened else at,
            last_opened_at=at if opened else None,
            protected=rng.random() < 0.05,
        )
    archived = list(Lesson.objects.filter(account=account).values_list("pk", flat=True)[:20])
    lessons_archive(account=account, lesson_ids=archived)


@pytest.mark.parametrize(
    "later", [timedelta(0), timedelta(hours=5), timedelta(days=3, hours=17), timedelta(days=90)]
)
def test_the_decay_histogram_is_read_from_kept_cells_exactly_at_any_moment(account: Account, later) -> None:  # noqa: ANN001
    """The decay section's bins from the kept cells equal the score counted per lesson, now and at later moments
    (the same cells, other edges crossing them), with typed values as extra edges."""
    now = timezone.now()
    _decay_lessons(account, now)
    decay = CONDITIONS_BY_KEY["decay"]
    at = now + later
    kept = kept_distribution(account.pk, decay, archived=False, now=at, extra=[7, 33, 71])
    assert kept is not None and kept.total > 150
    base = condition_base(account, _state(False), decay, now=at)
    assert kept == distribution(base, decay, now=at, extra=[7, 33, 71])
    assert sum(1 for c in kept.counts if c) >= 3  # spread over bins, not all in one


def test_the_decay_cells_an_edge_crosses_are_counted_from_the_lessons(account: Account) -> None:
    """Lessons of one cell on both sides of an edge: the cell is not summed whole, and each lesson lands in its
    own bin. A lesson never opened, Chosen 0, Recurrence 1 (product 1, strength 1) scores 50 or less once
    100 × 2^(−days / half-life) falls below 50.5."""
    import math

    from lore.decay import half_life_days

    now = timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)
    cut = timedelta(days=half_life_days() * math.log2(100 / 50.5))
    for i, minutes in enumerate([-30, -1, 1, 30]):  # opened 30 and 1 minutes before the cut, and after it
        lesson = LessonFactory(account=account, key=f"c{i}")
        Lesson.objects.filter(pk=lesson.pk).update(
            created_at=now - cut + timedelta(minutes=minutes),
            last_opened_at=None,
            opened_count=0,
            seen_count=1,
        )
    decay = CONDITIONS_BY_KEY["decay"]
    dist = kept_distribution(account.pk, decay, archived=False, now=now, extra=[50])
    assert dist is not None
    assert dist == distribution(
        condition_base(account, _state(False), decay, now=now), decay, now=now, extra=[50]
    )
    assert dist.kept(PARAMS[decay.retention], 50) == 2  # the two opened longer ago score 50 or less


def test_the_decay_cells_stay_exact_through_read_folds_and_a_runs_undo(account: Account) -> None:
    from policies import grooming
    from policies.models import PolicyRun

    now = timezone.now()
    _decay_lessons(account, now, n=120)
    ids = list(Lesson.objects.filter(account=account).order_by("pk").values_list("pk", flat=True))
    reads_record(account=account, lesson_ids=ids[10:60], at=now, opened=True)  # product and last open move
    assert reads_settle(account) > 0
    assert assert_histograms_exact(account, now=now + timedelta(seconds=1))
    run = grooming.run_start(
        account=account, rule=Rule(conditions={"max_decay_score": 40}), trigger=PolicyRun.Trigger.MANUAL
    )
    assert run is not None
    run = grooming.run_execute(run.pk, batch_size=25)
    assert run.archived > 0
    assert assert_histograms_exact(account)
    assert grooming.run_undo(run) == run.archived
    value_counts_fold(account.pk)
    assert assert_histograms_exact(account)


def test_the_decay_cells_are_counted_for_active_unpinned_lessons_only(account: Account) -> None:
    """The decay cells' one reader reads the candidates: an archived or pinned lesson has no cell, through
    writes, an archive batch, a pin and a restore."""
    from lore.models import LessonValueCountView
    from lore.services import lessons_restore

    now = timezone.now()
    _decay_lessons(account, now, n=60)
    pinned = Lesson.objects.filter(account=account, archived_at__isnull=True).first()
    lesson_protect(account=account, lesson=pinned)

    def cells(**state: bool) -> int:
        rows = LessonValueCountView.objects.filter(account_id=account.pk, dimension="h:decay_cell", **state)
        return sum(rows.values_list("n", flat=True))

    assert cells(archived=True) == 0 and cells(protected=True) == 0
    assert (
        cells(archived=False, protected=False)
        == Lesson.objects.filter(account=account, archived_at__isnull=True, protected=False).count()
    )
    archived = list(
        Lesson.objects.filter(account=account, archived_at__isnull=False).values_list("pk", flat=True)
    )
    lessons_restore(account=account, lesson_ids=archived)
    value_counts_fold(account.pk)
    assert cells(archived=True) == 0 and cells(protected=True) == 0
    assert assert_histograms_exact(account)


def test_the_histograms_kept_are_the_counters_and_the_days() -> None:
    assert {h.name for h in HISTOGRAM_COUNTED} == {
        "h:read_count",
        "h:opened_count",
        "h:seen_count",
        "h:created_day",
        "h:last_open_day",
        "h:never_opened_day",
        "h:decay_cell",
    }
