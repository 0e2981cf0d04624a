"""The decay score (issue 15 part 2, seed 003): an exponential retention score 0–100 computed in SQL, a sixth
condition (`max_decay_score`) and the `coldest` sort, protected lessons immune."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from lore.candidates import candidates
from lore.conditions import PARAMS, auto_name, parse_typed
from lore.decay import decay_score_of, lessons_with_decay
from lore.models import Lesson
from lore.rules.codec import rule_parse
from lore.rules.rule import Rule
from lore.selectors import lessons_filtered, lessons_page
from tests.factories import AccountFactory, LessonFactory

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def reference_score(days: float, chosen: int, recurrence: int, half_life: float = 35.0) -> int:
    """docs/decay.md's formula, written out independently of the SQL."""
    strength = 1 + math.log(1 + chosen) + math.log(max(recurrence, 1))
    return math.floor(100 * 2 ** (-max(days, 0) / (half_life * strength)) + 0.5)


def lesson(
    account, *, days: float = 0, opened_days: float | None = None, chosen: int = 0, seen: int = 1, **kw
):  # noqa: ANN001, ANN201
    return LessonFactory(
        account=account,
        created_at=NOW - timedelta(days=days),
        last_opened_at=None if opened_days is None else NOW - timedelta(days=opened_days),
        opened_count=chosen,
        seen_count=seen,
        **kw,
    )


def score(row: Lesson) -> int:
    return decay_score_of(Lesson.objects.filter(pk=row.pk), NOW)[row.pk]


def test_a_lesson_written_just_now_scores_100() -> None:
    assert score(lesson(AccountFactory())) == 100


def test_a_never_opened_lesson_halves_every_half_life_from_its_creation() -> None:
    account = AccountFactory()
    assert score(lesson(account, days=35)) == 50
    assert score(lesson(account, days=70)) == 25
    assert score(lesson(account, days=140)) == 6


def test_the_clock_runs_from_the_last_agent_open_not_from_creation() -> None:
    account = AccountFactory()
    assert score(lesson(account, days=400, opened_days=35, chosen=1)) == reference_score(35, 1, 1)


def test_chosen_and_recurrence_slow_the_decay_as_the_formula_says() -> None:
    account = AccountFactory()
    for chosen, seen in [(0, 1), (1, 1), (10, 1), (0, 5), (10, 5), (1000, 100)]:
        row = lesson(account, days=90, opened_days=60 if chosen else None, chosen=chosen, seen=seen)
        assert score(row) == reference_score(60 if chosen else 90, chosen, seen), (chosen, seen)
    assert score(lesson(account, days=90, opened_days=60, chosen=10)) > score(lesson(account, days=60))


def test_a_timestamp_in_the_future_scores_100_not_more() -> None:
    assert score(lesson(AccountFactory(), days=-3)) == 100


def test_the_half_life_is_a_setting(settings) -> None:  # noqa: ANN001
    row = lesson(AccountFactory(), days=10)
    settings.LORE_DECAY_HALF_LIFE_DAYS = 10
    assert score(row) == 50


def test_protected_lessons_are_immune_they_score_100_and_never_match() -> None:
    account = AccountFactory()
    pinned = lesson(account, days=900, protected=True)
    assert score(pinned) == 100
    rule = Rule(conditions={"max_decay_score": 50})
    assert pinned not in lessons_filtered(account, rule, now=NOW)


def test_max_decay_score_matches_lessons_whose_score_is_at_most_n() -> None:
    account = AccountFactory()
    rows = [lesson(account, days=d) for d in (0, 20, 35, 36, 70, 200, 800)]
    for n in (0, 5, 10, 25, 50, 99, 100):
        rule = Rule(conditions={"max_decay_score": n})
        got = set(candidates(account, rule, now=NOW).values_list("pk", flat=True))
        assert got == {r.pk for r in rows if score(r) <= n}, n


