"""Builds the Explorer page's regions from one ExplorerState (views stay thin)."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.formats import localize
from django.utils.timezone import localtime

from explorer.filter_control import FilterControl, control_context, with_params
from explorer.queries import (
    cards_and_matrix,
    condition_choice_counts,
    condition_distribution,
    dimension_value_counts,
    lessons_shown,
    read_card,
)
from explorer.state import MATRIX_DIMENSIONS, RANGES, DateRange, ExplorerState, scope_label
from explorer.templatetags.explorer_tags import ago, thousands
from lore.bins import Distribution
from lore.conditions import (
    DIMENSIONS,
    DIMENSIONS_BY_NAME,
    LIST_SIGNALS,
    SIGNALS,
    Condition,
    Dimension,
    Signal,
)
from lore.models import Account, Lesson
from lore.purge import purge_forecast, purge_in_words
from lore.reads import reads_settle_for
from lore.rules.rule import Rule
from lore.scopes import GLOBAL
from lore.selectors import LIST_SORTS, CursorError, Page, lessons_page, run_of_account, scopes_present
from lore.text import shortened

PAGE_SIZE = 50


def state_checked(account: Account, state: ExplorerState) -> tuple[ExplorerState, Any | None]:
    """The state with parts that name another account's (or no) object dropped, with a notice."""
    if state.run is None:
        return state, None
    run = run_of_account(account, state.run)
    if run is None:
        return replace(state, run=None).with_notice(f"Ignored run={state.run}: there is no such run."), None
    return state, run


def explorer_control(account: Account, state: ExplorerState, *, now: datetime) -> FilterControl:
    """The Explorer's flavour of the shared filter control: both directions, Owner, counts with everything."""

    def href(rule: Rule) -> str:
        return state.with_rule(rule).url()

    def menu_href(rule: Rule) -> str:
        return state.with_rule(rule).url("explorer:menu")

    def counts(dim: Dimension, typed: str) -> list[tuple[str, int]]:
        return dimension_value_counts(account, state, dim, typed, now=now)

    def cond_counts(cond: Condition, choices: list[tuple[str, int]]) -> list[int]:
        reads_settle_for(account, {cond.field})  # a counter's choices count exact values
        return condition_choice_counts(account, state, cond, choices, now=now)

    def cond_distribution(cond: Condition, extra: list[int]) -> Distribution:
        reads_settle_for(account, {cond.field})
        return condition_distribution(account, state, cond, now=now, extra=extra)

    return FilterControl(
        rule=state.rule,
        href=href,
        menu_href=menu_href,
        value_counts=counts,
        condition_counts=cond_counts,
        condition_distribution=cond_distribution,
        target="#explorer-body",
        swap="innerHTML",
        dom_id="fc",
    )


def menu_context(
    account: Account,
    state: ExplorerState,
    *,
    now: datetime,
    section: str = "",
    typed: str = "",
    with_chart: bool = True,
) -> dict[str, object]:
    control = explorer_control(account, state, now=now)
    return {"state": state, **control_context(control, section, typed, with_chart=with_chart)}


def list_page(account: Account, state: ExplorerState, *, now: datetime, cursor: str = "") -> tuple[Page, str]:
    """(one keyset page of the list, a notice if the cursor was not usable)."""
    qs = lessons_shown(account, state, now=now)
    try:
        return lessons_page(qs, sort=state.list_sort, cursor=cursor or None, limit=PAGE_SIZE, now=now), ""
    except CursorError as exc:
        notice = f"Started the list over: the {exc}."
        return lessons_page(qs, sort=state.list_sort, limit=PAGE_SIZE, now=now), notice


