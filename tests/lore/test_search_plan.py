"""Issue 16: a search of a word few lessons carry is read from the full-text index first, not by walking the whole
store newest first (at 1M lessons that walk hit the 10 s statement timeout); a common word is still read in order.
Plans and the lessons found, not timings (bench/ has those)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from lore.models import Account, Lesson
from lore.rules.rule import Rule
from lore.search_plan import is_rare, lexeme_statistics, lexeme_statistics_forget
from lore.selectors import lessons_filtered
from tests.services import require_postgres

# Committed rows: ANALYZE must see them for pg_stats to name the common lexemes.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PROBE = "WITH found AS MATERIALIZED"


@pytest.fixture(autouse=True)
def _postgres() -> None:
    require_postgres()
    lexeme_statistics_forget()
    yield
    lexeme_statistics_forget()


@pytest.fixture
def store(account: Account, settings) -> Account:  # noqa: ANN001
    """400 lessons that all say "deploy" and a few that say "zeppelin" or "zebra", then ANALYZE. A word carried
    by more than 50 lessons is common here."""
    settings.LORE_SEARCH_RARE_IDS = 50
    now = timezone.now()
    rare = {7: "zeppelin zebra", 8: "zeppelin", 300: "zebra"}
    Lesson.objects.bulk_create(
        Lesson(
            account=account,
            scope="repo::acme/app",
            key=f"lesson-{i}",
            content=f"deploy with care {rare.get(i, '')}",
            created_at=now - timedelta(hours=i),
            updated_at=now,
        )
        for i in range(400)
    )
    Lesson.objects.filter(account=account, key="lesson-8").update(archived_at=now)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE lore_lesson")
    return account


def _keys(account: Account, q: str, **kwargs: object) -> tuple[list[str], list[str]]:
    """The keys a search lists, newest first, and the SQL it ran."""
    with CaptureQueriesContext(connection) as queries:
        keys = list(
            lessons_filtered(account, Rule(), q=q, **kwargs)  # type: ignore[arg-type]
            .order_by("-created_at", "-pk")
            .values_list("key", flat=True)
        )
    return keys, [query["sql"] for query in queries.captured_queries]


def test_analyze_gives_each_words_share_and_a_word_estimated_at_the_cap_or_fewer_is_rare(
    store: Account,
) -> None:
    statistics = lexeme_statistics()
    assert statistics.lessons == 399  # the index covers active lessons
    assert statistics.matches("deploy") == statistics.matches("DEP") == 399
    assert statistics.matches("zebra") < 5 and statistics.matches("timeout") == 0
    assert not is_rare(["deploy"]) and not is_rare(["dep", "care"])
    assert is_rare(["zeppelin"]) and is_rare(["deploy", "zeppelin"]) and is_rare(["timeout"])


def test_before_any_analyze_every_word_is_rare(account: Account) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'lesson_search'")
        if cursor.fetchone()[0] > 0:
            pytest.skip("this database's lesson_search was analyzed before")
    assert is_rare(["deploy"])


def test_a_search_of_a_rare_word_reads_its_matches_from_the_full_text_index_first(store: Account) -> None:
    keys, sql = _keys(store, "zebra")
    assert keys == ["lesson-7", "lesson-300"]
    probe = next(s for s in sql if s.startswith(PROBE))
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + probe)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Bitmap Index Scan on lesson_search" in plan


def test_a_search_of_a_word_no_lesson_carries_finds_nothing_without_reading_the_lessons(
    store: Account,
) -> None:
    keys, sql = _keys(store, "timeout")
    assert keys == []
    assert any(s.startswith(PROBE) for s in sql)
    assert "unnest" in sql[-1] and "to_tsvector" not in sql[-1]


def test_a_search_of_a_common_word_stays_one_predicate_read_in_order(store: Account) -> None:
    keys, sql = _keys(store, "deploy")
    assert len(keys) == 399 and keys[0] == "lesson-0"
    assert not any(s.startswith(PROBE) for s in sql)


@pytest.mark.parametrize(
    "q", ["zebra", "zep", "zeppelin zebra", "deploy zeppelin", "deploy", "care with", "nothing"]
)
def test_both_readings_of_a_search_find_the_same_lessons_in_the_same_order(
    store: Account, settings, q: str
) -> None:  # noqa: ANN001
    by_plan, _ = _keys(store, q)
    settings.LORE_SEARCH_RARE_IDS = 0  # every search over the cap: always the one predicate
    as_predicate, sql = _keys(store, q)
    assert q == "nothing" or not any(s.startswith(PROBE) for s in sql)  # 0 estimated: rare even at a 0 cap
    assert by_plan == as_predicate


def test_a_word_the_statistics_call_rare_but_found_over_search_rare_ids_is_read_as_one_predicate(
    store: Account,
    settings,  # noqa: ANN001
) -> None:
    settings.LORE_SEARCH_RARE_IDS = 2  # ANALYZE saw 2 zebras; 2 more were written since
    old = timezone.now() - timedelta(days=30)
    Lesson.objects.bulk_create(
        Lesson(account=store, scope="global", key=f"new-{i}", content="zebra", created_at=old, updated_at=old)
        for i in range(2)
    )
    assert is_rare(["zebra"])
    keys, sql = _keys(store, "zebra")
    assert keys == ["lesson-7", "lesson-300", "new-1", "new-0"]
    assert any(s.startswith(PROBE) for s in sql)  # asked, found more than the cap, fell back
    assert "to_tsvector" in sql[-1]


def test_archived_lessons_are_still_searched_row_by_row(store: Account) -> None:
    keys, sql = _keys(store, "zeppelin", archived=True)
    assert keys == ["lesson-8"]
    assert not any(s.startswith(PROBE) for s in sql)
