"""The Findings page in headless Chromium: inventory → review the evidence → apply → undo."""

from __future__ import annotations

import pytest

from lore.models import Finding, Lesson
from tests.lore.garden_helpers import write

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
UV = "Use uv instead of pip for every install; the lockfile is uv.lock and CI checks it."


def test_inventory_then_review_the_evidence_apply_and_undo(page, account) -> None:  # noqa: ANN001
    keeper = write(account, "repo::acme/app", "use-uv", UV, opened=7)
    copies = [
        write(account, "branch::acme/app::main", f"use-uv-{n}", v)
        for n, v in enumerate([UV.lower(), "Note: " + UV])
    ]
    page.goto("/findings/")
    assert page.locator("[data-empty]").is_visible()
    page.click("text=Run the gardener now")
    page.wait_for_selector("[data-finding]")
    assert "queued: its findings appear here when it finishes" in page.inner_text(".flash")
    last_run = page.inner_text("[data-last-run]")
    assert "2 new findings" not in last_run and "1 new findings" in last_run
    finding = page.locator("[data-finding]").first
    evidence = finding.locator("[data-evidence]").inner_text()
    assert "Similarity" in evidence and "threshold 0.5" in evidence
    assert finding.locator('[data-action="keep"]').inner_text().count("use-uv") == 1
    assert finding.locator('[data-action="retire"]').count() == 2

    finding.locator("[data-apply]").click()
    page.wait_for_selector(".flash")
    assert "2 lessons retired" in page.inner_text(".flash")
    retired = Lesson.objects.filter(pk__in=[c.pk for c in copies])
    assert all(x.archived_at and x.superseded_by_id == keeper.pk for x in retired)
    page.locator("[data-finding] a", has_text="use-uv-0").click()
    page.wait_for_selector("[data-superseded-by]")
    assert page.locator("[data-superseded-by]").inner_text() == keeper.address

    page.goto("/findings/?status=applied")
    page.locator("[data-undo]").click()
    page.wait_for_selector(".flash")
    assert "2 lessons restored" in page.inner_text(".flash")
    assert not Lesson.objects.filter(account=account, archived_at__isnull=False).exists()
    assert Finding.objects.get().status == "dismissed"
