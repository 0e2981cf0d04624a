"""A Rule — scope + conditions + dimension filters — and its edits: what a pick in the filter menu does."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db.models import Q

from lore.conditions import (
    DIMENSIONS,
    DIMENSIONS_BY_NAME,
    PARAMS,
    Dimension,
    DimFilter,
    Param,
    canonical_conditions,
    conditions_q,
    dimension_pill,
    dimensions_q,
)
from lore.scopes import GLOBAL


@dataclass(frozen=True)
class Rule:
    """Scope + conditions + dimension filters: what a policy holds and what the Explorer shows."""

    scope: str = GLOBAL
    conditions: Mapping[str, int] = field(default_factory=dict)
    dimensions: Mapping[str, DimFilter] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        return not self.conditions and not self.dimensions

    @property
    def reverse_params(self) -> list[Param]:
        return [PARAMS[n] for n in self.conditions if PARAMS[n].is_reverse]

    @property
    def dimensions_not_in_policy(self) -> list[Dimension]:
        """Its Explorer-only filters (Owner): a policy cannot carry them."""
        return [DIMENSIONS_BY_NAME[n] for n in self.dimensions if not DIMENSIONS_BY_NAME[n].in_policy]

    def q(self, now: datetime) -> Q:
        """Conditions AND dimensions (the scope is applied by the candidate query)."""
        return conditions_q(self.conditions, now) & dimensions_q(self.dimensions)

    def pills(self) -> list[tuple[str, str]]:
        """(param-or-dimension name, wording) for every condition and filter, in registry order."""
        out = [
            (name, PARAMS[name].pill(value)) for name, value in canonical_conditions(self.conditions).items()
        ]
        out += [
            (d.name, dimension_pill(d, self.dimensions[d.name]))
            for d in DIMENSIONS
            if d.name in self.dimensions
        ]
        return out

    # ------------------------------------------------------------ edits

    def with_condition(self, name: str, value: int | None) -> Rule:
        """The rule with `name` set to `value` (None removes it); the other direction of that row is replaced."""
        param = PARAMS[name]
        conditions = {
            n: v for n, v in self.conditions.items() if PARAMS[n].condition_key != param.condition_key
        }
        if value is not None:
            conditions[name] = value
        return replace(self, conditions=canonical_conditions(conditions))

    def without_condition(self, condition_key: str) -> Rule:
        """The rule without the row `condition_key`, whichever direction it held."""
        conditions = {n: v for n, v in self.conditions.items() if PARAMS[n].condition_key != condition_key}
        return replace(self, conditions=conditions)

    def with_dimension(self, name: str, flt: DimFilter | None) -> Rule:
        """The rule with the dimension's filter replaced (None, or no values, removes it)."""
        dimensions = {n: f for n, f in self.dimensions.items() if n != name}
        if flt is not None and flt.values:
            dimensions[name] = flt
        ordered = {d.name: dimensions[d.name] for d in DIMENSIONS if d.name in dimensions}
        return replace(self, dimensions=ordered)

    def toggle_value(self, name: str, value: str) -> Rule:
        """Add `value` to the dimension's filter, or take it out if it is there (OR within a dimension)."""
        dim = DIMENSIONS_BY_NAME[name]
        current = self.dimensions.get(name)
        values = list(current.values) if current else []
        values = [v for v in values if v != value] if value in values else [*values, value]
        mode = current.mode if current else dim.default_mode
        return self.with_dimension(name, DimFilter(tuple(values), mode) if values else None)


@dataclass(frozen=True)
class Listing:
    """A list's request: the rule, the search text and the order it is read in."""

    rule: Rule
    q: str  # empty: no search
    sort: str
