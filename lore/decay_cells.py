"""The decay score's kept cells, read into bins (issue 28): `histogram_cells`, for `lore.bins.kept_decay_distribution`.

A kept decay cell ("product:day", `lore.value_counts` "h:decay_cell") holds the active, unpinned lessons of one
strength product last opened on one UTC day. A lesson last opened d days ago with strength s = 1 + ln(product) is
above an edge exactly when d / s is below the edge's span (`spans`, ascending), so each bin is summed from the cells
no cut crosses, and the few a cut crosses are counted from the lessons.

Reading every cell costs ~0.8 µs a cell (33,600 cells at 1M: 25–30 ms of a 40 ms statement), and the cells change
only when the fold rewrites them (every minute at most, `value_counts_fold`; the triggers append changes beside
them). So a process keeps, per account and edges, a **split** of the kept cells made for the hour after a moment
(`WINDOW_DAYS`): the cells no cut crosses at any moment of that hour, summed per bin, and the few others. A read
within the hour buckets only those few, the changes not yet folded, and counts the crossed cells' lessons, in one
statement that also reads the kept cells' fingerprint (the account's newest kept cell): a split made from other
kept cells is never used. The split is exact: a cell no cut crosses during the hour lies in one bin at
every moment of it, the bin the full read would sum it into.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection

from lore.limits import DECAY_CELLS_CACHED
from lore.models import LessonCountChange, LessonValueCount, LessonValueCountView
from lore.serial import serially_without_jit

TABLE = LessonValueCount._meta.db_table
CHANGES = LessonCountChange._meta.db_table
# How long after the moment it was made a split answers for: an hour widens each cell's d / s by 1/24 day over the
# hour, so a few more cells than a cut crosses at one moment are kept apart (about 4% more).
WINDOW_DAYS = 1 / 24
# The kept cells' fingerprint: the account's newest kept cell, by id and by the transaction that wrote it (one probe
# of the index lessonvaluecount_newest). Kept rows are only ever inserted, with a new id, or deleted by the fold
# when their sum is 0 (a key's rows replaced by their sum, none when it is 0), so any fold that changed a cell's
# lessons inserted a newer row. The transaction id tells a row apart from one written with a reused id (after a
# restore, say). Another account's fold leaves it alone.
_FINGERPRINT = (
    f"(SELECT concat_ws(':', id, xmin) FROM {TABLE} WHERE account_id = %s AND dimension = %s "
    f"ORDER BY id DESC LIMIT 1)"
)
# A cell's parts, from its text "product:day" (lore.value_counts HISTOGRAM_COUNTED writes it).
_CELL_PRODUCT = "split_part(value, ':', 1)::bigint"
_CELL_DAY = "split_part(value, ':', 2)::integer::float8"
_KEPT = f"FROM {TABLE} WHERE account_id = %s AND dimension = %s AND NOT archived AND NOT protected"


@dataclass(frozen=True)
class CellSplit:
    """The kept cells of one account split for the window after `since` (days since 1970)."""

    since: float
    fingerprint: str
    by_w: dict[int, int]  # the lessons of the cells no cut crosses during the window, per w
    values: list[str]  # the other cells ("product:day") and their lessons
    ns: list[int]

    def answers(self, now_days: float) -> bool:
        return self.since <= now_days <= self.since + WINDOW_DAYS


_splits: OrderedDict[tuple[Any, ...], CellSplit] = OrderedDict()
_splits_lock = threading.Lock()


def _split_kept(key: tuple[Any, ...]) -> CellSplit | None:
    with _splits_lock:
        split = _splits.get(key)
        if split is not None:
            _splits.move_to_end(key)
        return split


def _split_keep(key: tuple[Any, ...], split: CellSplit) -> None:
    with _splits_lock:
        _splits[key] = split
        _splits.move_to_end(key)
        while len(_splits) > DECAY_CELLS_CACHED.value:
            _splits.popitem(last=False)


def _split_forget(key: tuple[Any, ...]) -> None:
    with _splits_lock:
        _splits.pop(key, None)


def splits_forget() -> None:
    """Drop every kept split (tests; a split is never used for other kept cells either way)."""
    with _splits_lock:
        _splits.clear()


def _buckets(source: str) -> str:
    """A row per cell of `source` (value, n, changed) with w at both ends of its day at the moment `%s`: a, from
    the day's start (the largest d / s, widened), b, from its end (the smallest, narrowed)."""
    return (
        f"SELECT value, n, changed, "
        f"width_bucket((%s - day) / strength + %s, %s::float8[]) AS a, "
        f"width_bucket((%s - day - 1.0) / strength - %s, %s::float8[]) AS b "
        f"FROM (SELECT value, {_CELL_DAY} AS day, 1.0 + ln({_CELL_PRODUCT}::float8) AS strength, n, changed "
        f"FROM ({source}) AS s) AS c"
    )


