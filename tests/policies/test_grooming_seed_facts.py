"""The seed's measured facts, checked on a realistic store (seed_demo's generator, a few thousand lessons)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import QuerySet
from django.utils import timezone

from lore.candidates import candidates
from lore.demo import demo_store_create
from lore.inputs import LessonInput
from lore.models import Account, Lesson
from lore.reads import reads_settle_for, rule_fields
from lore.rules.rule import Rule
from lore.services import lesson_open, lesson_write, lessons_deliver
from policies import grooming

pytestmark = pytest.mark.django_db
LESSONS = 3000


@pytest.fixture
def store(account) -> Account:  # noqa: ANN001
    demo_store_create(account, lessons=LESSONS, seed=7)
    return account


def caught(account: Account, **conditions: int) -> int:
    return grooming.preview(account, Rule(scope="global", conditions=conditions), keys_limit=0).count


def active(account: Account):  # noqa: ANN201
    return Lesson.objects.filter(account=account, archived_at__isnull=True, protected=False)


def test_max_read_count_0_matches_nothing(store: Account) -> None:
    assert caught(store, max_read_count=0) == 0


def test_max_read_count_up_to_5_matches_nothing_and_the_first_match_appears_around_26(store: Account) -> None:
    for value in range(6):
        assert caught(store, max_read_count=value) == 0
    assert caught(store, max_read_count=25) == 0
    assert 0 < caught(store, max_read_count=30) < 0.01 * LESSONS


def test_max_read_count_400_matches_essentially_everything(store: Account) -> None:
    assert caught(store, max_read_count=400) >= 0.95 * active(store).count()


def test_max_opened_count_0_catches_the_never_opened(store: Account) -> None:
    never_opened = active(store).filter(opened_count=0)
    rule = Rule(scope="global", conditions={"max_opened_count": 0})
    assert set(candidates(store, rule).values_list("pk", flat=True)) == set(
        never_opened.values_list("pk", flat=True)
    )
    assert not never_opened.filter(last_opened_at__isnull=False).exists()
    assert 0.4 < never_opened.count() / LESSONS < 0.7


def test_a_lesson_delivered_1400_times_that_no_agent_opened_matches_max_opened_count_0(
    store: Account,
) -> None:
    heavy = active(store).filter(read_count__gte=1200, opened_count=0)
    assert heavy.exists()
    rule = Rule(scope="global", conditions={"max_opened_count": 0})
    assert set(heavy.values_list("pk", flat=True)) <= set(
        candidates(store, rule).values_list("pk", flat=True)
    )
    assert (
        not candidates(store, Rule(scope="global", conditions={"max_read_count": 500}))
        .filter(pk__in=heavy)
        .exists()
    )


def test_a_week_old_lesson_does_not_match_unseen_days_90(store: Account) -> None:
    week_old = active(store).filter(created_at__gt=timezone.now() - timedelta(days=7))
    assert week_old.filter(last_opened_at__isnull=True).exists()  # the created_at fallback is exercised
    matched = candidates(store, Rule(scope="global", conditions={"unseen_days": 90}))
    assert matched.exists()
    assert not matched.filter(pk__in=week_old).exists()


def settled_candidates(account: Account, rule: Rule) -> QuerySet[Lesson]:
    """The candidates as every surface evaluates a rule: buffered reads folded first when it reads a counter."""
    reads_settle_for(account, rule_fields(rule))
    return candidates(account, rule)


def test_unseen_days_reads_only_last_agent_open(store: Account) -> None:
    rule = Rule(scope="global", conditions={"unseen_days": 90})
    lesson = candidates(store, rule).filter(last_opened_at__isnull=True).first()
    assert lesson is not None
    for surface in ("api", "cli", "mcp", "dashboard"):  # list pages, single fetches, the detail sheet
        lessons_deliver(account=store, lesson_ids=[lesson.pk], scope=lesson.scope, surface=surface)
    assert settled_candidates(store, rule).filter(pk=lesson.pk).exists()
    lesson_open(account=store, lesson=lesson, surface="mcp")  # a deliberate agent fetch resets the clock
    assert not settled_candidates(store, rule).filter(pk=lesson.pk).exists()


def test_a_lesson_written_once_and_delivered_fifty_times_matches_max_seen_count_1_not_max_read_count_1(
    account: Account,
) -> None:
    data = LessonInput.from_data({"scope": "repo::acme/app", "key": "once", "content": "written once"})
    lesson, _ = lesson_write(account=account, data=data)
    for _ in range(50):
        lessons_deliver(account=account, lesson_ids=[lesson.pk], scope="repo::acme/app", surface="mcp")
    assert settled_candidates(account, Rule(conditions={"max_seen_count": 1})).filter(pk=lesson.pk).exists()
    assert (
        not settled_candidates(account, Rule(conditions={"max_read_count": 1})).filter(pk=lesson.pk).exists()
    )
