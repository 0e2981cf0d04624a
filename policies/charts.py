"""The pictures of the Settings pages, as lore.charts.series charts: a policy's runs over time, its forecast, and
the account's health over the last 90 days. Numbers in, charts out: the queries are the selectors' and
lore.rollups'."""

from __future__ import annotations

from collections.abc import Sequence

from lore.charts.series import Chart, Series, bar_chart, line_chart
from lore.models import PolicyRun
from lore.rollups import DayFigures, Health
from policies.selectors import ForecastPoint

STOPPED = (PolicyRun.Status.INTERRUPTED, PolicyRun.Status.FAILED)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def runs_chart(runs: Sequence[PolicyRun]) -> Chart | None:
    """A policy's runs, oldest first: lessons each archived and how many of them were undone, interrupted runs
    marked. None when it never ran (the page says so in words)."""
    if not runs:
        return None
    ordered = sorted(runs, key=lambda run: (run.created_at, run.pk))
    labels = [f"#{run.pk} {run.created_at:%b %-d}" for run in ordered]
    archived = Series("archived", "Archived", tuple(run.archived for run in ordered))
    undone = Series("undone", "Undone", tuple(run.restored for run in ordered))
    stopped = [run.status in STOPPED for run in ordered]
    caption = (
        f"The last {_plural(len(ordered), 'run')} (since {ordered[0].created_at:%Y-%m-%d}) archived "
        f"{_plural(archived.total, 'lesson')}; {undone.total:,} of them were undone; "
        f"{_plural(sum(stopped), 'run')} interrupted or failed. Latest run: {ordered[-1].archived:,} archived."
    )
    return bar_chart(
        dom_id="runs-chart",
        title="Runs over time",
        caption=caption,
        labels=labels,
        series=[archived, undone],
        flags=stopped,
        mark_label="Interrupted",
    )


def forecast_chart(points: Sequence[ForecastPoint], *, swept_nightly: bool) -> Chart:
    """The forecast's three counts as bars, with the sentence a team reads before enabling the policy."""
    labels = ["Tonight" if p.days == 0 else f"In {p.days} days" for p in points]
    series = Series("forecast", "Would archive", tuple(p.count for p in points))
    parts = ", ".join(
        f"{p.count:,} {label.lower()} ({p.at:%b %-d})" for p, label in zip(points, labels, strict=True)
    )
    lead = (
        "If nothing is read, the nightly sweep archives"
        if swept_nightly
        else "If nothing is read, a run would archive"
    )
    return bar_chart(
        dom_id="forecast-chart",
        title="Forecast",
        caption=f"{lead} {parts}.",
        labels=labels,
        series=[series],
    )


def _day(figures: DayFigures) -> str:
    return f"{figures.day:%b %-d}"


def health_charts(health: Health) -> list[Chart]:
    """Lessons active, archived and purged; findings opened and applied; lessons delivered; runs' rows archived and
    undone — per day, over the days of `health`."""
    days = health.days
    labels = [_day(d) for d in days]
    today, first = health.today, days[0]
    known = next((d for d in days if d.active is not None), today)
    lessons = line_chart(
        dom_id="health-lessons",
        title="Lessons",
        caption=(
            f"Today {today.active or 0:,} active, {today.archived or 0:,} archived and {today.purged or 0:,} purged "
            f"in all; on {known.day:%b %-d}, {known.active or 0:,} active and {known.archived or 0:,} archived."
        ),
        labels=labels,
        series=[
            Series("active", "Active", tuple(d.active for d in days)),
            Series("archived", "Archived", tuple(d.archived for d in days)),
            Series("purged", "Purged (all time)", tuple(d.purged for d in days)),
        ],
    )
    opened = Series("opened", "Opened", tuple(d.findings_opened for d in days))
    applied = Series("applied", "Applied", tuple(d.findings_applied for d in days))
    findings = bar_chart(
        dom_id="health-findings",
        title="Findings",
        caption=f"{_plural(opened.total, 'finding')} opened and {applied.total:,} applied since {first.day:%b %-d}.",
        labels=labels,
        series=[opened, applied],
    )
    reads = Series("reads", "Delivered", tuple(d.reads for d in days))
    busiest = max(days, key=lambda d: d.reads)
    delivered = bar_chart(
        dom_id="health-reads",
        title="Reads per day",
        caption=(
            f"{_plural(reads.total, 'lesson')} delivered since {first.day:%b %-d}, {today.reads:,} today"
            + (f"; the busiest day was {_day(busiest)} with {busiest.reads:,}." if busiest.reads else ".")
        ),
        labels=labels,
        series=[reads],
    )
    archived = Series("archived", "Archived by runs", tuple(d.rows_archived for d in days))
    undone = Series("undone", "Undone", tuple(d.rows_undone for d in days))
    stopped = sum(d.runs_interrupted for d in days)
    runs = bar_chart(
        dom_id="health-runs",
        title="Runs",
        caption=(
            f"{_plural(sum(d.runs for d in days), 'run')} archived {_plural(archived.total, 'lesson')} since "
            f"{first.day:%b %-d}; {undone.total:,} were undone; {_plural(stopped, 'run')} interrupted or failed."
        ),
        labels=labels,
        series=[archived, undone],
        flags=[d.runs_interrupted > 0 for d in days],
        mark_label="A run interrupted",
    )
    return [lessons, findings, delivered, runs]
