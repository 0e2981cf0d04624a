"""The Explorer in headless Chromium against a live server with a seeded store (issue 5, "Show")."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.http import QueryDict
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from explorer.state import ExplorerState
from lore.candidates import candidates
from lore.demo import demo_store_create
from lore.models import Lesson, ReadEvent
from lore.reads import reads_settle
from policies import grooming

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def store(account):  # noqa: ANN001, ANN201
    demo_store_create(account, lessons=400, seed=11)
    return account


def pills(page: Page) -> list[str]:
    return page.locator("#pill-row .pill-text").all_inner_texts()


def open_menu(page: Page) -> None:
    page.click("[data-fc-toggle]")
    expect(page.locator("#fc-menu")).to_be_visible()


def open_section(page: Page, key: str) -> None:
    page.click(f'[data-fc-entry="{key}"]')
    # Focus moves to the section's search box once htmx has settled it (and wired its input to the server).
    expect(page.locator("[data-fc-typed]")).to_be_focused()


def back_to_list(page: Page) -> None:
    page.click("[data-fc-back]")
    # Focus moves to the list's search box once htmx has settled the list (and wired its entries to the server): a
    # click on an entry before that lands on an element htmx has not processed yet, and opens nothing.
    expect(page.locator("[data-fc-filter]")).to_be_focused()


def type_and_pick(page: Page, typed: str, label: str) -> None:
    page.fill("[data-fc-typed]", typed)
    option = page.locator("[data-fc-choice]", has_text=label)
    expect(option).to_have_count(1)
    option.click()


def url_state(page: Page) -> ExplorerState:
    return ExplorerState.from_query(QueryDict(urlsplit(page.url).query))


def counts_loaded(page: Page) -> None:
    """After an htmx swap the counts load in a second request; wait until they have replaced the placeholders."""
    expect(page.locator("[data-stats-pending]")).to_have_count(0)
    expect(page.locator("[data-stats]")).to_have_count(1)


def card(page: Page, name: str) -> int:
    counts_loaded(page)
    return int(page.locator(f'[data-card="{name}"] .card-value').inner_text().replace(",", ""))


def all_row_keys(page: Page) -> list[str]:
    while page.locator("[data-load-more]").count():
        before = page.locator(".lesson-row").count()
        page.click("[data-load-more]")
        expect(page.locator(".lesson-row")).not_to_have_count(before)
    return page.locator(".lesson-row").evaluate_all("rows => rows.map(r => r.dataset.key)")


def test_type_45_under_created_then_chain_a_second_condition_without_reopening_the_menu(
    page: Page, store
) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    open_menu(page)
    open_section(page, "created")
    type_and_pick(page, "45", "More than 45 days ago")
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Created: more than 45 days ago"])
    # The menu stayed open and is back at its list: the next condition is one click away.
    expect(page.locator("#fc-menu")).to_be_visible()
    expect(page.locator('[data-fc-entry="chosen"]')).to_be_visible()
    open_section(page, "chosen")
    type_and_pick(page, ">40", "41 times or more")
    expect(page.locator("#pill-row .pill-text")).to_have_text(
        ["Created: more than 45 days ago", "Chosen: 41 times or more"]
    )
    assert "retention=min_age_days:45,min_opened_count:41" in page.url


def test_a_bare_number_offers_both_directions(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    open_menu(page)
    open_section(page, "chosen")
    page.fill("[data-fc-typed]", "40")
    expect(page.locator("[data-fc-choice] .fc-choice-label")).to_have_text(
        ["40 times or fewer", "40 times or more"]
    )


def test_an_applied_custom_value_shows_a_custom_row_when_reopened(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/?retention=min_age_days:45")
    open_menu(page)
    open_section(page, "created")
    first = page.locator("[data-fc-choice]").first
    expect(first).to_contain_text("More than 45 days ago")
    expect(first.locator(".fc-custom")).to_have_text("custom")
    expect(first).to_have_attribute("aria-checked", "true")


def test_picking_the_other_direction_replaces_the_row(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/?retention=max_opened_count:5")
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Chosen: 5 times or fewer"])
    open_menu(page)
    open_section(page, "chosen")
    page.locator("[data-fc-choice]", has_text="10 times or more").click()
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Chosen: 10 times or more"])
    assert url_state(page).rule.conditions == {"min_opened_count": 10}


def test_the_menu_is_fully_keyboard_usable(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    page.focus("[data-fc-toggle]")
    page.keyboard.press("Enter")
    expect(page.locator("[data-fc-filter]")).to_be_focused()
    page.keyboard.type("crea")
    page.keyboard.press("Enter")
    expect(page.locator("[data-fc-typed]")).to_be_focused()
    page.keyboard.type("45")
    page.keyboard.press("Enter")
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Created: more than 45 days ago"])
    # Back at the list with focus in the menu's search box; arrows walk the rows, Escape closes.
    expect(page.locator("[data-fc-filter]")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.locator("[data-fc-entry]").first).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#fc-menu")).to_be_hidden()
    expect(page.locator("[data-fc-toggle]")).to_be_focused()


def test_pills_rows_cards_matrix_and_value_counts_agree_with_the_candidate_query(page: Page, store) -> None:  # noqa: ANN001
    query = "retention=min_age_days:30,max_opened_count:0&kind=lesson"
    page.goto(f"/a/acme/explorer/?{query}")
    state = url_state(page)
    expected = grooming.preview(store, state.rule).count
    assert expected > 50  # several pages of rows
    assert pills(page) == ["Created: more than 30 days ago", "Chosen: never chosen", "Kind: is lesson"]
    assert card(page, "lessons") == expected
    keys = all_row_keys(page)
    assert len(keys) == len(set(keys)) == expected
    assert set(keys) == set(candidates(store, state.rule).values_list("key", flat=True))
    # The matrix (Host × Kind) keeps the kind filter: its only column is "lesson", and it totals the list.
    assert header_texts(page, "thead th")[1:-1] == ["lesson (filtered)"]
    cells = page.locator("[data-matrix] tbody td[data-count]").evaluate_all(
        "cells => cells.map(c => Number(c.dataset.count))"
    )
    assert sum(cells) == expected
    # Per-value counts: Kind → lesson shows the same number (its own filter left out, everything else in).
    open_menu(page)
    open_section(page, "kind")
    lesson_row = page.locator("[data-fc-choice]", has_text=re.compile(r"^\s*✓?\s*lesson\b"))
    expect(lesson_row.locator(".fc-count")).to_have_text(str(expected))


def test_reload_and_a_pasted_url_restore_the_same_view(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    open_menu(page)
    open_section(page, "created")
    type_and_pick(page, "90", "More than 90 days ago")
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Created: more than 90 days ago"])
    page.select_option("#sort-picker", "opened_count")
    expect(page).to_have_url(re.compile(r"sort=opened_count"))
    url = page.url
    first_keys = page.locator(".lesson-row").evaluate_all("rows => rows.map(r => r.dataset.key)")
    page.reload()
    assert pills(page) == ["Created: more than 90 days ago"]
    assert page.locator("#sort-picker").input_value() == "opened_count"
    assert page.locator(".lesson-row").evaluate_all("rows => rows.map(r => r.dataset.key)") == first_keys
    other = page.context.new_page()
    other.goto(url)
    assert other.locator("#pill-row .pill-text").all_inner_texts() == ["Created: more than 90 days ago"]
    assert other.locator(".lesson-row").evaluate_all("rows => rows.map(r => r.dataset.key)") == first_keys


def test_back_and_forward_walk_through_the_states(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    open_menu(page)
    open_section(page, "created")
    type_and_pick(page, "45", "More than 45 days ago")
    expect(page.locator("#pill-row .pill-text")).to_have_count(1)
    open_section(page, "recurrence")
    page.locator("[data-fc-choice]", has_text="1 time or fewer").click()
    expect(page.locator("#pill-row .pill-text")).to_have_count(2)
    page.go_back()
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Created: more than 45 days ago"])
    assert parse_qs(urlsplit(page.url).query) == {"retention": ["min_age_days:45"]}
    page.go_back()
    expect(page.locator("#pill-row .pill-text")).to_have_count(0)
    page.go_forward()
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Created: more than 45 days ago"])


def test_create_retention_policy_is_hidden_for_a_reverse_condition(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/?retention=min_age_days:90,min_opened_count:10")
    expect(page.locator("[data-create-policy]")).to_have_count(0)
    expect(page.locator("[data-policy-hint]")).to_contain_text("Chosen: 10 times or more")
    page.locator('[data-pill="min_opened_count"] .pill-remove').click()
    link = page.locator("[data-create-policy]")
    expect(link).to_be_visible()


def test_create_retention_policy_hands_the_full_rule_to_new_policy(page: Page, store) -> None:  # noqa: ANN001
    page.goto(
        "/a/acme/explorer/?scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0"
        "&kind=bus&tags=ci::pr-review-state&tags_mode=all"
    )
    link = page.locator("[data-create-policy]")
    assert link.get_attribute("href") == (
        "/a/acme/settings/policies/new/?scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0"
        "&tags=ci::pr-review-state&tags_mode=all&kind=bus&kind_mode=in"
    )
    link.click()
    expect(page).to_have_url(re.compile(r"/a/acme/settings/policies/new/"))
    # The dialog uses the same filter control, pre-filled with every condition and filter.
    for name, value in (
        ("min_age_days", "90"),
        ("max_opened_count", "0"),
        ("kind", "bus"),
        ("tags", "ci::pr-review-state"),
        ("tags_mode", "all"),
    ):
        expect(page.locator(f'.fc-state input[name="{name}"]')).to_have_value(value)


def test_the_detail_sheet_bumps_delivered_and_not_chosen(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    row = page.locator(".lesson-row").first
    lesson = Lesson.objects.get(account=store, key=row.get_attribute("data-key"))
    row.locator(".lesson-key").click()
    sheet = page.locator("[data-sheet]")
    expect(sheet).to_be_visible()
    expect(sheet.locator('[data-signal="delivered"]')).to_have_text(f"{lesson.read_count + 1:,}")
    expect(sheet.locator('[data-signal="chosen"]')).to_have_text(f"{lesson.opened_count:,}")
    reads_settle(store)  # the buffered read, folded (lore.reads)
    after = Lesson.objects.get(pk=lesson.pk)
    assert (after.read_count, after.opened_count, after.last_opened_at) == (
        lesson.read_count + 1,
        lesson.opened_count,
        lesson.last_opened_at,
    )
    assert ReadEvent.objects.filter(surface="dashboard").count() == 1
    page.keyboard.press("Escape")
    expect(sheet).to_have_count(0)


def test_pin_from_the_sheet_updates_the_list(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/?retention=max_opened_count:0")
    row = page.locator(".lesson-row").first
    key = row.get_attribute("data-key")
    before = card(page, "lessons")
    row.locator(".lesson-key").click()
    page.click('[data-action="pin"]')
    expect(page.locator('[data-action="unpin"]')).to_be_visible()
    # A protected lesson leaves the candidate list.
    expect(page.locator(f'.lesson-row[data-key="{key}"]')).to_have_count(0)
    assert card(page, "lessons") == before - 1


def test_on_the_standalone_sheet_page_archive_and_restore_swap_the_sheet_in_place(page: Page, store) -> None:  # noqa: ANN001
    lesson = Lesson.objects.filter(account=store, archived_at=None, protected=False).order_by("pk").first()
    assert lesson is not None
    page.goto(f"/a/acme/explorer/lessons/{lesson.pk}/")
    page.click('[data-action="archive"]')
    expect(page.locator('[data-action="restore"]')).to_be_visible()
    lesson.refresh_from_db()
    assert lesson.archived_at is not None
    page.click('[data-action="restore"]')
    expect(page.locator('[data-action="archive"]')).to_be_visible()
    lesson.refresh_from_db()
    assert lesson.archived_at is None
    # Its close button goes back to the Explorer rather than leaving an empty page.
    page.click("[data-sheet-close]")
    expect(page).to_have_url(re.compile(r"/a/acme/explorer/$"))


def test_sort_most_chosen_orders_by_opened_count(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    page.select_option("#sort-picker", "opened_count")
    expect(page).to_have_url(re.compile(r"sort=opened_count"))
    chosen = page.locator('.lesson-row [data-col="chosen"]').all_inner_texts()
    values = [int(v.replace(",", "")) for v in chosen]
    assert values == sorted(values, reverse=True) and values[0] > values[-1]
    top = list(Lesson.objects.filter(account=store, archived_at=None).order_by("-opened_count", "-pk")[:50])
    assert values == [lesson.opened_count for lesson in top]


def test_clicking_a_matrix_cell_adds_both_values_as_pills(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    cell = page.locator("[data-matrix] a.cell").first
    count = int(cell.inner_text().replace(",", ""))
    cell.click()
    expect(page.locator("#pill-row .pill-text")).to_have_count(2)
    texts = pills(page)
    assert texts[0].startswith("Kind: is ") and texts[1].startswith("Host: is ")
    assert card(page, "lessons") == count


def test_restore_many_from_the_archived_view(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/?archived=1")
    boxes = page.locator('input[name="ids"]')
    archived = boxes.count()
    assert archived > 2
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.click("[data-restore-selected]")
    expect(page.locator(".notice")).to_contain_text("Restored 2 lessons.")
    expect(page.locator('input[name="ids"]')).to_have_count(archived - 2)


def test_a_malformed_url_shows_a_notice_in_the_browser(page: Page, store) -> None:  # noqa: ANN001
    response = page.goto("/a/acme/explorer/?retention=min_age_days:-5,max_opened_count:0&sort=sideways")
    assert response is not None and response.status == 200
    expect(page.locator(".notice")).to_have_count(2)
    assert pills(page) == ["Chosen: never chosen"]


def test_a_custom_date_range_narrows_to_lessons_written_in_it(page: Page, store) -> None:  # noqa: ANN001
    from datetime import timedelta

    from django.utils import timezone

    page.goto("/a/acme/explorer/")
    page.select_option("#range-picker", "custom")
    expect(page.locator("[data-custom-range]")).to_be_visible()
    since = (timezone.now() - timedelta(days=30)).date()
    page.fill("#range-from", since.isoformat())
    expect(page).to_have_url(re.compile(rf"range={since.isoformat()}\.\."))
    expected = Lesson.objects.filter(account=store, archived_at=None, created_at__date__gte=since).count()
    assert card(page, "lessons") == expected
    expect(page.locator("#range-picker")).to_have_value("custom")
    page.reload()
    expect(page.locator("#range-from")).to_have_value(since.isoformat())


def test_typing_in_the_search_box_narrows_the_list_and_keeps_focus(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/")
    page.click("#q")
    page.keyboard.type("hydration")
    expect(page).to_have_url(re.compile(r"q=hydration"))
    expect(page.locator("#q")).to_be_focused()
    expect(page.locator("#q")).to_have_value("hydration")
    from lore.selectors import text_search_q  # full-text on PostgreSQL, containment on SQLite

    expected = (
        Lesson.objects.filter(account=store, archived_at=None).filter(text_search_q("hydration")).count()
    )
    assert expected
    expect(page.locator('[data-card="lessons"] .card-value')).to_have_text(f"{expected:,}")
    keys = page.locator(".lesson-row").evaluate_all("rows => rows.map(r => r.dataset.key)")
    contents = Lesson.objects.filter(account=store, key__in=keys).values_list("content", flat=True)
    assert keys and all("hydration" in content.lower() for content in contents)


def test_after_a_swap_the_list_arrives_first_and_the_counts_follow_and_agree(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/?retention=min_age_days:30,max_opened_count:0&kind=lesson")
    page.locator('[data-pill="kind"] .pill-remove').click()
    expect(page.locator("#pill-row .pill-text")).to_have_text(
        ["Created: more than 30 days ago", "Chosen: never chosen"]
    )
    expected = grooming.preview(store, url_state(page).rule).count
    assert card(page, "lessons") == expected
    expect(page.locator(".list-count")).to_contain_text(f"{expected:,} lessons")
    cells = page.locator("[data-matrix] tbody td.total").evaluate_all("cells => cells.length")
    assert cells  # the matrix came with the counts


def test_counts_that_arrive_after_a_newer_swap_never_overwrite_its_numbers(page: Page, store) -> None:  # noqa: ANN001
    held = []

    def hold_the_first(route) -> None:  # noqa: ANN001
        if held:
            route.continue_()
        else:
            held.append(route)

    page.goto("/a/acme/explorer/?retention=min_age_days:30,max_opened_count:0&kind=lesson")
    page.route("**/explorer/stats/**", hold_the_first)
    page.locator('[data-pill="kind"] .pill-remove').click()  # view A: its counts are held back
    expect(page.locator("[data-stats-pending]")).to_have_count(1)
    for _ in range(500):  # let the held request reach the route handler (events dispatch while waiting)
        if held:
            break
        page.wait_for_timeout(10)
    page.locator('[data-pill="max_opened_count"] .pill-remove').click()  # view B, counted at once
    expect(page.locator("#pill-row .pill-text")).to_have_text(["Created: more than 30 days ago"])
    expected = grooming.preview(store, url_state(page).rule).count
    assert card(page, "lessons") == expected
    assert held, "view A's counts were never requested"
    try:  # the page abandons the older request when the newer body arrives; if it still answers, it lands nowhere
        held[0].continue_()
    except PlaywrightError:
        pass
    page.wait_for_load_state("networkidle")
    assert card(page, "lessons") == expected
    expect(page.locator(".list-count")).to_contain_text(f"{expected:,} lessons")


def test_counts_that_fail_to_load_say_so_and_can_be_tried_again(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/?retention=min_age_days:30,max_opened_count:0&kind=lesson")
    page.route("**/explorer/stats/**", lambda route: route.fulfill(status=500, body="boom"))
    page.locator('[data-pill="kind"] .pill-remove').click()
    expect(page.locator("[data-stats-hint]")).to_contain_text("The counts could not be loaded")
    expect(page.locator(".list-count")).to_contain_text("Count unavailable")
    expect(page.locator("[data-stats-pending]")).to_have_attribute("aria-busy", "false")
    page.unroute("**/explorer/stats/**")
    page.click("[data-stats-retry]")
    expected = grooming.preview(store, url_state(page).rule).count
    assert card(page, "lessons") == expected
    expect(page.locator(".list-count")).to_contain_text(f"{expected:,} lessons")


def header_texts(page: Page, where: str) -> list[str]:
    """The matrix's headers as a screen reader reads them (the "(filtered)" mark included)."""
    counts_loaded(page)
    return page.locator(f"[data-matrix] {where}").evaluate_all("ths => ths.map(t => t.textContent.trim())")


