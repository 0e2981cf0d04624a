"""The rule language's FilterSet, generated from the registry: a filter per condition param, per dimension and
its mode, the scope, the compound `?retention=` value, the search and the sort (django-filter is the engine of
the codec).

Its form does the type and bounds checking (`WholeNumberField(min_value, max_value)` from each condition's
bounds, a ChoiceField per mode); `RuleFilterSet.rule` and `.problems` assemble what passed into a Rule and say
what did not, as (field, message) problems; `.listing` adds the search text and the sort a list is read in. Its `.qs` applies the whole rule in one `filter()` through
`lore.candidates.rule_predicate`, so the SQL is the candidate query's, never one WHERE per field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils import timezone

from lore import limits
from lore.conditions import DIMENSIONS, PARAMS, Dimension, DimFilter, Param, canonical_conditions, unit_word
from lore.limits import FILTER_VALUES_MAX, SEARCH_TEXT_MAX, TAGS_ALL_MAX, LimitExceeded
from lore.models import Lesson
from lore.rules.fields import ScopeField, ValuesWidget, WholeNumberField, distinct_values
from lore.rules.rule import Listing, Rule
from lore.scopes import GLOBAL, MAX_VALUE_LENGTH, ScopeError, validate_dimension_value
from lore.selectors import DEFAULT_SORT, LIST_SORTS, search_within_limits, search_words
from lore.text import CONTROL_CHARS, shortened

RETENTION_TEXT_MAX = limits.RETENTION_TEXT_MAX.value


@dataclass(frozen=True)
class Problem:
    """A part of the input that is not part of the rule: the field it came in, what is wrong (a strict caller's
    422), and what a lenient caller did about it (the Explorer's notice)."""

    field: str
    message: str
    notice: str
    code: str = ""


# ---------------------------------------------------------------- fields that need the registry


@dataclass(frozen=True)
class RetentionPart:
    """One `name:value` of `?retention=`: a param and its value, or the problem that kept it out."""

    param: Param | None
    value: int | None
    problem: Problem | None = None


def _retention_part(text: str) -> RetentionPart:
    name, sep, raw_value = text.partition(":")
    param = PARAMS.get(name.strip())
    shown = shortened(text)
    if param is None:
        message = f"“{shown}” is not a known condition"
        return RetentionPart(
            None,
            None,
            Problem("retention", message, f"Ignored “{shown}” in retention: not a known condition."),
        )
    if not sep:
        hint = f"it needs a value, e.g. {param.name}:{param.example}"
        return RetentionPart(
            param,
            None,
            Problem("retention", f"“{shown}”: {hint}", f"Ignored “{shown}” in retention: {hint}."),
        )
    try:
        return RetentionPart(param, param.check(raw_value))
    except ValueError as exc:
        return RetentionPart(
            param, None, Problem("retention", str(exc), f"Ignored “{shown}” in retention: {exc}.")
        )


class RetentionField(forms.Field):
    """`min_age_days:90,max_opened_count:0` → its parts, each a value or a problem. Never raises: one bad part
    must not lose the good ones beside it. Repeated (`retention=a&retention=b`), the parts are read in order."""

    widget = ValuesWidget

    def clean(self, value: Any) -> list[RetentionPart]:
        text = ",".join(str(v) for v in value or [])[:RETENTION_TEXT_MAX]
        return [_retention_part(part.strip()) for part in text.split(",") if part.strip()]


class DimensionValuesField(forms.Field):
    """A dimension's values: de-duplicated, each checked, at most FILTER_VALUES_MAX; a '#' prefix dropped."""

    widget = ValuesWidget

    def __init__(self, *, dimension: Dimension, **kwargs: Any) -> None:
        self.dimension = dimension
        kwargs["required"] = False
        super().__init__(**kwargs)

    def clean(self, value: Any) -> tuple[str, ...]:
        dim = self.dimension
        if not value or all(isinstance(v, str) and not v.strip() for v in value):
            return ()  # not given, or only blank inputs: no filter
        try:
            values = [validate_dimension_value(v, dim.name) for v in distinct_values(value)]
            if not values:
                raise ScopeError(f"{dim.name} holds no values", field=dim.name)
            FILTER_VALUES_MAX.check(len(values), dim.name)
        except ScopeError as exc:
            raise ValidationError(exc.message, code=getattr(exc, "code", "") or "invalid") from exc
        if dim.value_prefix:
            values = [v.removeprefix(dim.value_prefix).strip() for v in values]
            if not all(
                values
            ):  # a bare "#" would otherwise filter on "no pull request" and match every lesson
                raise ValidationError(f"{dim.name} holds an empty value", code="invalid")
        return tuple(v[:MAX_VALUE_LENGTH] for v in values)


@dataclass(frozen=True)
class SearchText:
    """The search as it will be run, and the problems that cut it (over SEARCH_TEXT_MAX, over the word limits)."""

    text: str
    problems: tuple[Problem, ...] = ()


class SearchField(forms.Field):
    """Search words: control characters read as spaces, runs of whitespace as one. Never raises: a search over a
    limit keeps what fits, and the problem says what was cut (the Explorer's notice, the API's 422)."""

    def clean(self, value: Any) -> SearchText:
        text = " ".join(CONTROL_CHARS.sub(" ", "" if value is None else str(value)).split())
        problems: list[Problem] = []
        if len(text) > SEARCH_TEXT_MAX.value:
            error = SEARCH_TEXT_MAX.error("q", got=len(text))
            text = text[: SEARCH_TEXT_MAX.value].strip()
            notice = f"The search was cut to its first {SEARCH_TEXT_MAX.value} characters."
            problems.append(Problem("q", error.message, notice, error.code))
        try:
            search_words(text)
        except LimitExceeded as exc:
            text = search_within_limits(text)
            problems.append(
                Problem("q", exc.message, f"The search was cut to “{text}”: {exc.message}.", exc.code)
            )
        return SearchText(text, tuple(problems))


class SortField(forms.ChoiceField):
    """The order a list is read in (`LIST_SORTS`); empty is the default order."""

    def __init__(self, **kwargs: Any) -> None:
        message = f"sort must be one of {', '.join(LIST_SORTS)}"
        kwargs["required"] = False
        choices = [(name, label) for name, (_, label) in LIST_SORTS.items()]
        super().__init__(choices=choices, error_messages={"invalid_choice": message}, **kwargs)


class ModeField(forms.ChoiceField):
    def __init__(self, *, dimension: Dimension, **kwargs: Any) -> None:
        message = f"{dimension.mode_param} must be one of {', '.join(dimension.modes)}"
        kwargs["required"] = False
        super().__init__(
            choices=[(m, m) for m in dimension.modes], error_messages={"invalid_choice": message}, **kwargs
        )

    def to_python(self, value: Any) -> str:
        return "" if value in (None, "") else str(value).strip().lower()


# ---------------------------------------------------------------- the FilterSet


class RuleFilter(django_filters.Filter):
    """A filter of one part of the rule. The FilterSet applies the whole rule at once (see `filter_queryset`)."""

    def __init__(self, field_class: type[forms.Field], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.field_class = field_class

    def filter(self, qs: QuerySet, value: Any) -> QuerySet:
        return qs


def _registry_filters() -> dict[str, RuleFilter]:
    filters = {
        "scope": RuleFilter(ScopeField, label="Scope"),
        "retention": RuleFilter(RetentionField, label="Retention"),
        "q": RuleFilter(SearchField, label="Search"),
        "sort": RuleFilter(SortField, label="Sort"),
    }
    for param in PARAMS.values():
        low, high = param.bounds
        filters[param.name] = RuleFilter(
            WholeNumberField,
            label=param.condition.label,
            name=param.name,
            low=low,
            high=high,
            unit=unit_word(param.condition.unit),
        )
    for dim in DIMENSIONS:
        filters[dim.name] = RuleFilter(DimensionValuesField, label=dim.label, dimension=dim)
        filters[dim.mode_param] = RuleFilter(ModeField, label=f"{dim.label} matches", dimension=dim)
    return filters


class _RuleFilterSetBase(django_filters.FilterSet):
    """A rule read from `data` (a QueryDict, a JSON object or form data). `in_policy`: a policy's rule, so the
    parts a policy cannot carry (reverse directions, Explorer-only dimensions) are problems."""

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        queryset: QuerySet | None = None,
        *,
        in_policy: bool = False,
    ) -> None:
        # django-filter's own __init__, less its deep copy of the filters: ours hold no per-request state, and
        # copying the registry's dataclasses inside them was half the cost of reading a rule.
        self.is_bound = True
        self.data = data if data is not None else {}
        self.queryset = queryset if queryset is not None else self._meta.model._default_manager.all()
        self.request = None
        self.form_prefix = None
        self.filters = self.base_filters
        self.in_policy = in_policy

    _form_class: type[forms.Form] | None = None

    def get_form_class(self) -> type[forms.Form]:
        # The filters never change: build the form class once per FilterSet class, not once per request (a
        # request's data binds a new instance of it; the fields are deep-copied per form by Django as usual).
        cls = type(self)
        if cls.__dict__.get("_form_class") is None:
            cls._form_class = super().get_form_class()
        return cls._form_class  # type: ignore[return-value]

    @cached_property
    def _parsed(self) -> tuple[Rule, list[Problem]]:
        return _RuleReader(self).read()

    @property
    def rule(self) -> Rule:
        return self._parsed[0]

    @property
    def problems(self) -> list[Problem]:
        return self._parsed[1]

    @cached_property
    def listing(self) -> tuple[Listing, list[Problem]]:
        """The rule, the search and the sort (a list's whole request) and every problem, the rule's first."""
        return _RuleReader(self).read_listing()

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        from lore.candidates import rule_predicate

        return queryset.filter(rule_predicate(self.rule, timezone.now()))


RuleFilterSet: type[_RuleFilterSetBase] = type(
    "RuleFilterSet",
    (_RuleFilterSetBase,),
    {**_registry_filters(), "Meta": type("Meta", (), {"model": Lesson, "fields": []})},
)


class _RuleReader:
    """Assembles a Rule out of a validated FilterSet form: what passed goes in, the rest becomes problems."""

    def __init__(self, filterset: _RuleFilterSetBase) -> None:
        self.data = filterset.data
        self.in_policy = filterset.in_policy
        form = filterset.form
        form.is_valid()
        self.cleaned: dict[str, Any] = form.cleaned_data
        self.errors = {name: error.as_data()[0] for name, error in form.errors.items()}
        self.problems: list[Problem] = []
        self.conditions: dict[str, int] = {}
        self.given_in: dict[str, str] = {}

    def raw(self, name: str) -> str:
        value = self.data.get(name)
        return shortened("" if value is None else value)

    def message(self, name: str) -> tuple[str, str]:
        error = self.errors[name]
        return error.messages[0], error.code or ""

    def read(self) -> tuple[Rule, list[Problem]]:
        scope = self.cleaned.get("scope") or GLOBAL
        if "scope" in self.errors:
            message, _ = self.message("scope")
            self.problems.append(
                Problem("scope", message, f"Ignored scope “{self.raw('scope')}”: {message}.")
            )
        self.read_retention()
        self.read_params()
        if self.in_policy:
            self.drop_reverse()
        dimensions = self.read_dimensions()
        rule = Rule(scope=scope, conditions=canonical_conditions(self.conditions), dimensions=dimensions)
        return rule, self.problems

    def read_listing(self) -> tuple[Listing, list[Problem]]:
        rule, problems = self.read()
        search: SearchText = self.cleaned.get("q") or SearchText("")
        problems += search.problems
        if "sort" in self.errors:
            message, _ = self.message("sort")
            notice = f"Ignored sort “{self.raw('sort')}”: use {', '.join(LIST_SORTS)}."
            problems.append(Problem("sort", message, notice))
        return Listing(rule, search.text, self.cleaned.get("sort") or DEFAULT_SORT), problems

    # ------------------------------------------------------------ conditions

    def put(self, param: Param, value: int, source: str) -> None:
        """One direction per row: a later value (or direction) of a condition replaces the earlier, saying so."""
        for other in param.condition.params:
            replaced = self.conditions.pop(other.name, None)
            if replaced is None or (other.name, replaced) == (param.name, value):
                continue
            if other.name == param.name:
                message = f"{param.name} was given twice"
            else:
                message = f"{other.name} and {param.name} are two directions of one condition: pick one"
            if source == "retention" and self.given_in[other.name] == "retention":
                notice = (
                    f"{param.name} appeared twice in retention: kept {param.pill(value)}."
                    if other.name == param.name
                    else f"{param.condition.label} holds one direction at a time: kept {param.pill(value)}."
                )
            else:
                notice = (
                    f"{param.condition.label} was given twice: kept {param.pill(value)} from {source}, "
                    f"not {other.pill(replaced)} from {self.given_in[other.name]}."
                )
            self.problems.append(
                Problem(param.name if source != "retention" else "retention", message, notice)
            )
        self.conditions[param.name] = value
        self.given_in[param.name] = source

    def read_retention(self) -> None:
        for part in self.cleaned.get("retention") or []:
            if part.problem is not None:
                self.problems.append(part.problem)
            elif part.param is not None and part.value is not None:
                self.put(part.param, part.value, "retention")

    def read_params(self) -> None:
        # In the order the data gives them, so that a later one wins as in retention=.
        for name in [key for key in self.data if key in PARAMS]:
            if name in self.errors:
                message, _ = self.message(name)
                self.problems.append(Problem(name, message, f"Ignored {name}=“{self.raw(name)}”: {message}."))
                continue
            value = self.cleaned.get(name)
            if value is not None:
                self.put(PARAMS[name], value, f"{name}=")

    def drop_reverse(self) -> None:
        for name in [n for n in self.conditions if PARAMS[n].is_reverse]:
            pill = PARAMS[name].pill(self.conditions.pop(name))
            message = f"{name} is for exploring only: a retention policy cannot carry it"
            self.problems.append(
                Problem(name, message, f"Left out {pill}: reverse directions are for exploring only.")
            )

    # ------------------------------------------------------------ dimensions

    def read_dimensions(self) -> dict[str, DimFilter]:
        dimensions: dict[str, DimFilter] = {}
        for dim in DIMENSIONS:
            flt = self.read_dimension(dim)
            if flt is not None:
                dimensions[dim.name] = flt
        return dimensions

    def read_dimension(self, dim: Dimension) -> DimFilter | None:
        if dim.name in self.errors:
            message, code = self.message(dim.name)
            self.problems.append(
                Problem(dim.name, message, f"Ignored the {dim.label} filter: {message}.", code)
            )
            return None
        values = self.cleaned.get(dim.name) or ()
        if not values:
            return None
        if self.in_policy and not dim.in_policy:
            message = f"{dim.name} is an Explorer filter: a retention policy cannot carry it"
            self.problems.append(
                Problem(
                    dim.name, message, f"Left out the {dim.label} filter: a retention policy cannot carry it."
                )
            )
            return None
        mode = self.cleaned.get(dim.mode_param) or dim.default_mode
        if dim.mode_param in self.errors:
            # A bad mode must not drop the values, which would widen the view: keep them with the default.
            message, _ = self.message(dim.mode_param)
            notice = (
                f"Ignored {dim.mode_param}=“{self.raw(dim.mode_param)}”: the {dim.label} filter matches "
                f"{', '.join(dim.modes)}; kept {dim.default_mode}."
            )
            self.problems.append(Problem(dim.mode_param, message, notice))
        if dim.is_tags and mode == "all":
            try:
                TAGS_ALL_MAX.check(len(values), dim.name)
            except LimitExceeded as exc:
                self.problems.append(
                    Problem(
                        dim.name, exc.message, f"Ignored the {dim.label} filter: {exc.message}.", exc.code
                    )
                )
                return None
        return DimFilter(values, mode)
