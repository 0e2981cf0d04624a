"""The shared filter control (explorer/filter_control.py): menu, typed input, presets, pills, hidden inputs."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from django.http import QueryDict

from explorer.filter_control import FilterControl, control_context
from lore.conditions import CONDITIONS, DIMENSIONS, DimFilter
from lore.rules.codec import rule_as_query, rule_parse
from lore.rules.rule import Rule


def control(rule: Rule, **extra: object) -> FilterControl:
    def href(r: Rule) -> str:
        return "/x/?" + "&".join(f"{k}={v}" for k, v in rule_as_query(r))

    return FilterControl(rule=rule, href=href, menu_href=href, **extra)  # type: ignore[arg-type]


def labels(section) -> list[str]:  # noqa: ANN001
    return [c.label for g in section.groups for c in g.choices]


def picked(href: str) -> Rule:
    query = urlsplit(href).query
    return rule_parse(QueryDict(query))[0]


def test_the_menu_lists_the_nine_dimensions_then_the_five_conditions_under_age_and_activity() -> None:
    fc = control_context(control(Rule()))["fc"]
    assert [e.label for e in fc.dimensions] == [d.label for d in DIMENSIONS]
    assert [e.label for e in fc.conditions] == [c.label for c in CONDITIONS]


def test_typing_45_under_created_offers_more_than_45_days_ago() -> None:
    section = control_context(control(Rule()), "created", "45")["fc"].section
    assert labels(section) == ["More than 45 days ago"]
    assert picked(section.groups[0].choices[0].href).conditions == {"min_age_days": 45}


def test_typing_greater_than_40_under_chosen_offers_41_times_or_more() -> None:
    section = control_context(control(Rule()), "chosen", ">40")["fc"].section
    assert labels(section) == ["41 times or more"]
    assert picked(section.groups[0].choices[0].href).conditions == {"min_opened_count": 41}


def test_a_bare_number_offers_both_directions_where_the_condition_has_two() -> None:
    assert labels(control_context(control(Rule()), "chosen", "40")["fc"].section) == [
        "40 times or fewer",
        "40 times or more",
    ]
    assert labels(control_context(control(Rule()), "last_open", "30")["fc"].section) == [
        "More than 30 days ago",
        "Within 30 days",
    ]


def test_nonsense_typed_offers_nothing_and_says_why() -> None:
    section = control_context(control(Rule()), "chosen", "abc")["fc"].section
    assert labels(section) == [] and section.error


def test_counters_show_at_most_and_at_least_groups_and_last_agent_open_more_than_and_within() -> None:
    chosen = control_context(control(Rule()), "chosen")["fc"].section
    assert [g.heading for g in chosen.groups] == ["At most", "At least"]
    assert labels(chosen) == [
        "Never chosen",
        "1 time or fewer",
        "2 times or fewer",
        "5 times or fewer",
        "1 time or more",
        "10 times or more",
        "100 times or more",
    ]
    last_open = control_context(control(Rule()), "last_open")["fc"].section
    assert [g.heading for g in last_open.groups] == ["More than", "Within"]


def test_an_applied_custom_value_keeps_a_custom_row_at_the_top() -> None:
    rule = Rule(conditions={"min_age_days": 45})
    section = control_context(control(rule), "created")["fc"].section
    first = section.groups[0].choices[0]
    assert first.label == "More than 45 days ago" and first.custom and first.selected


def test_picking_the_other_direction_replaces_the_row() -> None:
    rule = Rule(conditions={"max_opened_count": 5})
    section = control_context(control(rule), "chosen")["fc"].section
    ten_or_more = next(c for g in section.groups for c in g.choices if c.label == "10 times or more")
    assert picked(ten_or_more.href).conditions == {"min_opened_count": 10}
    assert rule.with_condition("min_opened_count", 10).conditions == {"min_opened_count": 10}


def test_a_condition_pick_returns_to_the_list_and_a_dimension_pick_stays_in_its_section() -> None:
    fc = control_context(control(Rule(), value_counts=lambda d, t: [("bus", 3)]), "kind")["fc"]
    value_href = fc.section.groups[0].choices[0].href
    assert parse_qs(urlsplit(value_href).query)["menu"] == ["kind"]
    created = control_context(control(Rule()), "created")["fc"].section
    assert "menu=" not in created.groups[0].choices[0].href


def test_dimension_values_show_counts_and_toggle_in_and_out_of_the_filter() -> None:
    rule = Rule(dimensions={"kind": DimFilter(("bus",), "in")})
    fc = control_context(control(rule, value_counts=lambda d, t: [("bus", 3), ("decision", 2)]), "kind")["fc"]
    choices = fc.section.groups[0].choices
    assert [(c.label, c.count, c.selected) for c in choices] == [("bus", 3, True), ("decision", 2, False)]
    assert "kind" not in picked(choices[0].href).dimensions
    assert picked(choices[1].href).dimensions["kind"].values == ("bus", "decision")


def test_a_typed_dimension_value_nobody_carries_is_offered_as_custom() -> None:
    fc = control_context(control(Rule(), value_counts=lambda d, t: []), "origin_pr", "#482")["fc"]
    choice = fc.section.groups[0].choices[0]
    assert choice.label == "#482" and choice.custom
    assert picked(choice.href).dimensions["origin_pr"].values == ("482",)


def test_pills_use_the_registry_wording_and_each_removes_only_itself() -> None:
    rule = Rule(
        conditions={"min_opened_count": 10, "min_age_days": 90},
        dimensions={"kind": DimFilter(("bus",), "in")},
    )
    pills = control_context(control(rule))["fc"].pills
    assert [p.text for p in pills] == [
        "Created: more than 90 days ago",
        "Chosen: 10 times or more",
        "Kind: is bus",
    ]
    assert picked(pills[1].remove_href).conditions == {"min_age_days": 90}
    assert pills[1].reverse and not pills[0].reverse


def test_policy_mode_offers_neither_reverse_directions_nor_owner() -> None:
    fc = control_context(control(Rule(), in_policy=True), "chosen")["fc"]
    assert "Owner" not in [e.label for e in fc.dimensions]
    assert [g.heading for g in fc.section.groups] == [""]
    typed = control_context(control(Rule(), in_policy=True), "chosen", ">40")["fc"].section
    assert labels(typed) == [] and typed.error
