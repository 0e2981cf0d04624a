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


# ---------------------------------------------------------------- point 5: pills you can edit


def test_clicking_a_pill_opens_its_section_with_its_value_selected(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/?retention=max_opened_count:0&kind=lesson")
    page.locator('[data-pill="max_opened_count"] .pill-text').click()
    menu = page.locator("#fc-menu")
    expect(menu).to_be_visible()
    expect(menu.locator(".fc-section-head strong")).to_have_text("Chosen")
    expect(menu.locator('[data-fc-choice][aria-checked="true"] .fc-choice-label')).to_have_text(
        ["Never chosen"]
    )
    expect(page.locator('[data-pill="max_opened_count"] .pill-remove')).to_be_visible()  # removing stays
    menu.locator("[data-fc-choice]", has_text="2 times or fewer").click()
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Chosen: 2 times or fewer", "Kind: is lesson"])
    page.locator('[data-pill="kind"] .pill-text').click()
    expect(menu.locator(".fc-section-head strong")).to_have_text("Kind")
    expect(menu.locator('[data-fc-choice][aria-checked="true"] .fc-choice-label')).to_have_text(["lesson"])


# ---------------------------------------------------------------- point 4: keyboard only


def tab_to(page: Page, selector: str, presses: int = 80) -> None:
    """Press Tab (keyboard only) until the focused element matches `selector`."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def focused(page: Page, selector: str) -> bool:
    return bool(page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector))


def test_after_a_pill_is_removed_focus_lands_on_the_next_pill_then_the_filter_button(
    page: Page, store
) -> None:  # noqa: ANN001
    page.goto("/explorer/?retention=min_age_days:30&kind=lesson&host=codex")
    tab_to(page, '[data-pill="min_age_days"] .pill-remove')
    page.keyboard.press("Enter")
    expect(page.locator("#pill-row .pill")).to_have_count(2)
    expect(page.locator('[data-pill="kind"] .pill-text')).to_be_focused()
    tab_to(page, '[data-pill="host"] .pill-remove')
    page.keyboard.press("Enter")
    expect(page.locator("#pill-row .pill")).to_have_count(1)
    expect(page.locator("[data-fc-toggle]")).to_be_focused()  # no pill after it


def test_a_pill_is_edited_by_keyboard_alone(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/?retention=min_age_days:30")
    tab_to(page, '[data-pill="min_age_days"] .pill-text')
    page.keyboard.press("Enter")
    page.keyboard.type("45")
    page.keyboard.press("Enter")
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Created: more than 45 days ago"])


def test_after_every_swap_focus_lands_somewhere_sensible_and_every_action_is_reachable_by_keyboard(
    page: Page,
    store,  # noqa: ANN001
) -> None:
    page.goto("/explorer/")
    # The detail sheet: open with Enter, close with Escape, focus back on the row it came from.
    tab_to(page, ".lesson-row .lesson-key")
    key = page.evaluate("document.activeElement.closest('.lesson-row').dataset.key")
    page.keyboard.press("Enter")
    expect(page.locator("[data-sheet]")).to_be_visible()
    expect(page.locator("[data-sheet-close]")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator(f'.lesson-row[data-key="{key}"] .lesson-key')).to_be_focused()
    # Load more: focus moves to the first row that arrived.
    tab_to(page, "[data-load-more]")
    page.keyboard.press("Enter")
    expect(page.locator(".lesson-row")).to_have_count(100)
    expect(page.locator(".lesson-row").nth(50).locator(".lesson-key")).to_be_focused()
    # A matrix cell: the view narrows and focus is not lost to the page.
    page.keyboard.press("Home")
    tab_to(page, "[data-matrix] a.cell")
    page.keyboard.press("Enter")
    expect(page.locator("#pill-row .pill")).to_have_count(2)
    # Focus comes back when the swap settles (htmx:afterSettle), a moment after the pills arrive: wait for it.
    expect(page.locator(":focus")).to_have_count(1)
    assert not focused(page, "body")
    # The Archived tab: focus stays on the tab that is now current.
    tab_to(page, "[data-archived-tab]")
    page.keyboard.press("Enter")
    expect(page.locator('[data-archived-tab][aria-current="page"]')).to_be_focused()


# ---------------------------------------------------------------- point 7: the menu says it scrolls


def test_the_filter_menu_says_there_is_more_below_its_fold_until_scrolled_to_the_end(
    page: Page, store
) -> None:  # noqa: ANN001
    page.set_viewport_size({"width": 1400, "height": 600})
    page.goto("/explorer/")
    open_menu(page)
    chosen = page.locator('[data-fc-entry="chosen"]')
    assert not chosen.evaluate(
        "el => { const m = el.closest('.fc-menu').getBoundingClientRect(), r = el.getBoundingClientRect();"
        " return r.bottom <= m.bottom; }"
    )  # Chosen starts below the fold at this height
    hint = page.locator("[data-fc-more]")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("More below")
    page.locator("#fc-menu").evaluate("m => { m.scrollTop = m.scrollHeight; }")
    expect(hint).to_be_hidden()
    expect(chosen).to_be_in_viewport()


def test_no_page_asks_for_anything_that_is_not_there(page: Page, store) -> None:  # noqa: ANN001
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
    for url in ("/explorer/", "/settings/policies/", "/settings/tokens/"):
        page.goto(url)
        page.wait_for_load_state("networkidle")
    assert missing == []
    icon = page.evaluate("document.querySelector('link[rel=icon]').href")
    assert page.request.get(icon).status == 200


def test_keys_typed_after_the_menu_is_closed_belong_to_the_page_again(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/")
    held: list = []  # the section's request, held until the menu is closed: it is surely still on its way
    page.route("**/explorer/menu/?*section=chosen*", lambda route: held.append(route))
    open_menu(page)
    page.click('[data-fc-entry="chosen"]')
    expect(page.locator(".fc-menu[data-fc-loading]")).to_have_count(1)
    page.keyboard.press("Escape")
    expect(page.locator("#fc-menu")).to_be_hidden()
    assert held  # the request was indeed held
    for route in held:
        route.continue_()
    page.click("#q")
    page.keyboard.type("cache")
    expect(page.locator("#q")).to_have_value("cache")
