"""Issue 17 in Chromium: keystrokes typed at once land in order, pills open their section, focus after swaps,
and everything reachable by keyboard alone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from lore.demo import demo_store_create
from tests.browser.test_explorer import open_menu, pills, url_state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def store(account):  # noqa: ANN001, ANN201
    demo_store_create(account, lessons=120, seed=11)
    return account


def test_keys_typed_at_once_after_opening_chosen_reach_its_input_in_order(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/")
    open_menu(page)
    page.click('[data-fc-entry="chosen"]')
    page.keyboard.type(">40")  # no wait: the section is still on its way
    page.keyboard.press("Enter")
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Chosen: 41 times or more"])
    assert url_state(page).rule.conditions == {"min_opened_count": 41}


def test_keys_typed_at_once_after_opening_created_reach_its_input_in_order(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/")
    open_menu(page)
    page.click('[data-fc-entry="created"]')
    page.keyboard.type("45")
    page.keyboard.press("Enter")
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Created: more than 45 days ago"])
    assert url_state(page).rule.conditions == {"min_age_days": 45}


def test_keys_typed_at_once_from_the_menus_search_box_reach_the_section(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/")
    open_menu(page)
    page.keyboard.type("crea")
    page.keyboard.press("Enter")
    page.keyboard.type("45")
    page.keyboard.press("Enter")
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Created: more than 45 days ago"])
    assert url_state(page).rule.conditions == {"min_age_days": 45}


def test_enter_in_an_empty_custom_box_applies_nothing(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/")
    open_menu(page)
    page.click('[data-fc-entry="chosen"]')
    expect(page.locator("[data-fc-typed]")).to_be_focused()
    page.keyboard.press("Enter")
    page.click("[data-fc-back]")  # a later request: had Enter applied a preset, its answer came first
    expect(page.locator('[data-fc-entry="created"]')).to_be_visible()
    assert pills(page) == []
    assert url_state(page).rule.conditions == {}


def test_zero_under_a_counter_offers_only_never(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/")
    open_menu(page)
    page.click('[data-fc-entry="delivered"]')
    page.keyboard.type("0")
    expect(page.locator("[data-fc-choice] .fc-choice-label")).to_have_text(["Never delivered"])
