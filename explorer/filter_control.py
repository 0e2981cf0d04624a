"""The filter control widget: the Filter menu and the pills of one Rule (DESIGN.md §8, §9).

The Explorer and Settings → Retention Policies' New/Edit dialog use this same control (the seed: "using the
identical filter control to edit it further"). Everything it offers is derived from the registry in
`lore.conditions`: the five conditions under "Age & activity", then the dimensions; presets, typed input
(`parse_typed`), pill wording, one direction per row.

How to use it
-------------
Python::

    from explorer.filter_control import control_context, policy_control
    from lore.rules.codec import rule_parse

    rule, problems = rule_parse(request.GET, in_policy=True)  # e.g. the hand-off; problems carry notices
    context = {**control_context(policy_control(account, rule)), ...}

Template (inside your ``<form>``)::

    {% include "explorer/_filter_control.html" %}

`control_context(control, section="", typed="")` returns ``{"fc": FilterControlView}``; the template only reads
``fc``. `policy_control(account, rule)` is the ready-made flavour for the policy dialog: no reverse directions, no
Owner, per-value counts from the candidate query, and its live menu served by ``explorer:filter_control``
(``/explorer/filter-control/``). Build a `FilterControl` yourself for anything else.

What a plain <form> submits
---------------------------
Hidden inputs named after the registry: one per condition param (``min_age_days=90``, ``max_opened_count=0``)
and, per dimension filter, ``<dim>=v1,v2`` (comma-separated) and ``<dim>_mode=in|nin|any|all|none``. Read them
back with the codec, `lore.rules.codec.rule_parse(form_data)` (which also accepts the Explorer's
``retention=min_age_days:90,…`` spelling and reports bad parts as problems instead of raising). The control never
renders a ``scope`` input: the policy dialog has its own scope picker (`policy_control` counts in `rule.scope`).

The live menu (htmx)
--------------------
The template's partials: ``filter-control`` (all of it: ``fc-state`` + the menu popover), ``fc-state`` (hidden
inputs, pills, Filter button), ``fc-pills``, ``fc-button``, ``fc-popover``, ``fc-menu-body``. A menu row
GETs ``menu_href(rule)&section=<condition key|dimension name>`` and swaps ``#<dom_id>-menu-body``; typing GETs
the same with ``typed=`` and ``part=options``. A pick GETs ``href(new_rule)&menu=<section to show after>`` with
``hx-target=control.target``; the answer must carry the new state and, out of band, the menu body (the
``filter_control`` view does both). The popover is not part of what a pick swaps, so it stays open and
conditions chain without reopening it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from lore.bins import Distribution, distribution, split_at
from lore.charts.histogram import HistogramChart, histogram_chart
from lore.conditions import (
    CONDITIONS,
    CONDITIONS_BY_KEY,
    DIMENSIONS,
    DIMENSIONS_BY_NAME,
    MODE_LABELS,
    PARAMS,
    Condition,
    Dimension,
    DimFilter,
    Param,
    parse_typed,
    unit_word,
)
from lore.rules.codec import rule_as_form_data, rule_as_query
from lore.rules.rule import Rule
from lore.selectors import dimension_value_counts
from lore.text import CONTROL_CHARS
from lore.value_counts import kept_value_counts

ValueCounts = Callable[[Dimension, str], list[tuple[str, int]]]
ConditionCounts = Callable[[Condition, list[tuple[str, int]]], list[int]]
ConditionDistribution = Callable[[Condition, list[int]], Distribution]


# ---------------------------------------------------------------- the control and what the template reads


@dataclass(frozen=True)
class FilterControl:
    """One filter control: a rule, where a pick goes, and what it offers.

    href(rule)       — GET URL that applies a rule (the Explorer page; in policy mode the control itself).
    menu_href(rule)  — GET URL of the live menu for a rule; `section`, `typed`, `part` are appended.
    target / swap    — hx-target / hx-swap of a pick (the answer decides about history: HX-Push-Url).
    value_counts     — (dimension, typed text) → [(value, count)], the dimension's own filter left out.
    condition_counts — (condition, [(param, value)]) → [lessons each would leave], in one query.
    condition_distribution — (condition, [values to split at exactly]) → its lessons per bin (lore.bins), in one
                       query: an opened condition section draws it as a histogram and reads its choices' counts
                       off it, so the section is one aggregate query.
    """

    rule: Rule
    href: Callable[[Rule], str]
    menu_href: Callable[[Rule], str]
    in_policy: bool = False  # a policy's rule: no reverse directions, no Explorer-only dimensions
    value_counts: ValueCounts | None = None
    condition_counts: ConditionCounts | None = None
    condition_distribution: ConditionDistribution | None = None
    target: str = "#explorer"
    swap: str = "innerHTML"
    dom_id: str = "fc"

    @property
    def dimensions(self) -> tuple[Dimension, ...]:
        return tuple(d for d in DIMENSIONS if d.in_policy or not self.in_policy)

    def params_of(self, cond: Condition) -> tuple[Param, ...]:
        return tuple(p for p in cond.params if not (self.in_policy and p.is_reverse))


def with_params(url: str, **params: str) -> str:
    extra = urlencode({k: v for k, v in params.items() if v not in ("", None)})
    if not extra:
        return url
    return url + ("&" if "?" in url else "?") + extra


@dataclass(frozen=True)
class Pill:
    name: str  # param or dimension name
    text: str
    remove_href: str
    reverse: bool = False
    edit_href: str = ""  # the menu opened at this pill's section


@dataclass(frozen=True)
class MenuEntry:
    key: str
    label: str
    summary: str
    href: str


@dataclass(frozen=True)
class Choice:
    label: str
    href: str
    selected: bool = False
    custom: bool = False
    count: int | None = None
    note: str = ""
    param_value: tuple[str, int] | None = None  # a condition's choice: what it sets


@dataclass(frozen=True)
class ChoiceGroup:
    heading: str
    choices: list[Choice]


@dataclass(frozen=True)
class Section:
    key: str
    label: str
    is_condition: bool
    help: str
    placeholder: str
    groups: list[ChoiceGroup]
    error: str = ""
    remove_href: str = ""
    modes: list[Choice] = field(default_factory=list)
    chart: HistogramChart | None = None


@dataclass(frozen=True)
class FilterControlView:
    """Everything the template reads, as `fc`."""

    control: FilterControl
    pills: list[Pill]
    hidden_inputs: list[tuple[str, str]]
    conditions: list[MenuEntry]
    dimensions: list[MenuEntry]
    section: Section | None
    typed: str
    menu_url: str  # the list view of the menu

    @property
    def dom_id(self) -> str:
        return self.control.dom_id

    @property
    def target(self) -> str:
        return self.control.target

    @property
    def swap(self) -> str:
        return self.control.swap

    @property
    def options_url(self) -> str:
        if self.section is None:
            return ""
        return with_params(
            self.control.menu_href(self.control.rule), section=self.section.key, part="options"
        )

    @property
    def has_filters(self) -> bool:
        return bool(self.pills)


def _pick(control: FilterControl, rule: Rule, menu: str = "") -> str:
    return with_params(control.href(rule), menu=menu)


def control_pills(control: FilterControl) -> list[Pill]:
    rule = control.rule
    menu = control.menu_href(rule)
    pills: list[Pill] = []
    for name, text in rule.pills():
        if name in PARAMS:
            pills.append(
                Pill(
                    name,
                    text,
                    _pick(control, rule.with_condition(name, None)),
                    PARAMS[name].is_reverse,
                    with_params(menu, section=PARAMS[name].condition_key),
                )
            )
        else:
            remove = rule.with_dimension(name, None)
            pills.append(Pill(name, text, _pick(control, remove), edit_href=with_params(menu, section=name)))
    return pills


def _condition_summary(rule: Rule, cond: Condition) -> str:
    for param in cond.params:
        if param.name in rule.conditions:
            return param.value_phrase(rule.conditions[param.name])
    return ""


def _menu_entries(control: FilterControl) -> tuple[list[MenuEntry], list[MenuEntry]]:
    rule, base = control.rule, control.menu_href(control.rule)
    conds = [
        MenuEntry(c.key, c.label, _condition_summary(rule, c), with_params(base, section=c.key))
        for c in CONDITIONS
    ]
    dims = [
        MenuEntry(
            d.name,
            d.label,
            rule.dimensions[d.name].wording(d) if d.name in rule.dimensions else "",
            with_params(base, section=d.name),
        )
        for d in control.dimensions
    ]
    return conds, dims


_GROUP_HEADINGS = {"older": "More than", "within": "Within", "at_most": "At most", "at_least": "At least"}


def _condition_section(
    control: FilterControl, cond: Condition, typed: str, *, with_chart: bool = True
) -> Section:
    rule = control.rule
    params = control.params_of(cond)
    current = next(((p, rule.conditions[p.name]) for p in cond.params if p.name in rule.conditions), None)

    def choice(param: Param, value: int, *, custom: bool = False) -> Choice:
        selected = current is not None and current[0].name == param.name and current[1] == value
        return Choice(
            param.value_phrase(value),
            _pick(control, rule.with_condition(param.name, value)),
            selected,
            custom,
            param_value=(param.name, value),
        )

    groups: list[ChoiceGroup] = []
    error = ""
    if typed.strip():
        result = parse_typed(cond.key, typed)
        offered = [o for o in result.options if o.param in {p.name for p in params}]
        error = result.error if not offered else ""
        if not offered and not error:
            error = f"{cond.label}: only the retention direction can be used here."
        groups.append(ChoiceGroup("", [choice(PARAMS[o.param], o.value) for o in offered]))
    else:
        if current is not None:
            param, value = current
            presets = cond.retention_presets if not param.is_reverse else cond.reverse_presets
            if value not in presets:
                groups.append(ChoiceGroup("", [choice(param, value, custom=True)]))
        for param in params:
            presets = cond.reverse_presets if param.is_reverse else cond.retention_presets
            heading = _GROUP_HEADINGS[param.comparison] if len(params) > 1 else ""
            groups.append(ChoiceGroup(heading, [choice(param, v) for v in presets]))
    low, high = cond.params[0].bounds
    unit = f" in {unit_word(cond.unit)}" if unit_word(cond.unit) else f" from {low} to {high}"
    example = {"days": "45", "count": ">40"}.get(cond.unit, "<=20")
    chart = None
    if with_chart and control.condition_distribution is not None:
        groups, chart = _charted(control, cond, groups, current)
    elif control.condition_counts is not None:
        groups = _counted(control.condition_counts, cond, groups)
    return Section(
        key=cond.key,
        label=cond.label,
        is_condition=True,
        help=cond.help,
        placeholder=f"Custom value{unit}, e.g. {example}",
        groups=groups,
        error=error,
        remove_href=_pick(control, rule.without_condition(cond.key)) if current else "",
        chart=chart,
    )


def _charted(
    control: FilterControl, cond: Condition, groups: list[ChoiceGroup], current: tuple[Param, int] | None
) -> tuple[list[ChoiceGroup], HistogramChart]:
    """The groups with each choice's count read off the condition's distribution, and its histogram with the
    marker at the applied value: one query, every choice's value made an edge so that each count is exact."""
    assert control.condition_distribution is not None
    keys = [c.param_value for g in groups for c in g.choices if c.param_value is not None]
    dist = control.condition_distribution(cond, sorted({split_at(PARAMS[n], v) for n, v in keys}))

    def counted(c: Choice) -> Choice:
        if c.param_value is None:
            return c
        return replace(c, count=dist.kept(PARAMS[c.param_value[0]], c.param_value[1]))

    marker = (current[0].name, current[1]) if current is not None else None
    chart = histogram_chart(dist, dom_id=f"{control.dom_id}-hist", marker=marker)
    return [ChoiceGroup(g.heading, [counted(c) for c in g.choices]) for g in groups], chart


