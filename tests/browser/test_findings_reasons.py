"""Round six's reasons on the Findings page in headless Chromium: a possible duplicate found from a lower cosine
because both lessons name the same things says which names, and a near duplicate with a clause and its number
left out says the fuller lesson is kept; both pages pass axe-core and fit a phone."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page

from lore.garden.inventory import garden_inventory
from lore.models import Finding
from tests.browser.test_pages_accessible import DESKTOP, PHONE, axe_violations, sideways
from tests.lore.garden_helpers import write
from tests.lore.test_garden import VIYA, VIYA_CLAUSE_DROPPED
from tests.lore.test_garden_semantic import AUTOLOAD, AUTOLOAD_SAID_OTHERWISE, needs_model

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = os.environ.get("LORE_SHOTS")  # a folder to save the pages' screenshots in, to look at them


def _look(page: Page, path: str, where: str) -> list[str]:
    problems: list[str] = []
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        page.goto(path)
        problems += axe_violations(page, f"{where} at {size['width']} px") + sideways(page, where)
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/{where.replace(' ', '-')}-{size['width']}.png", full_page=True)
    page.set_viewport_size(DESKTOP)
    page.goto(path)
    return problems


def test_a_near_duplicate_with_a_clause_left_out_says_the_fuller_lesson_is_kept(page: Page, account) -> None:  # noqa: ANN001
    write(account, "repo::acme/stats", "viya", VIYA, age_days=200, opened=1)
    write(account, "repo::acme/stats", "viya-contexts", VIYA_CLAUSE_DROPPED, age_days=20, opened=9)
    garden_inventory(account)
    assert Finding.objects.filter(kind="near_duplicate").count() == 1
    problems = _look(page, "/findings/?kind=near_duplicate", "near duplicate clause left out")
    assert not problems, "\n".join(problems)
    text = page.locator("main").inner_text()
    assert "a number one of them leaves out" in text and "clause left out" in text


@needs_model
def test_a_possible_duplicate_found_by_the_names_both_lessons_hold_says_which(
    page: Page, account, settings
) -> None:  # noqa: ANN001
    settings.LORE_GARDEN_SEMANTIC = True
    write(account, "repo::acme/game", "autoload-order", AUTOLOAD, opened=3)
    write(account, "repo::acme/game", "savegame-above-netlobby", AUTOLOAD_SAID_OTHERWISE)
    garden_inventory(account)
    assert Finding.objects.filter(kind="possible_duplicate").count() == 1
    problems = _look(page, "/findings/?kind=possible_duplicate", "possible duplicate by names")
    assert not problems, "\n".join(problems)
    text = page.locator("main").inner_text()
    assert "both name netlobby, project.godot, savegame" in text
    assert "from 0.55 when both lessons name at least two of the same things" in text
    assert "Names both hold" in text


def test_a_status_the_learned_reader_found_says_how_sure_it_is_and_from_which_words(
    page: Page, account
) -> None:  # noqa: ANN001
    status = "ecto migration 20240611_add_reactions_index running concurrently on prod, don't deploy"
    write(account, "repo::acme/chat", "reactions-index-migration", status, age_days=40, kind="note")
    garden_inventory(account)
    finding = Finding.objects.get(kind="expired_ephemera")
    assert finding.evidence["patterns"] == ["learned"]
    problems = _look(page, "/findings/?kind=expired_ephemera", "expired status found by the learned reader")
    assert not problems, "\n".join(problems)
    text = page.locator("main").inner_text()
    assert (
        "learned: " in text
        and "% sure it states a status, from " in text
        and "last written 40 days ago" in text
    )
