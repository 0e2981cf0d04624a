"""Every dashboard page, in every state a person puts it in, passes axe-core (WCAG 2.2 A and AA) and never scrolls
sideways on a 390 px phone (issue 17, points 3 and 4).

The pages are ENUMERATED from the URL resolver, so a page added later is checked without touching this file: every
named URL outside the admin and the REST API that answers a GET with a whole HTML document is a page.

Adding to it, when you add a page:
- its URL takes an argument this file does not know → add how to make one to `url_arguments` (a failure says so);
- it has states a person reaches by clicking (a menu, a dialog, a sheet) → add them to `STATES`, keyed by the URL
  name, as (state name, function that puts the page in that state; it may wait for what it opens).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from playwright.sync_api import Page, expect

from lore.accounts import token_create
from lore.demo import demo_store_create
from lore.garden.inventory import garden_inventory
from lore.models import Account, DailyRollup, Finding, Lesson
from lore.rules.rule import Rule
from lore.transfer_jobs import export_job_start, transfer_job_execute
from policies import grooming
from policies.services import policy_create
from tests.urls import in_account

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
NOT_PAGES = ("admin/", "api/")  # Django's admin and the REST API are not the dashboard
URL_ARGUMENT = re.compile(r"<(?:\w+:)?(\w+)>")

axe = Axe()


# ---------------------------------------------------------------- enumerating the pages


def named_routes() -> list[tuple[str, str]]:
    """(URL name with its namespace, route) of every named URL outside the admin and the API."""
    found: list[tuple[str, str]] = []

    def walk(patterns: list, prefix: str, namespace: str) -> None:  # noqa: ANN001
        for entry in patterns:
            route = prefix + str(entry.pattern)
            if route.startswith(NOT_PAGES):
                continue
            if isinstance(entry, URLResolver):
                inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
                walk(entry.url_patterns, route, inner)
            elif isinstance(entry, URLPattern) and entry.name:
                found.append((namespace + entry.name, route))

    walk(get_resolver().url_patterns, "", "")
    return found


def url_arguments(account: Account) -> dict[str, object]:
    """A real value for every argument a dashboard URL takes, all objects of `account`."""
    lesson = Lesson.objects.filter(account=account, archived_at__isnull=True).first()
    unused = policy_create(
        account=account,
        rule=Rule(conditions={"min_age_days": 90, "max_opened_count": 0}),
        name="",
        allow_auto_name=True,
    )
    run = grooming.run_start(account=account, policy=unused, trigger="manual", actor="user:alice")
    assert run is not None
    grooming.run_execute(run.pk)
    token = token_create(account=account, name="laptop")[0]
    garden_inventory(account, full=True)  # the demo store repeats its topics: the Findings page has findings
    finding = Finding.objects.filter(account=account).order_by("pk").first()
    assert finding is not None
    job = export_job_start(account=account, actor="user:alice")
    transfer_job_execute(job.pk)
    return {
        "finding_id": finding.pk,
        "lesson_id": lesson.pk,  # type: ignore[union-attr]
        "policy_id": unused.pk,
        "run_id": run.pk,
        "token_id": token.pk,
        "job_id": job.pk,
        "membership_id": account.memberships.first().pk,  # type: ignore[union-attr]
        "uidb64": "x",
        "token": "y",
        "action": "pin",
        "slug": getattr(account, "slug", ""),
        "account_slug": getattr(account, "slug", ""),
    }


def dashboard_pages(client: Client, arguments: dict[str, object], account: Account) -> dict[str, str]:
    """{URL name: URL} of every page: a named URL that answers a GET with a whole HTML document (a dashboard
    page inside `account`'s URLs, /a/<slug>/…)."""
    pages: dict[str, str] = {}
    for name, route in named_routes():
        needed = URL_ARGUMENT.findall(route)
        unknown = [arg for arg in needed if arg not in arguments]
        assert not unknown, (
            f"The URL {name!r} ({route}) takes {unknown}: add how to make a real value to url_arguments() in "
            f"{__file__}, so its page is checked for accessibility and phone width."
        )
        url = in_account(account, reverse(name, kwargs={arg: arguments[arg] for arg in needed}))
        response = client.get(url)
        is_html = response.get("Content-Type", "").startswith("text/html")
        if response.status_code == 200 and is_html and b"<html" in response.content[:400].lower():
            pages[name] = url
        # A streamed answer (a file download) ends its request only when closed: left open, the browser tests'
        # teardown waited SERVER_DRAIN_SECONDS for it, every time.
        response.close()
    return pages


# ---------------------------------------------------------------- states a person puts a page in


def _menu_open(page: Page) -> None:
    page.click("[data-fc-toggle]")
    expect(page.locator(".fc-menu").first).to_be_visible()


def _menu_section_open(page: Page) -> None:
    _menu_open(page)
    page.click('[data-fc-entry="chosen"]')
    expect(page.locator("[data-fc-typed]")).to_be_focused()
    page.fill("[data-fc-typed]", "40")
    expect(page.locator('.fc-options[data-fc-for="40"]')).to_have_count(1)


def _dimension_open(page: Page) -> None:
    _menu_open(page)
    page.click('[data-fc-entry="host"]')
    expect(page.locator(".fc-count").first).to_be_visible()


def _sheet_open(page: Page) -> None:
    page.click(".lesson-row .lesson-key >> nth=0")
    expect(page.locator("[data-sheet]")).to_be_visible()


def _archived_view(page: Page) -> None:
    page.click("[data-archived-tab]")
    expect(page.locator("[data-archived-tab][aria-current=page]")).to_have_count(1)
    expect(page.locator(".lesson-row").first).to_be_visible()


def _filtered_view(page: Page) -> None:
    page.goto("/a/acme/explorer/?retention=min_age_days:30,min_opened_count:1&kind=lesson,gotcha&host=codex")
    expect(page.locator("#pill-row .pill").first).to_be_visible()


def _pill_section_open(page: Page) -> None:
    _filtered_view(page)
    page.click('[data-pill="kind"] .pill-text')
    expect(page.locator("#fc-menu .fc-section-head")).to_be_visible()


def _lessons_restored(page: Page) -> None:
    _archived_view(page)
    page.locator('#restore-form input[name="ids"]').first.check()
    page.click("[data-restore-selected]")
    expect(page.locator(".notice-success")).to_be_visible()


def _one_runs_lessons(page: Page) -> None:
    page.click("text=See the archived lessons in the Explorer")
    expect(page.locator('[data-pill="run"]')).to_be_visible()


def _policy_dialog_open(page: Page) -> None:
    page.click("text=New policy >> nth=0")
    expect(page.locator("#policy-dialog[open]")).to_be_visible()


def _policy_dialog_menu_open(page: Page) -> None:
    _policy_dialog_open(page)
    page.click("#policy-dialog [data-fc-toggle]")
    page.click('#policy-dialog [data-fc-entry="created"]')
    expect(page.locator("#policy-dialog .fc-choice").first).to_be_visible()


def _token_created(page: Page) -> None:
    page.fill("#id_name", "phone")
    page.click(".token-form button[type=submit]")
    expect(page.locator("#token-export")).to_be_visible()


def _member_invited(page: Page) -> None:
    page.fill("#id_username", "newcomer")
    page.click(".token-form button[type=submit]")
    expect(page.locator("[data-invite-link]")).to_be_visible()


def _chart_tables_open(page: Page) -> None:
    """Every chart's data table opened by keyboard (its <summary> focused, Enter)."""
    expect(page.locator("figure.chart").first).to_be_visible()
    for summary in page.locator(".chart-data summary").all():
        summary.focus()
        page.keyboard.press("Enter")
    expect(page.locator(".chart-data[open] table").first).to_be_visible()


STATES: dict[str, list[tuple[str, Callable[[Page], None]]]] = {
    "explorer:index": [
        ("filter menu open", _menu_open),
        ("a condition typed in the menu", _menu_section_open),
        ("a dimension's values in the menu", _dimension_open),
        ("detail sheet open", _sheet_open),
        ("archived view", _archived_view),
        ("conditions and filters set", _filtered_view),
        ("a pill's section open", _pill_section_open),
        ("lessons just restored", _lessons_restored),
    ],
    "policies:run": [("one run's archived lessons", _one_runs_lessons)],
    "policies:list": [
        ("New policy dialog open", _policy_dialog_open),
        ("the dialog's filter menu open", _policy_dialog_menu_open),
    ],
    "policies:tokens": [("a token just created", _token_created)],
    "policies:detail": [("the charts' tables open (runs, forecast)", _chart_tables_open)],
    "policies:health": [("the charts' tables open", _chart_tables_open)],
    "members:list": [("a member just invited", _member_invited)],
}


# ---------------------------------------------------------------- the checks


def _settled(page: Page) -> None:
    try:
        page.wait_for_load_state("networkidle", timeout=3_000)
    except Exception:  # noqa: BLE001 — a page that polls (a run's progress) is never idle; it has loaded
        pass
    expect(page.locator("[aria-busy=true]")).to_have_count(0)


def axe_violations(page: Page, where: str) -> list[str]:
    """One line per violated rule: where, the rule, its impact and the first nodes it names."""
    _settled(page)
    results = axe.run(page, options=AXE_OPTIONS).response["violations"]
    return [
        f"{where}: {v['id']} ({v['impact']}, {len(v['nodes'])} nodes) "
        + "; ".join(" ".join(node["target"]) for node in v["nodes"][:4])
        for v in results
    ]


def sideways(page: Page, where: str) -> list[str]:
    """Whether the document is wider than the window (a sideways scroll), and what sticks out."""
    _settled(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.evaluate("window.innerWidth")
    # A fixed menu, dialog or sheet does not widen the document, so each one open is measured itself.
    overlays = page.evaluate(
        """(inner) => [...document.querySelectorAll('.fc-menu, dialog[open], .sheet-panel')]
          .filter(e => e.offsetParent !== null || getComputedStyle(e).position === 'fixed')
          .filter(e => { const r = e.getBoundingClientRect(); return r.width && (r.left < 0 || r.right > inner + 1); })
          .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' ' + Math.round(e.getBoundingClientRect().width) + ' px')""",
        inner,
    )
    wider = [f"{where}: {overlay} reaches past a {inner} px window" for overlay in overlays]
    if width <= inner:
        return wider
    culprits = page.evaluate(
        """(inner) => [...document.querySelectorAll('body *')]
          .filter(e => { const r = e.getBoundingClientRect(); return r.width && r.right > inner + 1; })
          .slice(0, 4).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
            + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : ''))""",
        inner,
    )
    return [*wider, f"{where}: {width} px wide in a {inner} px window (sticking out: {', '.join(culprits)})"]


def check_everywhere(page: Page, pages: dict[str, str], viewport: dict[str, int]) -> tuple[list, list, dict]:
    """(axe violations, sideways scrolls, scrollWidth per page and state) of every page and state."""
    page.set_viewport_size(viewport)  # type: ignore[arg-type]
    width = f"{viewport['width']} px"
    violations: list[str] = []
    overflow: list[str] = []
    widths: dict[str, int] = {}
    for name, url in pages.items():
        for state, enter in [("as loaded", None), *STATES.get(name, [])]:
            where = f"{name} ({url}) {state} at {width}"
            page.goto(url)
            if enter is not None:
                enter(page)
            violations += axe_violations(page, where)
            overflow += sideways(page, where)
            widths[f"{name} {state}"] = page.evaluate("document.documentElement.scrollWidth")
    return violations, overflow, widths


def _ninety_days_rolled_up(account: Account) -> None:
    """Daily rollups for the Health page's charts, as the nightly rollup would have left them."""
    today = timezone.localdate()
    DailyRollup.objects.bulk_create(
        DailyRollup(
            account=account,
            day=today - timedelta(days=back),
            active=240 - back // 3,
            archived=back // 9,
            purged=back // 30,
            findings_opened=back % 4,
            findings_applied=back % 3 == 0,
            reads=500 + (back * 37) % 400,
            runs=1,
            runs_interrupted=back % 17 == 0,
            rows_archived=back % 5,
            rows_undone=back % 11 == 0,
            computed_at=timezone.now(),
        )
        for back in range(1, 90)
    )


@pytest.fixture
def pages(page: Page, account: Account, client: Client) -> dict[str, str]:
    """A store with lessons of every kind, archived ones, a policy with a finished run, a token; its pages."""
    demo_store_create(account, lessons=240, seed=17)
    Lesson.objects.filter(account=account).update(created_at=timezone.now() - timedelta(days=200))
    _ninety_days_rolled_up(account)
    found = dashboard_pages(client, url_arguments(account), account)
    for name in (
        "explorer:index",
        "findings:index",
        "policies:list",
        "policies:tokens",
        "policies:run",
        "policies:health",
        "policies:forecast",
        "members:list",
        "login",
    ):
        assert name in found, f"the page {name!r} was not found among the dashboard's pages: {sorted(found)}"
    return found


def test_every_page_and_state_has_no_axe_violation_at_desktop_width(
    page: Page, pages: dict[str, str]
) -> None:
    violations, _, _ = check_everywhere(page, pages, DESKTOP)
    assert not violations, "axe-core (WCAG 2.2 A/AA) violations:\n" + "\n".join(violations)


def test_no_page_or_state_is_wider_than_a_390px_phone_and_none_has_an_axe_violation(
    page: Page, pages: dict[str, str]
) -> None:
    violations, overflow, widths = check_everywhere(page, pages, PHONE)
    print("scrollWidth at 390 px:", widths)  # for the report (pytest -s)
    assert not overflow, "Wider than a 390 px phone:\n" + "\n".join(overflow)
    assert not violations, "axe-core (WCAG 2.2 A/AA) violations at 390 px:\n" + "\n".join(violations)


def test_log_out_is_on_screen_at_phone_width(page: Page, pages: dict[str, str]) -> None:
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    for name, url in pages.items():
        if name == "login":
            continue
        page.goto(url)
        log_out = page.get_by_role("button", name="Log out")
        expect(log_out).to_be_visible()
        box = log_out.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (
            f"{name}: Log out off-screen"
        )


def test_the_pages_outside_an_account_pass_axe_and_fit_a_phone(browser, live_server, server_requests) -> None:  # noqa: ANN001
    """The first-run page (empty instance), the no-account page, the account chooser and the set-password page;
    and a viewer's Explorer sheet and policy list, whose controls are disabled with the reason."""
    from lore.accounts import account_create, set_password_token
    from lore.roles import Role
    from tests.factories import LessonFactory, MembershipFactory, UserFactory

    problems: list[str] = []

    def check(tab: Page, where: str) -> None:
        for viewport in (DESKTOP, PHONE):
            tab.set_viewport_size(viewport)  # type: ignore[arg-type]
            problems.extend(axe_violations(tab, f"{where} at {viewport['width']} px"))
            if viewport is PHONE:
                problems.extend(sideways(tab, where))

    def signed_in_tab(username: str) -> Page:
        context = browser.new_context(viewport=DESKTOP, base_url=live_server.url)
        tab = context.new_page()
        tab.goto("/login/")
        tab.fill("#id_username", username)
        tab.fill("#id_password", "pw-for-tests")
        tab.click("button[type=submit]")
        return tab

    first = browser.new_context(viewport=DESKTOP, base_url=live_server.url).new_page()
    first.goto("/")
    expect(first.locator("[data-page=first-run]")).to_be_visible()
    check(first, "first run")
    acme, globex = account_create(name="acme"), account_create(name="globex")
    lesson = LessonFactory(account=acme, key="k")
    policy_create(account=acme, rule=Rule(conditions={"min_age_days": 90}), name="", allow_auto_name=True)
    UserFactory(username="nobody")
    lonely = signed_in_tab("nobody")
    expect(lonely.locator("[data-page=no-membership]")).to_be_visible()
    check(lonely, "no account")
    both = UserFactory(username="both")
    MembershipFactory(account=acme, user=both, role=Role.VIEWER)
    MembershipFactory(account=globex, user=both, role=Role.ADMIN)
    chooser = signed_in_tab("both")
    expect(chooser.locator("[data-page=choose-account]")).to_be_visible()
    check(chooser, "account chooser")
    chooser.goto(f"/a/acme/explorer/lessons/{lesson.pk}/")
    expect(chooser.locator("[data-role-reason]").first).to_be_visible()
    check(chooser, "a viewer's sheet page (with the switcher)")
    chooser.goto("/a/acme/settings/policies/")
    check(chooser, "a viewer's policy list")
    invited = UserFactory(username="invited")
    uid, _, secret = set_password_token(invited).partition("/")
    fresh = browser.new_context(viewport=DESKTOP, base_url=live_server.url).new_page()
    fresh.goto(reverse("password_reset_confirm", args=[uid, secret]))
    expect(fresh.locator("[data-page=set-password]")).to_be_visible()
    check(fresh, "set password")
    assert not problems, "\n".join(problems)