def rows_context(
    account: Account, state: ExplorerState, *, now: datetime, cursor: str = ""
) -> dict[str, object]:
    page, notice = list_page(account, state, now=now, cursor=cursor)
    return {
        "state": state,
        "rows": [
            row_view(lesson, purge_in_words(account, lesson, now) if state.archived else "")
            for lesson in page.rows
        ],
        "list_columns": LIST_COLUMNS,
        "more_url": with_params(state.url("explorer:rows"), cursor=page.next_cursor)
        if page.next_cursor
        else "",
        "cursor_notice": notice,
        "sheet_prefix": reverse("explorer:index") + "lessons/",
    }


@dataclass(frozen=True)
class SignalValue:
    """A lesson's value of one signal (a counter or a time), for the sheet."""

    signal: Signal
    value: object

    @property
    def text(self) -> str:
        return signal_text(self.signal, self.value)

    @property
    def title(self) -> str:
        return signal_title(self.signal, self.value)


def signal_text(signal: Signal, value: object) -> str:
    return thousands(value) if signal.kind == "count" else ago(value, "never")  # type: ignore[arg-type]


def signal_title(signal: Signal, value: object) -> str:
    """The exact time, for a time's tooltip ("" for a counter or a time never set)."""
    if signal.kind == "count" or value is None:
        return ""
    return str(localize(localtime(value)))  # type: ignore[arg-type]


def signal_values(lesson: Lesson, signals: tuple[Signal, ...] = SIGNALS) -> list[SignalValue]:
    return [SignalValue(signal, getattr(lesson, signal.field)) for signal in signals]


@dataclass(frozen=True)
class RowView:
    lesson: Lesson
    dims: list[tuple[str, str]]
    cells: list[tuple[str, str, str, str, str]]  # per LIST_SIGNALS: css class, key, title, text, label
    purge_note: str = ""  # an archived row: "purged in 12 days"

    @property
    def excerpt(self) -> str:
        text = " ".join(self.lesson.content.split())
        return shortened(text, 180)


# Every scalar dimension a row shows, from the registry: the policy dimensions, then the Explorer-only ones.
ROW_DIMENSIONS = tuple(d.name for d in DIMENSIONS if not d.is_tags and d.in_policy) + tuple(
    d.name for d in DIMENSIONS if not d.is_tags and not d.in_policy
)


def row_view(lesson: Lesson, purge_note: str = "") -> RowView:
    dims = []
    for name in ROW_DIMENSIONS:
        value = getattr(lesson, DIMENSIONS_BY_NAME[name].field)
        if value and not (name == "owner" and value == "personal"):
            dims.append((DIMENSIONS_BY_NAME[name].label, DIMENSIONS_BY_NAME[name].display(value)))
    cells = [_cell(signal, getattr(lesson, signal.field)) for signal in LIST_SIGNALS]
    return RowView(lesson, dims, cells, purge_note)


def _css(signal: Signal) -> str:
    return "num" if signal.kind == "count" else "when"


# The list's signal columns: (css class, signal), for the head; _cell gives each row's.
LIST_COLUMNS = [(_css(signal), signal) for signal in LIST_SIGNALS]


def _cell(signal: Signal, value: object) -> tuple[str, str, str, str, str]:
    return _css(signal), signal.key, signal_title(signal, value), signal_text(signal, value), signal.label


def sheet_dimensions(lesson: Lesson) -> list[tuple[str, list[str]]]:
    """Every dimension of a lesson, in registry order, for the detail sheet."""
    out = []
    for dim in DIMENSIONS:
        if dim.is_tags:
            out.append((dim.label, list(lesson.tags)))
        else:
            value = getattr(lesson, dim.field)
            out.append((dim.label, [dim.display(value)] if value else []))
    return out


def widen_hints(state: ExplorerState) -> list[tuple[str, str]]:
    """What would show more lessons when the list is empty: only what this view has set, each a phrase and,
    where one click does it, its URL."""
    hints: list[tuple[str, str]] = []
    if state.has_conditions:
        hints.append(("loosen a condition (remove its pill, or pick a wider value under Filter)", ""))
    if state.rule.dimensions:
        hints.append(("remove a filter above", ""))
    if state.q:
        hints.append(("clear the search", state.but(q="").url()))
    if not state.range.is_all_time:
        hints.append(("pick a wider date range", state.but(range=DateRange()).url()))
    if state.scope != GLOBAL:
        hints.append(("look in All scopes", state.with_rule(replace(state.rule, scope=GLOBAL)).url()))
    return hints


