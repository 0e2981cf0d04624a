"""Dimension values of a rule: what a filter may hold (the codec's DimensionValuesField)."""

from __future__ import annotations

import pytest

from lore.rules.codec import RuleError, rule_parse, rule_parse_strict


def test_a_pull_request_filter_takes_the_number_with_or_without_its_hash() -> None:
    rule, problems = rule_parse({"origin_pr": "#482,17", "origin_pr_mode": "in"})
    assert rule.dimensions["origin_pr"].values == ("482", "17") and problems == []


@pytest.mark.parametrize("raw", ["#", "482,#", "# "])
def test_a_bare_hash_is_refused_rather_than_filtering_on_no_pull_request(raw: str) -> None:
    rule, problems = rule_parse({"origin_pr": raw})
    assert "origin_pr" not in rule.dimensions
    assert [p.field for p in problems] == ["origin_pr"]
    with pytest.raises(RuleError) as exc:
        rule_parse_strict({"scope": "global", "origin_pr": raw})
    assert exc.value.field == "origin_pr"
