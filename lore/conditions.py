"""The registry: the six age/activity conditions and the nine dimensions, declared once (DESIGN.md §1, §5, §6).

Everything else derives from here: the rule language's codec (`lore.rules`), the typed-input parser of the filter
menu, presets, pill wording, the auto-name of a policy, API schemas, CLI flags, the Settings form and the SQL
predicate the candidate query is built from. Adding a condition is a change to this file (plus a migration for the
policy column it gets).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

from django.core.exceptions import ValidationError
from django.db.models import Case, Count, Exists, OuterRef, Q, Value, When
from django.db.models.functions import Coalesce
from django.db.models.lookups import LessThan

from lore import limits
from lore.decay import SCORE_MAX, decay_score_at_most
from lore.limits import FILTER_VALUES_MAX
from lore.rules.fields import WholeNumberField
from lore.scopes import GLOBAL
from lore.text import shortened_at_word

if TYPE_CHECKING:
    from lore.rules.rule import Rule

Unit = Literal["days", "count", "score"]
Comparison = Literal["older", "within", "at_most", "at_least"]

DAYS_MIN, DAYS_MAX = 1, 3650
COUNT_MIN, COUNT_MAX = 0, 100_000
SCORE_MIN = 0
MAX_FILTER_VALUES = FILTER_VALUES_MAX.default  # the declared default; checks read FILTER_VALUES_MAX.value


# ---------------------------------------------------------------- conditions


@dataclass(frozen=True)
class StoredBin:
    """A counter cut at fixed edges into a bin the database stores per lesson: a generated column, a key of the
    covering index where the counter itself is in no index (a bump that stays inside its bin is a HOT update).
    Bin k holds the counts above edge k-1 and at most edge k; bin len(edges) those above the last edge."""

    column: str
    edges: tuple[int, ...]

    def of(self, count: int) -> int:
        """The bin `count` falls in."""
        return sum(1 for edge in self.edges if edge < count)

    def expression(self, counter: str) -> Case:
        """The bin of `counter`, as SQL: the stored column's generated expression (lore.models)."""
        whens = [When(**{f"{counter}__lte": edge}, then=Value(k)) for k, edge in enumerate(self.edges)]
        return Case(*whens, default=Value(len(self.edges)))

    def q(self, counter: str, comparison: Comparison, value: int) -> Q:
        """`counter` at most (or at least) `value`, narrowed by the stored bin: at most a stored edge is the bin
        alone, and so is at least one past an edge (index-only); any other value adds the counter itself, read
        from the table for the lessons the bin keeps (those of the bin it splits and of the bins on its side)."""
        if comparison == "at_most":
            narrowed, exact, on_edge = (
                Q(**{f"{self.column}__lte": self.of(value)}),
                Q(**{f"{counter}__lte": value}),
                value,
            )
        else:
            narrowed, exact, on_edge = (
                Q(**{f"{self.column}__gte": self.of(value)}),
                Q(**{f"{counter}__gte": value}),
                value - 1,
            )
        return narrowed if on_edge in self.edges else narrowed & exact


