"""No N+1: the number of SQL queries per page does not grow with the number of rows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from lore.demo import demo_store_create

pytestmark = pytest.mark.django_db

URLS = [
    "/a/acme/explorer/",
    "/a/acme/explorer/?retention=min_age_days:30,max_opened_count:0&matrix=tags,host",
    "/a/acme/explorer/?archived=1",
    "/a/acme/explorer/?kind=lesson,bus&tags=testing&sort=opened_count",
    "/a/acme/explorer/menu/?section=tags",
    "/a/acme/explorer/menu/?section=kind&retention=min_age_days:30",
    "/a/acme/explorer/rows/",
]


def queries_for(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.mark.parametrize("url", URLS)
def test_queries_per_page_are_constant_in_the_number_of_rows(
    logged_in: Client,
    account,
    url: str,
    django_assert_max_num_queries,  # noqa: ANN001
) -> None:
    demo_store_create(account, lessons=10, seed=1)
    small = queries_for(logged_in, url)
    demo_store_create(account, lessons=200, seed=2)
    with django_assert_max_num_queries(small):
        logged_in.get(url)


def test_the_page_is_a_handful_of_queries(logged_in: Client, account, django_assert_max_num_queries) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=200, seed=3)
    # session + user + membership, scopes, stat cards, read card, matrix, list
    with django_assert_max_num_queries(9):
        logged_in.get("/a/acme/explorer/?retention=min_age_days:30&kind=lesson")


@pytest.mark.parametrize(
    "query",
    [
        "",
        "retention=min_age_days:30,max_opened_count:0",
        "retention=min_age_days:30&host=aw,codex&kind=bus&kind_mode=nin&owner=data&owner_mode=nin",
        "archived=1&kind=lesson",
        "scope=repo::acme/app&range=90d&q=uv&matrix=trigger,source_agent&tags=testing",
        "matrix=tags,host&retention=min_opened_count:1",
    ],
)
def test_stat_cards_and_matrix_in_one_scan_agree_with_their_separate_queries(account, query: str) -> None:  # noqa: ANN001
    from django.http import QueryDict
    from django.utils import timezone

    from explorer.queries import cards_and_matrix, matrix, stat_cards
    from explorer.state import ExplorerState

    demo_store_create(account, lessons=300, seed=5)
    state = ExplorerState.from_query(QueryDict(query))
    now = timezone.now()
    cards, pivot = cards_and_matrix(account, state, now=now)
    assert cards == stat_cards(account, state, now=now)
    assert pivot == matrix(account, state, now=now)
