"""The rule language's one codec (lore.rules): a FilterSet generated from the registry reads a rule from a query
dict, a JSON body or form data; strict callers refuse the first problem, lenient ones keep the rest."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django import forms
from django.http import QueryDict
from django.utils import timezone

from lore.candidates import lessons_matching
from lore.conditions import DIMENSIONS, PARAMS, DimFilter
from lore.limits import SEARCH_WORDS_MAX
from lore.rules.codec import (
    Listing,
    RuleError,
    listing_parse,
    listing_parse_strict,
    rule_as_form_data,
    rule_as_json,
    rule_as_query,
    rule_from_json,
    rule_parse,
    rule_parse_strict,
)
from lore.rules.filterset import RuleFilterSet
from lore.rules.rule import Rule

RULES = [
    Rule(),
    Rule(scope="repo::acme/app", conditions={"min_age_days": 90, "max_opened_count": 0}),
    Rule(
        conditions={"min_opened_count": 10},
        dimensions={"tags": DimFilter(("ci::x", "b"), "all"), "owner": DimFilter(("data",), "nin")},
    ),
    Rule(scope="project::lore", dimensions={"origin_pr": DimFilter(("482",), "in")}),
]


def test_the_filterset_has_a_filter_per_condition_per_dimension_and_its_mode_the_scope_retention_search_and_sort() -> (
    None
):
    names = set(RuleFilterSet.base_filters)
    assert names == {
        "scope",
        "retention",
        "q",
        "sort",
        *PARAMS,
        *(d.name for d in DIMENSIONS),
        *(d.mode_param for d in DIMENSIONS),
    }


def test_each_condition_is_an_integer_field_bounded_by_the_conditions_bounds() -> None:
    form = RuleFilterSet({}).form
    for param in PARAMS.values():
        field = form.fields[param.name]
        assert isinstance(field, forms.IntegerField)
        assert (field.min_value, field.max_value) == param.bounds


@pytest.mark.parametrize("rule", RULES)
def test_a_rule_written_as_url_params_form_data_or_json_reads_back_as_itself(rule: Rule) -> None:
    query = QueryDict(mutable=True)
    for name, value in rule_as_query(rule):
        query.appendlist(name, value)
    assert rule_parse(query) == (rule, [])
    assert rule_parse({"scope": rule.scope, **dict(rule_as_form_data(rule))}) == (rule, [])
    assert rule_from_json(rule_as_json(rule)) == rule


def test_form_inputs_are_named_after_the_registry_params_and_dimensions() -> None:
    rule = Rule(conditions={"min_age_days": 90}, dimensions={"tags": DimFilter(("a", "b"), "all")})
    assert rule_as_form_data(rule) == [("min_age_days", "90"), ("tags", "a,b"), ("tags_mode", "all")]


def test_lenient_callers_keep_the_good_parts_and_get_a_notice_per_bad_one() -> None:
    rule, problems = rule_parse(
        QueryDict("retention=min_age_days:90,bogus:1&max_read_count=x&kind=bus&kind_mode=no")
    )
    assert rule.conditions == {"min_age_days": 90}
    assert rule.dimensions["kind"] == DimFilter(("bus",), "in")  # a bad mode never widens the view
    assert [p.field for p in problems] == ["retention", "max_read_count", "kind_mode"]
    assert all(p.notice.startswith("Ignored") for p in problems)


def test_strict_callers_refuse_the_first_problem_naming_its_field() -> None:
    with pytest.raises(RuleError) as exc:
        rule_parse_strict({"scope": "global", "min_age_days": "0", "kind_mode": "no"})
    assert (exc.value.field, exc.value.message) == (
        "min_age_days",
        "min_age_days must be between 1 and 3,650 days",
    )
    with pytest.raises(RuleError) as scope:
        rule_parse_strict({"min_age_days": 9})
    assert scope.value.field == "scope"


def test_both_directions_of_a_row_keep_the_later_leniently_and_are_refused_strictly() -> None:
    data = QueryDict("retention=max_opened_count:0&min_opened_count=5")
    rule, problems = rule_parse(data)
    assert rule.conditions == {"min_opened_count": 5} and len(problems) == 1
    with pytest.raises(RuleError) as exc:
        rule_parse_strict(data, in_policy=False, require_scope=False)
    assert exc.value.field == "min_opened_count" and "pick one" in exc.value.message


def test_a_policys_rule_leaves_out_reverse_directions_and_explorer_only_filters_as_problems() -> None:
    rule, problems = rule_parse(
        QueryDict("retention=min_opened_count:3,min_age_days:9&owner=data"), in_policy=True
    )
    assert rule == Rule(conditions={"min_age_days": 9})
    assert [p.field for p in problems] == ["min_opened_count", "owner"]


def test_numbers_take_ascii_digits_only() -> None:
    for text in ("1e3", "90.0", "+5", "٣٠", "true"):
        rule, problems = rule_parse({"min_age_days": text})
        assert rule.is_empty and [p.field for p in problems] == ["min_age_days"], text


def test_the_edits_are_methods_of_the_rule_and_a_row_holds_one_direction() -> None:
    rule = Rule(conditions={"max_opened_count": 5}).with_condition("min_opened_count", 10)
    assert rule.conditions == {"min_opened_count": 10}
    assert rule.without_condition("chosen").is_empty
    toggled = Rule().toggle_value("kind", "bus").toggle_value("kind", "decision").toggle_value("kind", "bus")
    assert toggled.dimensions == {"kind": DimFilter(("decision",), "in")}
    assert toggled.with_dimension("kind", None).is_empty


@pytest.mark.django_db
def test_the_filtersets_queryset_is_the_candidate_query_in_one_statement(
    account,
    django_assert_num_queries,  # noqa: ANN001
) -> None:
    from tests.factories import LessonFactory

    LessonFactory(account=account, kind="bus", created_at=timezone.now() - timedelta(days=100))
    LessonFactory(account=account, kind="decision", created_at=timezone.now() - timedelta(days=100))
    LessonFactory(account=account, kind="bus")
    data = QueryDict("scope=repo::acme/app&retention=min_age_days:90&kind=bus")
    filterset = RuleFilterSet(data, queryset=lessons_matching(account, Rule()))
    expected = lessons_matching(account, filterset.rule)
    with django_assert_num_queries(1):
        found = set(filterset.qs.values_list("pk", flat=True))
    assert found == set(expected.values_list("pk", flat=True)) and len(found) == 1


def test_a_lists_search_and_sort_are_read_by_the_filterset_with_the_rule() -> None:
    listing, problems = listing_parse(QueryDict("kind=bus&q=use%09%20uv&sort=opened_count"))
    assert problems == []
    assert listing == Listing(Rule(dimensions={"kind": DimFilter(("bus",), "in")}), "use uv", "opened_count")
    assert listing_parse({})[0] == Listing(Rule(), "", "newest")


def test_a_bad_sort_is_a_problem_the_explorer_drops_and_the_api_refuses() -> None:
    listing, problems = listing_parse(QueryDict("sort=sideways"))
    assert listing.sort == "newest"
    assert [(p.field, p.notice) for p in problems] == [
        ("sort", "Ignored sort “sideways”: use newest, opened_count, updated, coldest.")
    ]
    with pytest.raises(RuleError) as refused:
        listing_parse_strict({"sort": "sideways"})
    assert refused.value.field == "sort"


def test_a_search_over_the_word_limit_keeps_what_fits_and_names_the_limit() -> None:
    words = " ".join(f"word{i}" for i in range(SEARCH_WORDS_MAX.value + 3))
    listing, problems = listing_parse({"q": words})
    assert listing.q.split() == words.split()[: SEARCH_WORDS_MAX.value]
    assert [(p.field, p.code) for p in problems] == [("q", "limit_exceeded")]
    with pytest.raises(RuleError) as refused:
        listing_parse_strict({"q": words})
    assert (refused.value.field, refused.value.code) == ("q", "limit_exceeded")