def matrix_total(page: Page) -> int:
    counts_loaded(page)
    return int(page.locator("[data-matrix-total]").get_attribute("data-matrix-total") or "-1")


def test_the_matrix_totals_exactly_the_list_with_filters_on_both_of_its_axes(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/?kind=gotcha,lesson&kind_mode=in&host=codex&host_mode=in")
    listed = len(all_row_keys(page))
    assert listed == card(page, "lessons") > 0
    assert matrix_total(page) == listed
    assert sorted(header_texts(page, "thead th")[1:-1]) == ["gotcha (filtered)", "lesson (filtered)"]
    assert header_texts(page, "tbody th") == ["codex (filtered)"]
    # an exclusion on an axis too: the excluded value is not in the matrix, and the total still is the list
    page.goto("/a/acme/explorer/?host=codex&host_mode=nin&retention=min_age_days:30")
    counts_loaded(page)
    assert "codex" not in header_texts(page, "tbody th")
    assert matrix_total(page) == card(page, "lessons")


def test_a_label_axis_says_a_lesson_counts_once_per_label(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/a/acme/explorer/?matrix=tags,host&host=codex")
    counts_loaded(page)
    expect(page.locator("[data-matrix-per-label]")).to_contain_text("counts once per label")
    page.goto("/a/acme/explorer/?matrix=kind,host&host=codex")
    counts_loaded(page)
    expect(page.locator("[data-matrix-per-label]")).to_have_count(0)
