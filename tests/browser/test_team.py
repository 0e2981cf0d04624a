"""A team adopts it, in Chromium: an empty instance → the first-run page → the admin is signed in → invites an
editor and a viewer → each signs in with their one-time link → the viewer sees the Explorer but no enabled
Run/Archive/Delete controls → a forged POST by the viewer answers 403 and changes nothing."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from lore.models import Lesson, Membership
from lore.roles import Role
from policies.models import RetentionPolicy

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
STRONG = "correct horse battery staple 7"


def invite(admin: Page, username: str, role: str) -> str:
    admin.goto("/a/acme/settings/members/")
    admin.fill("#id_username", username)
    admin.select_option("#id_role", role)
    admin.get_by_role("button", name="Invite", exact=True).click()
    link = admin.locator("[data-invite-link]")
    expect(link).to_be_visible()
    return link.inner_text().strip()


def set_password(browser, live_server, link: str) -> Page:  # noqa: ANN001
    tab = browser.new_context(base_url=live_server.url).new_page()
    tab.goto(link)
    tab.fill("#id_new_password1", STRONG)
    tab.fill("#id_new_password2", STRONG)
    tab.click("button[type=submit]")
    expect(tab).to_have_url(f"{live_server.url}/a/acme/explorer/")
    return tab


@pytest.fixture
def contexts_closed(browser, server_requests):  # noqa: ANN001, ANN201
    """Closes every browser context the test opened before `server_requests` waits for the server to drain, so
    no page's lazy request outlives the test's database (on SQLite: "couldn't be flushed")."""
    yield
    for context in list(browser.contexts):
        context.close()


def test_an_empty_instance_becomes_a_team_whose_viewer_cannot_change_anything(
    browser,
    live_server,
    contexts_closed,  # noqa: ANN001
) -> None:
    admin = browser.new_context(base_url=live_server.url).new_page()
    admin.goto("/")
    expect(admin.get_by_role("heading", name="Create the first account")).to_be_visible()
    admin.fill("#id_account", "Acme")
    admin.fill("#id_username", "ada")
    admin.fill("#id_password", STRONG)
    admin.click("text=Create the account")
    expect(admin).to_have_url(f"{live_server.url}/a/acme/explorer/")
    expect(admin.locator(".who-user")).to_contain_text("ada (admin)")

    from lore.models import Account
    from tests.factories import LessonFactory

    acme = Account.objects.get(slug="acme")
    lesson = LessonFactory(account=acme, key="keep-me")
    RetentionPolicy.objects.create(account=acme, name="stale", scope="global", min_age_days=1, mode="auto")

    editor_link = invite(admin, "eddie", "editor")
    viewer_link = invite(admin, "vera", "viewer")
    assert editor_link != viewer_link
    editor = set_password(browser, live_server, editor_link)
    expect(editor.locator(".who-user")).to_contain_text("eddie (editor)")
    viewer = set_password(browser, live_server, viewer_link)
    expect(viewer.locator(".who-user")).to_contain_text("vera (viewer)")
    assert {m.user.username: m.role for m in Membership.objects.select_related("user")} == {
        "ada": Role.ADMIN,
        "eddie": Role.EDITOR,
        "vera": Role.VIEWER,
    }

    # The viewer browses, but every control that would change something is disabled, with the reason.
    expect(viewer.locator(f'[data-key="{lesson.key}"]').first).to_be_visible()
    viewer.goto(f"/a/acme/explorer/lessons/{lesson.pk}/")
    expect(viewer.locator('[data-action="archive"]')).to_be_disabled()
    expect(viewer.locator('[data-action="pin"]')).to_be_disabled()
    expect(viewer.locator("#role-edit-reason")).to_contain_text("Your role is viewer")
    viewer.goto("/a/acme/settings/policies/")
    for label in ("Run now", "Delete", "Enable", "New policy"):
        control = viewer.get_by_role("button", name=label)
        expect(control).to_be_disabled()
    expect(viewer.get_by_role("link", name="Run now")).to_have_count(0)

    # A forged POST (a valid session and CSRF token, a hand-made request) answers 403 and changes nothing.
    csrf = next(c["value"] for c in viewer.context.cookies() if c["name"] == "csrftoken")
    forged = viewer.request.post(
        f"/a/acme/explorer/lessons/{lesson.pk}/archive/",
        headers={"X-CSRFToken": csrf, "Referer": f"{live_server.url}/a/acme/explorer/"},
    )
    assert forged.status == 403
    policy = RetentionPolicy.objects.get()
    enable = viewer.request.post(
        f"/a/acme/settings/policies/{policy.pk}/enabled/",
        form={"enabled": "1"},
        headers={"X-CSRFToken": csrf, "Referer": f"{live_server.url}/a/acme/settings/policies/"},
    )
    assert enable.status == 403
    lesson.refresh_from_db()
    policy.refresh_from_db()
    assert lesson.archived_at is None and not policy.enabled and Lesson.objects.count() == 1

    # The editor may archive it.
    editor.goto("/a/acme/explorer/")
    editor.click(".lesson-row .lesson-key >> nth=0")
    editor.click('[data-sheet] [data-action="archive"]')
    expect(editor.locator('[data-sheet] [data-action="restore"]')).to_be_visible()
    lesson.refresh_from_db()
    assert lesson.archived_at is not None
