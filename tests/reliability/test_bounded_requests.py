"""Every request does bounded work: the tag-`all` filter is one aggregate whose plan does not grow with its tags,
a web request's SQL stops at STATEMENT_TIMEOUT_MS with a clear 503, the filter menu answers in proportion to its
input, and one-letter search words are capped."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test import Client

from lore.conditions import DIMENSIONS_BY_NAME, DimFilter, dimension_q
from lore.limits import SEARCH_SHORT_WORDS_MAX, SEARCH_WORDS_MAX, TAGS_ALL_MAX
from lore.models import Lesson
from lore.services import tags_sync
from tests.api.conftest import Api, error_of
from tests.factories import LessonFactory
from tests.services import require_postgres

pytestmark = pytest.mark.django_db


def _store(account, n: int = 300) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=account, key=f"k{i}", tags=[f"t{i % 7}", "common"]) for i in range(n)]
    tags_sync(account, {lesson.pk: lesson.tags for lesson in lessons})


def _tags_all(tags: list[str]):  # noqa: ANN202
    return dimension_q(DIMENSIONS_BY_NAME["tags"], DimFilter(tuple(tags), "all"))


@pytest.mark.postgres
def test_a_tags_all_filter_of_1000_tags_runs_within_the_tests_own_statement_timeout(account) -> None:  # noqa: ANN001
    require_postgres()
    _store(account)
    tags = ["common", "t1", *[f"missing{i}" for i in range(998)]]
    with transaction.atomic(), connection.cursor() as cursor:
        # One EXISTS per tag took 60 s to plan at 1,000 tags; one aggregate is planned and run in milliseconds.
        cursor.execute("SET LOCAL statement_timeout = '3s'")
        assert Lesson.objects.filter(account=account).filter(_tags_all(tags)).count() == 0
        assert (
            Lesson.objects.filter(account=account).filter(_tags_all(["common", "t1"])).count() == 300 // 7 + 1
        )


def test_tags_all_means_every_tag_and_a_single_tag_is_plain_membership(account) -> None:  # noqa: ANN001
    _store(account, 30)
    both = Lesson.objects.filter(account=account).filter(_tags_all(["t2", "common"]))
    assert {lesson.key for lesson in both} == {f"k{i}" for i in range(30) if i % 7 == 2}
    assert Lesson.objects.filter(_tags_all(["t2", "t3"])).count() == 0
    assert Lesson.objects.filter(_tags_all(["t2"])).count() == len([i for i in range(30) if i % 7 == 2])


@pytest.mark.postgres
def test_the_api_answers_a_tags_all_filter_at_its_limit_within_the_statement_timeout(
    account,
    raw_token,
    settings,  # noqa: ANN001
) -> None:
    require_postgres()
    _store(account)
    settings.LORE_STATEMENT_TIMEOUT_MS = 3000
    tags = ["common", *[f"missing{i}" for i in range(TAGS_ALL_MAX.value - 1)]]
    response = Api(Client(), raw_token).post("/memories/list", {"tags": tags, "tags_mode": "all"})
    assert response.status_code == 200, response.content


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.urls("tests.reliability.slow_urls")
@pytest.mark.parametrize("path", ["/slow/", "/api/v1/slow"])
def test_a_query_over_the_statement_timeout_is_a_503_saying_it_took_too_long(path: str, settings) -> None:  # noqa: ANN001
    require_postgres()
    settings.LORE_STATEMENT_TIMEOUT_MS = 200
    try:
        response = Client().get(path)
    finally:  # the test's own connection served the request: give it back without the 200 ms limit
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', '0', false)")
    assert response.status_code == 503
    text = response.content.decode()
    assert "the query took too long" in text and "STATEMENT_TIMEOUT_MS" in text
    if path.startswith("/api/"):
        assert response.json()["error"]["code"] == "timeout"


def test_more_search_words_than_allowed_is_a_422_naming_the_limit(raw_token) -> None:  # noqa: ANN001
    words = " ".join(f"word{i}" for i in range(SEARCH_WORDS_MAX.value + 1))
    response = Api(Client(), raw_token).post("/memories/search", {"query": words})
    assert response.status_code == 422
    assert "(limit: SEARCH_WORDS_MAX)" in error_of(response)["message"]


def test_many_one_letter_search_words_are_a_422_naming_the_limit(raw_token) -> None:  # noqa: ANN001
    words = " ".join("abcdefghij"[: SEARCH_SHORT_WORDS_MAX.value + 1])
    response = Api(Client(), raw_token).post("/memories/search", {"query": words})
    assert response.status_code == 422
    assert "(limit: SEARCH_SHORT_WORDS_MAX)" in error_of(response)["message"]
