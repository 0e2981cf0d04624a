"""The histogram under a condition of the filter menu (issue 28, part 1): the geometry that
templates/charts/histogram.html draws, and the data static/js/histogram.js moves its marker with.

The bins (lore.bins) stand side by side at equal widths; their edges are log-spaced for days and counters, so the
x axis is a log scale, and bar heights are linear in lessons. The marker stands where a value splits the lessons:
the count on each side is exact when the split is an edge of a bin, else a range, and the sentence under the chart
says which and where the exact count is. Bins above the last one holding a lesson (and the presets and the marker)
are drawn as one open-ended bin, so five empty decades of a counter do not squeeze the others.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from lore.bins import Distribution, keeps_below, split_at
from lore.conditions import PARAMS, TYPED, TYPED_ALIASES, Param, parse_typed

WIDTH, HEIGHT = 320, 100
PLOT_LEFT, PLOT_RIGHT = 4, 316
PLOT_TOP, BASELINE = 14, 76
TICK_Y = 90
LABEL_MARGIN = 12  # the marker's label stays this far inside the plot, shifted along its line at the ends
TICK_GAP = 26  # viewBox units between two tick labels, or the second is left out
PROBE = 50  # a value inside every condition's bounds, to read the typed-input grammar off parse_typed
SENTINEL = 987_654_321  # stands for the number in a phrase template
OPERATORS = ("", ">", ">=", "<", "<=")

# The sentence under the chart, filled here for the first render and by histogram.js as a value is typed.
SENTENCES = {
    "exact": "{phrase}: {kept} of {total} lessons in view; {rest} on the other side of the marker.",
    "inside": "{phrase}: between {fewest} and {most} of {total} lessons in view. {value} falls inside the {bin} bin, "
    "which the chart cannot divide: the exact count is on the option below.",
    "none": "{total} lessons in view. Pick, or type, a value to see how it splits them.",
}
AXIS = {
    "days": "days since {what}, log scale",
    "count": "times {what}, log scale",
    "score": "decay score, 0–100",
}
WHAT = {
    "created": "written",
    "last_open": "the last agent open (creation if never opened)",
    "recurrence": "written",
    "delivered": "delivered",
    "chosen": "chosen",
}


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    count: int
    label: str
    side: str  # "kept", "split" (the marker falls inside it) or ""

    @property
    def count_text(self) -> str:
        return f"{self.count:,}"


@dataclass(frozen=True)
class Tick:
    x: float
    text: str


@dataclass(frozen=True)
class HistogramChart:
    """Everything templates/charts/histogram.html reads, as `chart`."""

    dom_id: str
    title: str
    axis: str
    bars: list[Bar]
    ticks: list[Tick]
    marker_x: float | None
    marker_text: str
    marker_text_dx: float
    sentence: str
    data: dict[str, Any]
    width: int = WIDTH
    height: int = HEIGHT
    baseline: int = BASELINE
    plot_top: int = PLOT_TOP
    tick_y: int = TICK_Y

    @property
    def data_json(self) -> str:
        """`data` for the figure's data-hist attribute (the template escapes it)."""
        return json.dumps(self.data, separators=(",", ":"))

    @property
    def summary(self) -> str:
        """What the image says, for a screen reader: the bins and their counts in one sentence."""
        return f"{self.title} ({self.axis}): " + "; ".join(f"{b.label}: {b.count:,}" for b in self.bars) + "."


def compact(value: int) -> str:
    """A tick label: 1000 → "1k", 100000 → "100k"."""
    if value >= 1000 and value % 1000 == 0:
        return f"{value // 1000}k"
    return str(value)


def _unit(cond_unit: str, n: int) -> str:
    if cond_unit == "days":
        return "day" if n == 1 else "days"
    if cond_unit == "count":
        return "time" if n == 1 else "times"
    return ""