@dataclass(frozen=True)
class Param:
    """One direction of a condition, as it appears in URLs, the API, policies and CLI flags."""

    name: str
    condition_key: str
    comparison: Comparison

    @property
    def condition(self) -> Condition:
        return CONDITIONS_BY_KEY[self.condition_key]

    @property
    def is_reverse(self) -> bool:
        return self.condition.reverse == self.name

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def bounds(self) -> tuple[int, int]:
        unit = self.condition.unit
        if unit == "score":
            return (SCORE_MIN, SCORE_MAX)
        return (DAYS_MIN, DAYS_MAX) if unit == "days" else (COUNT_MIN, COUNT_MAX)

    def value_phrase(self, value: int) -> str:
        """The value in words, as the menu offers it: "More than 45 days ago", "41 times or more"."""
        if self.comparison == "older":
            return f"More than {_days(value)} ago"
        if self.comparison == "within":
            return f"Within {_days(value)}"
        if self.condition.unit == "score":
            return f"{value} or lower"
        if self.comparison == "at_most":
            return self.condition.never_phrase if value == 0 else f"{_times(value)} or fewer"
        return f"{_times(value)} or more"

    @property
    def example(self) -> int:
        """A value to show in a hint: the first preset of this direction."""
        cond = self.condition
        presets = cond.reverse_presets if self.is_reverse else cond.retention_presets
        return presets[0] if presets else self.bounds[0]

    def pill(self, value: int) -> str:
        """The pill's wording: "Chosen: 10 times or more"."""
        phrase = self.value_phrase(value)
        if not phrase[0].isdigit():
            phrase = phrase[0].lower() + phrase[1:]
        return f"{self.condition.label}: {phrase}"

    def q(self, value: int, now: datetime) -> Q:
        """The SQL predicate of this direction at `value`, as of `now`."""
        cond = self.condition
        if cond.unit == "score":
            return decay_score_at_most(value, now)
        if cond.unit == "days":
            cutoff = now - timedelta(days=value)
            if self.comparison == "within":
                # A lesson never opened by an agent was never opened "within" anything.
                return Q(last_opened_at__gte=cutoff)
            if cond.key == "last_open":
                # Never opened: the clock starts at creation (the seed's fallback).
                return Q(LessThan(Coalesce("last_opened_at", "created_at"), cutoff))
            return Q(**{f"{cond.field}__lt": cutoff})
        if cond.stored_bin is not None:
            return cond.stored_bin.q(cond.field, self.comparison, value)
        lookup = "lte" if self.comparison == "at_most" else "gte"
        return Q(**{f"{cond.field}__{lookup}": value})

    def number_field(self) -> WholeNumberField:
        """The form field of this direction's value: a whole number within its bounds."""
        low, high = self.bounds
        return WholeNumberField(name=self.name, low=low, high=high, unit=unit_word(self.condition.unit))

    def check(self, value: object) -> int:
        """`value` as an int within bounds, or ValueError saying why (the number field's message)."""
        field = self.number_field()
        try:
            number = field.clean(value)
        except ValidationError as exc:
            raise ValueError(exc.messages[0]) from exc
        if number is None:
            raise ValueError(field.error_messages["invalid"])
        return number


@dataclass(frozen=True)
class Condition:
    """A row of the menu's "Age & activity" section: one retention direction, maybe a reverse one."""

    key: str
    label: str
    unit: Unit
    field: str
    retention: str
    reverse: str | None
    name_phrase: str  # auto-name of a policy, "{n}" is the value
    retention_presets: tuple[int, ...]
    reverse_presets: tuple[int, ...] = ()
    never_phrase: str = ""
    help: str = ""
    stored_bin: StoredBin | None = None  # the counter's bin, kept by the database (lore.models)

    @property
    def unit_suffix(self) -> str:
        """What follows a bound in a message: " days", " times", or nothing for a score."""
        word = unit_word(self.unit)
        return f" {word}" if word else ""

    @property
    def params(self) -> tuple[Param, ...]:
        names = (self.retention, self.reverse) if self.reverse else (self.retention,)
        return tuple(PARAMS[name] for name in names)


def unit_word(unit: Unit) -> str:
    """How a condition's values are counted, in words: "days", "times", or nothing for a score."""
    return {"days": "days", "count": "times"}.get(unit, "")


def _days(n: int) -> str:
    return "1 day" if n == 1 else f"{n} days"


def _times(n: int) -> str:
    return "1 time" if n == 1 else f"{n} times"


# Delivered's histogram edges (lore.bins.bin_edges of the Delivered condition), frozen into the schema (migration
# 0034): the stored column `Lesson.delivered_bin` is the bin of `read_count` they cut. A test holds them equal to
# the histogram's edges; were they ever to differ, the histogram and every condition stay exact, and an edge the
# column lacks is counted from the table.
DELIVERED_BIN = StoredBin(
    "delivered_bin", (0, 1, 3, 9, 30, 50, 99, 100, 200, 500, 1000, 3000, 10000, 30000, 100000)
)