def _counted(counts: ConditionCounts, cond: Condition, groups: list[ChoiceGroup]) -> list[ChoiceGroup]:
    """The groups with each choice's count: what the view would hold with it applied (one query for all)."""
    keys = [c.param_value for g in groups for c in g.choices if c.param_value is not None]
    found = dict(zip(keys, counts(cond, keys), strict=True))

    def counted(c: Choice) -> Choice:
        return replace(c, count=found.get(c.param_value)) if c.param_value is not None else c

    return [ChoiceGroup(g.heading, [counted(c) for c in g.choices]) for g in groups]


def _dimension_section(control: FilterControl, dim: Dimension, typed: str) -> Section:
    rule = control.rule
    current = rule.dimensions.get(dim.name)
    chosen = set(current.values) if current else set()
    text = typed.strip()
    counts = control.value_counts(dim, text) if control.value_counts else []
    listed = {value for value, _ in counts}

    def choice(value: str, count: int | None, *, custom: bool = False) -> Choice:
        href = _pick(control, rule.toggle_value(dim.name, value), menu=dim.name)
        return Choice(dim.display(value), href, value in chosen, custom, count)

    first: list[Choice] = []
    typed_value = text.removeprefix(dim.value_prefix) if dim.value_prefix else text
    if typed_value and typed_value not in listed and len(typed_value) <= 512:
        first.append(choice(typed_value, None, custom=True))
    # Applied values the count list does not show (no lesson carries them now, or beyond the limit) stay visible.
    first += [choice(v, None, custom=True) for v in (current.values if current else ()) if v not in listed]
    groups = [ChoiceGroup("", first + [choice(v, n) for v, n in counts])]
    modes = [
        Choice(
            MODE_LABELS[mode],
            _pick(control, rule.with_dimension(dim.name, DimFilter(current.values, mode)), menu=dim.name)
            if current
            else "",
            selected=(current.mode if current else dim.default_mode) == mode,
        )
        for mode in dim.modes
    ]
    return Section(
        key=dim.name,
        label=dim.label,
        is_condition=False,
        help="",
        placeholder=f"Search or type a {dim.label.lower()}",
        groups=groups,
        remove_href=_pick(control, rule.with_dimension(dim.name, None), menu=dim.name) if current else "",
        modes=modes,
    )


