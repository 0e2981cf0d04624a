"""What the Explorer reads (no side effects): the list, per-value counts, stat cards, the Read card, the matrix.

Every number on the page is computed from one ExplorerState through `lessons_shown` (which calls the candidate
query), so a count never describes a population the list below it is not showing. Each region is one query:
a conditional aggregate for the stat cards, one GROUP BY for the matrix and for a dimension's value counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Case, Count, F, Q, QuerySet, Value, When

from explorer.state import ExplorerState
from lore.bins import Distribution, distribution, kept_distribution
from lore.candidates import rule_predicate
from lore.conditions import DIMENSIONS_BY_NAME, PARAMS, Condition, Dimension, DimFilter
from lore.models import Account, Lesson, LessonTag
from lore.rollups import deliveries_between
from lore.rules.rule import Rule
from lore.scopes import GLOBAL, scope_q
from lore.selectors import dimension_value_counts as _value_counts
from lore.selectors import lessons_filtered, text_search_q
from lore.value_counts import kept_value_counts, maintained, page_counts

MATRIX_ROWS = 10
MATRIX_COLS = 8


def _narrow(qs: QuerySet[Lesson], state: ExplorerState, now: datetime) -> QuerySet[Lesson]:
    """The parts of the state that are not the rule: the date range (written in it) and the run."""
    since, until = state.range.bounds(now)
    if since is not None:
        qs = qs.filter(created_at__gte=since)
    if until is not None:
        qs = qs.filter(created_at__lt=until)
    if state.run is not None:
        qs = qs.filter(archived_by_run_id=state.run)
    return qs


def lessons_shown(
    account: Account, state: ExplorerState, *, now: datetime, rule: Rule | None = None
) -> QuerySet[Lesson]:
    """The lessons the list shows. With a condition set (active view) it is exactly the candidate set.

    `rule` replaces the state's rule, for the counts that leave a filter out.
    """
    qs = lessons_filtered(
        account,
        rule or state.rule,
        q=state.q,
        archived=state.archived,
        include_protected=state.archived or not state.has_conditions,
        now=now,
    )
    return _narrow(qs, state, now)


def dimension_value_counts(
    account: Account, state: ExplorerState, dim: Dimension, typed: str = "", *, now: datetime
) -> list[tuple[str, int]]:
    """Per-value counts of a dimension with everything else applied and the dimension's own filter left out.

    Over the whole store (nothing else applied) they are read from the counts the database keeps
    (lore.value_counts), not counted from a million lessons."""
    rule = state.rule.with_dimension(dim.name, None)
    if _nothing_but_the_rule(state, now):
        kept = kept_value_counts(account.pk, rule, dim, typed, archived=state.archived)
        if kept is not None:
            return kept
    base = lessons_shown(account, state, now=now, rule=rule)
    return _value_counts(base, dim, typed)


def _nothing_but_the_rule(state: ExplorerState, now: datetime) -> bool:
    """True when no search, date range or run narrows the lessons beyond the state's rule and status."""
    return not state.q and state.run is None and state.range.bounds(now) == (None, None)


def condition_choice_counts(
    account: Account,
    state: ExplorerState,
    cond: Condition,
    choices: Sequence[tuple[str, int]],
    *,
    now: datetime,
) -> list[int]:
    """How many lessons the list would show with each (param, value) of `cond` in place of the condition's
    current value, everything else as it is: one conditional aggregate, whatever the number of choices."""
    if not choices:
        return []
    return choice_counts(condition_base(account, state, cond, now=now), choices, now=now)


def condition_base(
    account: Account, state: ExplorerState, cond: Condition, *, now: datetime
) -> QuerySet[Lesson]:
    """The lessons a value of `cond` would choose from: everything else in the state applied, the condition's own
    value left out. With a condition applied the active list is the candidate set: protected lessons left out."""
    rule = state.rule.without_condition(cond.key)
    base = lessons_filtered(
        account, rule, q=state.q, archived=state.archived, include_protected=state.archived, now=now
    )
    return _narrow(base, state, now)


