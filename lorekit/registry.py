"""GENERATED from lore/conditions.py by `python -m lore.api.registry_export`: do not edit by hand.

The condition and dimension registry's names, units and bounds as plain data, so that lorekit (which never
imports Django) derives its flags and MCP tool schemas from the registry. tests/lorekit/test_registry.py fails
when this file is stale; regenerate it with the command above.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """One direction of a condition: `min_age_days`, `max_opened_count`, … (reverse ones are explore-only)."""

    name: str
    label: str
    unit: str
    unit_word: str  # "days" or "times", as messages say it
    low: int
    high: int
    reverse: bool
    phrase: str
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Dimension:
    """A dimension filter: values (OR within) and a mode; `in_policy` is False for Explorer-only ones."""

    name: str
    label: str
    modes: tuple[str, ...]
    in_policy: bool

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def mode_param(self) -> str:
        return f"{self.name}_mode"

    @property
    def default_mode(self) -> str:
        return self.modes[0]


@dataclass(frozen=True)
class Option:
    """A request field beside the rule (scope, sort, limit, a policy's name …): one CLI flag and one MCP tool
    property each. `kind`: string, integer, boolean or choice; `low`/`high` bound an integer's value or a
    string's length (None: unbounded)."""

    name: str
    kind: str
    help: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    default: str | int | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Signal:
    """A time or counter of a lesson, as the seed names it (Recurrence, Delivered, Chosen, …)."""

    key: str
    label: str
    field: str
    kind: str
    meaning: str


PARAMS: tuple[Param, ...] = (
    Param(
        name="min_age_days",
        label="Created",
        unit="days",
        unit_word="days",
        low=1,
        high=3650,
        reverse=False,
        phrase="More than N days ago",
        help="When the lesson was first written.",
    ),
    Param(
        name="unseen_days",
        label="Last agent open",
        unit="days",
        unit_word="days",
        low=1,
        high=3650,
        reverse=False,
        phrase="More than N days ago",
        help="The last deliberate agent fetch (memory.read, lorekit read/show); never-opened lessons count from their creation.",
    ),
    Param(
        name="opened_within_days",
        label="Last agent open",
        unit="days",
        unit_word="days",
        low=1,
        high=3650,
        reverse=True,
        phrase="Within N days",
        help="The last deliberate agent fetch (memory.read, lorekit read/show); never-opened lessons count from their creation.",
    ),
    Param(
        name="max_seen_count",
        label="Recurrence",
        unit="count",
        unit_word="times",
        low=0,
        high=100000,
        reverse=False,
        phrase="N times or fewer",
        help="How many times the lesson has been written. Unrelated to reading.",
    ),
    Param(
        name="min_seen_count",
        label="Recurrence",
        unit="count",
        unit_word="times",
        low=0,
        high=100000,
        reverse=True,
        phrase="N times or more",
        help="How many times the lesson has been written. Unrelated to reading.",
    ),
    Param(
        name="max_read_count",
        label="Delivered",
        unit="count",
        unit_word="times",
        low=0,
        high=100000,
        reverse=False,
        phrase="N times or fewer",
        help="Every read, deliberate or not: a list or search page it rode along in counts. Start in the hundreds.",
    ),
    Param(
        name="min_read_count",
        label="Delivered",
        unit="count",
        unit_word="times",
        low=0,
        high=100000,
        reverse=True,
        phrase="N times or more",
        help="Every read, deliberate or not: a list or search page it rode along in counts. Start in the hundreds.",
    ),
    Param(
        name="max_opened_count",
        label="Chosen",
        unit="count",
        unit_word="times",
        low=0,
        high=100000,
        reverse=False,
        phrase="N times or fewer",
        help="Deliberate agent fetches only. 'Never chosen' means nothing has ever used it.",
    ),
    Param(
        name="min_opened_count",
        label="Chosen",
        unit="count",
        unit_word="times",
        low=0,
        high=100000,
        reverse=True,
        phrase="N times or more",
        help="Deliberate agent fetches only. 'Never chosen' means nothing has ever used it.",
    ),
    Param(
        name="max_decay_score",
        label="Decay score",
        unit="score",
        unit_word="",
        low=0,
        high=100,
        reverse=False,
        phrase="N or lower",
        help="0–100: halves every half-life (35 days by default) without an agent open, more slowly for lessons chosen or written often. Protected lessons are immune (100).",
    ),
)
DIMENSIONS: tuple[Dimension, ...] = (
    Dimension(name="tags", label="Label", modes=("any", "all", "none"), in_policy=True),
    Dimension(name="kind", label="Kind", modes=("in", "nin"), in_policy=True),
    Dimension(name="host", label="Host", modes=("in", "nin"), in_policy=True),
    Dimension(name="owner", label="Owner", modes=("in", "nin"), in_policy=False),
    Dimension(name="source_agent", label="Agent", modes=("in", "nin"), in_policy=True),
    Dimension(name="trigger", label="Trigger", modes=("in", "nin"), in_policy=True),
    Dimension(name="origin_repo", label="Repository", modes=("in", "nin"), in_policy=True),
    Dimension(name="origin_branch", label="Branch", modes=("in", "nin"), in_policy=True),
    Dimension(name="origin_pr", label="Pull request", modes=("in", "nin"), in_policy=True),
)
SIGNALS: tuple[Signal, ...] = (
    Signal(
        key="recurrence",
        label="Recurrence",
        field="seen_count",
        kind="count",
        meaning="How many times the lesson has been written. Unrelated to reading.",
    ),
    Signal(
        key="delivered",
        label="Delivered",
        field="read_count",
        kind="count",
        meaning="Every time it was handed to a reader, by any surface: a list or search page, a fetch, the detail sheet",
    ),
    Signal(
        key="chosen",
        label="Chosen",
        field="opened_count",
        kind="count",
        meaning="Deliberate agent fetches only. 'Never chosen' means nothing has ever used it.",
    ),
    Signal(
        key="last_open",
        label="Last agent open",
        field="last_opened_at",
        kind="time",
        meaning="The last deliberate agent fetch (memory.read, lorekit read/show); never-opened lessons count from their creation.",
    ),
    Signal(
        key="updated",
        label="Last updated",
        field="updated_at",
        kind="time",
        meaning="The last time the content was written; reading never moves it",
    ),
    Signal(
        key="created",
        label="Created",
        field="created_at",
        kind="time",
        meaning="When the lesson was first written.",
    ),
)
OPTIONS: tuple[Option, ...] = (
    Option(
        name="scope",
        kind="string",
        help="global, project::NAME, repo::OWNER/REPO or branch::OWNER/REPO::BRANCH",
    ),
    Option(
        name="retention",
        kind="string",
        help="conditions in URL form, e.g. min_age_days:90,max_opened_count:0",
        high=4000,
    ),
    Option(
        name="sort",
        kind="choice",
        help="newest (default), opened_count (most chosen first) or coldest (lowest decay score first)",
        choices=("newest", "opened_count", "coldest"),
        default="newest",
    ),
    Option(name="limit", kind="integer", help="lessons per page", low=1, high=200, default=50),
    Option(name="cursor", kind="string", help="next_cursor of the previous page", high=500),
    Option(name="archived", kind="boolean", help="archived lessons instead of active ones"),
    Option(name="query", kind="string", help="every word in the key or the content", low=1, high=200),
    Option(name="id", kind="integer", help="the policy's id", low=1),
    Option(name="policy_id", kind="integer", help="a saved policy (instead of scope + rule)", low=1),
    Option(name="name", kind="string", help="the policy's name", low=1, high=200),
    Option(
        name="mode",
        kind="choice",
        help="review (run by hand, default) or auto (swept nightly once enabled)",
        choices=("review", "auto"),
        default="review",
    ),
    Option(name="enabled", kind="boolean", help="auto policies are swept only when enabled"),
)
GARDEN_OPTIONS: tuple[Option, ...] = (
    Option(
        name="kind",
        kind="choice",
        help="near duplicates, superseded, expired ephemera or possible duplicates (semantic, review-only)",
        choices=("near_duplicate", "superseded", "expired_ephemera", "possible_duplicate"),
    ),
    Option(name="scope", kind="string", help="a scope family: repo::OWNER/REPO covers its branches"),
    Option(
        name="status",
        kind="choice",
        help="open (default), dismissed or applied",
        choices=("open", "dismissed", "applied"),
        default="open",
    ),
    Option(
        name="run",
        kind="boolean",
        help="queue an inventory for the worker first (what changed since the last)",
    ),
    Option(
        name="wait",
        kind="integer",
        help="with run: wait up to this many seconds for the inventory to finish",
        low=0,
        high=600,
        default=0,
    ),
    Option(name="id", kind="integer", help="a finding's id", low=1),
    Option(
        name="keep",
        kind="integer",
        help="with apply: the lesson to keep (required for a possible duplicate; the others are retired)",
        low=1,
    ),
)
SORTS: tuple[str, ...] = ("newest", "opened_count", "coldest")
POLICY_MODES: tuple[str, ...] = ("review", "auto")
NAME_MAX = 200  # a policy's name, typed or automatic
GARDEN_RUN_PENDING: tuple[str, ...] = ("queued", "running")  # an inventory not finished

OPTION: dict[str, Option] = {o.name: o for o in OPTIONS}
GARDEN_OPTION: dict[str, Option] = {o.name: o for o in GARDEN_OPTIONS}
RETENTION_PARAMS: tuple[Param, ...] = tuple(p for p in PARAMS if not p.reverse)
POLICY_DIMENSIONS: tuple[Dimension, ...] = tuple(d for d in DIMENSIONS if d.in_policy)
