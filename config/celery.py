"""The Celery app. The nightly sweep's schedule is declared here, once, as a crontab (never an interval).

`LORE_SWEEP_CRONTAB` (five fields, UTC; default "0 3 * * *") is parsed when the app loads its configuration, so
a worker or beat started with a bad value stops at once with a message naming the variable; `manage.py check`
(and so `runserver`) reports it too.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.schedules import crontab
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from lore.schedule import CRONTAB_FIELDS, sweep_schedule

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

SWEEP_TASK = "policies.tasks.nightly_sweep"
STALE_RUNS_TASK = "policies.tasks.runs_mark_stale"
PURGE_TASK = "lore.tasks.nightly_purge"
GARDEN_TASK = "lore.tasks.nightly_garden"
GARDEN_DELAY_MINUTES = 30  # after the sweep's tick: the sweep's archive runs go first
TRANSFERS_EXPIRE_TASK = "lore.tasks.transfer_jobs_expire"
READS_FOLD_TASK = "lore.tasks.reads_fold_all"
VALUE_COUNTS_FOLD_TASK = "lore.tasks.value_counts_fold_all"
ROLLUPS_TASK = "lore.tasks.nightly_rollups"

app = Celery("lore")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def garden_schedule(spec: str) -> crontab:
    """The gardener's crontab: the sweep's, GARDEN_DELAY_MINUTES later (same days; a sweep that fires at minutes
    past 30 moves the garden into the next hour)."""
    sweep = sweep_schedule(spec)
    minute, hour, *rest = str(spec).split()
    if len(sweep.minute) != 1 or len(sweep.hour) != 1:
        return sweep  # a sweep that fires many times a night: the gardener goes with each tick
    total = next(iter(sweep.hour)) * 60 + next(iter(sweep.minute)) + GARDEN_DELAY_MINUTES
    return crontab(
        **dict(zip(CRONTAB_FIELDS, [str(total % 60), str((total // 60) % 24), *rest], strict=True))
    )


def beat_schedule(spec: str) -> dict[str, dict[str, Any]]:
    """The nightly sweep: retention policies, then (same tick, its own task) the purge of long-archived lessons,
    then, GARDEN_DELAY_MINUTES later, the gardener's inventory of what changed."""
    return {
        "nightly-retention-sweep": {"task": SWEEP_TASK, "schedule": sweep_schedule(spec)},
        "nightly-purge": {"task": PURGE_TASK, "schedule": sweep_schedule(spec)},
        "nightly-garden": {"task": GARDEN_TASK, "schedule": garden_schedule(spec)},
        # Every minute: a run whose worker died is marked interrupted within a minute of its last heartbeat.
        "stale-runs": {"task": STALE_RUNS_TASK, "schedule": crontab(minute="*")},
        "expired-transfers": {"task": TRANSFERS_EXPIRE_TASK, "schedule": crontab(minute="17")},
        # Every minute: buffered reads folded into the lessons' counters (lore.reads).
        "reads-fold": {"task": READS_FOLD_TASK, "schedule": crontab(minute="*")},
        # Every minute: the per-value counts' appended changes summed, one row per value (lore.value_counts).
        "value-counts-fold": {"task": VALUE_COUNTS_FOLD_TASK, "schedule": crontab(minute="*")},
        # Minutes after midnight UTC (the days of the rollups are UTC days): the day that ended is rolled up
        # while its lesson totals are still its end-of-day totals (lore.rollups).
        "nightly-rollups": {"task": ROLLUPS_TASK, "schedule": crontab(minute="5", hour="0")},
    }


def _beat_defaults() -> dict[str, Any]:
    from django.conf import settings

    return {
        "beat_schedule": beat_schedule(settings.LORE_SWEEP_CRONTAB),
        "enable_utc": True,
        "timezone": "UTC",
    }


# Evaluated when the app loads its configuration (worker and beat start-up). Unlike a signal handler, whose
# exceptions Celery only logs, an error raised here stops the process.
app.add_defaults(_beat_defaults)


@checks.register()
def sweep_crontab_check(app_configs: object = None, **_: object) -> list[checks.CheckMessage]:
    from django.conf import settings

    try:
        sweep_schedule(settings.LORE_SWEEP_CRONTAB)
    except ImproperlyConfigured as exc:
        return [checks.Error(str(exc), id="lore.E001")]
    return []