def condition_distribution(
    account: Account, state: ExplorerState, cond: Condition, *, now: datetime, extra: Sequence[int] = ()
) -> Distribution:
    """The lessons `condition_choice_counts` counts from, per bin of `cond` (lore.bins): one GROUP BY. `extra`:
    values of the condition that must split the bins exactly (the applied or typed value). Over the whole store
    (nothing but the condition itself in the rule, every scope, no search, range or run), from the counts the
    database keeps where it keeps them (lore.bins.kept_distribution, issue 28)."""
    rule = state.rule.without_condition(cond.key)
    if rule.is_empty and rule.scope == GLOBAL and _nothing_but_the_rule(state, now):
        kept = kept_distribution(account.pk, cond, archived=state.archived, now=now, extra=extra)
        if kept is not None:
            return kept
    return distribution(condition_base(account, state, cond, now=now), cond, now=now, extra=extra)


def choice_counts(base: QuerySet[Lesson], choices: Sequence[tuple[str, int]], *, now: datetime) -> list[int]:
    """[lessons of `base` each (param, value) keeps], as one COUNT(*) FILTER (WHERE …) per choice (of `account_id`,
    which every index carries, so the count can be an index-only scan)."""
    totals = base.aggregate(
        **{
            f"c{i}": Count("account", filter=PARAMS[name].q(value, now))
            for i, (name, value) in enumerate(choices)
        }
    )
    return [int(totals[f"c{i}"] or 0) for i in range(len(choices))]


@dataclass(frozen=True)
class StatCards:
    lessons: int
    scopes: int
    protected: int
    archived: int


def _population_parts(
    account: Account, state: ExplorerState, rule: Rule, now: datetime
) -> list[QuerySet[Lesson]]:
    """Active and archived lessons the rule, search, date range and run describe (protected included), as
    disjoint parts to be added up. With a search there are two, one per status: the full-text index covers
    active lessons only, so the active part is answered from it, and only the few archived lessons have their
    text searched row by row (one predicate over both statuses read every lesson: 9.9 s at 1M; as parts ≈ 0.3 s)."""
    qs = _narrow(Lesson.objects.filter(account=account).filter(rule_predicate(rule, now)), state, now)
    if not state.q:
        return [qs]
    found = text_search_q(state.q)
    return [qs.filter(found, archived_at__isnull=True), qs.filter(found, archived_at__isnull=False)]


# What lesson_page_counts carries besides the account and archived_at: a population described by these columns
# alone is counted in one index-only pass over it, both statuses at once (the unfiltered page).
_PAGE_COUNTS_FIELDS = frozenset({"scope", "host", "kind", "protected"})


def _one_pass(state: ExplorerState, rule: Rule, fields: set[str], now: datetime) -> bool:
    """Whether `lesson_page_counts` alone answers the counts: no condition, search, date range or run, and
    dimensions (filtered or on an axis) among its columns."""
    plain = (
        not rule.conditions and not state.q and state.run is None and state.range.bounds(now) == (None, None)
    )
    dims = {DIMENSIONS_BY_NAME[name].field for name in rule.dimensions}
    return plain and (dims | fields) <= _PAGE_COUNTS_FIELDS


def _counting_parts(
    account: Account, state: ExplorerState, rule: Rule, fields: set[str], now: datetime
) -> list[tuple[QuerySet[Lesson], Q | bool, Q | bool]]:
    """The population (rule, search, date range and run) as disjoint parts counted apart and added up, each with
    which of its lessons the list shows and which are archived (a Q, or all/none).

    One part when `lesson_page_counts` answers it in one index-only pass (`_one_pass`, the unfiltered page).
    Otherwise two, by status: every index that carries the other columns is partial on the status
    (`lesson_active_facts`, `lesson_archived_recent`) and none stores `archived_at`, so a predicate over both
    statuses, or a flag computed from `archived_at`, reads the table; apart, the active part (98% of a store) is
    an index-only scan of the covering index, with constant flags."""
    qs = _narrow(Lesson.objects.filter(account=account).filter(rule_predicate(rule, now)), state, now)
    if _one_pass(state, rule, fields, now):
        return [(qs, _shown_q(state), Q(archived_at__isnull=False))]
    found = text_search_q(state.q) if state.q else Q()
    active_shown: Q | bool = (not state.archived) and (Q(protected=False) if state.has_conditions else True)
    return [
        (qs.filter(found, archived_at__isnull=True), active_shown, False),
        (qs.filter(found, archived_at__isnull=False), state.archived, True),
    ]


