"""Dimension values of a rule: what a filter may hold (the registry's parse_dimension)."""

from __future__ import annotations

import pytest

from lore.conditions import DIMENSIONS_BY_NAME, RuleError, parse_dimension, rule_from_data
from lore.scopes import ScopeError


def test_a_pull_request_filter_takes_the_number_with_or_without_its_hash() -> None:
    assert parse_dimension(DIMENSIONS_BY_NAME["origin_pr"], "#482,17", "in").values == ("482", "17")


@pytest.mark.parametrize("raw", ["#", "482,#", "# "])
def test_a_bare_hash_is_refused_rather_than_filtering_on_no_pull_request(raw: str) -> None:
    with pytest.raises(ScopeError) as exc:
        parse_dimension(DIMENSIONS_BY_NAME["origin_pr"], raw, "in")
    assert exc.value.field == "origin_pr"
    with pytest.raises(RuleError):
        rule_from_data({"scope": "global", "origin_pr": raw})
