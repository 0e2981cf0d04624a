"""No N+1: the number of SQL queries per page does not grow with the number of rows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from lore.demo import demo_store_create

pytestmark = pytest.mark.django_db

URLS = [
    "/explorer/",
    "/explorer/?retention=min_age_days:30,max_opened_count:0&matrix=tags,host",
    "/explorer/?archived=1",
    "/explorer/?kind=lesson,bus&tags=testing&sort=opened_count",
    "/explorer/menu/?section=tags",
    "/explorer/menu/?section=kind&retention=min_age_days:30",
    "/explorer/rows/",
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
        logged_in.get("/explorer/?retention=min_age_days:30&kind=lesson")
