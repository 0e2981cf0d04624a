"""The Explorer's state: everything on the page comes from the URL, parsed once into an ExplorerState.

`ExplorerState.from_query(request.GET)` never raises: a malformed or unknown part is dropped and a notice says so.
`state.to_query()` renders the canonical query string (defaults left out, registry order), so a view is shareable,
survives a reload, and back/forward walk through states.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import cached_property
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from lore.conditions import DIMENSIONS
from lore.rules.codec import LISTING_PARAMS, listing_parse, rule_as_query
from lore.rules.rule import Rule
from lore.scopes import GLOBAL
from lore.selectors import DEFAULT_SORT, KEYSETS
from lore.text import shortened as shown
from lore.text import values_of

RANGES: dict[str, tuple[str, timedelta | None]] = {
    "24h": ("Last 24 hours", timedelta(hours=24)),
    "7d": ("Last 7 days", timedelta(days=7)),
    "30d": ("Last 30 days", timedelta(days=30)),
    "90d": ("Last 90 days", timedelta(days=90)),
    "all": ("All time", None),
}
DEFAULT_RANGE = "all"
READ_WINDOW_ALL_TIME = timedelta(days=90)
MATRIX_DIMENSIONS = tuple(d.name for d in DIMENSIONS if d.name != "origin_pr")
DEFAULT_MATRIX = ("host", "kind")

# Parameters that steer a request (pagination, the menu) rather than describe the view.
AUXILIARY = {"cursor", "menu", "section", "typed", "part", "dom_id", "page", "key"}
_CUSTOM_RANGE = re.compile(r"^(\d{4}-\d{2}-\d{2})?\.\.(\d{4}-\d{2}-\d{2})?$")


@dataclass(frozen=True)
class DateRange:
    """Lessons written in a range: a preset (`30d`), all time, or custom days `2025-01-01..2025-03-31`."""

    key: str = DEFAULT_RANGE
    since: date | None = None
    until: date | None = None

    @property
    def is_all_time(self) -> bool:
        return self.key == "all"

    @property
    def is_custom(self) -> bool:
        return self.key == "custom"

    @property
    def param(self) -> str:
        if self.is_custom:
            return f"{self.since.isoformat() if self.since else ''}..{self.until.isoformat() if self.until else ''}"
        return "" if self.is_all_time else self.key

    @property
    def label(self) -> str:
        if not self.is_custom:
            return RANGES[self.key][0]
        if self.since and self.until:
            return f"{self.since:%b %-d, %Y} – {self.until:%b %-d, %Y}"
        return f"Since {self.since:%b %-d, %Y}" if self.since else f"Until {self.until:%b %-d, %Y}"

    def bounds(self, now: datetime) -> tuple[datetime | None, datetime | None]:
        """[since, until) as datetimes; None where open."""
        if self.is_custom:
            # A date at the calendar's edge (0001-01-01, 9999-12-31) means "open" on that side: its day boundary
            # would not fit in a datetime once moved to UTC.
            tz = timezone.get_current_timezone()
            since = (
                datetime.combine(self.since, datetime.min.time(), tz)
                if self.since and self.since > OPEN_BEFORE
                else None
            )
            until = (
                datetime.combine(self.until + timedelta(days=1), datetime.min.time(), tz)
                if self.until and self.until < OPEN_AFTER
                else None
            )
            return since, until
        delta = RANGES[self.key][1]
        return (now - delta if delta else None), None

    def read_window(self, now: datetime) -> tuple[datetime | None, datetime | None, bool]:
        """The Read card's window: the range, or the last 90 days when the range is all time (the flag says so)."""
        since, until = self.bounds(now)
        if since is None and until is None:
            return now - READ_WINDOW_ALL_TIME, None, True
        return since, until, False


OPEN_BEFORE = date(1, 1, 2)  # a custom range from on or before this is open at its start
OPEN_AFTER = date(9999, 12, 30)  # … and until on or after this, open at its end


def parse_range(raw: str | None) -> tuple[DateRange, str]:
    """(range, notice) — the notice is empty when `raw` was understood."""
    if raw in (None, ""):
        return DateRange(), ""
    text = str(raw).strip()
    if text in RANGES:
        return DateRange(text), ""
    match = _CUSTOM_RANGE.match(text)
    if match and (match.group(1) or match.group(2)):
        try:
            since = date.fromisoformat(match.group(1)) if match.group(1) else None
            until = date.fromisoformat(match.group(2)) if match.group(2) else None
        except ValueError:
            return DateRange(), f"Ignored range “{shown(text)}”: not a real date."
        if since and until and since > until:
            since, until = until, since
        return DateRange("custom", since, until), ""
    return DateRange(), (
        f"Ignored range “{shown(text)}”: use 24h, 7d, 30d, 90d, all or YYYY-MM-DD..YYYY-MM-DD."
    )