def bin_label(dist: Distribution, k: int, last: int) -> str:
    """Bin k in words: "31–90 days", "10–30 times", "0 times", "over 2000 days"; `last` is the bin drawn last."""
    unit, edges = dist.condition.unit, dist.edges
    low = PARAMS[dist.condition.retention].bounds[0]
    below, above = (edges[k - 1] if k > 0 else None), (edges[k] if k < len(edges) and k < last else None)
    if unit == "days":
        if below is None:
            return f"up to {above} {_unit(unit, above or 0)}"
        return f"over {below} days" if above is None else f"{below}–{above} days"
    first = below + 1 if below is not None else low
    word = f" {_unit(unit, 2)}" if unit == "count" else ""
    if above is None:
        ceiling = dist.ceiling
        if ceiling is not None and first >= ceiling:
            return f"{ceiling}{word}"
        return f"{first} or more{word}"
    if first >= above:
        return f"{above} {_unit(unit, above)}".rstrip()
    return f"{first}–{above}{word}"


def shown_bins(dist: Distribution, split: int | None) -> int:
    """How many bins to draw: up to the last holding a lesson, the last preset's split and the marker, plus one
    to their right; the bins beyond are drawn as that last one (they hold nothing)."""
    cond = dist.condition
    splits = [split_at(PARAMS[cond.retention], v) for v in cond.retention_presets]
    if cond.reverse:
        splits += [split_at(PARAMS[cond.reverse], v) for v in cond.reverse_presets]
    if split is not None:
        splits.append(split)
    needed = max(sum(1 for e in dist.edges if e < s) for s in splits) + 1
    nonzero = max((k for k, n in enumerate(dist.counts) if n), default=0)
    return min(len(dist.counts), max(needed, nonzero) + 1)


def spans(dist: Distribution, shown: int) -> list[tuple[float, float]]:
    """(low, high) of each drawn bin in the condition's values, for placing a marker inside one."""
    low, high = PARAMS[dist.condition.retention].bounds
    floor = low - 1
    top = float(dist.ceiling if dist.ceiling is not None else max(high, dist.edges[-1] * 2))
    edges = [floor, *dist.edges[: shown - 1], top]
    return [(float(edges[k]), float(edges[k + 1])) for k in range(shown)]


def marker_position(dist: Distribution, split: int, shown: int) -> float:
    """The x of the marker at `split`: a bin boundary when the split is an edge, else inside its bin, on the
    axis's own scale (log for days and counters)."""
    width = (PLOT_RIGHT - PLOT_LEFT) / shown
    if split in dist.edges and dist.edges.index(split) + 1 <= shown - 1:
        return PLOT_LEFT + (dist.edges.index(split) + 1) * width
    bin_index = min(sum(1 for e in dist.edges if e < split), shown - 1)
    low, high = spans(dist, shown)[bin_index]
    return PLOT_LEFT + (bin_index + _fraction(split, low, high, dist.condition.unit == "score")) * width


def label_offset(marker_x: float | None) -> float:
    """How far the marker's label moves along from its line so that it stays inside the plot."""
    if marker_x is None:
        return 0.0
    return round(min(max(marker_x, PLOT_LEFT + LABEL_MARGIN), PLOT_RIGHT - LABEL_MARGIN) - marker_x, 2)


def _fraction(value: float, low: float, high: float, linear: bool) -> float:
    if high <= low:
        return 0.0
    if linear:
        return min(1.0, max(0.0, (value - low) / (high - low)))
    lo, hi = math.log1p(max(low, 0)), math.log1p(max(high, 0))
    return min(1.0, max(0.0, (math.log1p(max(value, 0)) - lo) / (hi - lo))) if hi > lo else 0.0


def typed_grammar(condition_key: str) -> dict[str, list[object] | None]:
    """{operator: [param, offset] of the first option parse_typed offers for it, or None}: the menu's typed
    grammar, read off the registry's parser, so histogram.js places the marker as the options will read."""
    grammar: dict[str, list[object] | None] = {}
    for op in OPERATORS:
        options = parse_typed(condition_key, f"{op}{PROBE}").options
        grammar[op] = [options[0].param, options[0].value - PROBE] if options else None
    return grammar


def phrase_of(param: Param) -> dict[str, object]:
    """A direction's wording for histogram.js: its phrase template, the words for 0 and 1, and its bounds."""
    low, high = param.bounds
    return {
        "comparison": param.comparison,
        "low": 1 if param.comparison == "at_least" else low,
        "high": high,
        "template": param.value_phrase(SENTINEL).replace(f"{SENTINEL}", "{n}"),
        "special": {str(v): param.value_phrase(v) for v in (0, 1) if low <= v <= high},
    }