CONDITIONS: tuple[Condition, ...] = (
    Condition(
        key="created",
        label="Created",
        unit="days",
        field="created_at",
        retention="min_age_days",
        reverse=None,
        name_phrase="created >{n}d ago",
        retention_presets=(7, 30, 90, 180, 365),
        help="When the lesson was first written.",
    ),
    Condition(
        key="last_open",
        label="Last agent open",
        unit="days",
        field="last_opened_at",
        retention="unseen_days",
        reverse="opened_within_days",
        name_phrase="unopened >{n}d",
        retention_presets=(7, 30, 90, 180, 365),
        reverse_presets=(1, 7, 30),
        help="The last deliberate agent fetch (memory.read, lorekit read/show); never-opened lessons count "
        "from their creation.",
    ),
    Condition(
        key="recurrence",
        label="Recurrence",
        unit="count",
        field="seen_count",
        retention="max_seen_count",
        reverse="min_seen_count",
        name_phrase="recurrence ≤ {n}×",
        retention_presets=(1, 2, 3, 5),
        reverse_presets=(1, 10, 100),
        never_phrase="Never written",
        help="How many times the lesson has been written. Unrelated to reading.",
    ),
    Condition(
        key="delivered",
        label="Delivered",
        unit="count",
        field="read_count",
        retention="max_read_count",
        reverse="min_read_count",
        name_phrase="delivered ≤ {n}×",
        retention_presets=(50, 100, 200, 500),
        reverse_presets=(1, 10, 100),
        never_phrase="Never delivered",
        help="Every read, deliberate or not: a list or search page it rode along in counts. Start in the hundreds.",
        stored_bin=DELIVERED_BIN,
    ),
    Condition(
        key="chosen",
        label="Chosen",
        unit="count",
        field="opened_count",
        retention="max_opened_count",
        reverse="min_opened_count",
        name_phrase="chosen ≤ {n}×",
        retention_presets=(0, 1, 2, 5),
        reverse_presets=(1, 10, 100),
        never_phrase="Never chosen",
        help="Deliberate agent fetches only. 'Never chosen' means nothing has ever used it.",
    ),
    Condition(
        key="decay",
        label="Decay score",
        unit="score",
        field="decay_score",  # computed, never stored: lore.decay.decay_score
        retention="max_decay_score",
        reverse=None,
        name_phrase="decay score ≤ {n}",
        retention_presets=(5, 10, 25, 50),
        help="0–100: halves every half-life (35 days by default) without an agent open, more slowly for lessons chosen or "
        "written often. Protected lessons are immune (100).",
    ),
)
CONDITIONS_BY_KEY = {c.key: c for c in CONDITIONS}


@dataclass(frozen=True)
class Signal:
    """One of the times and counters a lesson carries, with the meaning the seed gives it: the Explorer's
    columns, the detail sheet and lorekit's `show` name and explain them from here."""

    key: str
    label: str
    field: str
    kind: Literal["count", "time"]
    meaning: str


def _condition_signal(key: str, meaning: str = "") -> Signal:
    """A condition's signal, explained by the condition's own help unless that help is advice for the menu."""
    cond = CONDITIONS_BY_KEY[key]
    kind: Literal["count", "time"] = "count" if cond.unit == "count" else "time"
    return Signal(cond.key, cond.label, cond.field, kind, meaning or cond.help)


# In the order the detail sheet shows them side by side, so they are never confused for one another.
SIGNALS: tuple[Signal, ...] = (
    _condition_signal("recurrence"),
    _condition_signal(
        "delivered",
        "Every time it was handed to a reader, by any surface: a list or search page, a fetch, the detail sheet",
    ),
    _condition_signal("chosen"),
    _condition_signal("last_open"),
    Signal(
        "updated",
        "Last updated",
        "updated_at",
        "time",
        "The last time the content was written; reading never moves it",
    ),
    _condition_signal("created"),
)
SIGNALS_BY_KEY = {s.key: s for s in SIGNALS}
LIST_SIGNALS: tuple[Signal, ...] = tuple(
    SIGNALS_BY_KEY[k] for k in ("recurrence", "delivered", "chosen", "last_open")
)

_COMPARISONS = {
    "min_age_days": "older",
    "unseen_days": "older",
    "opened_within_days": "within",
}


def _build_params() -> dict[str, Param]:
    params: dict[str, Param] = {}
    for cond in CONDITIONS:
        for name in filter(None, (cond.retention, cond.reverse)):
            comparison = _COMPARISONS.get(name) or ("at_most" if name.startswith("max_") else "at_least")
            params[name] = Param(name=name, condition_key=cond.key, comparison=comparison)  # type: ignore[arg-type]
    return params


