"""Issue 14, point 7: a Content-Security-Policy without inline script on every page.

Every dashboard page (enumerated from the resolver, like the security-headers test) sends a policy whose scripts
come from this site only; no page and no template carries an inline script, an on*= handler, a style attribute or a javascript: URL;
the API's docs page needs no relaxed policy. That the browser reports no violation on every page and
state is tests/browser/test_csp.py.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from django.test import Client

from tests.reliability.conftest import World
from tests.reliability.test_auth import DASHBOARD, dashboard_url

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_DIRS = [ROOT / "templates", *ROOT.glob("*/templates")]
INLINE_HANDLER = re.compile(
    r"""\son[a-z]+\s*=|\sstyle\s*=|javascript:|<script(?![^>]*\bsrc=)(?![^>]*application/json)"""
    # htmx evaluates these as JavaScript (new Function), which the policy refuses: the filter would be ignored
    r"""|hx-trigger="[^"]*\[|hx-on[:-]|hx-vals='[^']*js:|hx-vals="[^"]*js:""",
    re.I,
)


def csp_of(response) -> dict[str, list[str]]:  # noqa: ANN001
    header = response.get("Content-Security-Policy", "")
    directives = [part.split() for part in header.split(";") if part.strip()]
    return {words[0]: words[1:] for words in directives}


class InlineScriptFinder(HTMLParser):
    """Whatever in a document the policy would refuse: <script> without src, on*= and style attributes,
    javascript: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and not names.get("src") and names.get("type") != "application/json":
            self.found.append(f"<script> without src at line {self.getpos()[0]}")
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"<{tag} {name}=…> at line {self.getpos()[0]}")
            if value and value.strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}=javascript:…> at line {self.getpos()[0]}")


def dashboard_pages(logged_in: Client, world: World) -> dict[str, object]:
    urls = ["/login/", *(dashboard_url(route, world) for _, route in DASHBOARD)]
    return {url: logged_in.get(url) for url in urls}


def test_every_page_sends_a_content_security_policy_that_allows_scripts_from_this_site_only(
    logged_in: Client, world: World
) -> None:
    pages = dashboard_pages(logged_in, world)
    assert len(pages) > 15
    for url, response in pages.items():
        policy = csp_of(response)
        assert policy.get("script-src") == ["'self'"], (url, policy)
        assert policy.get("default-src") == ["'self'"], (url, policy)
        assert policy.get("object-src") == ["'none'"] and policy.get("base-uri") == ["'none'"], (url, policy)
        assert policy.get("frame-ancestors") == ["'none'"], (url, policy)
        assert "'unsafe-inline'" not in policy.get("style-src", []), (url, policy)


def test_no_page_carries_an_inline_script_an_event_handler_a_style_attribute_or_a_javascript_url(
    logged_in: Client, world: World
) -> None:
    for url, response in dashboard_pages(logged_in, world).items():
        finder = InlineScriptFinder()
        finder.feed(response.content.decode())  # type: ignore[attr-defined]
        assert not finder.found, (url, finder.found)


def test_no_template_carries_an_inline_script_an_event_handler_a_style_attribute_or_a_javascript_url() -> (
    None
):
    templates = [path for folder in TEMPLATE_DIRS for path in folder.rglob("*.html")]
    assert len(templates) > 20
    found = [
        f"{path.relative_to(ROOT)}:{text[: match.start()].count(chr(10)) + 1}: {match.group(0)!r}"
        for path in templates
        for text in [path.read_text()]
        for match in INLINE_HANDLER.finditer(text)
    ]
    assert not found, "\n".join(found)


def test_the_api_docs_page_runs_under_the_same_policy(logged_in: Client) -> None:
    """Swagger UI is served from django-ninja's own static files with its settings in a JSON block, so the docs
    need no relaxed policy (the browser test visits it too)."""
    docs = logged_in.get("/api/v1/docs")
    assert docs.status_code == 200
    policy = csp_of(docs)
    assert policy.get("script-src") == ["'self'"], policy
    assert "'unsafe-inline'" not in policy.get("script-src", []) + policy.get("default-src", [])
