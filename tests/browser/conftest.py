"""Headless Chromium (Playwright, sync API) against pytest-django's live_server, signed in as `user`.

Fixtures: `browser` (one Chromium per session), `page` (a fresh 1400×900 context signed in as the `user` fixture,
base_url = live_server.url). Never `playwright install`: Debian's /usr/bin/chromium is driven directly.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest
from django.core.signals import request_finished, request_started

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
# How long a test's teardown waits for the live server's last requests (a lazy stats load once outlived 15 s with
# two suites on two cores, and its database was flushed under it): a bound on waiting, not a speed target.
SERVER_DRAIN_SECONDS = 60


class RequestsInFlight:
    """Counts the live server's requests between request_started and request_finished.

    A test can end while the page still has a request in flight (a lazy count after the last swap). Closing the
    browser does not stop the server thread: it would go on using the database while the test's teardown flushes
    it (on SQLite: "couldn't be flushed", the next test's set-up then fails) or after the database is blocked
    again. The page fixture waits for the count to reach zero before the test's database is torn down.
    """

    def __init__(self) -> None:
        self._count = 0
        self._idle = threading.Condition()

    def started(self, **kwargs: object) -> None:
        with self._idle:
            self._count += 1

    def finished(self, **kwargs: object) -> None:
        with self._idle:
            self._count = max(0, self._count - 1)
            self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        with self._idle:
            return self._idle.wait_for(lambda: self._count == 0, timeout=timeout)


@pytest.fixture
def server_requests() -> Iterator[RequestsInFlight]:
    """Connects a RequestsInFlight to Django's request signals for one test, and waits for the server to drain."""
    requests = RequestsInFlight()
    request_started.connect(requests.started, weak=False)
    request_finished.connect(requests.finished, weak=False)
    yield requests
    drained = requests.wait_idle(SERVER_DRAIN_SECONDS)
    request_started.disconnect(requests.started)
    request_finished.disconnect(requests.finished)
    # A request that never ends is a bug of the test (a streamed answer left unclosed) or of the server: it cost
    # every browser test that read every page a silent minute of this wait until it was found.
    assert drained, f"a request was still in flight {SERVER_DRAIN_SECONDS} s after the test ended"


# How long a step waits for the page before it fails: a bound on waiting, not a speed target; CI shares two cores
# with the other suites (a decay-score section once took over 10 s to open at load 6).
WAIT_MS = 20_000


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    require_chromium()
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_server, user, client, server_requests) -> Iterator[object]:  # noqa: ANN001
    """A browser page signed in as `user` (the session cookie of a forced login).

    On teardown the context closes first, then `server_requests` waits for the server to finish what it was
    sent, so no request outlives the test's database.
    """
    client.force_login(user)
    context = browser.new_context(viewport=VIEWPORT, base_url=live_server.url)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    context.set_default_timeout(WAIT_MS)
    tab = context.new_page()
    yield tab
    context.close()
