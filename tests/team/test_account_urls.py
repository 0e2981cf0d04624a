"""The account is part of every dashboard URL (/a/<slug>/…): shared URLs open the same view for every member,
answer 404 to anyone else; old slug-less URLs redirect a person with one account; several get a chooser."""

from __future__ import annotations

import pytest
from django.test import Client

from lore.accounts import account_create
from lore.roles import Role
from tests.factories import LessonFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(UserFactory(username=username))
    return client


def test_a_shared_explorer_url_opens_the_same_view_for_another_member(account, logged_in) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="shared-one", kind="bug")
    MembershipFactory(account=account, user=UserFactory(username="bob"), role=Role.VIEWER)
    url = "/a/acme/explorer/?kind=bug&kind_mode=in"
    mine = logged_in.get(url)
    theirs = signed_in("bob").get(url)
    assert mine.status_code == theirs.status_code == 200
    assert 'data-key="shared-one"' in theirs.content.decode()


def test_another_accounts_slug_answers_404(account, other_account, logged_in) -> None:  # noqa: ANN001
    LessonFactory(account=other_account, key="secret")
    for url in ("/a/globex/explorer/", "/a/globex/settings/policies/", "/a/nobody/explorer/"):
        answer = logged_in.get(url)
        assert answer.status_code == 404, url
        assert "secret" not in answer.content.decode()


def test_an_old_url_without_the_slug_redirects_a_person_with_one_account(account, user) -> None:  # noqa: ANN001
    client = Client()
    client.force_login(user)
    answer = client.get("/explorer/?q=uv&sort=newest")
    assert answer.status_code == 302 and answer["Location"] == "/a/acme/explorer/?q=uv&sort=newest"
    assert client.get("/")["Location"] == "/a/acme/explorer/"


def test_a_person_in_several_accounts_chooses_one_and_switches_in_the_top_bar(account, other_account) -> None:  # noqa: ANN001
    person = UserFactory(username="carol")
    MembershipFactory(account=account, user=person, role=Role.VIEWER)
    MembershipFactory(account=other_account, user=person, role=Role.ADMIN)
    client = Client()
    client.force_login(person)
    chooser = client.get("/settings/policies/")
    html = chooser.content.decode()
    assert chooser.status_code == 200
    assert 'href="/a/acme/settings/policies/"' in html and 'href="/a/globex/settings/policies/"' in html
    page = client.get("/a/globex/explorer/").content.decode()
    assert 'class="account-switch"' in page and 'href="/a/acme/explorer/"' in page
    assert 'href="/a/globex/settings/policies/"' in page  # the nav carries the account
    assert "(admin)" in page


def test_a_signed_in_person_without_a_membership_is_told_who_can_add_them(db) -> None:  # noqa: ANN001
    account_create(name="Acme Corp")
    client = signed_in("dave")
    for url in ("/", "/explorer/"):
        answer = client.get(url)
        html = answer.content.decode()
        assert answer.status_code in (200, 403), url
        assert "You are not in any account yet" in html
        assert "manage.py add_member ACCOUNT dave --role editor" in html and "Settings → Members" in html


def test_links_on_a_page_carry_the_account(account, logged_in) -> None:  # noqa: ANN001
    html = logged_in.get("/a/acme/settings/policies/").content.decode()
    assert 'href="/a/acme/explorer/"' in html and 'href="/a/acme/settings/tokens/"' in html
    assert 'href="/explorer/' not in html and 'href="/settings/' not in html


def test_account_slugs_are_unique_and_readable(db) -> None:  # noqa: ANN001
    first = account_create(name="Acme Corp")
    second = account_create(name="acme corp!")
    assert first.slug == "acme-corp" and second.slug == "acme-corp-2"
