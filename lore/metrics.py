"""The store's figures an operator scrapes (`/metrics`, config/metrics.py): read from the database at scrape time.

`StoreCollector` is a prometheus-client collector that asks a fixed handful of aggregate queries per scrape
(`STORE_QUERIES`), whatever the store holds, so every web process answers the same truth and nothing is kept in
memory between scrapes. Label values come from the models' choices (zero-filled, so a series never vanishes when
its count drops to 0) and from policy ids, of which at most METRICS_POLICIES_MAX are labelled: the policies run
most recently; the runs of every other policy are summed as `policy="other"`, and runs of no policy (an ad-hoc
rule, a finding's apply) as `policy="none"`.

Counts of rows in a state (runs by status, jobs, findings, pending reads, tombstones) are gauges: they go down as
rows change state. Sums of work done (lessons archived and restored by runs, lessons purged, run seconds) are
counters; they fall back only when the rows behind them are deleted (an account deleted).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from django.db.models import (
    Case,
    Count,
    DurationField,
    ExpressionWrapper,
    F,
    IntegerField,
    Max,
    Min,
    Q,
    Sum,
    Value,
    When,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric, SummaryMetricFamily
from prometheus_client.registry import Collector

from lore.limits import METRICS_POLICIES_MAX
from lore.models import Finding, GardenRun, LessonRead, PolicyRun, PurgeRun, Tombstone, TransferJob

POLICY_NONE = "none"  # runs of no policy: an ad-hoc rule, a finding's apply
POLICY_OTHER = "other"  # runs of the policies past METRICS_POLICIES_MAX
_NONE_BUCKET, _OTHER_BUCKET = 0, -1  # policy ids are positive
STORE_QUERIES = 9  # what one scrape asks the database (tests/deploy/test_metrics.py holds it to this)

FINISHED = Q(started_at__isnull=False, finished_at__isnull=False)
DURATION = ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())


def _seconds(value: timedelta | None) -> float:
    return value.total_seconds() if value is not None else 0.0


def _timestamp(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


# ---------------------------------------------------------------- policy runs


def policies_labelled() -> list[int]:
    """The ids of the policies labelled on their own: the METRICS_POLICIES_MAX run most recently."""
    recent = (
        PolicyRun.objects.filter(policy_id__isnull=False)
        .values("policy_id")
        .annotate(last=Max("pk"))
        .order_by("-last")
        .values_list("policy_id", flat=True)
    )
    return [policy_id for policy_id in recent[: METRICS_POLICIES_MAX.value] if policy_id is not None]


def _policy_label(bucket: int) -> str:
    return {_NONE_BUCKET: POLICY_NONE, _OTHER_BUCKET: POLICY_OTHER}.get(bucket, str(bucket))


def policy_run_rows(labelled: list[int]) -> list[dict[str, Any]]:
    """Per (policy label, status): runs, lessons archived and restored, finished runs, their seconds, the last
    finish. One grouped query: at most (METRICS_POLICIES_MAX + 2) × statuses rows."""
    bucket = Case(
        When(policy_id__in=labelled, then=F("policy_id")),
        When(policy_id__isnull=True, then=Value(_NONE_BUCKET)),
        default=Value(_OTHER_BUCKET),
        output_field=IntegerField(),
    )
    rows = (
        PolicyRun.objects.order_by()
        .annotate(bucket=bucket)
        .values("bucket", "status")
        .annotate(
            runs=Count("pk"),
            archived=Sum("archived"),
            restored=Sum("restored"),
            finished=Count("pk", filter=FINISHED),
            seconds=Sum(DURATION, filter=FINISHED),
            last_finished=Max("finished_at"),
        )
    )
    return [{**row, "policy": _policy_label(row["bucket"])} for row in rows]


def policy_run_families(rows: Iterable[dict[str, Any]]) -> Iterator[Metric]:
    runs = GaugeMetricFamily(
        "lore_policy_runs", "Policy runs recorded, by policy id and status", labels=["policy", "status"]
    )
    archived = CounterMetricFamily(
        "lore_policy_run_archived_lessons", "Lessons archived by policy runs", labels=["policy"]
    )
    restored = CounterMetricFamily(
        "lore_policy_run_restored_lessons", "Lessons restored by undoing policy runs", labels=["policy"]
    )
    duration = SummaryMetricFamily(
        "lore_policy_run_duration_seconds",
        "Time from start to finish of finished policy runs",
        labels=["policy"],
    )
    last = GaugeMetricFamily(
        "lore_policy_run_last_finished_timestamp_seconds",
        "When the policy's last run finished (Unix time)",
        labels=["policy"],
    )
    by_policy: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        by_policy.setdefault(row["policy"], {})[row["status"]] = row
    for policy, statuses in by_policy.items():
        for status in PolicyRun.Status.values:
            runs.add_metric([policy, status], statuses.get(status, {}).get("runs", 0))
        group = statuses.values()
        archived.add_metric([policy], sum(row["archived"] or 0 for row in group))
        restored.add_metric([policy], sum(row["restored"] or 0 for row in group))
        seconds = sum(_seconds(row["seconds"]) for row in group)
        duration.add_metric([policy], count_value=sum(row["finished"] for row in group), sum_value=seconds)
        finished = [row["last_finished"] for row in group if row["last_finished"] is not None]
        if finished:
            last.add_metric([policy], max(finished).timestamp())
    yield from (runs, archived, restored, duration, last)


# ---------------------------------------------------------------- import and export jobs


def transfer_job_families() -> Iterator[Metric]:
    counts = {
        (row["kind"], row["status"]): row["jobs"]
        for row in TransferJob.objects.order_by().values("kind", "status").annotate(jobs=Count("pk"))
    }
    jobs = GaugeMetricFamily(
        "lore_transfer_jobs",
        "Dashboard import and export jobs, by kind and status",
        labels=["kind", "status"],
    )
    for kind in TransferJob.Kind.values:
        for status in TransferJob.Status.values:
            jobs.add_metric([kind, status], counts.get((kind, status), 0))
    yield jobs


# ---------------------------------------------------------------- the gardener


def garden_families() -> Iterator[Metric]:
    rows: dict[str, Mapping[str, Any]] = {
        row["status"]: row
        for row in GardenRun.objects.order_by()
        .values("status")
        .annotate(
            runs=Count("pk"), finished=Count("pk", filter=FINISHED), seconds=Sum(DURATION, filter=FINISHED)
        )
    }
    runs = GaugeMetricFamily(
        "lore_garden_runs", "Gardener inventories recorded, by status", labels=["status"]
    )
    for status in GardenRun.Status.values:
        runs.add_metric([status], rows.get(status, {}).get("runs", 0))
    duration = SummaryMetricFamily(
        "lore_garden_run_duration_seconds", "Time from start to finish of finished gardener inventories"
    )
    duration.add_metric(
        [],
        count_value=sum(row["finished"] for row in rows.values()),
        sum_value=sum(_seconds(row["seconds"]) for row in rows.values()),
    )
    yield from (runs, duration)
    yield from _garden_last_run()
    counts = {
        (row["kind"], row["status"]): row["findings"]
        for row in Finding.objects.order_by().values("kind", "status").annotate(findings=Count("pk"))
    }
    findings = GaugeMetricFamily(
        "lore_garden_findings", "Gardener findings, by kind and status", labels=["kind", "status"]
    )
    for kind in Finding.Kind.values:
        for status in Finding.Status.values:
            findings.add_metric([kind, status], counts.get((kind, status), 0))
    yield findings


def _garden_last_run() -> Iterator[Metric]:
    """The last finished inventory of any account: how long it took and when it finished."""
    last = (
        GardenRun.objects.filter(FINISHED)
        .order_by("-finished_at", "-pk")
        .values_list("started_at", "finished_at")
        .first()
    )
    started, finished = last or (None, None)
    if started is None or finished is None:
        return
    yield GaugeMetricFamily(
        "lore_garden_last_run_duration_seconds",
        "How long the last finished gardener inventory took",
        value=(finished - started).total_seconds(),
    )
    yield GaugeMetricFamily(
        "lore_garden_last_run_finished_timestamp_seconds",
        "When the last gardener inventory finished (Unix time)",
        value=finished.timestamp(),
    )


# ---------------------------------------------------------------- reads and purges


def read_families() -> Iterator[Metric]:
    """The read buffer (lore.reads): reads recorded but not yet folded into the lessons' counters."""
    pending = LessonRead.objects.aggregate(
        reads=Count("pk"), opens=Count("pk", filter=Q(opened=True)), oldest=Min("at")
    )
    yield GaugeMetricFamily(
        "lore_reads_pending", "Reads buffered and not yet folded into lesson counters", value=pending["reads"]
    )
    yield GaugeMetricFamily(
        "lore_reads_pending_opens", "Of the pending reads, deliberate opens (Chosen)", value=pending["opens"]
    )
    oldest = _timestamp(pending["oldest"])
    if oldest is not None:
        yield GaugeMetricFamily(
            "lore_reads_pending_oldest_timestamp_seconds",
            "When the oldest pending read was recorded (Unix time); the fold runs every minute",
            value=oldest,
        )


