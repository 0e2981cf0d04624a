"""How the lessons of a view spread over one Age & activity condition: bins and their counts (issue 28, part 1).

A condition's bins are cut at edges derived from the registry: its presets (a reverse preset at the value the
retention direction splits at), the steps of its scale within the unit's bounds (1-2-5 per decade for days, 1-3 for
counters, whose values span orders of magnitude; tens for the 0–100 decay score), and any value the caller wants
exact (an applied custom value). Bin k holds the lessons whose value x is above edge k and at most edge k+1, so a
threshold on an edge splits the bins exactly: the count on each side is what the candidate query counts for it.

The counts are one aggregate query built from the registry's own predicates (`Param.q`), so a bin can never
disagree with a preset count: counters group on `CASE WHEN q(edge) …`, the decay score on the score itself (at most
101 groups, folded into bins here, the score computed once per lesson), and days count `q(edge)` at every edge in
one `COUNT(*) FILTER (WHERE …)` each, differenced into bins (see `_by_edge` for why days differ). Delivered groups
on the bin the database stores per lesson (`Lesson.delivered_bin`, cut at the same edges; `_stored`), since its
counter is in no index: an edge the stored bins lack is counted from the counter within the one bin it splits.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import connection
from django.db.models import Case, Count, DateTimeField, F, IntegerField, Q, QuerySet, Value, When
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.db.models.lookups import GreaterThanOrEqual, LessThan

from lore.conditions import COUNT_MIN, PARAMS, Condition, Param
from lore.decay import SCORE_MAX, decay_score
from lore.models import Lesson

# Scale steps closer than this to a preset are dropped: a bin a few values wide beside a preset reads as noise.
LOG_STEPS = {"days": (1, 2, 5), "count": (1, 3)}  # per decade: counters span five decades, days three
LOG_NEIGHBOUR = 1.5  # days and counters: a ratio of (value + 1)
SCORE_STEP = 20
# What is counted: `account_id`, which every index on the lessons carries, so a count can be an index-only scan
# (`COUNT(id)` names a column no index carries: bench/RESULTS.md, issue 16 change 4).
COUNTED = "account"
SCORE_NEIGHBOUR = 5


def split_at(param: Param, value: int) -> int:
    """Where `param` at `value` splits a condition's values: the lessons it keeps are those with x at most this
    number (at most, within) or above it (older, at least)."""
    return value - 1 if param.comparison == "at_least" else value


def keeps_below(param: Param) -> bool:
    """Whether `param` keeps the lessons at or below its split (else those above it)."""
    return param.comparison in ("at_most", "within")


def _log_steps(low: int, high: int, multiples: tuple[int, ...]) -> list[int]:
    steps, decade = [], 1
    while decade <= high:
        steps += [m * decade for m in multiples if low <= m * decade <= high]
        decade *= 10
    return steps


def _far_from(step: int, presets: set[int], unit: str) -> bool:
    if unit == "score":
        return all(abs(step - p) >= SCORE_NEIGHBOUR for p in presets)
    return all(max(step + 1, p + 1) / min(step + 1, p + 1) >= LOG_NEIGHBOUR for p in presets)


def bin_edges(cond: Condition, extra: Iterable[int] = ()) -> tuple[int, ...]:
    """The ascending edges of `cond`'s bins: its presets, its scale's steps within its bounds, and `extra`
    (values that must split exactly, such as an applied custom value), all as retention-direction splits."""
    retention = PARAMS[cond.retention]
    low, high = retention.bounds
    presets = {split_at(retention, v) for v in cond.retention_presets}
    if cond.reverse:
        presets |= {split_at(PARAMS[cond.reverse], v) for v in cond.reverse_presets}
    if cond.unit == "score":
        steps = [low, *range(SCORE_STEP, high, SCORE_STEP), high - 1]  # 100 alone: immune or just opened
    else:
        multiples = LOG_STEPS[cond.unit]
        steps = ([COUNT_MIN] if cond.unit == "count" else []) + _log_steps(max(low, 1), high, multiples)
    edges = presets | {s for s in steps if s in (low, high - 1) or _far_from(s, presets, cond.unit)}
    top = (
        high - 1 if cond.unit == "score" else high
    )  # a score split at 100 keeps every lesson: no bin above it
    edges |= {v for v in extra if low - 1 <= v <= top}
    return tuple(sorted(edges))


@dataclass(frozen=True)
class Distribution:
    """The lessons of a view per bin of one condition. `counts[k]` holds the lessons with x in
    (edges[k-1], edges[k]] (bin 0: up to edges[0]; the last bin: above the last edge); `never[k]` how many of
    them were never opened (the only ones a "within" direction cannot keep; zeros for other conditions)."""

    condition: Condition
    edges: tuple[int, ...]
    counts: tuple[int, ...]
    never: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def ceiling(self) -> int | None:
        """The highest value x can take, where one is known (the decay score's 100)."""
        return SCORE_MAX if self.condition.unit == "score" else None

    def kept(self, param: Param, value: int) -> int | None:
        """How many lessons `param` at `value` keeps, or None when its split falls inside a bin."""
        low, high = self.kept_range(param, value)
        return low if low == high else None

    def kept_range(self, param: Param, value: int) -> tuple[int, int]:
        """(fewest, most) lessons `param` at `value` can keep: equal when the split is an edge (or at or above
        every value there is), else the bin the split falls inside may go either way."""
        split = split_at(param, value)
        inside = sum(1 for edge in self.edges if edge < split)  # the bin the split falls in, or ends
        if split in self.edges:
            below, bin_inside = inside + 1, None
        elif self.ceiling is not None and split >= self.ceiling:
            below, bin_inside = len(self.counts), None
        else:
            below, bin_inside = inside, inside
        if keeps_below(param):
            within = param.comparison == "within"
            kept = [c - n if within else c for c, n in zip(self.counts, self.never, strict=True)]
            fewest = sum(kept[:below])
            return fewest, fewest + (kept[bin_inside] if bin_inside is not None else 0)
        if bin_inside is None:
            fewest = sum(self.counts[below:])
            return fewest, fewest
        fewest = sum(self.counts[bin_inside + 1 :])
        return fewest, fewest + self.counts[bin_inside]


def bucket_of(cond: Condition, edges: Sequence[int], now: datetime) -> tuple[Case | object, bool]:
    """(the expression to group on, whether its values are bin indexes already). Counters: the bin index, as a
    CASE over the retention direction's own predicate at each edge (the first edge the value is at most). The
    decay score: the score itself."""
    if cond.unit == "score":
        return decay_score(now), False
    retention = PARAMS[cond.retention]
    whens = [When(retention.q(e, now), then=Value(k)) for k, e in enumerate(edges)]
    return Case(*whens, default=Value(len(edges)), output_field=IntegerField()), True


def never_opened_q(cond: Condition) -> Q | None:
    """The lessons a "within" direction of `cond` never keeps (never opened), or None when it has none."""
    if cond.reverse and PARAMS[cond.reverse].comparison == "within":
        return Q(**{f"{cond.field}__isnull": True})
    return None


def _grouped(qs: QuerySet[Lesson], cond: Condition, edges: Sequence[int], now: datetime) -> list[list[int]]:
    """[counts, never] per bin from one GROUP BY on the bucket."""
    bucket, indexed = bucket_of(cond, edges, now)
    rows = (
        qs.order_by()
        .annotate(x_bucket=bucket)
        .values("x_bucket")
        .annotate(n=Count(COUNTED))
        .values_list("x_bucket", "n")
    )
    counts = [0] * (len(edges) + 1)
    for key, n in rows:
        counts[int(key) if indexed else sum(1 for edge in edges if edge < int(key))] += int(n)
    return [counts, [0] * len(counts)]


def _by_edge(qs: QuerySet[Lesson], cond: Condition, edges: Sequence[int], now: datetime) -> list[list[int]]:
    """[counts, never] per bin from one aggregate of the lessons each edge's predicate keeps (the preset
    counts' own COUNT(*) FILTER, at every edge), differenced into bins. For days: grouped on a CASE over times,
    PostgreSQL expects a group per lesson and gives up a parallel plan (Created at 1M: 0.8 s grouped, 0.35–0.45 s
    this way; bench/RESULTS.md, issue 28)."""
    older, never = PARAMS[cond.retention], never_opened_q(cond)
    sums = {"total": Count(COUNTED)} | {
        f"o{k}": Count(COUNTED, filter=older.q(e, now)) for k, e in enumerate(edges)
    }
    if never is not None and cond.reverse:  # opened within each edge, and never opened at all
        within = PARAMS[cond.reverse]
        sums |= {"never": Count(COUNTED, filter=never)}
        sums |= {f"w{k}": Count(COUNTED, filter=within.q(e, now)) for k, e in enumerate(edges)}
    row = {key: int(value or 0) for key, value in qs.order_by().aggregate(**sums).items()}
    return _differenced(row, edges, never=never is not None)


def _differenced(row: dict[str, int], edges: Sequence[int], *, never: bool) -> list[list[int]]:
    """[counts, never] per bin from the lessons in view (`total`), those each edge's older predicate keeps
    (`o{k}`) and, for a condition with a "within" direction, those never opened (`never`) and those opened within
    each edge (`w{k}`)."""
    total = row["total"]
    at_most = [total - row[f"o{k}"] for k in range(len(edges))] + [total]  # lessons at or below each edge
    counts = [n - (at_most[k - 1] if k else 0) for k, n in enumerate(at_most)]
    if not never:
        return [counts, [0] * len(counts)]
    never_at_most = [at_most[k] - row[f"w{k}"] for k in range(len(edges))] + [row["never"]]
    return [counts, [n - (never_at_most[k - 1] if k else 0) for k, n in enumerate(never_at_most)]]


def _stored(qs: QuerySet[Lesson], cond: Condition, edges: Sequence[int], now: datetime) -> list[list[int]]:
    """[counts, never] per bin from the lessons per stored bin (one GROUP BY on the stored column: index-only where
    the view's other filters are) and, for each edge the stored bins lack (a typed value), the lessons of the one
    stored bin it falls inside that are at most the edge, counted from the counter itself: one statement."""
    bins = cond.stored_bin
    assert bins is not None, cond.key
    column, stored = bins.column, bins.edges
    at_most = PARAMS[cond.retention]  # the registry's own "at most the edge": Delivered's retention
    assert keeps_below(at_most), cond.key
    base = qs.order_by()
    # An edge the stored bins lack, inside stored bin j (above j stored edges). The counter is never below 0.
    probes = {e: bins.of(e) for e in edges if e not in stored and e >= 0}
    parts = [base.values(column).annotate(n=Count(COUNTED)).values_list(column, "n").query.sql_with_params()]
    parts += [
        base.filter(at_most.q(e, now), **{column: j})
        .values("account")
        .annotate(k=Value(-1 - p), n=Count(COUNTED))
        .values_list("k", "n")
        .query.sql_with_params()
        for p, (e, j) in enumerate(probes.items())
    ]
    union = " UNION ALL ".join(f"SELECT * FROM ({sql}) AS p{i}" for i, (sql, _) in enumerate(parts))
    with connection.cursor() as cursor:
        cursor.execute(union, [p for _, params in parts for p in params])
        found = {int(k): int(n) for k, n in cursor.fetchall()}
    per_stored = [found.get(k, 0) for k in range(len(stored) + 1)]
    probed = {e: found.get(-1 - p, 0) for p, e in enumerate(probes)}  # its bin's lessons at most e

    def lessons_at_most(edge: int) -> int:
        j = bins.of(edge)
        if edge in stored:
            return sum(per_stored[: j + 1])
        return sum(per_stored[:j]) + probed.get(edge, 0)

    below = [lessons_at_most(e) for e in edges] + [sum(per_stored)]
    counts = [n - (below[k - 1] if k else 0) for k, n in enumerate(below)]
    return [counts, [0] * len(counts)]


def distribution(
    qs: QuerySet[Lesson], cond: Condition, *, now: datetime, extra: Iterable[int] = ()
) -> Distribution:
    """The lessons of `qs` per bin of `cond` as of `now`: one aggregate query, whatever the number of bins."""
    edges = bin_edges(cond, extra)
    if cond.stored_bin is not None:
        counter = _stored
    else:
        counter = _by_edge if PARAMS[cond.retention].comparison == "older" else _grouped
    counts, never = counter(qs, cond, edges, now)
    return Distribution(cond, edges, tuple(counts), tuple(never))


# ---------------------------------------------------------------- the kept counts (issue 28 part 1, PostgreSQL)

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Per condition with a kept form: the kept dimension of its values (lore.value_counts.HISTOGRAM_COUNTED) and, for
# days, the lesson expression whose UTC day that is.
KEPT_COUNTERS = {"recurrence": "h:seen_count", "delivered": "h:read_count", "chosen": "h:opened_count"}
KEPT_DAYS = {"created": "h:created_day", "last_open": "h:last_open_day"}
NEVER_OPENED_DAYS = "h:never_opened_day"


def day_of(moment: datetime) -> int:
    """The UTC day of `moment` as days since 1970-01-01, as the kept day dimensions count it."""
    return (moment - EPOCH).days


def _day_start(day: int) -> datetime:
    return EPOCH + timedelta(days=day)


def kept_distribution(
    account_id: int, cond: Condition, *, archived: bool, now: datetime, extra: Iterable[int] = ()
) -> Distribution | None:
    """`distribution` over every lesson of the account in the unfiltered view of that state (active: protected
    lessons left out, as the candidate set leaves them; archived: all), from the counts the database keeps, or None
    where none are kept: SQLite, and the decay score and days over the archived lessons (no index to count a
    boundary day or cell with). The decay score: `kept_decay_distribution`.

    Counters: the kept lessons per value, summed per bin. Days: an edge `now - N days` falls inside a UTC day; the
    whole days before it are summed from the kept counts and the lessons of that one day before the edge are
    counted from the lessons (an index range scan of one day each), in the same statement: exact."""
    from lore.value_counts import histogram_counts, maintained

    if maintained() and cond.unit == "score" and not archived:
        return kept_decay_distribution(account_id, cond, now=now, extra=extra)
    if not maintained() or cond.key not in KEPT_COUNTERS | KEPT_DAYS or (archived and cond.unit == "days"):
        return None
    edges = bin_edges(cond, extra)
    protected = None if archived else False
    if cond.key in KEPT_COUNTERS:
        name = KEPT_COUNTERS[cond.key]
        kept, _ = histogram_counts(account_id, [name], archived=archived, protected=protected)
        counts = [0] * (len(edges) + 1)
        for value, n in kept[name].items():
            counts[sum(1 for edge in edges if edge < value)] += n
        return Distribution(cond, edges, tuple(counts), (0,) * len(counts))
    cutoffs = [now - timedelta(days=e) for e in edges]
    days = [day_of(c) for c in cutoffs]
    # Each edge's day is counted on its shorter side: before the edge (added to the whole days before it) or
    # after it (taken from the whole days up to its end).
    after = [c - _day_start(d) > _day_start(d + 1) - c for d, c in zip(days, cutoffs, strict=True)]
    lessons = Lesson.objects.filter(account_id=account_id, archived_at__isnull=True, protected=False)
    at = Coalesce("last_opened_at", "created_at") if cond.key == "last_open" else F("created_at")
    windows = [
        Q(GreaterThanOrEqual(at, c), LessThan(at, _day_start(d + 1)))
        if later
        else Q(GreaterThanOrEqual(at, _day_start(d)), LessThan(at, c))
        for d, c, later in zip(days, cutoffs, after, strict=True)
    ]
    names = [KEPT_DAYS[cond.key]]
    never = cond.key == "last_open"
    if never:  # and the never-opened lessons of each boundary day (their last open is their creation)
        names.append(NEVER_OPENED_DAYS)
    # One count per window, each an index-only range scan (an OR of the windows would be one bitmap heap scan).
    parts = [
        lessons.filter(w)
        .values("account")
        .annotate(
            edge=Value(k),
            b=Count(COUNTED),
            n=Count(COUNTED, filter=Q(last_opened_at__isnull=True)) if never else Value(0),
        )
        .values("edge", "b", "n")
        .query.sql_with_params()
        for k, w in enumerate(windows)
    ]
    union = " UNION ALL ".join(f"({sql})" for sql, _ in parts)
    boundary = (
        f"SELECT coalesce(jsonb_agg(jsonb_build_array(edge, b, n)), '[]'::jsonb) FROM ({union}) AS u",
        [p for _, params in parts for p in params],
    )
    kept, row = histogram_counts(account_id, names, archived=False, protected=False, boundary=boundary)
    found = dict.fromkeys((f"{c}{k}" for k in range(len(edges)) for c in "bn"), 0)
    for k, b, n in _json(row[0]) if row else []:
        found[f"b{k}"], found[f"n{k}"] = int(b), int(n)

    def before_edge(per_day: dict[int, int], k: int, counted: int) -> int:
        """The lessons of `per_day` before edge k, whose day's lessons on its shorter side are `counted`."""
        if after[k]:
            return _before(per_day, days[k] + 1) - counted
        return _before(per_day, days[k]) + counted

    per_day = kept[names[0]]
    total = sum(per_day.values())
    sums_row = {"total": total}
    sums_row |= {f"o{k}": before_edge(per_day, k, found[f"b{k}"]) for k in range(len(edges))}
    if never:
        never_days = kept[NEVER_OPENED_DAYS]
        opened = total - sum(never_days.values())
        sums_row["never"] = total - opened
        for k in range(len(edges)):  # opened before the edge: older minus the never-opened created before it
            never_before = before_edge(never_days, k, found[f"n{k}"])
            sums_row[f"w{k}"] = opened - (sums_row[f"o{k}"] - never_before)
    counts, nevers = _differenced(sums_row, edges, never=never)
    return Distribution(cond, edges, tuple(counts), tuple(nevers))


def _json(value: object) -> list[list[int]]:
    return json.loads(value) if isinstance(value, str) else value  # type: ignore[return-value]


def _before(per_day: dict[int, int], day: int) -> int:
    return sum(n for d, n in per_day.items() if d < day)


# The decay score's kept cells (lore.value_counts, "h:decay_cell"): lessons per (strength product, last-open day).
KEPT_DECAY = "h:decay_cell"
# How far, in days, a cut must lie outside a cell's day for the cell to be summed whole, and how far a count of the
# lessons on one side of a cut reaches past it (86 ms): far above the rounding of the two ways the score is
# computed (here from the product, per lesson from Chosen and Recurrence), so no lesson is ever put on the wrong side.
DECAY_MARGIN = 1e-6


def kept_decay_distribution(
    account_id: int, cond: Condition, *, now: datetime, extra: Iterable[int] = ()
) -> Distribution:
    """`distribution` of the decay score over every active, unpinned lesson of the account, from the kept cells.

    A lesson's score depends on its last open and its strength product p = (1 + Chosen) × Recurrence alone
    (strength = 1 + ln p), and falls as its last open recedes: it is at most e exactly when the lesson was last
    opened more than span_e × (1 + ln p) days ago, span_e = `days_to_fall_to(e)`. So each edge cuts
    the days of each product at one moment, and a cell (p, day) no cut crosses lies in one bin: its kept count is
    that bin's. The lessons of the few cells a cut crosses are counted from the lessons (index lesson_decay_cells,
    index-only) with the score expression itself (lore.decay_cells.histogram_cells)."""
    from lore.decay import days_to_fall_to, decay_score, last_agent_open, strength_product
    from lore.decay_cells import histogram_cells

    edges = bin_edges(cond, extra)
    # An edge below 0 is below every score; the others' spans, ascending (the highest edge's span is the shortest).
    below_all = sum(1 for e in edges if e < 0)
    spans = [days_to_fall_to(e) for e in reversed(edges) if e >= 0]
    probe = (
        Lesson.objects.filter(account_id=account_id, archived_at__isnull=True, protected=False)
        .alias(product=strength_product(), at=last_agent_open())
        .filter(
            product=RawSQL("c.product", []),
            at__gte=RawSQL("c.since", [], output_field=DateTimeField()),
            at__lt=RawSQL("c.until", [], output_field=DateTimeField()),
        )
        .annotate(score=decay_score(now))
        .values_list("score")
    )
    by_w, scores = histogram_cells(
        account_id,
        KEPT_DECAY,
        now_days=(now - EPOCH).total_seconds() / 86_400,
        spans=spans,
        margin=DECAY_MARGIN,
        probe=probe.query.sql_with_params(),
    )
    counts = [0] * (len(edges) + 1)
    for w, n in by_w.items():  # above every edge but the w whose spans d / s reaches
        counts[below_all + len(spans) - w] += n
    for score, n in scores.items():
        counts[sum(1 for edge in edges if edge < score)] += n
    return Distribution(cond, edges, tuple(counts), (0,) * len(counts))
