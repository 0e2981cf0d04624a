"""Screenshots of Settings → Retention Policies for docs/ (written only when LORE_SCREENSHOTS=1).

LORE_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser/test_settings_screenshots.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lore.conditions import DimFilter, Rule
from lore.demo import demo_store_create
from policies import grooming
from policies.services import policy_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DOCS = Path(__file__).resolve().parents[2] / "docs"

if os.environ.get("LORE_SCREENSHOTS") != "1":
    pytest.skip("screenshots are written when LORE_SCREENSHOTS=1", allow_module_level=True)


def shot(page, name: str) -> None:  # noqa: ANN001
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / f"settings-{name}.png"), full_page=False)


def test_screenshots_of_settings(page, account) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=int(os.environ.get("LORE_SCREENSHOT_LESSONS", "3000")))
    unused = policy_create(
        account=account,
        rule=Rule(conditions={"min_age_days": 90, "max_opened_count": 0}),
        name="",
        allow_auto_name=True,
    )
    policy_create(
        account=account,
        rule=Rule(
            scope="repo::acme/app",
            conditions={"min_age_days": 30},
            dimensions={
                "kind": DimFilter(("bus",), "in"),
                "tags": DimFilter(("ci::pr-review-state",), "all"),
            },
        ),
        name="stale ci review events",
        mode="auto",
        enabled=True,
    )
    stale = policy_create(
        account=account,
        rule=Rule(scope="repo::acme/app", conditions={"unseen_days": 180}),
        name="stale repo lore",
        mode="auto",
    )
    run = grooming.run_start(account=account, policy=unused, trigger="manual", actor="user:alice")
    assert run is not None
    grooming.run_execute(run.pk)

    page.goto("/a/acme/settings/policies/")
    page.wait_for_selector(".matches .count")
    page.wait_for_timeout(300)
    shot(page, "list")

    page.goto(
        "/a/acme/explorer/?scope=repo::acme/app&retention=min_age_days:90,unseen_days:90&kind=lesson,gotcha"
    )
    page.click("[data-create-policy]")
    page.wait_for_selector("#policy-dialog[open]")
    shot(page, "dialog")
    page.click("#policy-dialog [data-fc-toggle]")
    page.click('#policy-dialog [data-fc-entry="chosen"]')
    page.wait_for_selector("#policy-dialog .fc-choice")
    shot(page, "dialog-menu")

    page.goto(f"/a/acme/settings/runs/{run.pk}/")
    page.wait_for_selector('#run-progress[data-status="done"]')
    shot(page, "run")

    page.goto(f"/a/acme/settings/policies/{stale.pk}/run/")
    shot(page, "run-confirm")

    page.goto("/a/acme/settings/tokens/")
    page.fill("#id_name", "laptop")
    page.click(".token-form button[type=submit]")
    page.wait_for_selector("#token-export")
    shot(page, "tokens")