def _population(account: Account, state: ExplorerState, rule: Rule, now: datetime) -> QuerySet[Lesson]:
    """The population as one queryset (see `_population_parts`)."""
    parts = _population_parts(account, state, rule, now)
    return (
        parts[0]
        if len(parts) == 1
        else Lesson.objects.filter(pk__in=parts[0].union(*parts[1:], all=True).values("pk"))
    )


def _shown_q(state: ExplorerState) -> Q:
    """Which lessons of the population the list shows."""
    if state.archived:
        return Q(archived_at__isnull=False)
    if state.has_conditions:
        return Q(archived_at__isnull=True, protected=False)
    return Q(archived_at__isnull=True)


def stat_cards(account: Account, state: ExplorerState, *, now: datetime) -> StatCards:
    """Lessons, Scopes active, Protected, Archived: one conditional aggregate over what the state matches."""
    active, shown = Q(archived_at__isnull=True), _shown_q(state)
    totals = _population(account, state, state.rule, now).aggregate(
        lessons=Count("pk", filter=shown),
        scopes=Count("scope", distinct=True, filter=shown),
        protected=Count("pk", filter=(~active if state.archived else active) & Q(protected=True)),
        archived=Count("pk", filter=~active),
    )
    return StatCards(**{k: int(v or 0) for k, v in totals.items()})


@dataclass(frozen=True)
class ReadCard:
    delivered: int
    window_label: str
    defaulted: bool  # the range is all time, so the card shows the last 90 days


def read_card(account: Account, state: ExplorerState, *, now: datetime) -> ReadCard:
    """Deliveries recorded against the scope in the range (dashboard reads left out): the read events still kept
    plus the days rolled up past the horizon (lore.rollups). Scope-level by nature."""
    since, until, defaulted = state.range.read_window(now)
    total = deliveries_between(account, since=since, until=until, scope=state.scope)
    label = "last 90 days" if defaulted else state.range.label.lower()
    return ReadCard(total, label, defaulted)


@dataclass(frozen=True)
class MatrixCell:
    count: int
    href: str
    heat: int = 0  # 0–100, relative to the fullest cell


@dataclass(frozen=True)
class Matrix:
    rows_dim: Dimension
    cols_dim: Dimension
    cols: list[str]
    rows: list[tuple[str, list[MatrixCell], int]]  # value, cells, row total
    more_rows: int
    more_cols: int
    col_totals: list[int]  # per shown column
    total: int  # every pair counted, the values beyond the shown ones included
    filtered_rows: frozenset[str] = frozenset()  # values the axes' own filters pick, marked in the headers
    filtered_cols: frozenset[str] = frozenset()

    @property
    def is_empty(self) -> bool:
        return not self.rows

    @property
    def per_label(self) -> bool:
        """A Label axis counts a lesson once per label it carries, so the total can exceed the lessons listed."""
        return self.rows_dim.is_tags or self.cols_dim.is_tags


def _pairs(base: QuerySet[Lesson], rows_dim: Dimension, cols_dim: Dimension) -> list[tuple[str, str, int]]:
    """[(row value, col value, lessons)] in one GROUP BY; a tag axis joins LessonTag."""
    if rows_dim.is_tags or cols_dim.is_tags:
        other = cols_dim if rows_dim.is_tags else rows_dim
        tagged = (
            LessonTag.objects.filter(lesson__in=base.values("pk"))
            .values_list("tag", f"lesson__{other.field}")
            .annotate(n=Count("lesson_id"))
            .order_by()
        )
        if rows_dim.is_tags:
            return [(str(t), str(o), int(n)) for t, o, n in tagged]
        return [(str(o), str(t), int(n)) for t, o, n in tagged]
    grouped = base.values_list(rows_dim.field, cols_dim.field).annotate(n=Count("account")).order_by()
    return [(str(r), str(c), int(n)) for r, c, n in grouped]


def _top(totals: dict[str, int], limit: int) -> list[str]:
    return sorted(totals, key=lambda v: (-totals[v], v == "", v))[:limit]