def control_section(
    control: FilterControl, section: str, typed: str = "", *, with_chart: bool = True
) -> Section | None:
    """The menu section `section` (a condition key or a dimension name), or None for the list. `with_chart`:
    a condition's histogram too (not for the options alone, which a typed value re-renders)."""
    if section in CONDITIONS_BY_KEY:
        return _condition_section(control, CONDITIONS_BY_KEY[section], typed, with_chart=with_chart)
    dim = DIMENSIONS_BY_NAME.get(section)
    if dim is not None and dim in control.dimensions:
        return _dimension_section(control, dim, typed)
    return None


def control_context(
    control: FilterControl, section: str = "", typed: str = "", *, with_chart: bool = True
) -> dict[str, FilterControlView]:
    """The template context of the control: `{"fc": FilterControlView}`. `with_chart=False` when only the
    options are rendered (the histogram stays as it is; histogram.js moves its marker)."""
    typed = CONTROL_CHARS.sub("", str(typed))[:200]
    conds, dims = _menu_entries(control)
    return {
        "fc": FilterControlView(
            control=control,
            pills=control_pills(control),
            hidden_inputs=rule_as_form_data(control.rule),
            conditions=conds,
            dimensions=dims,
            section=control_section(control, section, typed, with_chart=with_chart) if section else None,
            typed=typed,
            menu_url=control.menu_href(control.rule),
        )
    }