def purge_families() -> Iterator[Metric]:
    """Purges (lore.purge): runs by status, lessons purged, the tombstones they left."""
    rows: dict[str, Mapping[str, Any]] = {
        row["status"]: row
        for row in PurgeRun.objects.order_by()
        .values("status")
        .annotate(runs=Count("pk"), purged=Sum("purged"), last_finished=Max("finished_at"))
    }
    runs = GaugeMetricFamily("lore_purge_runs", "Purges recorded, by status", labels=["status"])
    for status in PurgeRun.Status.values:
        runs.add_metric([status], rows.get(status, {}).get("runs", 0))
    yield runs
    yield CounterMetricFamily(
        "lore_purged_lessons",
        "Archived lessons hard-deleted by purges",
        value=sum(row["purged"] or 0 for row in rows.values()),
    )
    finished = [row["last_finished"] for row in rows.values() if row["last_finished"] is not None]
    if finished:
        yield GaugeMetricFamily(
            "lore_purge_last_finished_timestamp_seconds",
            "When the last purge finished (Unix time)",
            value=max(finished).timestamp(),
        )
    yield GaugeMetricFamily(
        "lore_tombstones", "Tombstones kept of purged lessons", value=Tombstone.objects.count()
    )


class StoreCollector(Collector):
    """Every figure above, read at scrape time with STORE_QUERIES aggregate queries."""

    def collect(self) -> Iterator[Metric]:
        yield from policy_run_families(policy_run_rows(policies_labelled()))
        yield from transfer_job_families()
        yield from garden_families()
        yield from read_families()
        yield from purge_families()
