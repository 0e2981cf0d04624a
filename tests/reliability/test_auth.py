"""Authentication and the web's own defences.

- Every dashboard URL (enumerated from the URL resolver) requires a signed-in user: /login/ otherwise.
- API tokens are stored hashed: the raw value is in no column of any table. A revoked token stops at once.
- CSRF is enforced on every dashboard POST: every form the pages render, and every URL that accepts a POST.
- Security headers on every page, and `manage.py check --deploy` clean with the production example env.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.db import models
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from lore.accounts import token_create, token_revoke
from tests.reliability.conftest import World

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def dashboard_patterns() -> list[tuple[str, str]]:
    """(name, route) of every dashboard URL, as the resolver knows them: every view that declares the role it
    needs (lore.access.account_view). In the browser each lives under its account, /a/<slug>/<route>."""
    found: list[tuple[str, str]] = []

    def walk(resolver: URLResolver, prefix: str, namespace: str) -> None:
        for entry in resolver.url_patterns:
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                walk(entry, route, entry.namespace or namespace)
            elif isinstance(entry, URLPattern) and hasattr(entry.callback, "lore_need"):
                found.append((f"{namespace}:{entry.name}", route))

    walk(get_resolver(), "/", "")
    return found


DASHBOARD = dashboard_patterns()


def dashboard_url(route: str, world: World | None = None, **overrides: Any) -> str:
    """The route with its <converters> filled: A's objects when a world is given, 1 otherwise."""
    ids = {
        "lesson_id": world.active.pk if world else 1,
        "policy_id": world.policy.pk if world else 1,
        "run_id": world.run.pk if world else 1,
        "token_id": world.token.pk if world else 1,
        "job_id": world.job.pk if world else 1,
        "membership_id": world.member.pk if world else 1,
        "finding_id": world.findings[0].pk if world else 1,
        **overrides,
    }

    def fill(match: re.Match[str]) -> str:
        converter, name = match.group(1), match.group(2)
        if name in ids:
            return str(ids[name])
        assert converter in ("str", "slug"), f"{route}: teach the auth tests what <{name}> is"
        return str(overrides.get(name, "x"))

    return re.sub(r"<(?:(\w+):)?(\w+)>", fill, route)


def test_the_dashboard_has_urls_to_check() -> None:
    assert any(name == "explorer:index" for name, _ in DASHBOARD)
    assert any(name.startswith("policies:") for name, _ in DASHBOARD)
    assert any(name.startswith("members:") for name, _ in DASHBOARD)


@pytest.mark.parametrize(("name", "route"), DASHBOARD, ids=[n for n, _ in DASHBOARD])
def test_every_dashboard_url_requires_a_signed_in_user(client: Client, name: str, route: str) -> None:
    url = dashboard_url(route)
    answered = {method: getattr(client, method)(url) for method in ("get", "post")}
    allowed = {m: r for m, r in answered.items() if r.status_code != 405}  # 405: that method is not served
    assert allowed, url
    for method, response in allowed.items():
        assert response.status_code == 302, (method, url, response.status_code)
        assert response["Location"].startswith("/login/"), (method, url, response["Location"])


# ---------------------------------------------------------------- tokens


def columns_holding(value: str) -> list[str]:
    """Every text column of every table that contains `value`."""
    hits = []
    for model in apps.get_models():
        if not model._meta.managed:
            continue  # a view over tables read here already (lore.value_counts.VIEWS; PostgreSQL only)
        for field in model._meta.concrete_fields:
            if isinstance(field, models.CharField | models.TextField):
                if model._default_manager.filter(**{f"{field.name}__contains": value}).exists():
                    hits.append(f"{model._meta.db_table}.{field.column}")
    return hits