def _statement(source: str, probe_sql: str, *, fingerprint: bool) -> str:
    """Bins of the cells of `source` at one moment: ({w: lessons} of the cells no cut crosses and of the rest of
    the cells one cut crosses, {score: lessons} of the lessons counted, the changes read, the kept cells'
    fingerprint when asked)."""
    # OFFSET 0: each w computed once per cell, not once per use.
    kept_fingerprint = _FINGERPRINT if fingerprint else "NULL::text"
    return (
        f"WITH ranged AS MATERIALIZED (SELECT a, b, CASE WHEN a <> b THEN value END AS value, sum(n) AS n, "
        f"count(*) FILTER (WHERE changed) AS changed FROM ({_buckets(source)} OFFSET 0) AS x "
        f"GROUP BY 1, 2, 3), "  # grouped on the cell's text, not its parts: a third less time at 1M
        # The cells a span falls inside: where one does, its cut (the moment of the last open that puts d / s on
        # it) and which side of it to count from the lessons; the rest of the cell goes to the other side's w.
        f"probed AS MATERIALIZED (SELECT product, n, CASE WHEN cut IS NULL THEN NULL "
        f"WHEN cut - day <= 0.5 THEN b ELSE a END AS rest, "
        f"CASE WHEN cut IS NOT NULL AND cut - day > 0.5 THEN cut - %s ELSE day END AS since, "
        f"CASE WHEN cut IS NOT NULL AND cut - day <= 0.5 THEN cut + %s ELSE day + 1.0 END AS until "
        f"FROM (SELECT product, day, a, b, n, "
        f"CASE WHEN a = b + 1 THEN %s - (%s::float8[])[a] * (1.0 + ln(product::float8)) END AS cut "
        f"FROM (SELECT {_CELL_PRODUCT} AS product, {_CELL_DAY} AS day, a, b, n FROM ranged WHERE a <> b) AS r) "
        f"AS crossed), "
        f"scored AS MATERIALIZED (SELECT c.rest, p.score, count(*) AS k FROM (SELECT rest, product, "
        f"to_timestamp(since * 86400.0) AS since, to_timestamp(until * 86400.0) AS until FROM probed) AS c "
        f"CROSS JOIN LATERAL ({probe_sql}) AS p(score) GROUP BY 1, 2) "
        f"SELECT (SELECT coalesce(jsonb_agg(jsonb_build_array(w, n)), '[]'::jsonb) FROM (SELECT w, sum(n) AS n "
        f"FROM (SELECT a AS w, n FROM ranged WHERE a = b UNION ALL "
        f"SELECT rest, n FROM probed WHERE rest IS NOT NULL UNION ALL "
        f"SELECT rest, -k FROM scored WHERE rest IS NOT NULL) AS u GROUP BY 1) AS w), "
        f"(SELECT coalesce(jsonb_agg(jsonb_build_array(score, k)), '[]'::jsonb) FROM "
        f"(SELECT score, sum(k) AS k FROM scored GROUP BY 1) AS b), "
        f"(SELECT coalesce(sum(changed), 0) FROM ranged), {kept_fingerprint}"
    )