# ---------------------------------------------------------------- the policy dialog's flavour


def policy_control(account: object, rule: Rule, *, dom_id: str = "fc") -> FilterControl:
    """The control of the New/Edit policy dialog: retention directions only, no Owner, counts from candidates."""
    from lore.candidates import candidates

    url = reverse("explorer:filter_control")

    def href(r: Rule) -> str:
        return with_params(url + "?" + urlencode(rule_as_query(r), safe=":,/"), dom_id=dom_id)

    def counts(dim: Dimension, typed: str) -> list[tuple[str, int]]:
        others = rule.with_dimension(dim.name, None)
        # Candidates are active and unprotected.
        kept = kept_value_counts(account.pk, others, dim, typed, archived=False, protected=False)  # type: ignore[attr-defined]
        if kept is not None:
            return kept
        base = candidates(account, others)  # type: ignore[arg-type]
        return dimension_value_counts(base, dim, typed)

    def cond_counts(cond: Condition, choices: list[tuple[str, int]]) -> list[int]:
        from explorer.queries import choice_counts
        from lore.reads import reads_settle_for

        reads_settle_for(account, {cond.field})  # type: ignore[arg-type] # a counter's choices count exact values
        now = timezone.now()
        base = candidates(account, rule.without_condition(cond.key), now=now)  # type: ignore[arg-type]
        return choice_counts(base, choices, now=now)

    def cond_distribution(cond: Condition, extra: list[int]) -> Distribution:
        from lore.reads import reads_settle_for

        reads_settle_for(account, {cond.field})  # type: ignore[arg-type]
        now = timezone.now()
        base = candidates(account, rule.without_condition(cond.key), now=now)  # type: ignore[arg-type]
        return distribution(base, cond, now=now, extra=extra)

    return FilterControl(
        rule=rule,
        href=href,
        menu_href=href,
        in_policy=True,
        value_counts=counts,
        condition_counts=cond_counts,
        condition_distribution=cond_distribution,
        target=f"#{dom_id}-state",
        swap="outerHTML",
        dom_id=dom_id,
    )
