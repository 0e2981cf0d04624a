"""Headless Chromium (Playwright, sync API) against pytest-django's live_server, signed in as `user`.

Fixtures: `browser` (one Chromium per session), `page` (a fresh 1400×900 context signed in as the `user` fixture,
base_url = live_server.url). Never `playwright install`: Debian's /usr/bin/chromium is driven directly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# Playwright's sync API runs an event loop in this thread; Django's async-safety check would refuse ORM calls.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

from tests.services import CHROMIUM, require_chromium  # noqa: E402

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 900}


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    require_chromium()
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=10_000)

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_server, user, client) -> Iterator[object]:  # noqa: ANN001
    """A browser page signed in as `user` (the session cookie of a forced login)."""
    client.force_login(user)
    context = browser.new_context(viewport=VIEWPORT, base_url=live_server.url)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    context.set_default_timeout(10_000)
    tab = context.new_page()
    yield tab
    context.close()