def _sentence(
    dist: Distribution, param: Param | None, value: int | None, labels: list[str], shown: int
) -> str:
    total = dist.total
    if param is None or value is None:
        return SENTENCES["none"].format(total=f"{total:,}")
    fewest, most = dist.kept_range(param, value)
    phrase = param.value_phrase(value)
    if fewest == most:
        return SENTENCES["exact"].format(
            phrase=phrase, kept=f"{fewest:,}", total=f"{total:,}", rest=f"{total - fewest:,}"
        )
    split = split_at(param, value)
    inside = min(sum(1 for e in dist.edges if e < split), shown - 1)
    return SENTENCES["inside"].format(
        phrase=phrase,
        fewest=f"{fewest:,}",
        most=f"{most:,}",
        total=f"{total:,}",
        value=value,
        bin=labels[inside],
    )


def histogram_chart(
    dist: Distribution, *, dom_id: str, marker: tuple[str, int] | None = None
) -> HistogramChart:
    """The chart of `dist`, its marker at `marker` ((param, value): the applied value) or nowhere."""
    cond = dist.condition
    param = PARAMS[marker[0]] if marker else None
    value = marker[1] if marker else None
    split = split_at(param, value) if param is not None and value is not None else None
    shown = shown_bins(dist, split)
    counts = list(dist.counts[: shown - 1]) + [sum(dist.counts[shown - 1 :])]
    labels = [bin_label(dist, k, shown - 1) for k in range(shown)]
    width = (PLOT_RIGHT - PLOT_LEFT) / shown
    fullest = max(counts) or 1
    boundary = None
    if split is not None:
        boundary = dist.edges.index(split) + 1 if split in dist.edges else None
        if dist.ceiling is not None and split >= dist.ceiling:
            boundary = shown
    inside = (
        None
        if split is None or boundary is not None
        else min(sum(1 for e in dist.edges if e < split), shown - 1)
    )

    def side(k: int) -> str:
        if param is None:
            return ""
        if k == inside:
            return "split"
        cut = boundary if boundary is not None else inside
        assert cut is not None
        kept = k < cut if keeps_below(param) else k >= (cut if boundary is not None else cut + 1)
        return "kept" if kept else ""

    bars = []
    for k, n in enumerate(counts):
        height = 0.0 if not n else max(1.5, (BASELINE - PLOT_TOP) * n / fullest)
        x = PLOT_LEFT + k * width
        bars.append(
            Bar(
                round(x + 0.5, 2),
                round(BASELINE - height, 2),
                round(width - 1, 2),
                round(height, 2),
                n,
                labels[k],
                side(k),
            )
        )
    ticks: list[Tick] = []
    for k in range(1, shown):
        x = PLOT_LEFT + k * width
        if not ticks or x - ticks[-1].x >= TICK_GAP:
            ticks.append(Tick(round(x, 2), compact(dist.edges[k - 1])))
    marker_x = round(marker_position(dist, split, shown), 2) if split is not None else None
    what = WHAT.get(cond.key, "")
    return HistogramChart(
        dom_id=dom_id,
        title=f"{cond.label}: lessons in view per bin",
        axis=AXIS[cond.unit].format(what=what),
        bars=bars,
        ticks=ticks,
        marker_x=marker_x,
        marker_text=str(value) if value is not None else "",
        marker_text_dx=label_offset(marker_x),
        sentence=_sentence(dist, param, value, labels, shown),
        data={
            "edges": list(dist.edges),
            "counts": list(dist.counts),
            "never": list(dist.never),
            "ceiling": dist.ceiling,
            "spans": spans(dist, shown),
            "labels": labels,
            "x0": PLOT_LEFT,
            "width": width,
            "linear": cond.unit == "score",
            "pattern": TYPED.pattern,
            "aliases": TYPED_ALIASES,
            "grammar": typed_grammar(cond.key),
            "label_margin": LABEL_MARGIN,
            "plot": [PLOT_LEFT, PLOT_RIGHT],
            "params": {p.name: phrase_of(p) for p in cond.params},
            "sentences": SENTENCES,
            "marker": list(marker) if marker else None,
        },
    )