def test_the_condition_the_sort_and_the_shown_score_are_one_expression() -> None:
    account = AccountFactory()
    rows = [
        lesson(account, days=d, chosen=c, opened_days=d / 2 if c else None)
        for d, c in [(10, 0), (90, 3), (300, 0), (40, 1)]
    ]
    shown = decay_score_of(Lesson.objects.filter(account=account), NOW)
    annotated = {r.pk: r.decay_score for r in lessons_with_decay(Lesson.objects.filter(account=account), NOW)}
    assert shown == annotated == {r.pk: score(r) for r in rows}


def test_sort_coldest_lists_the_lowest_score_first_and_pages_by_keyset_without_gaps_or_repeats() -> None:
    account = AccountFactory()
    for d in [0, 5, 35, 35, 35, 70, 100, 140, 300, 600, 5]:
        lesson(account, days=d)
    qs = lessons_filtered(account, Rule(), now=NOW)
    seen: list[tuple[int, int]] = []
    cursor = None
    while True:
        page = lessons_page(qs, sort="coldest", cursor=cursor, limit=3, now=NOW)
        seen += [(r.decay_score, r.pk) for r in page.rows]
        cursor = page.next_cursor
        if not cursor:
            break
    assert seen == sorted(seen)
    assert len({pk for _, pk in seen}) == Lesson.objects.filter(account=account).count() == len(seen)


def test_a_coldest_cursor_keeps_the_moment_it_was_read_so_later_pages_do_not_shift() -> None:
    account = AccountFactory()
    for d in range(0, 100, 10):
        lesson(account, days=d)
    qs = lessons_filtered(account, Rule(), now=NOW)
    first = lessons_page(qs, sort="coldest", limit=4, now=NOW)
    later = lessons_page(qs, sort="coldest", cursor=first.next_cursor, limit=50, now=NOW + timedelta(days=30))
    all_at_once = lessons_page(qs, sort="coldest", limit=50, now=NOW)
    assert [r.pk for r in first.rows + later.rows] == [r.pk for r in all_at_once.rows]
    assert [r.decay_score for r in later.rows] == [r.decay_score for r in all_at_once.rows[4:]]


# ---------------------------------------------------------------- the registry entry


def test_max_decay_score_is_a_condition_of_the_registry_from_0_to_100() -> None:
    param = PARAMS["max_decay_score"]
    assert param.condition.label == "Decay score" and param.bounds == (0, 100) and not param.is_reverse
    assert param.check("10") == 10
    with pytest.raises(ValueError, match="between 0 and 100"):
        param.check(101)


def parse_retention(text: str) -> tuple[dict[str, int], list[str]]:
    """`?retention=` alone through the codec: its conditions and its notices."""
    rule, problems = rule_parse({"retention": text})
    return dict(rule.conditions), [problem.notice for problem in problems]


def test_max_decay_score_reads_and_writes_in_the_url_and_names_a_policy() -> None:
    values, notices = parse_retention("max_decay_score:10,min_age_days:30")
    assert values == {"min_age_days": 30, "max_decay_score": 10} and not notices
    assert PARAMS["max_decay_score"].pill(10) == "Decay score: 10 or lower"
    assert auto_name(Rule(conditions={"max_decay_score": 10})) == "decay score ≤ 10 in all scopes"
    _, notices = parse_retention("max_decay_score:500")
    assert notices and "between 0 and 100" in notices[0]


def test_typed_input_offers_at_most_n_and_refuses_more_than() -> None:
    assert [(o.param, o.value) for o in parse_typed("decay", "10").options] == [("max_decay_score", 10)]
    assert [(o.param, o.value) for o in parse_typed("decay", "<10").options] == [("max_decay_score", 9)]
    assert [(o.param, o.value) for o in parse_typed("decay", "<=10").options] == [("max_decay_score", 10)]
    assert parse_typed("decay", ">10").error
    assert parse_typed("decay", "200").error