@dataclass(frozen=True)
class ExplorerState:
    rule: Rule = field(default_factory=Rule)
    range: DateRange = field(default_factory=DateRange)
    q: str = ""
    sort: str = DEFAULT_SORT
    archived: bool = False
    run: int | None = None
    matrix: tuple[str, str] = DEFAULT_MATRIX
    notices: tuple[str, ...] = ()
    successes: tuple[str, ...] = ()  # what an action did ("Restored 3 lessons."), shown apart from warnings

    # ------------------------------------------------------------ parsing

    @classmethod
    def from_query(cls, data: Mapping[str, object]) -> ExplorerState:
        """The state a query string describes. Never raises; every dropped part leaves a notice."""
        listing, problems = listing_parse(data)  # the rule, the search and the sort: the codec's
        notices = [problem.notice for problem in problems]
        single = _Single(data, notices)
        for name in ("q", "sort"):
            single.note_repeats(name)
        raw_range = single.get("range")
        if raw_range == "custom":  # the toolbar's date inputs
            raw_range = f"{single.get('from') or ''}..{single.get('to') or ''}"
            raw_range = "" if raw_range == ".." else raw_range
        date_range, range_notice = parse_range(raw_range)
        if range_notice:
            notices.append(range_notice)
        state = cls(
            rule=listing.rule,
            range=date_range,
            q=listing.q,
            sort=listing.sort,
            archived=_parse_flag(single.get("archived"), notices),
            run=_parse_run(single.get("run"), notices),
            matrix=_parse_matrix(_matrix_param(data), notices),
        )
        if state.run is not None and not state.archived:
            state = replace(state, archived=True)
        notices += _unknown_params(data)
        return replace(state, notices=tuple(dict.fromkeys(notices)))

    # ------------------------------------------------------------ rendering back

    def query_pairs(self) -> list[tuple[str, str]]:
        pairs = rule_as_query(self.rule)
        if not self.range.is_all_time:
            pairs.append(("range", self.range.param))
        if self.q:
            pairs.append(("q", self.q))
        if self.sort != DEFAULT_SORT:
            pairs.append(("sort", self.sort))
        if self.archived:
            pairs.append(("archived", "1"))
        if self.run is not None:
            pairs.append(("run", str(self.run)))
        if self.matrix != DEFAULT_MATRIX:
            pairs.append(("matrix", ",".join(self.matrix)))
        return pairs

    def to_query(self) -> str:
        """The canonical query string (no leading '?'); '' for the default view."""
        return urlencode(self.query_pairs(), safe=":,/")

    def url(self, name: str = "explorer:index") -> str:
        query = self.to_query()
        return reverse(name) + (f"?{query}" if query else "")

    def with_rule(self, rule: Rule) -> ExplorerState:
        return replace(self, rule=rule, notices=())

    def but(self, **changes: object) -> ExplorerState:
        return replace(self, notices=(), **changes)  # type: ignore[arg-type]

    def with_notice(self, notice: str) -> ExplorerState:
        return replace(self, notices=(*self.notices, notice))

    def with_success(self, message: str) -> ExplorerState:
        return replace(self, successes=(*self.successes, message))

    # ------------------------------------------------------------ derived

    @property
    def scope(self) -> str:
        return self.rule.scope

    @property
    def has_conditions(self) -> bool:
        return bool(self.rule.conditions)

    @property
    def is_default(self) -> bool:
        return not self.query_pairs()

    @property
    def list_sort(self) -> str:
        """The order the list is read in: in the archived view, Newest means most recently archived (the time
        its rows show)."""
        return "archived" if self.archived and self.sort == DEFAULT_SORT else self.sort

    @property
    def sort_label(self) -> str:
        return KEYSETS[self.list_sort][1]

    @property
    def is_retention_rule(self) -> bool:
        """Conditions set and nothing a policy cannot carry: the list is exactly what a policy would archive.
        (With a reverse direction, an Explorer-only filter, a date range or a search the list still leaves
        protected lessons out as a policy would, but no policy has this rule.)"""
        return self.has_conditions and not self.policy_blockers

    @property
    def policy_blockers_text(self) -> str:
        """ "the search", "Chosen: 100 times or more or the date range (Last 24 hours)"."""
        return " or ".join(label for label, _ in self.policy_blockers)

    @property
    def has_candidate_note(self) -> bool:
        """The list says how it relates to a policy: with conditions (it is the candidate set), or with filters
        only and Create retention policy offered (the list then also shows protected lessons a policy skips)."""
        if self.archived:
            return False
        return self.has_conditions or self.can_create_policy

    @cached_property
    def policy_blockers(self) -> list[tuple[str, str]]:
        """Why Create retention policy is hidden: (what to clear, URL of the view with it cleared)."""
        rule = self.rule
        blockers: list[tuple[str, str]] = []
        for param in rule.reverse_params:
            conditions = {n: v for n, v in rule.conditions.items() if n != param.name}
            blockers.append(
                (
                    param.pill(rule.conditions[param.name]),
                    self.with_rule(replace(rule, conditions=conditions)).url(),
                )
            )
        for dim in rule.dimensions_not_in_policy:
            dimensions = {n: f for n, f in rule.dimensions.items() if n != dim.name}
            blockers.append(
                (f"the {dim.label} filter", self.with_rule(replace(rule, dimensions=dimensions)).url())
            )
        if not self.range.is_all_time:
            blockers.append((f"the date range ({self.range.label})", self.but(range=DateRange()).url()))
        if self.q:
            blockers.append(("the search", self.but(q="").url()))
        if self.archived:
            blockers.append(("the archived view", self.but(archived=False, run=None).url()))
        return blockers

    @property
    def can_create_policy(self) -> bool:
        return not self.rule.is_empty and not self.policy_blockers

    @property
    def policy_handoff_url(self) -> str:
        """Settings → Retention Policies → New policy, pre-filled with scope, conditions and filters."""
        pairs = [("scope", self.rule.scope), *rule_as_query(self.rule, include_scope=False)]
        return reverse("policies:new") + "?" + urlencode(pairs, safe=":,/")

    @property
    def matrix_rows(self) -> str:
        return self.matrix[0]

    @property
    def matrix_cols(self) -> str:
        return self.matrix[1]