PARAMS: dict[str, Param] = _build_params()
RETENTION_PARAMS: tuple[Param, ...] = tuple(PARAMS[c.retention] for c in CONDITIONS)
REVERSE_PARAMS: tuple[Param, ...] = tuple(PARAMS[c.reverse] for c in CONDITIONS if c.reverse)


# ---------------------------------------------------------------- typed input of the filter menu


@dataclass(frozen=True)
class Option:
    param: str
    value: int

    @property
    def label(self) -> str:
        return PARAMS[self.param].value_phrase(self.value)


@dataclass(frozen=True)
class TypedResult:
    options: tuple[Option, ...] = ()
    error: str = ""


# What the search box takes under a condition; the filter menu's histogram reads the same grammar in the browser.
TYPED = re.compile(r"^\s*(>=|<=|=>|=<|>|<)?\s*(\d{1,9})\s*$")
TYPED_ALIASES = {"=>": ">=", "=<": "<="}


def parse_typed(condition_key: str, text: str) -> TypedResult:
    """What the menu's search box offers for `text` under a condition (DESIGN.md §5). Never raises."""
    cond = CONDITIONS_BY_KEY.get(condition_key)
    if cond is None:
        return TypedResult(error="unknown condition")
    if not isinstance(text, str) or not text.strip():
        return TypedResult()
    match = TYPED.match(text)
    if not match:
        return TypedResult(error="Type a whole number, optionally with >, >=, < or <=.")
    op = TYPED_ALIASES.get(match.group(1) or "", match.group(1) or "")
    number = int(match.group(2))
    retention, reverse = PARAMS[cond.retention], PARAMS[cond.reverse] if cond.reverse else None
    candidates: list[tuple[Param, int]]
    if cond.unit == "score":
        if op in (">", ">="):
            return TypedResult(error=f"{cond.label} matches a score or lower: type a score, e.g. {number}.")
        candidates = [(retention, number - 1 if op == "<" else number)]
    elif cond.unit == "count":
        assert reverse is not None
        candidates = {
            "": [(retention, number), (reverse, number)],
            ">": [(reverse, number + 1)],
            ">=": [(reverse, number)],
            "<": [(retention, number - 1)],
            "<=": [(retention, number)],
        }[op]
    elif reverse is None:
        if op in ("<", "<="):
            return TypedResult(error=f"{cond.label} only looks back: type a number of days, e.g. {number}.")
        candidates = [(retention, number)]
    else:
        # On days a strict comparison does not move the value: >30 is "More than 30 days ago".
        candidates = {
            "": [(retention, number), (reverse, number)],
            ">": [(retention, number)],
            ">=": [(retention, number)],
            "<": [(reverse, number)],
            "<=": [(reverse, number)],
        }[op]
    options, errors = [], []
    for param, value in candidates:
        if param.comparison == "at_least" and value <= COUNT_MIN:
            # "0 times or more" is every lesson: offering it would look like a filter and narrow nothing.
            errors.append(f"{cond.label}: {param.value_phrase(value).lower()} matches every lesson.")
            continue
        try:
            options.append(Option(param.name, param.check(value)))
        except ValueError:
            low, high = param.bounds
            errors.append(f"{cond.label} takes {low} to {high:,}{cond.unit_suffix}.")
    return TypedResult(tuple(options), "" if options else errors[0])


def canonical_conditions(values: Mapping[str, int]) -> dict[str, int]:
    """Conditions in registry order."""
    return {name: values[name] for name in PARAMS if name in values}


def conditions_q(values: Mapping[str, int], now: datetime) -> Q:
    q = Q()
    for name, value in canonical_conditions(values).items():
        q &= PARAMS[name].q(value, now)
    return q


# ---------------------------------------------------------------- dimensions


@dataclass(frozen=True)
class Dimension:
    name: str
    label: str
    field: str
    modes: tuple[str, ...]
    in_policy: bool = True
    value_prefix: str = ""  # "#" for pull requests

    @property
    def default_mode(self) -> str:
        return self.modes[0]

    @property
    def mode_param(self) -> str:
        return f"{self.name}_mode"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def is_tags(self) -> bool:
        return self.name == "tags"

    def display(self, value: str) -> str:
        return f"{self.value_prefix}{value}" if value else "(none)"


