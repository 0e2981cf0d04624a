"""The Celery app. The nightly sweep's schedule is declared here, once, as a crontab (never an interval)."""

import os

from celery import Celery
from celery.schedules import crontab

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("lore")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def sweep_schedule(spec: str) -> crontab:
    """A five-field crontab string ("0 3 * * *") as a Celery crontab."""
    minute, hour, day_of_month, month_of_year, day_of_week = spec.split()
    return crontab(
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month_of_year=month_of_year,
        day_of_week=day_of_week,
    )


@app.on_after_configure.connect
def _schedule_nightly_sweep(sender: Celery, **_: object) -> None:
    from django.conf import settings

    sender.conf.beat_schedule = {
        "nightly-retention-sweep": {
            "task": "policies.tasks.nightly_sweep",
            "schedule": sweep_schedule(settings.LORE_SWEEP_CRONTAB),
        }
    }
