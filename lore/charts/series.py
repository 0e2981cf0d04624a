"""Series over time as SVG geometry: lines (totals day by day) and bars (counts per day or per run).

A chart here is numbers only: coordinates in a fixed viewBox, the axis ticks, and the same data as table rows for
the `<details>` a screen reader (or anyone) opens. `templates/charts/series.html` draws it; the page's CSS colours
it by series key. Nothing here queries the database.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 52, 10, 10, 26  # room for the y labels, the x labels
X_LABELS_SHOWN = 6
Y_TICKS = 4


@dataclass(frozen=True)
class Series:
    key: str  # names the series in CSS (`chart-<key>`) and the legend
    label: str
    values: tuple[int | None, ...]  # None: nothing known for that point (a gap in a line)

    @property
    def total(self) -> int:
        return sum(v for v in self.values if v is not None)

    @property
    def latest(self) -> int | None:
        return next((v for v in reversed(self.values) if v is not None), None)


@dataclass(frozen=True)
class Tick:
    at: float  # x or y in the viewBox
    label: str
    anchor: str = "middle"  # SVG text-anchor: the first x label starts at its point, the last ends there


@dataclass(frozen=True)
class Line:
    key: str
    segments: tuple[str, ...]  # SVG polyline `points`, one per run of known values
    dots: tuple[tuple[float, float], ...]  # a lone known point between gaps is drawn as a dot


@dataclass(frozen=True)
class Bar:
    key: str
    x: float
    y: float
    width: float
    height: float
    title: str  # "Dec 3 · archived: 12" (a tooltip; the table says the same)


@dataclass(frozen=True)
class Mark:
    """A point flagged on the x axis (an interrupted run), drawn as a small triangle under its slot."""

    key: str
    x: float
    y: float
    title: str

    @property
    def points(self) -> str:
        return f"{self.x},{self.y} {self.x - 4},{self.y + 7} {self.x + 4},{self.y + 7}"


@dataclass(frozen=True)
class Chart:
    dom_id: str  # unique on the page: the caption and the table are tied to the SVG by it
    title: str
    caption: str  # the numbers in a sentence: the SVG's accessible name points at it
    labels: tuple[str, ...]  # one per point (a day, a run)
    series: tuple[Series, ...]
    width: int = WIDTH
    height: int = HEIGHT
    y_ticks: tuple[Tick, ...] = ()
    x_ticks: tuple[Tick, ...] = ()
    lines: tuple[Line, ...] = ()
    bars: tuple[Bar, ...] = ()
    marks: tuple[Mark, ...] = ()
    mark_label: str = ""  # what a mark means, for the legend and the table's column
    flags: tuple[bool, ...] = ()

    @property
    def plot_left(self) -> int:
        return LEFT

    @property
    def plot_right(self) -> int:
        return self.width - RIGHT

    @property
    def baseline(self) -> int:
        return self.height - BOTTOM

    @property
    def is_empty(self) -> bool:
        return not self.labels or all(s.total == 0 and s.latest is None for s in self.series)

    @property
    def rows(self) -> list[tuple[str, list[str]]]:
        """The data table: one row per point, one cell per series (and the flag, when there is one)."""
        rows = []
        for i, label in enumerate(self.labels):
            cells = ["–" if s.values[i] is None else f"{s.values[i]:,}" for s in self.series]
            if self.mark_label:
                cells.append("yes" if self.flags[i] else "")
            rows.append((label, cells))
        return rows

    @property
    def headers(self) -> list[str]:
        return [s.label for s in self.series] + ([self.mark_label] if self.mark_label else [])


def nice_step(value: float) -> int:
    """The smallest 1, 2 or 5 × 10^k at or above `value` (at least 1): the distance between two y ticks."""
    if value <= 1:
        return 1
    power = 10 ** math.floor(math.log10(value))
    return int(next(step * power for step in (1, 2, 5, 10) if step * power >= value))


def y_scale(highest: float) -> tuple[int, int]:
    """(top of the y axis, step between ticks): at most Y_TICKS steps of a round size, the top a whole step."""
    step = nice_step(highest / Y_TICKS)
    return max(step * math.ceil(highest / step), step), step


def short_number(value: float) -> str:
    """12, 1.2k, 3.4M: what fits left of the plot."""
    for size, suffix in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if abs(value) >= size:
            text = f"{value / size:.1f}".rstrip("0").rstrip(".")
            return f"{text}{suffix}"
    return f"{value:,.0f}"


def _y_ticks(highest: float, height: int) -> tuple[tuple[Tick, ...], float]:
    """Ticks from 0 to the top of the axis over `highest`, and the height of one unit in the viewBox."""
    top, step = y_scale(highest)
    plot = height - TOP - BOTTOM
    ticks = tuple(
        Tick(round(height - BOTTOM - plot * value / top, 2), short_number(value))
        for value in range(0, top + 1, step)
    )
    return ticks, plot / top


def _x_ticks(centres: Sequence[float], labels: Sequence[str]) -> tuple[Tick, ...]:
    """At most X_LABELS_SHOWN labels, evenly spread, the first and the last always among them."""
    n = len(labels)
    if n == 0:
        return ()
    picked: Sequence[int]
    if n <= X_LABELS_SHOWN:
        picked = range(n)
    else:
        picked = sorted({round(i * (n - 1) / (X_LABELS_SHOWN - 1)) for i in range(X_LABELS_SHOWN)})
    last = picked[-1]
    return tuple(
        Tick(
            round(centres[i], 2),
            labels[i],
            "start" if i == 0 and n > 1 else "end" if i == last and n > 1 else "middle",
        )
        for i in picked
    )


def _highest(series: Sequence[Series]) -> int:
    return max((v for s in series for v in s.values if v is not None), default=0)


def line_chart(
    *, dom_id: str, title: str, caption: str, labels: Sequence[str], series: Sequence[Series]
) -> Chart:
    """Totals over time: one polyline per series, broken where a value is unknown."""
    n = len(labels)
    span = WIDTH - LEFT - RIGHT
    xs = [LEFT + (span * i / (n - 1) if n > 1 else span / 2) for i in range(n)]
    y_ticks, unit = _y_ticks(_highest(series), HEIGHT)
    lines = []
    for s in series:
        segments: list[list[tuple[float, float]]] = [[]]
        for x, value in zip(xs, s.values, strict=True):
            if value is None:
                segments.append([])
            else:
                segments[-1].append((round(x, 2), round(HEIGHT - BOTTOM - value * unit, 2)))
        runs = [seg for seg in segments if seg]
        lines.append(
            Line(
                key=s.key,
                segments=tuple(" ".join(f"{x},{y}" for x, y in seg) for seg in runs if len(seg) > 1),
                dots=tuple(seg[0] for seg in runs if len(seg) == 1),
            )
        )
    return Chart(
        dom_id=dom_id,
        title=title,
        caption=caption,
        labels=tuple(labels),
        series=tuple(series),
        y_ticks=y_ticks,
        x_ticks=_x_ticks(xs, labels),
        lines=tuple(lines),
    )


def bar_chart(
    *,
    dom_id: str,
    title: str,
    caption: str,
    labels: Sequence[str],
    series: Sequence[Series],
    flags: Sequence[bool] = (),
    mark_label: str = "",
) -> Chart:
    """Counts per point: the series side by side in each point's slot; `flags` marks points under the axis."""
    n, k = len(labels), max(len(series), 1)
    slot = (WIDTH - LEFT - RIGHT) / max(n, 1)
    bar_width = max(slot * 0.8 / k, 0.5)
    y_ticks, unit = _y_ticks(_highest(series), HEIGHT)
    centres = [LEFT + slot * (i + 0.5) for i in range(n)]
    bars = []
    for j, s in enumerate(series):
        for i, value in enumerate(s.values):
            if not value:
                continue
            height = value * unit
            x = centres[i] - bar_width * k / 2 + bar_width * j
            bars.append(
                Bar(
                    s.key,
                    round(x, 2),
                    round(HEIGHT - BOTTOM - height, 2),
                    round(bar_width, 2),
                    round(height, 2),
                    f"{labels[i]} · {s.label}: {value:,}",
                )
            )
    marks = tuple(
        Mark("flag", round(centres[i], 2), HEIGHT - BOTTOM + 2, f"{labels[i]} · {mark_label}")
        for i, flagged in enumerate(flags)
        if flagged
    )
    return Chart(
        dom_id=dom_id,
        title=title,
        caption=caption,
        labels=tuple(labels),
        series=tuple(series),
        y_ticks=y_ticks,
        x_ticks=_x_ticks(centres, labels),
        bars=tuple(bars),
        marks=marks,
        mark_label=mark_label,
        flags=tuple(flags) if flags else tuple(False for _ in labels),
    )
