"""First run: from an empty database to a signed-in admin with no admin site and no shell — the
`create_account` and `add_member` commands, and the one-time "Create the first account" page."""

from __future__ import annotations

import io
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client

from lore.accounts import FirstRunClosed, first_account_create
from lore.models import Account, Membership
from lore.roles import Role
from tests.services import require_postgres

pytestmark = pytest.mark.django_db
STRONG = "correct horse battery staple 7"


def test_create_account_makes_the_account_and_its_admin_from_a_password_on_stdin(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr("sys.stdin", io.StringIO(STRONG + "\n"))
    out = io.StringIO()
    call_command("create_account", "Acme Corp", admin="ada", password_stdin=True, stdout=out)
    account = Account.objects.get(name="Acme Corp")
    assert Membership.objects.get(account=account).role == Role.ADMIN
    assert (
        f"Sign in at {settings.LORE_BASE_URL}/login/" in out.getvalue() and "/a/acme-corp/" in out.getvalue()
    )
    client = Client()
    assert client.post("/login/", {"username": "ada", "password": STRONG}).status_code == 302
    assert client.get("/")["Location"] == "/a/acme-corp/explorer/"


def test_create_account_refuses_a_weak_password(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr("sys.stdin", io.StringIO("123\n"))
    with pytest.raises(CommandError, match="too short"):
        call_command("create_account", "Acme", admin="ada", password_stdin=True, stdout=io.StringIO())
    assert not Account.objects.exists() and not get_user_model().objects.exists()


def test_add_member_adds_a_person_with_a_role_and_prints_their_one_time_link(account) -> None:  # noqa: ANN001
    out = io.StringIO()
    call_command("add_member", "acme", "eve", role="editor", stdout=out)
    assert Membership.objects.get(account=account, user__username="eve").role == Role.EDITOR
    link = re.search(rf"at {re.escape(settings.LORE_BASE_URL)}(/reset/\S+)", out.getvalue()).group(1)
    client = Client()
    page = client.get(link, follow=True)
    assert page.status_code == 200 and "Choose your password" in page.content.decode()


def test_the_first_run_page_is_open_only_while_the_instance_has_no_user() -> None:
    client = Client()
    assert client.get("/")["Location"] == "/welcome/"
    page = client.get("/welcome/")
    assert page.status_code == 200 and "Create the first account" in page.content.decode()
    weak = client.post("/welcome/", {"account": "Acme", "username": "ada", "password": "123"})
    assert weak.status_code == 422 and not get_user_model().objects.exists()
    made = client.post("/welcome/", {"account": "Acme", "username": "ada", "password": STRONG})
    assert made.status_code == 302 and made["Location"] == "/a/acme/explorer/"
    assert client.get("/a/acme/explorer/").status_code == 200  # signed in as the admin
    assert Membership.objects.get().role == Role.ADMIN
    assert Client().get("/welcome/").status_code == 404  # gone for good
    again = Client().post("/welcome/", {"account": "Evil", "username": "mallory", "password": STRONG})
    assert again.status_code == 404 and not Account.objects.filter(name="Evil").exists()
    assert Client().get("/")["Location"] == "/login/"


def test_the_first_run_is_race_safe_only_one_of_two_at_once_wins(transactional_db) -> None:  # noqa: ANN001
    require_postgres()

    def attempt(n: int) -> str:
        try:
            first_account_create(name=f"acct{n}", username=f"admin{n}", password=STRONG)
            return "made"
        except FirstRunClosed:
            return "closed"
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(attempt, range(4)))
    assert sorted(results) == ["closed", "closed", "closed", "made"]
    assert Account.objects.count() == 1 and get_user_model().objects.count() == 1
