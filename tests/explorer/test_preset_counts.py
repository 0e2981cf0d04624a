"""Each preset under Age & activity shows how many lessons it would leave in view (issue 17, point 6)."""

from __future__ import annotations

import re

import pytest
from django.http import QueryDict
from django.test import Client
from django.utils import timezone

from explorer.queries import condition_choice_counts, lessons_shown
from explorer.state import ExplorerState
from lore.conditions import CONDITIONS, CONDITIONS_BY_KEY
from lore.demo import demo_store_create

pytestmark = pytest.mark.django_db

QUERIES = [
    "",
    "kind=lesson",
    "retention=min_age_days:30,max_opened_count:0&host=codex",
    "retention=min_opened_count:1&q=cache",
    "archived=1",
]


def presets(cond) -> list[tuple[str, int]]:  # noqa: ANN001
    out = [(cond.retention, v) for v in cond.retention_presets]
    return out + [(cond.reverse, v) for v in cond.reverse_presets if cond.reverse]


@pytest.mark.parametrize("query", QUERIES)
def test_each_preset_counts_the_lessons_the_list_would_show_with_it_applied(account, query: str) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=150, seed=5)
    now = timezone.now()
    state = ExplorerState.from_query(QueryDict(query))
    seen: list[int] = []
    for cond in CONDITIONS:
        choices = presets(cond)
        counts = condition_choice_counts(account, state, cond, choices, now=now)
        expected = [
            lessons_shown(account, state.with_rule(state.rule.with_condition(name, value)), now=now).count()
            for name, value in choices
        ]
        assert counts == expected, (query, cond.key)
        seen += counts
    assert any(seen)  # the store is not empty: the check compares numbers, not zeros


def test_the_preset_counts_of_a_section_are_one_query_whatever_the_number_of_presets(
    account,  # noqa: ANN001
    django_assert_num_queries,  # noqa: ANN001
) -> None:
    demo_store_create(account, lessons=30, seed=6)
    cond = CONDITIONS_BY_KEY["last_open"]
    state = ExplorerState.from_query(QueryDict("kind=lesson"))
    with django_assert_num_queries(1):
        counts = condition_choice_counts(account, state, cond, presets(cond), now=timezone.now())
    assert len(counts) == len(presets(cond)) == 8


def test_an_opened_condition_section_shows_a_count_on_every_preset(logged_in: Client, account) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=40, seed=7)
    html = logged_in.get("/explorer/menu/?section=chosen").content.decode()
    choices = re.findall(r'<a class="fc-choice.*?</a>', html, flags=re.S)
    assert len(choices) == len(presets(CONDITIONS_BY_KEY["chosen"]))
    assert all('class="fc-count"' in c for c in choices)


def test_the_policy_dialog_counts_presets_over_the_candidate_set(logged_in: Client, account) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=40, seed=8)
    html = logged_in.get("/explorer/filter-control/?section=created&kind=lesson").content.decode()
    counts = [int(n.replace(",", "")) for n in re.findall(r'class="fc-count">([\d,]+)<', html)]
    assert len(counts) == len(CONDITIONS_BY_KEY["created"].retention_presets)
    assert counts == sorted(counts, reverse=True)  # older than more days: never more lessons
