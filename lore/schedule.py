"""When the nightly sweep fires: its crontab (LORE_SWEEP_CRONTAB, UTC) and the arithmetic on it. The purge and the
sweep's tasks read it here; config/celery.py declares the beat schedule from it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

CRONTAB_FIELDS = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")


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


def _fires_in_hour(schedule: crontab, at: datetime) -> bool:
    """Whether `schedule` fires in some minute of the hour `at` is in."""
    return (
        at.month in schedule.month_of_year
        and at.day in schedule.day_of_month
        and at.isoweekday() % 7 in schedule.day_of_week
        and at.hour in schedule.hour
    )


def previous_fire(schedule: crontab, now: datetime) -> datetime | None:
    """The latest minute at or before `now` (UTC) at which `schedule` fires; None if none in the past year."""
    at = now.astimezone(UTC).replace(second=0, microsecond=0)
    for _ in range(24 * 366 + 1):
        if _fires_in_hour(schedule, at):
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
        if _fires_in_hour(schedule, at):
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
