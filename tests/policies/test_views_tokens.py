"""Settings → API tokens, and the sign-in pages."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from lore.accounts import token_authenticate, token_create
from lore.models import ApiToken

pytestmark = pytest.mark.django_db


def test_a_new_token_is_shown_once_with_copy_ready_exports(logged_in: Client, account) -> None:  # noqa: ANN001
    response = logged_in.post(
        "/a/acme/settings/tokens/", {"name": "laptop", "owner": "personal", "scopes": ["read", "write"]}
    )
    assert response.status_code == 302
    html = logged_in.get("/a/acme/settings/tokens/").content.decode()
    match = re.search(r"export LOREKIT_URL=http://testserver LOREKIT_TOKEN=(lk_[\w-]+)", html)
    assert match, html
    token = token_authenticate(match.group(1))
    assert token is not None and token.account == account and token.name == "laptop"
    again = logged_in.get("/a/acme/settings/tokens/").content.decode()
    assert match.group(1) not in again and "laptop" in again


def test_the_token_list_shows_name_created_last_used_and_revoked(logged_in: Client, account) -> None:  # noqa: ANN001
    token, raw = token_create(account=account, name="ci-runner")
    token_authenticate(raw)
    html = logged_in.get("/a/acme/settings/tokens/").content.decode()
    row = html.split(f'id="token-{token.pk}"')[1].split("</tr>")[0]
    assert "ci-runner" in row and token.prefix in row and "just now" in row and "Active" in row
    assert raw not in html


def test_revoking_a_token_stops_it_at_once(logged_in: Client, account) -> None:  # noqa: ANN001
    token, raw = token_create(account=account, name="old")
    response = logged_in.post(f"/a/acme/settings/tokens/{token.pk}/revoke/", follow=True)
    assert "Revoked" in response.content.decode()
    assert token_authenticate(raw) is None


def test_another_accounts_token_answers_404(logged_in: Client, other_account) -> None:  # noqa: ANN001
    token, raw = token_create(account=other_account, name="theirs")
    assert logged_in.post(f"/a/acme/settings/tokens/{token.pk}/revoke/").status_code == 404
    assert token_authenticate(raw) is not None
    assert "theirs" not in logged_in.get("/a/acme/settings/tokens/").content.decode()


@pytest.mark.parametrize(
    ("typed", "message"),
    [("", "Give the token a name."), ("x" * 101, "Ensure this value has at most 100 characters")],
)
def test_a_bad_token_name_is_refused_inline_keeping_what_was_typed(
    logged_in: Client, typed: str, message: str
) -> None:
    response = logged_in.post(
        "/a/acme/settings/tokens/", {"name": typed, "owner": "personal", "scopes": ["read", "write"]}
    )
    html = response.content.decode()
    assert response.status_code == 422 and message in html
    assert f'value="{typed}"' in html
    assert not ApiToken.objects.exists()


def test_a_token_cannot_claim_a_team_the_user_is_not_in(logged_in: Client) -> None:
    response = logged_in.post("/a/acme/settings/tokens/", {"name": "sneaky", "owner": "platform"})
    assert response.status_code == 422 and not ApiToken.objects.exists()


def test_the_sign_in_page_looks_like_the_product_and_says_what_went_wrong(client: Client, user) -> None:  # noqa: ANN001
    page = client.get("/login/").content.decode()
    assert "Sign in to Lore Explorer" in page and "settings.css" in page
    response = client.post("/login/", {"username": "alice", "password": "wrong"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Please enter a correct username and password" in html and 'value="alice"' in html
    ok = client.post(
        "/login/", {"username": "alice", "password": "pw-for-tests", "next": "/a/acme/settings/tokens/"}
    )
    assert ok.status_code == 302 and ok["Location"] == "/a/acme/settings/tokens/"


def test_signing_out_needs_a_post(logged_in: Client) -> None:
    assert logged_in.get("/logout/").status_code == 405
    response = logged_in.post("/logout/")
    assert response.status_code == 302
    assert logged_in.get("/a/acme/settings/tokens/").status_code == 302
