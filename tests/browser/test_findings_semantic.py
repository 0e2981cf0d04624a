"""A possible duplicate on the Findings page in headless Chromium: the person picks the lesson to keep from an
accessible radio group, by keyboard, at desktop and phone widths, and applies."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from lore.garden.inventory import garden_inventory
from lore.models import Finding, Lesson
from tests.browser.test_pages_accessible import DESKTOP, PHONE, axe_violations, sideways
from tests.lore.garden_helpers import write
from tests.lore.test_garden_semantic import LOG, LOG_SAID_OTHERWISE, needs_model

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), needs_model]


def test_a_person_picks_the_lesson_to_keep_by_keyboard_and_the_page_passes_axe_and_fits_a_phone(
    page: Page, account, settings
) -> None:  # noqa: ANN001
    settings.LORE_GARDEN_SEMANTIC = True
    first = write(account, "repo::acme/app", "log-json", LOG, opened=4)
    second = write(account, "repo::acme/app", "log-json-said-otherwise", LOG_SAID_OTHERWISE)
    garden_inventory(account)
    assert Finding.objects.filter(kind="possible_duplicate").count() == 1
    problems: list[str] = []
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        page.goto("/findings/?kind=possible_duplicate")
        where = f"findings with a possible duplicate at {size['width']} px"
        problems += axe_violations(page, where) + sideways(page, where)
    assert not problems, "\n".join(problems)
    page.set_viewport_size(DESKTOP)
    page.goto("/findings/?kind=possible_duplicate")
    assert page.locator("[data-keep-form] legend").inner_text().startswith("Review only")
    page.locator(f'[data-keep="{first.pk}"]').focus()
    page.keyboard.press("ArrowDown")  # arrows move the choice within the group, as in any radio group
    assert page.locator(f'[data-keep="{second.pk}"]').is_checked()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector(".flash")
    assert "1 lessons retired" in page.inner_text(".flash")
    first.refresh_from_db()
    assert first.archived_at is not None and first.superseded_by_id == second.pk
    assert Lesson.objects.filter(pk=second.pk, archived_at__isnull=True).exists()
