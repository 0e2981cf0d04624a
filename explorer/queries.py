"""What the Explorer reads (no side effects): the list, per-value counts, stat cards, the Read card, the matrix.

Every number on the page is computed from one ExplorerState through `lessons_shown` (which calls the candidate
query), so a count never describes a population the list below it is not showing. Each region is one query:
a conditional aggregate for the stat cards, one GROUP BY for the matrix and for a dimension's value counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet, Sum

from explorer.filter_control import rule_with_dimension
from explorer.filter_control import value_counts as _value_counts
from explorer.state import ExplorerState
from lore.candidates import rule_predicate
from lore.conditions import DIMENSIONS_BY_NAME, Dimension, DimFilter, Rule
from lore.models import Account, Lesson, LessonTag, ReadEvent
from lore.scopes import scope_q
from lore.selectors import lessons_filtered, text_search_q

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
    """Per-value counts of a dimension with everything else applied and the dimension's own filter left out."""
    base = lessons_shown(account, state, now=now, rule=rule_with_dimension(state.rule, dim.name, None))
    return _value_counts(base, dim, typed)


@dataclass(frozen=True)
class StatCards:
    lessons: int
    scopes: int
    protected: int
    archived: int


def stat_cards(account: Account, state: ExplorerState, *, now: datetime) -> StatCards:
    """Lessons, Scopes active, Protected, Archived: one conditional aggregate over what the state matches."""
    qs = Lesson.objects.filter(account=account).filter(rule_predicate(state.rule, now))
    if state.q:
        qs = qs.filter(text_search_q(state.q))
    qs = _narrow(qs, state, now)
    active = Q(archived_at__isnull=True)
    if state.archived:
        shown = ~active
    elif state.has_conditions:
        shown = active & Q(protected=False)
    else:
        shown = active
    totals = qs.aggregate(
        lessons=Count("pk", filter=shown),
        scopes=Count("scope", distinct=True, filter=shown),
        protected=Count("pk", filter=active & Q(protected=True)),
        archived=Count("pk", filter=~active),
    )
    return StatCards(**{k: int(v or 0) for k, v in totals.items()})


@dataclass(frozen=True)
class ReadCard:
    delivered: int
    window_label: str
    defaulted: bool  # the range is all time, so the card shows the last 90 days


def read_card(account: Account, state: ExplorerState, *, now: datetime) -> ReadCard:
    """Deliveries recorded against the scope in the range (dashboard reads left out). Scope-level by nature."""
    since, until, defaulted = state.range.read_window(now)
    qs = ReadEvent.objects.filter(account=account).exclude(surface=ReadEvent.Surface.DASHBOARD)
    qs = qs.filter(scope_q(state.scope))
    if since is not None:
        qs = qs.filter(at__gte=since)
    if until is not None:
        qs = qs.filter(at__lt=until)
    total = qs.aggregate(n=Sum("lesson_count"))["n"] or 0
    label = "last 90 days" if defaulted else state.range.label.lower()
    return ReadCard(int(total), label, defaulted)


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

    @property
    def is_empty(self) -> bool:
        return not self.rows


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
    grouped = base.values_list(rows_dim.field, cols_dim.field).annotate(n=Count("pk")).order_by()
    return [(str(r), str(c), int(n)) for r, c, n in grouped]


def _top(totals: dict[str, int], limit: int) -> list[str]:
    return sorted(totals, key=lambda v: (-totals[v], v == "", v))[:limit]


def matrix(account: Account, state: ExplorerState, *, now: datetime) -> Matrix:
    """The pivot of two dimensions; each cell counts lessons with both values, every other filter applied."""
    rows_dim, cols_dim = DIMENSIONS_BY_NAME[state.matrix_rows], DIMENSIONS_BY_NAME[state.matrix_cols]
    rule = rule_with_dimension(rule_with_dimension(state.rule, rows_dim.name, None), cols_dim.name, None)
    pairs = _pairs(lessons_shown(account, state, now=now, rule=rule), rows_dim, cols_dim)
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
        picked = rule_with_dimension(rule, rows_dim.name, DimFilter((row,), rows_dim.default_mode))
        picked = rule_with_dimension(picked, cols_dim.name, DimFilter((col,), cols_dim.default_mode))
        return MatrixCell(n, state.with_rule(picked).url(), heat)

    return Matrix(
        rows_dim=rows_dim,
        cols_dim=cols_dim,
        cols=cols,
        rows=[(row, [cell(row, col) for col in cols], row_totals[row]) for row in rows],
        more_rows=max(0, len(row_totals) - len(rows)),
        more_cols=max(0, len(col_totals) - len(cols)),
    )


def scopes_present(account: Account) -> list[str]:
    """The scopes the account's lessons live in, for the scope picker (one indexed DISTINCT)."""
    return list(
        Lesson.objects.filter(account=account).order_by("scope").values_list("scope", flat=True).distinct()
    )
