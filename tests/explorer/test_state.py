"""The Explorer's state lives in the URL, parsed once (explorer/state.py)."""

from __future__ import annotations

from datetime import date

from django.http import QueryDict

from explorer.state import ExplorerState
from lore.conditions import DimFilter


def parse(query: str) -> ExplorerState:
    return ExplorerState.from_query(QueryDict(query))


def test_the_default_view_has_an_empty_canonical_query() -> None:
    state = parse("")
    assert state.to_query() == ""
    assert state.url() == "/explorer/"
    assert state.notices == ()


def test_a_full_view_round_trips_through_its_canonical_url() -> None:
    query = (
        "scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0&tags=ci::pr-review-state&tags_mode=all"
        "&kind=bus,decision&kind_mode=in&owner=data&owner_mode=nin&range=30d&q=use uv&sort=opened_count"
        "&matrix=tags,host"
    )
    state = parse(query)
    assert state.notices == ()
    assert state.rule.scope == "repo::acme/app"
    assert state.rule.conditions == {"min_age_days": 90, "max_opened_count": 0}
    assert state.rule.dimensions["kind"] == DimFilter(("bus", "decision"), "in")
    assert state.rule.dimensions["owner"] == DimFilter(("data",), "nin")
    assert state.range.key == "30d" and state.q == "use uv" and state.sort == "opened_count"
    assert state.matrix == ("tags", "host")
    again = parse(state.to_query())
    assert again == state


def test_conditions_are_kept_in_registry_order_whatever_the_url_order() -> None:
    state = parse("retention=max_opened_count:0,min_age_days:90")
    assert state.to_query() == "retention=min_age_days:90,max_opened_count:0"


def test_a_row_holds_one_direction_at_a_time_and_the_later_one_wins() -> None:
    state = parse("retention=max_opened_count:5,min_opened_count:10")
    assert state.rule.conditions == {"min_opened_count": 10}
    assert any("one direction at a time" in n for n in state.notices)


def test_a_condition_given_twice_keeps_the_later_value_and_says_so() -> None:
    state = parse("retention=min_age_days:90,min_age_days:30")
    assert state.rule.conditions == {"min_age_days": 30}
    assert state.notices == (
        "min_age_days appeared twice in retention: kept Created: more than 30 days ago.",
    )
    assert parse("retention=min_age_days:30,min_age_days:30").notices == ()


def test_a_separate_param_overriding_retention_says_so() -> None:
    state = parse("retention=max_opened_count:0&min_opened_count=5")
    assert state.rule.conditions == {"min_opened_count": 5}
    assert state.notices == (
        "Chosen was given twice: kept Chosen: 5 times or more from min_opened_count=, "
        "not Chosen: never chosen from retention.",
    )


def test_two_params_of_one_condition_keep_the_later_and_name_the_other() -> None:
    state = parse("max_opened_count=3&min_opened_count=5")
    assert state.rule.conditions == {"min_opened_count": 5}
    assert state.notices == (
        "Chosen was given twice: kept Chosen: 5 times or more from min_opened_count=, "
        "not Chosen: 3 times or fewer from max_opened_count=.",
    )
    assert parse("min_opened_count=5&max_opened_count=3").rule.conditions == {"max_opened_count": 3}


def test_a_condition_without_a_value_is_named_as_one_that_needs_a_value() -> None:
    assert parse("retention=max_opened_count").notices == (
        "Ignored “max_opened_count” in retention: it needs a value, e.g. max_opened_count:0.",
    )


def test_a_bad_mode_keeps_the_filters_values_with_the_default_mode() -> None:
    state = parse("tags=a&tags_mode=in")
    assert state.rule.dimensions["tags"] == DimFilter(("a",), "any")
    assert state.notices == ("Ignored tags_mode=“in”: the Label filter matches any, all, none; kept any.",)


def test_malformed_parts_are_dropped_each_with_a_notice() -> None:
    state = parse(
        "retention=min_age_days:abc,bogus:3&kind=&sort=sideways&range=forever&archived=maybe&frobnicate=1"
    )
    assert state.rule.is_empty
    assert state.sort == "newest" and state.range.is_all_time and not state.archived
    text = " ".join(state.notices)
    for part in ("min_age_days:abc", "bogus:3", "sideways", "forever", "maybe", "frobnicate"):
        assert part in text


def test_out_of_range_values_are_dropped_with_a_notice() -> None:
    state = parse("retention=min_age_days:0,max_read_count:100001,unseen_days:99999999999")
    assert state.rule.conditions == {}
    assert len(state.notices) == 3


def test_a_bad_scope_is_dropped_and_the_view_falls_back_to_all_scopes() -> None:
    state = parse("scope=repo:acme")
    assert state.scope == "global"
    assert any("scope" in n for n in state.notices)


def test_a_repeated_parameter_keeps_its_last_value_with_a_notice() -> None:
    state = parse("sort=newest&sort=opened_count")
    assert state.sort == "opened_count"
    assert any("2 times" in n for n in state.notices)


def test_repeated_dimension_values_combine() -> None:
    state = parse("kind=bus&kind=decision")
    assert state.rule.dimensions["kind"].values == ("bus", "decision")


def test_a_custom_range_is_written_as_two_days() -> None:
    state = parse("range=2026-03-31..2026-01-01")
    assert state.range.is_custom
    assert (state.range.since, state.range.until) == (date(2026, 1, 1), date(2026, 3, 31))
    assert "range=2026-01-01..2026-03-31" in state.to_query()


def test_the_toolbar_date_inputs_make_a_custom_range() -> None:
    state = parse("range=custom&from=2026-01-01&to=")
    assert state.range.is_custom and state.range.since == date(2026, 1, 1) and state.range.until is None
    assert parse("range=custom&from=&to=").range.is_all_time


def test_a_run_filter_implies_the_archived_view() -> None:
    state = parse("run=12")
    assert state.archived and state.run == 12


def test_the_matrix_form_two_selects_name_the_axes() -> None:
    assert parse("matrix=kind&matrix=owner").matrix == ("kind", "owner")
    bad = parse("matrix=origin_pr,kind")
    assert bad.matrix == ("host", "kind") and bad.notices


def test_create_retention_policy_needs_a_rule_and_nothing_a_policy_cannot_carry() -> None:
    assert not parse("").can_create_policy
    assert parse("retention=min_age_days:90").can_create_policy
    assert parse("kind=bus").can_create_policy
    for blocker in (
        "retention=min_opened_count:10",
        "kind=bus&owner=data",
        "kind=bus&range=30d",
        "kind=bus&archived=1",
    ):
        state = parse(blocker)
        assert not state.can_create_policy, blocker
        assert state.policy_blockers, blocker


def test_the_hand_off_carries_scope_conditions_and_every_filter_with_its_mode() -> None:
    state = parse(
        "scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0&kind=bus&tags=ci::pr-review-state&tags_mode=all"
    )
    assert state.policy_handoff_url == (
        "/settings/policies/new/?scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0"
        "&tags=ci::pr-review-state&tags_mode=all&kind=bus&kind_mode=in"
    )