def _axes(state: ExplorerState) -> tuple[Dimension, Dimension, Rule]:
    """The matrix's two dimensions and the rule it counts with: the state's whole rule, the axes' own filters
    included, so the matrix totals exactly what the list shows (DESIGN.md §8)."""
    return DIMENSIONS_BY_NAME[state.matrix_rows], DIMENSIONS_BY_NAME[state.matrix_cols], state.rule


def matrix(account: Account, state: ExplorerState, *, now: datetime) -> Matrix:
    """The pivot of two dimensions; each cell counts the listed lessons with both values."""
    rows_dim, cols_dim, rule = _axes(state)
    pairs = _pairs(lessons_shown(account, state, now=now, rule=rule), rows_dim, cols_dim)
    return _matrix_of(state, rule, rows_dim, cols_dim, pairs)


def _matrix_of(
    state: ExplorerState,
    rule: Rule,
    rows_dim: Dimension,
    cols_dim: Dimension,
    pairs: list[tuple[str, str, int]],
) -> Matrix:
    counts: dict[tuple[str, str], int] = {}
    row_totals: dict[str, int] = {}
    col_totals: dict[str, int] = {}
    for row, col, n in pairs:
        counts[(row, col)] = n
        row_totals[row] = row_totals.get(row, 0) + n
        col_totals[col] = col_totals.get(col, 0) + n
    rows, cols = _top(row_totals, MATRIX_ROWS), _top(col_totals, MATRIX_COLS)
    fullest = max(counts.values(), default=1)

    def cell(row: str, col: str) -> MatrixCell:
        n = counts.get((row, col), 0)
        heat = round(100 * n / fullest)
        if not n or not row or not col:
            return MatrixCell(n, "", heat)
        picked = rule.with_dimension(rows_dim.name, DimFilter((row,), rows_dim.default_mode))
        picked = picked.with_dimension(cols_dim.name, DimFilter((col,), cols_dim.default_mode))
        return MatrixCell(n, state.with_rule(picked).url(), heat)

    return Matrix(
        rows_dim=rows_dim,
        cols_dim=cols_dim,
        cols=cols,
        rows=[(row, [cell(row, col) for col in cols], row_totals[row]) for row in rows],
        more_rows=max(0, len(row_totals) - len(rows)),
        more_cols=max(0, len(col_totals) - len(cols)),
        col_totals=[col_totals[col] for col in cols],
        total=sum(row_totals.values()),
        filtered_rows=_picked(rule, rows_dim),
        filtered_cols=_picked(rule, cols_dim),
    )


def _picked(rule: Rule, dim: Dimension) -> frozenset[str]:
    """The values an axis's own filter keeps in view (none for an exclusion: its values are not in the matrix)."""
    picked = rule.dimensions.get(dim.name)
    if picked is None or picked.mode in ("nin", "none"):
        return frozenset()
    return frozenset(picked.values)


def _flag(q: Q | bool) -> Case | Value:
    if isinstance(q, bool):
        return Value(q)
    if not q:
        return Value(True)
    return Case(When(q, then=Value(True)), default=Value(False), output_field=BooleanField())


# Stat cards and matrix in one statement: per part (active, archived), the inner query flags each lesson (shown in
# the list? archived?) and the outer one aggregates by the two axes and the scope; the parts' rows are small enough
# to fold in Python into the cells and the card totals (Scopes active counts the scopes with a shown lesson). A cell
# counts exactly the shown lessons.
_CARDS_AND_MATRIX = """
SELECT r, c, scope,
       COUNT(*) FILTER (WHERE x_shown) AS cell,
       COUNT(*) FILTER (WHERE {status} AND protected) AS protected,
       COUNT(*) FILTER (WHERE x_archived) AS archived
FROM ({inner}) AS flagged
GROUP BY {group_by}
"""


def _group_by(index_name: str, keys: dict[str, str]) -> str:
    """The GROUP BY keys (alias → model field) in the order the index `index_name` stores their fields, the others
    after. PostgreSQL 15 groups in the order written: in the index's order, a pass over it arrives sorted and is
    grouped as it streams, where any other order hashes every entry (the unfiltered page at 1M: 124 → 88 ms of SQL,
    bench/RESULTS.md, issue 16 #24)."""
    index = next(i for i in Lesson._meta.indexes if i.name == index_name)
    stored = [name.lstrip("-") for name in index.fields]
    position = {
        alias: stored.index(field) if field in stored else len(stored) for alias, field in keys.items()
    }
    return ", ".join(sorted(keys, key=lambda alias: position[alias]))


