"""Screenshots of the Explorer for docs/ (written only when LORE_SCREENSHOTS=1; see scripts/screenshots.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from lore.demo import demo_store_create
from tests.browser.test_explorer import back_to_list

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DOCS = Path(__file__).resolve().parents[2] / "docs"

if os.environ.get("LORE_SCREENSHOTS") != "1":
    pytest.skip(
        "screenshots are written when LORE_SCREENSHOTS=1 (scripts/screenshots.py)", allow_module_level=True
    )


def shot(page, name: str) -> None:  # noqa: ANN001
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / f"explorer-{name}.png"), full_page=False)


def test_screenshots_of_the_explorer(page, account) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    page.wait_for_selector("[data-empty]")
    shot(page, "empty")

    demo_store_create(account, lessons=int(os.environ.get("LORE_SCREENSHOT_LESSONS", "3000")))
    page.goto("/a/acme/explorer/")
    page.wait_for_selector(".lesson-row")
    shot(page, "demo")

    page.goto(
        "/a/acme/explorer/?scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0&kind=lesson,gotcha"
    )
    page.wait_for_selector("[data-candidate-note]")
    shot(page, "filtered")

    page.click("[data-fc-toggle]")
    page.wait_for_selector("[data-fc-filter]")
    shot(page, "menu")

    page.click('[data-fc-entry="chosen"]')
    expect(page.locator("[data-fc-typed]").first).to_be_focused()
    page.fill("[data-fc-typed]", ">40")
    page.wait_for_selector('.fc-options[data-fc-for=">40"]')
    shot(page, "menu-typed")

    page.fill("[data-fc-typed]", "")
    page.wait_for_selector('.fc-options[data-fc-for=""] .fc-count')
    shot(page, "menu-presets")  # each preset with the lessons it would leave in view

    # The histogram of Delivered in this view, its marker at a typed value (the menu alone, legible in the README).
    back_to_list(page)
    page.click('[data-fc-entry="delivered"]')
    expect(page.locator("[data-fc-typed]").first).to_be_focused()
    page.keyboard.type("150")
    page.wait_for_selector('.fc-options[data-fc-for="150"] .fc-count')
    expect(page.locator("[data-hist-sentence]")).to_contain_text("150 times or fewer")
    page.locator("#fc-menu").screenshot(path=str(DOCS / "explorer-menu-histogram.png"))

    back_to_list(page)
    page.click('[data-fc-entry="host"]')
    page.wait_for_selector(".fc-count")
    shot(page, "menu-values")

    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    page.click(".lesson-row .lesson-key")
    page.wait_for_selector("[data-sheet]")
    shot(page, "sheet")

    page.keyboard.press("Escape")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/explorer/?retention=min_age_days:90,max_opened_count:0")
    page.wait_for_selector(".lesson-row")
    shot(page, "phone")
