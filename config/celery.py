"""The Celery app. The nightly sweep's schedule is declared here, once, as a crontab (never an interval).

`LORE_SWEEP_CRONTAB` (five fields, UTC; default "0 3 * * *") is parsed when the app loads its configuration, so
a worker or beat started with a bad value stops at once with a message naming the variable; `manage.py check`
(and so `runserver`) reports it too.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import Any

from celery import Celery
from celery.schedules import crontab
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

SWEEP_TASK = "policies.tasks.nightly_sweep"
STALE_RUNS_TASK = "policies.tasks.runs_mark_stale"
PURGE_TASK = "lore.tasks.nightly_purge"
TRANSFERS_EXPIRE_TASK = "lore.tasks.transfer_jobs_expire"
CRONTAB_FIELDS = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")

app = Celery("lore")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def sweep_schedule(spec: str) -> crontab:
    """A five-field crontab string ("0 3 * * *", UTC) as a Celery crontab; ImproperlyConfigured if it is not one."""
    fields = str(spec).split()
    if len(fields) != len(CRONTAB_FIELDS):
        raise ImproperlyConfigured(
            f"LORE_SWEEP_CRONTAB={spec!r} is not a crontab: it needs five fields "
            "(minute hour day-of-month month day-of-week), e.g. '0 3 * * *'"
        )
    try:
        return crontab(**dict(zip(CRONTAB_FIELDS, fields, strict=True)))
    except (ValueError, TypeError, KeyError) as exc:
        raise ImproperlyConfigured(f"LORE_SWEEP_CRONTAB={spec!r} is not a valid crontab: {exc}") from exc


def beat_schedule(spec: str) -> dict[str, dict[str, Any]]:
    """The nightly sweep: retention policies, then (same tick, its own task) the purge of long-archived lessons."""
    return {
        "nightly-retention-sweep": {"task": SWEEP_TASK, "schedule": sweep_schedule(spec)},
        "nightly-purge": {"task": PURGE_TASK, "schedule": sweep_schedule(spec)},
        # Every minute: a run whose worker died is marked interrupted within a minute of its last heartbeat.
        "stale-runs": {"task": STALE_RUNS_TASK, "schedule": crontab(minute="*")},
        "expired-transfers": {"task": TRANSFERS_EXPIRE_TASK, "schedule": crontab(minute="17")},
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


def previous_fire(schedule: crontab, now: datetime) -> datetime | None:
    """The latest minute at or before `now` (UTC) at which `schedule` fires; None if none in the past year."""
    at = now.astimezone(UTC).replace(second=0, microsecond=0)
    for _ in range(24 * 366 + 1):
        if (
            at.month in schedule.month_of_year
            and at.day in schedule.day_of_month
            and at.isoweekday() % 7 in schedule.day_of_week
            and at.hour in schedule.hour
        ):
            minutes = [m for m in schedule.minute if m <= at.minute]
            if minutes:
                return at.replace(minute=max(minutes))
        at = at.replace(minute=59) - timedelta(hours=1)
    return None


def next_fire(schedule: crontab, after: datetime) -> datetime | None:
    """The first minute at or after `after` (UTC) at which `schedule` fires; None if none within a year."""
    at = after.astimezone(UTC)
    if at.second or at.microsecond:
        at = at.replace(second=0, microsecond=0) + timedelta(minutes=1)
    for _ in range(24 * 366 + 1):
        if (
            at.month in schedule.month_of_year
            and at.day in schedule.day_of_month
            and at.isoweekday() % 7 in schedule.day_of_week
            and at.hour in schedule.hour
        ):
            minutes = [m for m in schedule.minute if m >= at.minute]
            if minutes:
                return at.replace(minute=min(minutes))
        at = at.replace(minute=0) + timedelta(hours=1)
    return None


def next_sweep(after: datetime) -> datetime:
    """When the nightly sweep next runs at or after `after` (the day itself if the crontab never fires)."""
    from django.conf import settings

    return next_fire(sweep_schedule(settings.LORE_SWEEP_CRONTAB), after) or after


def sweep_slot_start(now: datetime) -> datetime | None:
    """When the current tick of the nightly sweep began: the sweep runs each policy once per tick."""
    from django.conf import settings

    return previous_fire(sweep_schedule(settings.LORE_SWEEP_CRONTAB), now)


@checks.register()
def sweep_crontab_check(app_configs: object = None, **_: object) -> list[checks.CheckMessage]:
    from django.conf import settings

    try:
        sweep_schedule(settings.LORE_SWEEP_CRONTAB)
    except ImproperlyConfigured as exc:
        return [checks.Error(str(exc), id="lore.E001")]
    return []
