"""Settings → Retention Policies in headless Chromium: the Explorer hand-off, the dialog, Run now, Undo, delete."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from lore.models import Lesson
from lore.rules.rule import Rule
from policies import grooming
from policies.models import PolicyRun, RetentionPolicy
from policies.services import policy_create
from tests.factories import LessonFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED_NAME = "created >90d ago · unopened >90d in repo::acme/app"
EXPLORER_VIEW = (
    "/a/acme/explorer/?scope=repo::acme/app&retention=min_age_days:90,unseen_days:90&kind=lesson,gotcha"
)


def store(account) -> dict[str, list[Lesson]]:  # noqa: ANN001
    """Old unopened lessons in the repo and one of its branches, plus ones a rule must not catch."""
    old = timezone.now() - timedelta(days=200)
    caught = [LessonFactory(account=account, created_at=old, kind="lesson") for _ in range(5)]
    caught += [
        LessonFactory(account=account, scope="branch::acme/app::main", created_at=old, kind="gotcha")
        for _ in range(3)
    ]
    spared = [
        LessonFactory(account=account, created_at=old, kind="lesson", protected=True),
        LessonFactory(account=account, created_at=old, kind="lesson", last_opened_at=timezone.now()),
        LessonFactory(account=account, kind="lesson"),  # too young
        LessonFactory(account=account, created_at=old, kind="bus"),
        LessonFactory(account=account, scope="repo::acme/api", created_at=old, kind="lesson"),
    ]
    return {"caught": caught, "spared": spared}


def dialog_pills(page) -> list[str]:  # noqa: ANN001
    return [t.strip() for t in page.locator("#policy-dialog .fc-state .pill-text").all_inner_texts()]


def test_create_retention_policy_from_the_explorer_prefills_the_dialog_and_names_it(page, account) -> None:  # noqa: ANN001
    store(account)
    page.goto(EXPLORER_VIEW)
    explorer_pills = [t.strip() for t in page.locator(".pill-text").all_inner_texts()]
    assert explorer_pills == [
        "Created: more than 90 days ago",
        "Last agent open: more than 90 days ago",
        "Kind: is either of lesson, gotcha",
    ]
    page.click("[data-create-policy]")
    page.wait_for_selector("#policy-dialog[open]")
    assert dialog_pills(page) == explorer_pills
    assert page.input_value("#id_scope") == "repo::acme/app"
    assert page.locator("#rule-live [data-preview-count]").get_attribute("data-preview-count") == "8"
    placeholder = page.get_attribute("#id_name", "placeholder")
    assert placeholder == SEED_NAME.replace(" in ", " · kind is either of lesson, gotcha in ")

    # Removing the Kind filter in the dialog's filter control updates the placeholder name live.
    page.click('#policy-dialog .pill[data-pill="kind"] .pill-remove')
    expect(page.locator("#id_name")).to_have_attribute("placeholder", SEED_NAME)
    assert dialog_pills(page) == explorer_pills[:2]

    page.click("#policy-dialog button[type=submit]")
    page.wait_for_selector(".flash")
    policy = RetentionPolicy.objects.get(account=account)
    assert policy.name == SEED_NAME
    assert policy.rule == Rule(scope="repo::acme/app", conditions={"min_age_days": 90, "unseen_days": 90})
    assert page.locator(f"#policy-{policy.pk} td.name").inner_text() == SEED_NAME
    page.wait_for_selector(f"#policy-{policy.pk} .matches .count")
    assert page.locator(f"#policy-{policy.pk} .matches .count").inner_text() == "9 lessons"  # + the bus one


def test_the_handoff_url_opened_directly_shows_the_same_dialog(page, account) -> None:  # noqa: ANN001
    page.goto(
        "/a/acme/settings/policies/new/?scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0"
        "&kind=bus&kind_mode=in&tags=ci::pr-review-state&tags_mode=all"
    )
    assert dialog_pills(page) == [
        "Created: more than 90 days ago",
        "Chosen: never chosen",
        "Label: includes all ci::pr-review-state",
        "Kind: is bus",
    ]
    assert page.get_attribute("#id_name", "placeholder") == (
        "created >90d ago · chosen ≤ 0× · label includes all ci::pr-review-state · kind is bus in repo::acme/app"
    )


def test_an_auto_policy_built_in_the_dialog_is_saved_disabled(page, account) -> None:  # noqa: ANN001
    store(account)
    page.goto("/a/acme/settings/policies/")
    page.click(".page-head .btn-primary")
    page.wait_for_selector("#policy-dialog[open]")
    assert "starts disabled" in page.inner_text("#policy-dialog .starts-disabled")

    page.click("#policy-dialog [data-fc-toggle]")
    page.click('#policy-dialog [data-fc-entry="chosen"]')
    page.click("#policy-dialog .fc-choice >> text=Never chosen")
    expect(page.locator("#id_name")).to_have_attribute("placeholder", "chosen ≤ 0× in all scopes")
    page.keyboard.press("Escape")
    page.check("#policy-dialog input[name=mode][value=auto]")
    page.fill("#id_name", "noise tax")
    page.click("#policy-dialog button[type=submit]")
    page.wait_for_selector(".flash")
    policy = RetentionPolicy.objects.get(account=account)
    assert (policy.name, policy.mode, policy.enabled) == ("noise tax", "auto", False)
    assert page.locator(f"#policy-{policy.pk} .s-badge").inner_text() == "Auto · disabled"


def test_the_dialog_refuses_an_empty_rule_inline_keeping_the_name(page, account) -> None:  # noqa: ANN001
    page.goto("/a/acme/settings/policies/new/")
    page.fill("#id_name", "everything")
    page.click("#policy-dialog button[type=submit]")
    page.wait_for_selector("#policy-dialog .rule-error")
    assert "needs at least one condition or filter" in page.inner_text("#policy-dialog .rule-error")
    assert page.input_value("#id_name") == "everything"
    assert not RetentionPolicy.objects.exists()


def test_run_now_confirm_result_equals_the_preview_and_undo_restores_them_all(page, account) -> None:  # noqa: ANN001
    lessons = store(account)
    rule = Rule(scope="repo::acme/app", conditions={"min_age_days": 90, "unseen_days": 90})
    policy = policy_create(account=account, rule=rule, name="stale repo lore")
    page.goto("/a/acme/settings/policies/")
    page.click(f"#policy-{policy.pk} >> text=Run now")
    preview = int(page.locator(".preview[data-preview-count]").get_attribute("data-preview-count") or "-1")
    assert preview == 9 and page.locator(".sample li").count() == 9
    page.click("form.actions button[type=submit]")
    page.wait_for_selector('#run-progress[data-status="done"]')
    assert int(page.locator("#run-progress [data-archived]").inner_text()) == preview
    run = PolicyRun.objects.get(policy_id=policy.pk)
    link = page.locator("#run-progress a", has_text="archived lessons")
    assert link.get_attribute("href") == f"/a/acme/explorer/?archived=1&run={run.pk}"
    assert Lesson.objects.filter(archived_by_run=run).count() == preview
    protected, opened, young, _bus, other_repo = lessons["spared"]
    assert not Lesson.objects.filter(
        pk__in=[protected.pk, opened.pk, young.pk, other_repo.pk], archived_at__isnull=False
    )

    link.click()
    page.wait_for_selector(".lesson-row")
    assert (
        page.locator(".lesson-row").count() == preview
    )  # the Explorer's archived view, filtered to this run
    page.go_back()
    page.click("text=Undo this run")
    page.wait_for_selector(".flash")
    assert f"restored {preview} lessons" in page.inner_text(".flash")
    assert Lesson.objects.filter(account=account, archived_at__isnull=False).count() == 0


def test_a_running_run_shows_live_progress_until_it_is_done(page, account) -> None:  # noqa: ANN001
    store(account)
    policy = policy_create(account=account, rule=Rule(conditions={"min_age_days": 90}), name="old")
    run = grooming.run_start(account=account, policy=policy, trigger="manual")
    assert run is not None
    page.goto(f"/a/acme/settings/runs/{run.pk}/")
    assert page.get_attribute("#run-progress", "data-status") == "pending"
    grooming.run_execute(run.pk)  # the worker finishes; the page learns it by polling, without a reload
    page.wait_for_selector('#run-progress[data-status="done"]', timeout=5000)
    assert page.locator("#run-progress [data-archived]").inner_text() == "11"


def test_deleting_a_policy_keeps_what_it_archived_archived(page, account) -> None:  # noqa: ANN001
    store(account)
    policy = policy_create(account=account, rule=Rule(conditions={"max_opened_count": 0}), name="unused")
    run = grooming.run_start(account=account, policy=policy, trigger="manual")
    assert run is not None
    archived = grooming.run_execute(run.pk).archived
    page.goto("/a/acme/settings/policies/")
    page.click(f"#policy-{policy.pk} >> text=Delete")
    text = page.inner_text(".confirm")
    assert "rule only" in text and f"{archived} lessons it archived stay archived" in text
    page.click("form.actions button[type=submit]")
    page.wait_for_selector(".flash")
    assert re.search(
        rf"The {archived} lessons it archived stay archived and restorable", page.inner_text(".flash")
    )
    assert not RetentionPolicy.objects.exists()
    assert Lesson.objects.filter(account=account, archived_at__isnull=False).count() == archived


@pytest.fixture
def page_without_js(browser, live_server, user, client, server_requests):  # noqa: ANN001, ANN201
    """A signed-in page with JavaScript switched off: the dialog must work as a plain form."""
    client.force_login(user)
    context = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def test_the_dialog_works_as_a_plain_form_without_javascript(page_without_js, account) -> None:  # noqa: ANN001
    page = page_without_js
    page.goto("/a/acme/settings/policies/")
    page.click(".page-head .btn-primary")  # a plain link to the dialog's own page
    page.fill(".plain-rule input[name=min_age_days]", "99999")
    page.fill(".plain-rule input[name=kind]", "bus, decision")
    page.click("#policy-dialog button[type=submit]")
    assert "Created must be between 1 and 3,650 days" in page.inner_text("#policy-dialog")
    assert page.input_value("#fix-min_age_days") == "99999"
    assert page.input_value(".plain-rule input[name=kind]") == "bus, decision"
    page.fill("#fix-min_age_days", "120")
    page.click("#policy-dialog button[type=submit]")
    policy = RetentionPolicy.objects.get(account=account)
    assert policy.name == "created >120d ago · kind is either of bus, decision in all scopes"
    assert page.url.endswith("/a/acme/settings/policies/")


def test_edit_opens_the_saved_rule_in_the_same_control_and_saves_it(page, account) -> None:  # noqa: ANN001
    store(account)
    policy = policy_create(
        account=account,
        rule=Rule(scope="repo::acme/app", conditions={"min_age_days": 90}),
        name="old",
        mode="auto",
    )
    page.goto("/a/acme/settings/policies/")
    page.click(f"#policy-{policy.pk} >> text=Edit")
    page.wait_for_selector("#policy-dialog[open]")
    assert dialog_pills(page) == ["Created: more than 90 days ago"]
    assert page.input_value("#id_name") == "old"
    page.click("#policy-dialog [data-fc-toggle]")
    page.click('#policy-dialog [data-fc-entry="kind"]')
    page.click("#policy-dialog .fc-choice >> text=gotcha")
    page.wait_for_selector('#policy-dialog .pill[data-pill="kind"]')
    page.keyboard.press("Escape")
    page.check("#policy-dialog input[name=enabled]")
    page.click("#policy-dialog button[type=submit]")
    page.wait_for_selector(".flash")
    policy.refresh_from_db()
    assert policy.rule.dimensions["kind"].values == ("gotcha",) and policy.rule.conditions == {
        "min_age_days": 90
    }
    assert policy.is_swept_nightly
    assert page.locator(f"#policy-{policy.pk} .s-badge").inner_text() == "Auto · nightly"


def test_the_policy_dialog_is_modal_for_the_keyboard_focus_stays_in_it_and_escape_closes_it(
    page, account
) -> None:  # noqa: ANN001
    page.goto("/a/acme/settings/policies/")
    page.evaluate("() => { window.notReloaded = true; }")
    page.click(".page-head .btn-primary")
    page.wait_for_selector("#policy-dialog[open]")
    expect(page.locator("#id_name")).to_be_focused()  # focus starts in the dialog

    inside = "() => document.getElementById('policy-dialog').contains(document.activeElement)"
    close = page.locator("#policy-dialog .modal-head .close")  # the dialog's first control
    close.focus()
    page.keyboard.press("Shift+Tab")  # backwards from the first: wraps to the last control, not the page
    assert page.evaluate(inside)
    expect(close).not_to_be_focused()
    page.keyboard.press("Tab")  # and forwards from the last: back to the first
    expect(close).to_be_focused()
    for _ in range(40):  # a full lap never leaves the dialog
        page.keyboard.press("Tab")
        assert page.evaluate(inside)

    # Escape inside the open filter menu closes the menu only; the next Escape closes the dialog.
    page.click("#policy-dialog [data-fc-toggle]")
    expect(page.locator("#policy-dialog .fc-menu")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#policy-dialog .fc-menu")).to_be_hidden()
    expect(page.locator("#policy-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#policy-dialog")).to_have_count(0)
    assert page.url.endswith("/a/acme/settings/policies/")
    # Opened in place, it closed in place: the page was not reloaded, and focus went back to New policy.
    assert page.evaluate("() => window.notReloaded === true")
    expect(page.locator(".page-head .btn-primary")).to_be_focused()


def test_escape_closes_an_open_filter_menu_first_even_with_focus_outside_it(page, account) -> None:  # noqa: ANN001
    page.goto("/a/acme/settings/policies/new/")
    page.click("#policy-dialog [data-fc-toggle]")
    menu = page.locator("#policy-dialog .fc-menu")
    expect(menu).to_be_visible()
    page.evaluate(
        "() => document.activeElement.blur()"
    )  # as after a click on a non-focusable part of the menu
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(page.locator("#policy-dialog")).to_be_visible()
    # Opened as a page of its own, Escape then follows × back to the list.
    page.keyboard.press("Escape")
    page.wait_for_url("**/settings/policies/")
    expect(page.locator("#policy-dialog")).to_have_count(0)
