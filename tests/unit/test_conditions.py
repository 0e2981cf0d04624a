"""The registry's parsers and wording, checked against the seed's own examples. Pure functions: no database."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from lore.conditions import (
    CONDITIONS,
    DIMENSIONS_BY_NAME,
    NAME_MAX,
    PARAMS,
    DimFilter,
    Rule,
    auto_name,
    dimension_pill,
    parse_retention,
    parse_typed,
    serialize_retention,
)


def labels(condition: str, text: str) -> list[str]:
    return [o.label for o in parse_typed(condition, text).options]


def test_typing_45_under_created_offers_more_than_45_days_ago() -> None:
    assert labels("created", "45") == ["More than 45 days ago"]


def test_a_bare_number_offers_both_40_times_or_fewer_and_40_times_or_more() -> None:
    assert labels("chosen", "40") == ["40 times or fewer", "40 times or more"]


def test_strict_comparison_on_a_count_means_the_next_whole_number() -> None:
    result = parse_typed("chosen", ">40")
    assert [o.label for o in result.options] == ["41 times or more"]
    assert result.options[0].token == "min_opened_count:41"
    assert labels("chosen", ">=40") == ["40 times or more"]
    assert labels("chosen", "<40") == ["39 times or fewer"]
    assert labels("chosen", "<=40") == ["40 times or fewer"]


def test_on_days_a_strict_comparison_does_not_move_the_value() -> None:
    assert labels("last_open", ">30") == ["More than 30 days ago"]
    assert labels("last_open", ">=30") == ["More than 30 days ago"]
    assert labels("last_open", "<30") == ["Within 30 days"]
    assert labels("last_open", "30") == ["More than 30 days ago", "Within 30 days"]


def test_typed_garbage_offers_nothing_and_says_why() -> None:
    for text in ("abc", "-3", "4.5", "40 times", ">"):
        result = parse_typed("chosen", text)
        assert result.options == () and result.error, text
    assert parse_typed("chosen", "<0").error
    assert parse_typed("created", "0").error  # days start at 1
    assert parse_typed("created", "9999").error
    assert parse_typed("created", "<30").error  # Created has no reverse direction


@given(st.text(max_size=40), st.sampled_from([c.key for c in CONDITIONS] + ["nope"]))
def test_the_typed_parser_never_raises(text: str, condition: str) -> None:
    result = parse_typed(condition, text)
    assert result.options or result.error or not text.strip()


@given(st.text(max_size=200))
def test_the_retention_parser_never_raises(text: str) -> None:
    values, notices = parse_retention(text)
    assert all(name in PARAMS for name in values)


@given(st.dictionaries(st.sampled_from(list(PARAMS)), st.integers(min_value=1, max_value=365)))
def test_retention_round_trips_every_valid_value(values: dict[str, int]) -> None:
    parsed, _ = parse_retention(serialize_retention(values))
    again, notices = parse_retention(serialize_retention(parsed))
    assert parsed == again and not notices
    for name, value in parsed.items():
        assert values[name] == value


def test_a_row_holds_one_direction_at_a_time() -> None:
    values, notices = parse_retention("max_opened_count:5,min_opened_count:10")
    assert values == {"min_opened_count": 10}
    assert notices


def test_malformed_retention_parts_are_dropped_with_a_notice() -> None:
    values, notices = parse_retention(
        "min_age_days:90,bogus:3,max_read_count:-1,unseen_days:abc,max_seen_count:999999"
    )
    assert values == {"min_age_days": 90}
    assert len(notices) == 4


def test_pill_wording_carries_the_direction() -> None:
    assert PARAMS["min_opened_count"].pill(10) == "Chosen: 10 times or more"
    assert PARAMS["max_opened_count"].pill(5) == "Chosen: 5 times or fewer"
    assert PARAMS["max_opened_count"].pill(0) == "Chosen: never chosen"
    assert PARAMS["max_opened_count"].pill(1) == "Chosen: 1 time or fewer"
    assert PARAMS["unseen_days"].pill(90) == "Last agent open: more than 90 days ago"


def test_dimension_pills() -> None:
    kind = DIMENSIONS_BY_NAME["kind"]
    assert dimension_pill(kind, DimFilter(("bus",), "in")) == "Kind: is bus"
    assert dimension_pill(kind, DimFilter(("bus", "gotcha"), "in")) == "Kind: is either of bus, gotcha"
    assert dimension_pill(DIMENSIONS_BY_NAME["host"], DimFilter(("aw",), "nin")) == "Host: is not aw"
    assert (
        dimension_pill(DIMENSIONS_BY_NAME["origin_pr"], DimFilter(("482",), "in")) == "Pull request: is #482"
    )
    assert (
        dimension_pill(DIMENSIONS_BY_NAME["tags"], DimFilter(("a", "b"), "all")) == "Label: includes all a, b"
    )


def test_auto_name_matches_the_seed_examples() -> None:
    assert auto_name(Rule(conditions={"max_opened_count": 0})) == "chosen ≤ 0× in all scopes"
    rule = Rule(scope="repo::acme/app", conditions={"unseen_days": 90, "min_age_days": 90})
    assert auto_name(rule) == "created >90d ago · unopened >90d in repo::acme/app"
    rule = Rule(
        scope="repo::acme/app",
        dimensions={
            "host": DimFilter(("aw",), "nin"),
            "kind": DimFilter(("bus",), "in"),
            "tags": DimFilter(("ci::pr-review-state",), "all"),
        },
    )
    assert auto_name(rule) == (
        "label includes all ci::pr-review-state · kind is bus · host is not aw in repo::acme/app"
    )


def test_an_auto_name_too_long_for_a_name_is_cut_at_a_word_and_keeps_where_it_applies() -> None:
    values = tuple(f"value-{i:03d}" for i in range(40))
    rule = Rule(
        scope="repo::acme/app", conditions={"unseen_days": 90}, dimensions={"kind": DimFilter(values, "in")}
    )
    name = auto_name(rule)
    assert len(name) <= NAME_MAX
    assert name.startswith("unopened >90d · kind is either of value-000, value-001")
    assert name.endswith("… in repo::acme/app")
    assert re.search(r"value-\d{3}… in", name)  # a whole value before the mark, never half of one


def test_an_auto_name_of_a_very_long_scope_still_fits() -> None:
    scope = "branch::acme/app::" + "feature-" * 60
    name = auto_name(Rule(scope=scope, conditions={"unseen_days": 90}))
    assert len(name) <= NAME_MAX and name.startswith("unopened >90d in branch::acme/app::feature-")
    assert name.endswith("…")


def test_zero_under_a_counter_never_offers_0_times_or_more_which_matches_everything() -> None:
    for cond in (c for c in CONDITIONS if c.unit == "count"):
        result = parse_typed(cond.key, "0")
        assert [o.token for o in result.options] == [f"{cond.retention}:0"], cond.key
        refused = parse_typed(cond.key, ">=0")
        assert refused.options == () and "every lesson" in refused.error, cond.key
    assert labels("chosen", "0") == ["Never chosen"]
    assert labels("chosen", ">0") == ["1 time or more"]


def test_auto_names_name_the_other_conditions_by_their_labels() -> None:
    assert auto_name(Rule(conditions={"max_seen_count": 1})) == "recurrence ≤ 1× in all scopes"
    assert auto_name(Rule(conditions={"max_read_count": 500})) == "delivered ≤ 500× in all scopes"
    for cond in CONDITIONS:  # every phrase starts with the words of the label the pill shows
        phrase = cond.name_phrase.format(n=1)
        assert phrase.split()[0] in cond.label.lower() or cond.key == "last_open", cond.key
