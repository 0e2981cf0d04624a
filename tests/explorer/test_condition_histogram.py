"""An opened Age & activity section draws a histogram and reads its presets' counts off the same one aggregate
query (issue 28, part 1); typing re-renders the options only."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.http import QueryDict
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from explorer.queries import condition_choice_counts
from explorer.state import ExplorerState
from lore.conditions import CONDITIONS
from lore.demo import demo_store_create

pytestmark = pytest.mark.django_db

MENU = "/explorer/menu/"


def lesson_queries(captured: CaptureQueriesContext) -> list[str]:
    """The statements that read the lessons (not the session, the account, the pending reads' EXISTS)."""
    return [q["sql"] for q in captured.captured_queries if re.search(r'FROM "lore_lesson"', q["sql"])]


def shown_counts(html: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r'class="fc-count">([\d,]+)<', html)]


@pytest.mark.parametrize(
    "query", ["", "retention=max_read_count:123&kind=lesson", "retention=min_age_days:45"]
)
def test_an_opened_condition_section_is_one_aggregate_query_on_the_lessons(
    logged_in: Client, account, query: str
) -> None:  # noqa: ANN001
    """Over the whole store on PostgreSQL, a counter's section reads the kept counts alone, a day's section the
    kept counts with its boundary days' lessons, and the decay score's the kept cells with the lessons of the cells
    an edge crosses, in one statement (issue 28, lore.bins.kept_distribution; the decay score's kept cells may
    first be split for the hour, a statement over the kept counts alone: lore.decay_cells)."""
    from lore.models import LessonValueCount
    from lore.value_counts import maintained

    demo_store_create(account, lessons=60, seed=40)
    for cond in CONDITIONS:
        with CaptureQueriesContext(connection) as captured:
            html = logged_in.get(f"{MENU}?section={cond.key}&{query}").content.decode()
        assert "data-histogram" in html, cond.key
        statements = lesson_queries(captured)
        if not query and maintained():
            assert len(statements) == (0 if cond.unit == "count" else 1), (cond.key, statements)
            assert all(LessonValueCount._meta.db_table in sql for sql in statements)  # the table or its view
            continue
        assert len(statements) == 1, (cond.key, statements)
        assert "COUNT(" in statements[0]  # an aggregate: a GROUP BY on the bins, or a count at every edge


@pytest.mark.parametrize(
    "query", ["", "kind=lesson&host=codex", "retention=min_age_days:30,min_opened_count:1", "archived=1"]
)
def test_the_counts_a_section_shows_are_the_preset_counts(logged_in: Client, account, query: str) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=120, seed=41)
    state = ExplorerState.from_query(QueryDict(query))
    for cond in CONDITIONS:
        html = logged_in.get(f"{MENU}?section={cond.key}&{query}").content.decode()
        choices = [(cond.retention, v) for v in cond.retention_presets]
        if cond.reverse:
            choices += [(cond.reverse, v) for v in cond.reverse_presets]
        applied = [(n, v) for n, v in state.rule.conditions.items() if n in {cond.retention, cond.reverse}]
        custom = [c for c in applied if c not in choices]
        expected = condition_choice_counts(account, state, cond, custom + choices, now=timezone.now())
        assert shown_counts(html) == expected, (query, cond.key)


def test_typing_renders_the_options_alone_and_leaves_the_histogram_to_the_browser(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=40, seed=42)
    with CaptureQueriesContext(connection) as captured:
        html = logged_in.get(f"{MENU}?section=delivered&typed=150&part=options").content.decode()
    assert "data-histogram" not in html
    assert len(lesson_queries(captured)) == 1
    assert "150 times or fewer" in html and "150 times or more" in html


def test_the_histogram_says_what_it_shows_in_words_and_as_a_table(logged_in: Client, account) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=40, seed=43)
    html = logged_in.get(f"{MENU}?section=chosen&retention=max_opened_count:3").content.decode()
    assert re.search(r'<svg[^>]*role="img"[^>]*aria-labelledby="fc-hist-title"', html)
    assert "3 times or fewer:" in html and "lessons in view" in html  # the marker's sentence, with numbers
    rows = re.findall(r"<tr><td>([^<]+)</td><td class=\"num\">([\d,]+)</td></tr>", html)
    bars = re.findall(r'<rect class="hist-bar[^"]*" data-bin="\d+"', html)
    assert len(rows) == len(bars) > 3
    assert "<summary" in html and "The bins as a table" in html


def test_the_policy_dialog_draws_the_histogram_over_the_candidate_set(logged_in: Client, account) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=40, seed=44)
    html = logged_in.get("/explorer/filter-control/?section=created&kind=lesson").content.decode()
    assert "data-histogram" in html
    assert 'id="fc-hist"' in html