def toolbar_context(account: Account, state: ExplorerState) -> dict[str, object]:
    scopes = [s for s in scopes_present(account) if s != GLOBAL]
    if state.scope != GLOBAL and state.scope not in scopes:
        scopes = sorted([*scopes, state.scope])
    hidden = [
        (name, value) for name, value in state.query_pairs() if name not in ("scope", "range", "sort", "q")
    ]
    return {
        "scope_choices": [(GLOBAL, "All scopes"), *((s, s) for s in scopes)],
        "range_choices": [(key, label) for key, (label, _) in RANGES.items()],
        "sort_choices": [(key, label) for key, (_, label) in LIST_SORTS.items()],
        "toolbar_hidden": hidden,
    }


def stats_context(
    account: Account, state: ExplorerState, *, now: datetime, key: str = ""
) -> dict[str, object]:
    """The counting regions: stat cards, Read card and matrix (one scan), the list's count and protected note.

    `key` names the placeholders a lazy load replaces (see `page_context`)."""
    cards, pivot = cards_and_matrix(account, state, now=now)
    return {
        "state": state,
        "cards": cards,
        "read": read_card(account, state, now=now),
        "matrix": pivot,
        "matrix_choices": [(name, DIMENSIONS_BY_NAME[name].label) for name in MATRIX_DIMENSIONS],
        "matrix_hidden": [(n, v) for n, v in state.query_pairs() if n != "matrix"],
        "stats_key": key,
    }


STATS_KEY = re.compile(r"[0-9a-f]{8}")  # matched with fullmatch


def page_context(
    account: Account, state: ExplorerState, *, now: datetime, lazy_stats: bool = False
) -> dict[str, object]:
    """Every region of the page, computed from `state`.

    With `lazy_stats` (an htmx swap) the counting regions, which scan every lesson the state matches, are left
    out: the body carries placeholders that load them in a second request, so the list arrives first. Counts
    that arrive after a newer swap must land nowhere: htmx 2 looks up a response's out-of-band targets inside the
    tree of the element that asked (by then detached), and each render also names its placeholders with a fresh
    key, so that holds whatever htmx does.
    """
    state, run = state_checked(account, state)
    if lazy_stats:
        key = secrets.token_hex(4)
        stats: dict[str, object] = {
            "state": state,
            "stats_key": key,
            "stats_url": with_params(state.url("explorer:stats"), key=key),
        }
    else:
        stats = stats_context(account, state, now=now)
    context: dict[str, object] = {
        **stats,
        "run": run,
        "scope_label": scope_label(state.scope),
        "active_url": state.but(archived=False, run=None).url(),
        "all_archived_url": state.but(run=None).url(),
        "archived_url": state.but(archived=True).url(),
        "restore_url": reverse("explorer:restore"),
        "clear_search_url": state.but(q="").url(),
        "widen_hints": widen_hints(state),
        "purge": purge_context(account, state, now=now),
        **rows_context(account, state, now=now),
        **toolbar_context(account, state),
        **control_context(explorer_control(account, state, now=now)),
    }
    if context["cursor_notice"]:
        context["state"] = state.with_notice(str(context["cursor_notice"]))
    return context


def purge_context(account: Account, state: ExplorerState, *, now: datetime) -> dict[str, object]:
    """The archived view's announcement of the next purge, account-wide ({} elsewhere)."""
    if not state.archived:
        return {}
    return {
        "never": not account.purge_after_days,
        "forecast": purge_forecast(account, now),
        "settings_url": reverse("policies:account"),
    }


def state_query(state: ExplorerState) -> str:
    return urlencode(state.query_pairs())