class _Single:
    """One value per state parameter; a repeated parameter keeps its last value, with a notice."""

    def __init__(self, data: Mapping[str, object], notices: list[str]) -> None:
        self.data = data
        self.notices = notices

    def get(self, name: str) -> str | None:
        values = self.note_repeats(name)
        return values[-1] if values else None

    def note_repeats(self, name: str) -> list[str]:
        """Every value of `name`; more than one leaves a notice (the codec, like a QueryDict, reads the last)."""
        values = values_of(self.data, name)
        if len(set(values)) > 1:
            self.notices.append(f"“{name}” was given {len(values)} times: kept the last one.")
        return values


def _parse_flag(raw: str | None, notices: list[str]) -> bool:
    if raw in (None, "", "0", "false"):
        return False
    if raw in ("1", "true", "on", "yes"):
        return True
    notices.append(f"Ignored archived=“{shown(raw)}”: use archived=1.")
    return False


def _parse_run(raw: str | None, notices: list[str]) -> int | None:
    if raw in (None, ""):
        return None
    if re.fullmatch(r"\d{1,18}", raw.strip()):
        return int(raw.strip())
    notices.append(f"Ignored run=“{shown(raw)}”: a run is named by its number.")
    return None


def _matrix_param(data: Mapping[str, object]) -> str | None:
    """`matrix=host,kind`, or the matrix form's two selects: `matrix=host&matrix=kind`."""
    values = values_of(data, "matrix")
    return ",".join(values) if values else None


def _parse_matrix(raw: str | None, notices: list[str]) -> tuple[str, str]:
    if raw in (None, ""):
        return DEFAULT_MATRIX
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) == 2 and parts[0] != parts[1] and all(p in MATRIX_DIMENSIONS for p in parts):
        return parts[0], parts[1]
    notices.append(
        f"Ignored matrix=“{shown(raw)}”: name two different dimensions out of {', '.join(MATRIX_DIMENSIONS)}."
    )
    return DEFAULT_MATRIX


KNOWN_PARAMS = LISTING_PARAMS | {"range", "from", "to", "archived", "run", "matrix"} | AUXILIARY


def _unknown_params(data: Mapping[str, object]) -> list[str]:
    return [
        f"Ignored “{shown(name)}”: not something the Explorer filters on."
        for name in data
        if name not in KNOWN_PARAMS
    ]


def scope_label(scope: str) -> str:
    return "All scopes" if scope == GLOBAL else scope
