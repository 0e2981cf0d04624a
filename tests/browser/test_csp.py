"""Issue 14, point 7: with the Content-Security-Policy on, Chromium reports no violation on any page or state.

The pages and states are those of test_pages_accessible.py (enumerated from the resolver), plus the API's docs
page. A violation shows twice: a `securitypolicyviolation` event (collected by a script Playwright adds to every
page, outside the page's policy) and a console error starting "Refused to".
"""

from __future__ import annotations

import pytest
from playwright.sync_api import ConsoleMessage, Page

from tests.browser.test_pages_accessible import STATES, _settled, pages  # noqa: F401 — `pages` is a fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COLLECT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
});
"""


def test_no_page_or_state_reports_a_content_security_policy_violation(
    page: Page,
    pages: dict[str, str],  # noqa: F811
) -> None:
    refused: list[str] = []
    where = {"now": ""}

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or message.text.startswith("Refused to"):
            refused.append(f"{where['now']}: {message.text}")

    page.on("console", on_console)
    page.add_init_script(COLLECT_VIOLATIONS)
    visited = {**pages, "api docs": "/api/v1/docs"}
    for name, url in visited.items():
        for state, enter in [("as loaded", None), *STATES.get(name, [])]:
            where["now"] = f"{name} ({url}) {state}"
            response = page.goto(url)
            assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
            if enter is not None:
                enter(page)
            _settled(page)
            refused += [f"{where['now']}: {v}" for v in page.evaluate("window.__cspViolations")]
    assert len(visited) > 6
    assert not refused, "Content-Security-Policy violations:\n" + "\n".join(refused)
