"""The one codec of the rule language: read a Rule from a query dict, a JSON body or form data, and write it back
as URL params, JSON and form data. A list's request is a rule plus its search and its sort (`Listing`): read by
the same FilterSet (`listing_parse`, `listing_parse_strict`).

Reading is done by `RuleFilterSet` (django-filter) and gives the rule plus every problem (field, message):
- strict callers (the REST API, so lorekit and MCP; the groom command) take `rule_parse_strict`, which raises
  RuleError on the first problem — the API answers it as a 422 naming the field;
- lenient callers (the Explorer URL, the policy dialog's live control) take `rule_parse` and show each problem's
  notice, keeping the rest of the rule;
- the policy form puts every problem next to its field.

A row holds one direction at a time: when the input names both directions of one condition (or one twice), the
later one is kept and that is a problem — a notice in the Explorer, a 422 ("pick one") in the API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lore.conditions import DIMENSIONS, canonical_conditions
from lore.rules.filterset import Problem, RuleFilterSet
from lore.rules.rule import Listing, Rule
from lore.scopes import GLOBAL

__all__ = [
    "LISTING_PARAMS",
    "RULE_PARAMS",
    "Listing",
    "Problem",
    "RuleError",
    "rule_as_form_data",
    "rule_as_json",
    "rule_as_query",
    "rule_from_json",
    "listing_parse",
    "listing_parse_strict",
    "rule_parse",
    "rule_parse_strict",
    "retention_text",
]


# Every parameter the FilterSet reads: a rule's, a list's search and sort.
LISTING_PARAMS = frozenset(RuleFilterSet.base_filters)
RULE_PARAMS = LISTING_PARAMS - {"retention", "q", "sort"}  # one field per part (a JSON rule, a snapshot)


class RuleError(ValueError):
    """A strict caller's refusal: the first problem of a rule (or of a policy's use of it)."""

    def __init__(self, field: str, message: str, code: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.code = code  # "" → the API's code for its status; "limit_exceeded" when a limit refused it


def rule_parse(data: Mapping[str, Any], *, in_policy: bool = False) -> tuple[Rule, list[Problem]]:
    """The rule `data` describes (`rule_as_query`'s format, or one input per param) and every problem in it.
    Never raises. `in_policy`: the parts a policy cannot carry are problems too."""
    filterset = RuleFilterSet(data, in_policy=in_policy)
    return filterset.rule, filterset.problems


def rule_parse_strict(data: Mapping[str, Any], *, in_policy: bool = True, require_scope: bool = True) -> Rule:
    """The rule `data` describes, or RuleError naming the field of its first problem."""
    if require_scope and data.get("scope") in (None, ""):
        raise RuleError(
            "scope",
            "scope is required (global, project::NAME, repo::OWNER/REPO or branch::OWNER/REPO::BRANCH)",
        )
    rule, problems = rule_parse(data, in_policy=in_policy)
    _refuse(problems)
    return rule


def listing_parse(data: Mapping[str, Any]) -> tuple[Listing, list[Problem]]:
    """A list's rule, search (`q`) and sort, and every problem in them. Never raises (the Explorer URL)."""
    return RuleFilterSet(data).listing


def listing_parse_strict(data: Mapping[str, Any]) -> Listing:
    """A list's rule, search (`q`) and sort, or RuleError naming the field of the first problem (the REST lists)."""
    listing, problems = listing_parse(data)
    _refuse(problems)
    return listing


def _refuse(problems: list[Problem]) -> None:
    if problems:
        first = problems[0]
        raise RuleError(first.field, first.message, first.code)


# ---------------------------------------------------------------- writers


def retention_text(conditions: Mapping[str, int]) -> str:
    """`min_age_days:90,max_opened_count:0`, in registry order."""
    return ",".join(f"{name}:{value}" for name, value in canonical_conditions(conditions).items())


def rule_as_query(rule: Rule, *, include_scope: bool = True) -> list[tuple[str, str]]:
    """The rule as URL params: scope, retention=…, then <dim>=v1,v2&<dim>_mode=… in registry order (the format of
    the Explorer URL and of the hand-off to a new policy). The default scope is left out unless asked for."""
    pairs: list[tuple[str, str]] = []
    if include_scope and rule.scope != GLOBAL:
        pairs.append(("scope", rule.scope))
    if rule.conditions:
        pairs.append(("retention", retention_text(rule.conditions)))
    return pairs + _dimension_pairs(rule)


def rule_as_form_data(rule: Rule) -> list[tuple[str, str]]:
    """The rule as a plain <form>'s inputs: one per condition param, <dim>=v1,v2 and <dim>_mode per filter."""
    pairs = [(name, str(value)) for name, value in canonical_conditions(rule.conditions).items()]
    return pairs + _dimension_pairs(rule)


def _dimension_pairs(rule: Rule) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for dim in DIMENSIONS:
        flt = rule.dimensions.get(dim.name)
        if flt is not None:
            pairs += [(dim.name, ",".join(flt.values)), (dim.mode_param, flt.mode)]
    return pairs


def rule_as_json(rule: Rule) -> dict[str, Any]:
    """The rule as JSON (a run's snapshot): scope, conditions, dimensions with values and mode."""
    return {
        "scope": rule.scope,
        "conditions": dict(canonical_conditions(rule.conditions)),
        "dimensions": {n: {"values": list(f.values), "mode": f.mode} for n, f in rule.dimensions.items()},
    }


def rule_from_json(snapshot: Mapping[str, Any]) -> Rule:
    """`rule_as_json`'s output back as a Rule, read by the same FilterSet (a bad snapshot is a RuleError)."""
    data: dict[str, Any] = {"scope": snapshot["scope"]}
    data.update(snapshot.get("conditions", {}))
    for name, flt in snapshot.get("dimensions", {}).items():
        data[name], data[f"{name}_mode"] = list(flt["values"]), flt["mode"]
    unknown = [name for name in data if name not in RULE_PARAMS]
    if unknown:
        raise RuleError(unknown[0], f"{unknown[0]}: not a known condition or filter")
    return rule_parse_strict(data, in_policy=False)