def test_tokens_are_stored_hashed_never_raw(account, user) -> None:  # noqa: ANN001
    from io import StringIO

    from django.core.management import call_command

    made = [token_create(account=account, name="laptop")[1]]
    out = StringIO()
    call_command("create_token", account=account.name, name="ci", stdout=out)
    made.append(out.getvalue().strip())
    for raw in made:
        assert raw.startswith("lk_") and len(raw) > 30
        assert Client().get("/api/v1/memories", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 200
        assert columns_holding(raw) == []
        assert columns_holding(raw[3:]) == []


def test_a_token_made_on_the_settings_page_is_never_in_the_database_raw_not_even_in_a_session(
    logged_in: Client,
    account,  # noqa: ANN001
) -> None:
    import re

    from django.contrib.sessions.models import Session

    created = logged_in.post(
        "/a/acme/settings/tokens/", {"name": "laptop", "owner": "personal", "scopes": ["read", "write"]}
    )
    assert created.status_code == 302
    sessions = " ".join(str(s.get_decoded()) for s in Session.objects.all())
    html = logged_in.get(created["Location"]).content.decode()
    raw = re.search(r"LOREKIT_TOKEN=(lk_[\w-]+)", html)
    assert raw, "the new token is shown once, right after it is made"
    sessions += " ".join(str(s.get_decoded()) for s in Session.objects.all())
    assert raw.group(1) not in sessions and columns_holding(raw.group(1)) == []
    assert raw.group(1) not in logged_in.get("/a/acme/settings/tokens/").content.decode()  # and only once


def test_a_new_token_is_shown_only_to_the_user_who_made_it(logged_in: Client, account, intruder) -> None:  # noqa: ANN001
    from lore.models import Membership

    Membership.objects.create(user=intruder, account=account)
    created = logged_in.post(
        "/a/acme/settings/tokens/", {"name": "laptop", "owner": "personal", "scopes": ["read", "write"]}
    )
    logged_in.force_login(intruder)  # someone else signs in on the same browser before the page is shown
    assert "LOREKIT_TOKEN=lk_" not in logged_in.get(created["Location"]).content.decode()


def test_a_revoked_token_stops_working_at_once(account) -> None:  # noqa: ANN001
    token, raw = token_create(account=account, name="laptop")
    client = Client()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    assert client.get("/api/v1/memories", **headers).status_code == 200
    token_revoke(account=account, token_id=token.pk)
    response = client.get("/api/v1/memories", **headers)
    assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"
    assert client.post("/api/v1/memories", {}, content_type="application/json", **headers).status_code == 401


# ---------------------------------------------------------------- CSRF


class _Forms(HTMLParser):
    """The action of every <form method="post"> on a page."""

    def __init__(self) -> None:
        super().__init__()
        self.actions: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "form" and (values.get("method") or "").lower() == "post":
            self.actions.append(values.get("action") or "")


def post_forms(html: str, page: str) -> list[str]:
    parser = _Forms()
    parser.feed(html)
    return [action or page for action in parser.actions]


def test_csrf_is_enforced_on_every_dashboard_post(user, world: World) -> None:  # noqa: ANN001
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    targets = {dashboard_url(route, world) for _, route in DASHBOARD}
    for _, route in DASHBOARD:
        page = dashboard_url(route, world)
        response = client.get(page)
        if response.status_code == 200 and "html" in response.get("Content-Type", ""):
            targets.update(post_forms(response.content.decode(), page))
    targets.add("/logout/")
    refused = {url: client.post(url, {"name": "x"}).status_code for url in sorted(targets)}
    assert {url: status for url, status in refused.items() if status != 403} == {}


def test_the_login_form_is_csrf_protected_too() -> None:
    client = Client(enforce_csrf_checks=True)
    assert client.post("/login/", {"username": "a", "password": "b"}).status_code == 403


# ---------------------------------------------------------------- headers and deployment checks

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def test_every_page_sends_the_security_headers(logged_in: Client, world: World) -> None:
    urls = ["/login/", "/api/v1/memories", "/api/v1/openapi.json"]
    urls += [dashboard_url(route, world) for _, route in DASHBOARD]
    for url in urls:
        response = logged_in.get(url)
        for header, value in SECURITY_HEADERS.items():
            assert response.get(header) == value, (url, header, response.get(header))


def production_env() -> dict[str, str]:
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}  # nothing of the test run's
    for line in (ROOT / ".env.production.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            env[name.strip()] = value.strip()
    env["SECRET_KEY"] = "k8#" + "x7Q!v2m" * 8  # the example's placeholder is meant to be replaced
    return env


def test_check_deploy_is_clean_with_the_production_example_env() -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


# ---------------------------------------------------------------- redirects stay on the site


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", "\\\\evil"]
)
def test_no_next_field_redirects_off_the_site(logged_in: Client, user, world: World, target: str) -> None:  # noqa: ANN001
    sheet = logged_in.post(f"/a/acme/explorer/lessons/{world.active.pk}/pin/", {"next": target})
    assert sheet.status_code == 302 and sheet["Location"] == f"/a/acme/explorer/lessons/{world.active.pk}/"
    client = Client()
    signed_in = client.post(f"/login/?next={target}", {"username": user.username, "password": "pw-for-tests"})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/"
