"""The nightly sweep's schedule: a crontab from LORE_SWEEP_CRONTAB (default 03:00 UTC), refused clearly if bad."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.celery import app, beat_schedule, sweep_crontab_check
from lore.schedule import previous_fire, sweep_schedule

ROOT = Path(__file__).resolve().parents[2]


def test_the_default_schedule_is_nightly_at_three_utc() -> None:
    entry = app.conf.beat_schedule["nightly-retention-sweep"]
    assert entry["task"] == "policies.tasks.nightly_sweep"
    schedule = entry["schedule"]
    assert (schedule.minute, schedule.hour) == ({0}, {3})
    assert schedule.day_of_week == set(range(7)) and schedule.day_of_month == set(range(1, 32))
    assert app.conf.timezone == "UTC"


def test_the_crontab_comes_from_the_five_fields_of_the_setting() -> None:
    schedule = beat_schedule("30 2 * * 1-5")["nightly-retention-sweep"]["schedule"]
    assert (schedule.minute, schedule.hour, schedule.day_of_week) == ({30}, {2}, {1, 2, 3, 4, 5})


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "five fields"),
        ("nightly", "five fields"),
        ("0 3 * *", "five fields"),
        ("0 3 * * * *", "five fields"),
        ("61 3 * * *", "not a valid crontab"),
        ("0 25 * * *", "not a valid crontab"),
        ("0 3 * * mon-xyz", "not a valid crontab"),
        ("*/0 * * * *", "not a valid crontab"),
    ],
)
def test_a_bad_crontab_is_refused_with_a_message_naming_the_variable(spec: str, words: str) -> None:
    with pytest.raises(ImproperlyConfigured) as exc:
        sweep_schedule(spec)
    assert "LORE_SWEEP_CRONTAB" in str(exc.value) and words in str(exc.value)


def test_the_system_check_reports_a_bad_crontab(settings) -> None:  # noqa: ANN001
    assert sweep_crontab_check() == []
    settings.LORE_SWEEP_CRONTAB = "0 99 * * *"
    [error] = sweep_crontab_check()
    assert error.id == "lore.E001" and "LORE_SWEEP_CRONTAB" in error.msg


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "celery", "-A", "config", "beat", "--schedule", "/dev/null"],
        [sys.executable, "manage.py", "check"],
    ],
    ids=["celery-beat", "manage-check"],
)
def test_a_bad_crontab_stops_the_process_at_startup(command: list[str]) -> None:
    env = {**os.environ, "LORE_SWEEP_CRONTAB": "every night", "CELERY_BROKER_URL": "memory://"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "LORE_SWEEP_CRONTAB='every night'" in done.stderr + done.stdout


@pytest.mark.parametrize(
    ("spec", "now", "fired"),
    [
        ("0 3 * * *", datetime(2026, 11, 29, 14, 5, tzinfo=UTC), datetime(2026, 11, 29, 3, 0, tzinfo=UTC)),
        ("0 3 * * *", datetime(2026, 11, 29, 2, 59, tzinfo=UTC), datetime(2026, 11, 28, 3, 0, tzinfo=UTC)),
        ("0 3 * * *", datetime(2026, 11, 29, 3, 0, 30, tzinfo=UTC), datetime(2026, 11, 29, 3, 0, tzinfo=UTC)),
        (
            "*/15 * * * *",
            datetime(2026, 11, 29, 14, 44, tzinfo=UTC),
            datetime(2026, 11, 29, 14, 30, tzinfo=UTC),
        ),
        ("0 3 * * 1", datetime(2026, 11, 29, 14, 0, tzinfo=UTC), datetime(2026, 11, 23, 3, 0, tzinfo=UTC)),
        ("0 3 1 1 *", datetime(2026, 11, 29, 14, 0, tzinfo=UTC), datetime(2026, 1, 1, 3, 0, tzinfo=UTC)),
    ],
)
def test_the_sweeps_current_tick_is_the_schedules_latest_firing(
    spec: str, now: datetime, fired: datetime
) -> None:
    assert previous_fire(sweep_schedule(spec), now) == fired


def test_the_gardener_runs_nightly_thirty_minutes_after_the_sweep_on_the_same_days() -> None:
    entry = beat_schedule("45 2 * * 1-5")["nightly-garden"]
    assert entry["task"] == "lore.tasks.nightly_garden"
    schedule = entry["schedule"]
    assert (schedule.minute, schedule.hour, schedule.day_of_week) == ({15}, {3}, {1, 2, 3, 4, 5})
