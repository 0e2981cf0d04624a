"""Screenshots of the pictures over time for docs/ (written only when LORE_SCREENSHOTS=1): a policy's runs and its
forecast, and Settings → Health.

LORE_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser/test_over_time_screenshots.py

The store is the demo store; the history behind it (a policy's nightly runs over six weeks, three months of
daily rollups) is written the way the sweep and the nightly rollup would have left it, with made-up numbers.
"""

from __future__ import annotations

import os
import random
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from lore.demo import demo_store_create
from lore.models import DailyRollup, Lesson, PolicyRun
from lore.rules.rule import Rule
from policies.services import policy_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DOCS = Path(__file__).resolve().parents[2] / "docs"

if os.environ.get("LORE_SCREENSHOTS") != "1":
    pytest.skip("screenshots are written when LORE_SCREENSHOTS=1", allow_module_level=True)


def _runs_over_six_weeks(account, policy) -> None:  # noqa: ANN001
    rng, now = random.Random(28), timezone.now()
    for back in range(42, 0, -1):
        archived = max(0, int(rng.gauss(60 - back, 12)))
        status = PolicyRun.Status.INTERRUPTED if back in (30, 11) else PolicyRun.Status.DONE
        run = PolicyRun.objects.create(
            account=account,
            policy_id=policy.pk,
            policy_name=policy.name,
            trigger="nightly",
            status=status,
            matched=archived,
            archived=archived,
            restored=archived if back in (25,) else (3 if back % 9 == 0 else 0),
        )
        at = now - timedelta(days=back, hours=-3)
        PolicyRun.objects.filter(pk=run.pk).update(created_at=at, started_at=at, finished_at=at)


def _ninety_days(account) -> None:  # noqa: ANN001
    rng, today = random.Random(90), timezone.localdate()
    active, archived, purged = 2600, 120, 0
    rows = []
    for back in range(89, 0, -1):
        written = rng.randint(5, 25)
        swept = rng.randint(0, 30) if back % 7 else 0
        active += written - swept
        archived += swept
        if back % 30 == 0:
            purged += archived // 3
            archived -= archived // 3
        rows.append(
            DailyRollup(
                account=account,
                day=today - timedelta(days=back),
                active=active,
                archived=archived,
                purged=purged,
                findings_opened=rng.choice([0, 0, 1, 2, 4]),
                findings_applied=rng.choice([0, 0, 0, 1, 2]),
                reads=int(rng.gauss(5200, 900))
                if (today - timedelta(days=back)).weekday() < 5
                else rng.randint(400, 900),
                runs=1 if back % 7 else 0,
                runs_interrupted=1 if back in (30, 11) else 0,
                rows_archived=swept,
                rows_undone=swept if back == 25 else 0,
                computed_at=timezone.now(),
            )
        )
    DailyRollup.objects.bulk_create(rows)


def test_screenshots_of_runs_forecast_and_health(page, account) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=int(os.environ.get("LORE_SCREENSHOT_LESSONS", "3000")))
    # Spread the lessons' ages over a year, so the forecast sees lessons coming of age.
    for lesson in Lesson.objects.filter(account=account).only("pk"):
        age = timedelta(days=(lesson.pk * 37) % 365)
        Lesson.objects.filter(pk=lesson.pk).update(
            created_at=timezone.now() - age, updated_at=timezone.now() - age
        )
    policy = policy_create(
        account=account,
        rule=Rule(conditions={"min_age_days": 180, "max_opened_count": 0}),
        name="",
        allow_auto_name=True,
        mode="auto",
        enabled=True,
    )
    _runs_over_six_weeks(account, policy)
    _ninety_days(account)
    DOCS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 1400})

    page.goto(f"/a/acme/settings/policies/{policy.pk}/")
    page.wait_for_selector("#forecast-chart")
    page.screenshot(path=str(DOCS / "policy-over-time.png"))  # the charts; the run table goes on below

    page.goto("/a/acme/settings/health/")
    page.wait_for_selector("#health-runs")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=str(DOCS / "health.png"), full_page=True)