# Every cell, kept or changed: what the view sums.
_ALL_CELLS = (
    f"SELECT value, n, id < 0 AS changed FROM {LessonValueCountView._meta.db_table} "
    f"WHERE account_id = %s AND dimension = %s AND NOT archived AND NOT protected"
)
# The cells a split kept apart, and the changes not yet folded.
_SPLIT_CELLS = (
    f"SELECT value, n, false AS changed FROM unnest(%s::text[], %s::bigint[]) AS k(value, n) UNION ALL "
    f"SELECT e.key, e.value::bigint, true FROM {CHANGES} c CROSS JOIN LATERAL jsonb_each_text(c.counts) AS e "
    f"WHERE c.account_id = %s AND c.dimension = %s AND NOT c.archived AND NOT c.protected"
)
# The split itself: the kept cells bucketed at the window's end (a) and start (b); a cell with a = b lies in one bin
# for the whole window (d / s only grows with time).
_SPLIT = (
    f"WITH k AS MATERIALIZED ({_buckets(f'SELECT value, n, false AS changed {_KEPT}')}) "
    f"SELECT {_FINGERPRINT}, (SELECT coalesce(jsonb_agg(jsonb_build_array(a, n)), '[]'::jsonb) FROM "
    f"(SELECT a, sum(n) AS n FROM k WHERE a = b GROUP BY 1) AS s), u.cells, u.ns FROM "
    f"(SELECT coalesce(array_agg(value), '{{}}') AS cells, coalesce(array_agg(n), '{{}}') AS ns "
    f"FROM k WHERE a <> b) AS u"
)


def histogram_cells(
    account_id: int,
    name: str,
    *,
    now_days: float,
    spans: Sequence[float],
    margin: float,
    probe: tuple[str, Sequence[Any]],
) -> tuple[dict[int, int], dict[int, int]]:
    """({w: lessons}, {score: lessons}) of the kept decay cells `name` ("product:day") of the account's active,
    unpinned lessons, of one snapshot.

    w = how many spans are at most d / s, so the lesson is above all the other edges. A cell (product, day) whose
    d / s, widened by `margin` each way, reaches no span has one w: summed into it. A cell one span falls inside
    is counted from the lessons on the shorter side of that cut (widened by `margin` days), the rest summed into
    the w of the other side; a cell several spans fall inside is counted whole. `now_days`: now as days since
    1970. `probe`: a query of the scores of the lessons of the cell `c` (c.product, c.since, c.until). Reads the
    cells a kept split left apart when one answers for the moment (module docstring). PostgreSQL only."""
    from lore.value_counts import fold_if_many

    spans = list(spans)
    probe_sql, probe_params = probe
    moment: list[Any] = [now_days, margin, spans, now_days, margin, spans]
    probing: list[Any] = [margin, margin, now_days, spans, *probe_params]
    key = (connection.alias, connection.settings_dict["NAME"], account_id, name, tuple(spans), margin)
    kept: list[Any] = [account_id, name]  # the params of _KEPT and _FINGERPRINT
    split_made: list[Any] = [now_days + WINDOW_DAYS, margin, spans, now_days, margin, spans, *kept, *kept]
    with serially_without_jit(), connection.cursor() as cursor:
        # A kept split, or one made now; made again once if the fold rewrote the kept cells meanwhile.
        for _ in range(2):
            split = _split_kept(key)
            if split is None or not split.answers(now_days):
                cursor.execute(_SPLIT, split_made)
                fingerprint, whole, cells, ns = cursor.fetchone()
                split = CellSplit(
                    now_days, fingerprint, {int(w): int(n) for w, n in _loaded(whole)}, cells, ns
                )
                _split_keep(key, split)
            source = [split.values, split.ns, account_id, name]
            statement = _statement(_SPLIT_CELLS, probe_sql, fingerprint=True)
            cursor.execute(statement, moment + source + probing + kept)
            whole, scores, parts, fingerprint = cursor.fetchone()
            if fingerprint == split.fingerprint:
                by_w = dict(split.by_w)
                break
            _split_forget(key)
        else:  # the cells keep changing under the split: every cell, as they are now
            cursor.execute(_statement(_ALL_CELLS, probe_sql, fingerprint=False), moment + kept + probing)
            whole, scores, parts, _ = cursor.fetchone()
            by_w = {}
    fold_if_many(account_id, int(parts))  # the packed changes summed: the kept rows are a row per cell
    for w, n in _loaded(whole):
        by_w[int(w)] = by_w.get(int(w), 0) + int(n)
    return by_w, {int(score): int(n) for score, n in _loaded(scores)}


def _loaded(value: Any) -> list[list[Any]]:
    return json.loads(value) if isinstance(value, str) else value