TAG_MODES = ("any", "all", "none")
SET_MODES = ("in", "nin")
# How a filter in each mode reads, in the menu and in a pill ("is" becomes "is either of" for several values).
MODE_LABELS = {
    "any": "includes any",
    "all": "includes all",
    "none": "includes none",
    "in": "is",
    "nin": "is not",
}

DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("tags", "Label", "tags", TAG_MODES),
    Dimension("kind", "Kind", "kind", SET_MODES),
    Dimension("host", "Host", "host", SET_MODES),
    Dimension("owner", "Owner", "owner", SET_MODES, in_policy=False),
    Dimension("source_agent", "Agent", "source_agent", SET_MODES),
    Dimension("trigger", "Trigger", "trigger", SET_MODES),
    Dimension("origin_repo", "Repository", "origin_repo", SET_MODES),
    Dimension("origin_branch", "Branch", "origin_branch", SET_MODES),
    Dimension("origin_pr", "Pull request", "origin_pr", SET_MODES, value_prefix="#"),
)
DIMENSIONS_BY_NAME = {d.name: d for d in DIMENSIONS}
POLICY_DIMENSIONS: tuple[Dimension, ...] = tuple(d for d in DIMENSIONS if d.in_policy)


@dataclass(frozen=True)
class DimFilter:
    values: tuple[str, ...]
    mode: str

    def wording(self, dim: Dimension) -> str:
        """ "includes all ci::x", "is bus", "is either of bus, decision", "is not aw"."""
        shown = ", ".join(dim.display(v) for v in self.values)
        if self.mode == "in" and len(self.values) > 1:
            return f"is either of {shown}"
        return f"{MODE_LABELS[self.mode]} {shown}"


def dimension_pill(dim: Dimension, flt: DimFilter) -> str:
    return f"{dim.label}: {flt.wording(dim)}"


def dimension_q(dim: Dimension, flt: DimFilter) -> Q:
    from lore.models import LessonTag  # the registry is imported by models' neighbours; keep import lazy

    if dim.is_tags:

        def has(values: Iterable[str]) -> Exists:
            return Exists(LessonTag.objects.filter(lesson_id=OuterRef("pk"), tag__in=list(values)))

        if flt.mode == "any":
            return Q(has(flt.values))
        if flt.mode == "none":
            return ~Q(has(flt.values))
        if len(flt.values) == 1:
            return Q(has(flt.values))
        # One aggregate, whatever the number of tags: its plan does not grow with n (one EXISTS per tag did).
        return Q(
            Exists(
                LessonTag.objects.filter(lesson_id=OuterRef("pk"), tag__in=list(flt.values))
                .values("lesson_id")
                .annotate(n=Count("tag", distinct=True))
                .filter(n=len(flt.values))
            )
        )
    q = Q(**{f"{dim.field}__in": list(flt.values)})
    return ~q if flt.mode == "nin" else q


def dimensions_q(filters: Mapping[str, DimFilter]) -> Q:
    q = Q()
    for dim in DIMENSIONS:
        if dim.name in filters:
            q &= dimension_q(dim, filters[dim.name])
    return q


# ---------------------------------------------------------------- a whole rule (lore.rules.rule.Rule)


NAME_MAX = limits.NAME_MAX.value  # a policy's name, typed or automatic


def auto_name(rule: Rule) -> str:
    """The name a policy gets when the dashboard's name field is left blank (DESIGN.md §7), at most NAME_MAX
    characters: a longer rule is cut at a word and marked with "…", keeping where it applies."""
    phrases = [
        CONDITIONS_BY_KEY[PARAMS[name].condition_key].name_phrase.format(n=value)
        for name, value in canonical_conditions(rule.conditions).items()
        if not PARAMS[name].is_reverse
    ]
    for dim in DIMENSIONS:
        if dim.name in rule.dimensions:
            phrases.append(f"{dim.label.lower()} {rule.dimensions[dim.name].wording(dim)}")
    where = "all scopes" if rule.scope == GLOBAL else shortened_at_word(rule.scope, NAME_MAX // 2)
    what = " · ".join(phrases)
    if len(what) + len(where) + 4 <= NAME_MAX:
        return f"{what} in {where}"
    return f"{shortened_at_word(what, NAME_MAX - len(where) - 4)} in {where}"