def _kept_cards_and_matrix_rows(
    account: Account,
    state: ExplorerState,
    rule: Rule,
    rows_dim: Dimension,
    cols_dim: Dimension,
    now: datetime,
) -> list[tuple[Any, Any, str, int, int, int]]:
    """The rows `_CARDS_AND_MATRIX` answers — (row value, column value, scope, shown, protected of the status in
    view, archived) — summed from the counts the database keeps per scope, host, kind and state
    (lore.value_counts) instead of a pass over every lesson. Only where `_one_pass` holds: the rule is a scope and
    filters on those columns, so its predicate applies to the kept rows as it is, and with no condition the list
    shows every lesson of the status in view (`_shown_q`)."""
    assert not rule.conditions
    rows = []
    for scope, host, kind, archived, protected, n in page_counts(
        account.pk, scope_q(rule.scope) & rule.q(now)
    ):
        values = {"scope": scope, "host": host, "kind": kind, "protected": protected}
        in_view = archived == state.archived
        rows.append(
            (
                values[rows_dim.field],
                values[cols_dim.field],
                scope,
                n if in_view else 0,
                n if in_view and protected else 0,
                n if archived else 0,
            )
        )
    return rows


def cards_and_matrix(account: Account, state: ExplorerState, *, now: datetime) -> tuple[StatCards, Matrix]:
    """The stat cards and the matrix in one scan. A Label (tag) axis multiplies lessons through LessonTag, so
    there the cards come from their own aggregate (two queries)."""
    rows_dim, cols_dim, rule = _axes(state)
    if rows_dim.is_tags or cols_dim.is_tags:
        return stat_cards(account, state, now=now), matrix(account, state, now=now)
    # Protected counts the pinned lessons of the status in view (archived ones in the archived view).
    status = "x_archived" if state.archived else "NOT x_archived"
    statements: list[str] = []
    params: list[Any] = []
    axes = {rows_dim.field, cols_dim.field}
    # The index each part is read from (`_counting_parts`): the one-pass index, else the active lessons' facts.
    one_pass = _one_pass(state, rule, axes, now)
    if one_pass and maintained():
        grouped = _kept_cards_and_matrix_rows(account, state, rule, rows_dim, cols_dim, now)
    else:
        index = "lesson_page_counts" if one_pass else "lesson_active_facts"
        group_by = _group_by(index, {"scope": "scope", "r": rows_dim.field, "c": cols_dim.field})
        for part, part_shown, part_archived in _counting_parts(account, state, rule, axes, now):
            flagged = (
                part.annotate(x_shown=_flag(part_shown), x_archived=_flag(part_archived))
                .order_by()
                .values(
                    "scope", "protected", "x_shown", "x_archived", r=F(rows_dim.field), c=F(cols_dim.field)
                )
            )
            sql, part_params = flagged.query.sql_with_params()
            statements.append(_CARDS_AND_MATRIX.format(inner=sql, status=status, group_by=group_by))
            params.extend(part_params)
        with connection.cursor() as cursor:
            parts = (f"SELECT * FROM ({statement}) AS part{n}" for n, statement in enumerate(statements))
            cursor.execute(" UNION ALL ".join(parts), params)
            grouped = cursor.fetchall()
    cells: dict[tuple[str, str], int] = {}
    lessons = protected = archived = 0
    scopes: set[str] = set()
    for row, col, scope, shown, pinned, gone in grouped:
        if shown:
            cells[(str(row), str(col))] = cells.get((str(row), str(col)), 0) + int(shown)
            lessons += int(shown)
            scopes.add(scope)
        protected += int(pinned)
        archived += int(gone)
    pairs = [(row, col, n) for (row, col), n in cells.items()]
    cards = StatCards(lessons, len(scopes), protected, archived)
    return cards, _matrix_of(state, rule, rows_dim, cols_dim, pairs)
