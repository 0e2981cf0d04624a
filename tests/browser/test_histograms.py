"""Issue 28, part 1, in Chromium: each Age & activity section of the filter menu draws a histogram of the lessons
in view; a typed value moves its marker and the counts on each side without a request; axe-core finds nothing at
1440 px and 390 px with a section open, and nothing scrolls sideways on a phone."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from lore.conditions import CONDITIONS
from lore.demo import demo_store_create
from lore.models import Lesson
from tests.browser.test_explorer import back_to_list, open_menu, open_section
from tests.browser.test_pages_accessible import axe_violations, sideways

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDE = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
FIGURE = "#fc-menu [data-histogram]"
SENTENCE = "#fc-menu [data-hist-sentence]"


@pytest.fixture
def store(account):  # noqa: ANN001, ANN201
    demo_store_create(account, lessons=160, seed=28)
    # Ages spread over three decades, so the Created histogram has bars on both sides of 30 and of 90 days.
    now = timezone.now()
    for n, pk in enumerate(Lesson.objects.filter(account=account).values_list("pk", flat=True)):
        Lesson.objects.filter(pk=pk).update(created_at=now - timedelta(days=1 + (n * 7) % 700))
    return account


def marker_x(page: Page) -> float:
    transform = page.locator(f"{FIGURE} [data-hist-marker]").get_attribute("transform") or ""
    return float(re.search(r"translate\(([-\d.]+)", transform).group(1))  # type: ignore[union-attr]


def numbers(text: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", text)]


def test_every_age_and_activity_section_draws_a_histogram_of_the_lessons_in_view(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/?kind=lesson,gotcha")
    open_menu(page)
    for cond in CONDITIONS:
        open_section(page, cond.key)
        figure = page.locator(FIGURE)
        expect(figure).to_be_visible()
        expect(figure.locator("svg[role=img]")).to_have_attribute("aria-labelledby", re.compile(r"\S"))
        heights = [
            float(h or 0)
            for h in figure.locator("[data-bin]").evaluate_all(
                "els => els.map(e => e.getAttribute('height'))"
            )
        ]
        assert any(heights), cond.key  # bars, not an empty frame
        in_view = Lesson.objects.filter(
            account=store, archived_at__isnull=True, kind__in=["lesson", "gotcha"], protected=False
        ).count()
        assert f"{in_view:,} lessons in view" in figure.locator("[data-hist-sentence]").inner_text(), cond.key
        back_to_list(page)


def test_typing_a_value_moves_the_marker_and_the_counts_on_each_side(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/")
    open_menu(page)
    open_section(page, "created")
    marker = page.locator(f"{FIGURE} [data-hist-marker]")
    expect(marker).to_have_attribute("visibility", "hidden")  # nothing applied, nothing typed
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))

    page.keyboard.type("30")
    expect(marker).not_to_have_attribute("visibility", "hidden")
    expect(page.locator(SENTENCE)).to_contain_text("More than 30 days ago:")
    at_30 = marker_x(page)
    kept, total, rest = numbers(page.locator(SENTENCE).inner_text())[1:4]
    assert kept + rest == total and kept and rest
    # The exact count on the marker's side is the one the option for the same value shows (the preset count).
    expect(page.locator('.fc-options[data-fc-for="30"] .fc-count')).to_have_text(f"{kept:,}")

    page.keyboard.type("0")  # 300: further right on the log axis
    expect(page.locator(SENTENCE)).to_contain_text("More than 300 days ago:")
    assert marker_x(page) > at_30
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")  # 3: left of 30
    expect(page.locator(SENTENCE)).to_contain_text("More than 3 days ago")
    assert marker_x(page) < at_30
    # 200 falls inside the 180–365 days bin: the chart gives the range the bin allows and sends the reader to the
    # option for the exact count.
    page.fill("[data-fc-typed]", "200")
    expect(page.locator(SENTENCE)).to_contain_text("falls inside the 180–365 days bin")
    expect(page.locator(SENTENCE)).to_contain_text("exact count is on the option below")
    fewest, most = numbers(page.locator(SENTENCE).inner_text())[1:3]
    exact = numbers(page.locator('.fc-options[data-fc-for="200"] .fc-count').inner_text())[0]
    assert fewest < most and fewest <= exact <= most
    # The marker moved without asking the server for the chart: only the options were fetched.
    assert all("part=options" in url for url in requests if "/menu/" in url)


def test_a_preset_under_focus_moves_the_marker_and_the_applied_value_is_marked(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/?retention=max_opened_count:2")
    open_menu(page)
    open_section(page, "chosen")
    expect(page.locator(SENTENCE)).to_contain_text("2 times or fewer:")
    applied = marker_x(page)
    page.keyboard.press("ArrowDown")  # the first choice: 2 is a preset, so no custom row comes first
    first = page.locator("#fc-menu [data-fc-choice]").first
    expect(first).to_be_focused()
    assert marker_x(page) != applied
    kept = numbers(page.locator(SENTENCE).inner_text())
    assert first.locator(".fc-count").inner_text().replace(",", "") in {str(n) for n in kept}


def test_the_bins_are_a_table_behind_a_toggle_the_tab_key_reaches(page: Page, store) -> None:  # noqa: ANN001
    page.goto("/explorer/")
    open_menu(page)
    open_section(page, "delivered")
    summary = page.locator(f"{FIGURE} summary")
    page.keyboard.press("Tab")  # from the section's box, the next stop is the chart's table toggle
    expect(summary).to_be_focused()
    page.keyboard.press("Enter")
    table = page.locator(f"{FIGURE} table")
    expect(table).to_be_visible()
    rows = table.locator("tbody tr")
    assert rows.count() == page.locator(f"{FIGURE} [data-bin]").count()


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1440px", "390px"])
def test_an_open_section_with_its_histogram_passes_axe_and_fits_the_screen(
    page: Page, store, viewport
) -> None:  # noqa: ANN001
    page.set_viewport_size(viewport)  # type: ignore[arg-type]
    problems: list[str] = []
    page.goto("/explorer/?retention=min_age_days:45")
    open_menu(page)
    for cond in CONDITIONS:
        open_section(page, cond.key)
        page.keyboard.type("40")
        expect(page.locator('.fc-options[data-fc-for="40"]')).to_have_count(1)
        page.locator(f"{FIGURE} summary").click()  # the table open too
        where = f"{cond.key} at {viewport['width']} px"
        problems += axe_violations(page, where)
        if viewport is PHONE:
            problems += sideways(page, where)
            box = page.locator(f"{FIGURE} svg").bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], where
        back_to_list(page)
    assert not problems, "\n".join(problems)
