"""Sign-in protection: failed sign-ins throttled per username and per address (django-axes), sessions expire,
Django's password validators are on."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth.password_validation import get_default_password_validators, validate_password
from django.core.exceptions import ValidationError
from django.test import Client

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
LIMIT = settings.AXES_FAILURE_LIMIT


def sign_in(username: str, password: str, address: str = "10.0.0.1") -> object:
    return Client(REMOTE_ADDR=address).post("/login/", {"username": username, "password": password})


def test_failed_sign_ins_lock_the_username_out_even_with_the_right_password() -> None:
    UserFactory(username="alice")
    for attempt in range(LIMIT - 1):
        assert sign_in("alice", "wrong", address=f"10.0.1.{attempt}").status_code == 200  # the form again
    assert sign_in("alice", "wrong", address="10.0.1.99").status_code == 429  # the limit-th failure locks
    locked = sign_in("alice", "pw-for-tests", address="10.0.2.1")
    assert locked.status_code == 429
    html = locked.content.decode()
    assert "Too many failed sign-ins" in html and f"after {LIMIT} failed attempts" in html
    assert "Try again in 15 minutes" in html
    assert "_auth_user_id" not in locked.wsgi_request.session


def test_failed_sign_ins_from_one_address_lock_that_address_out_for_every_username() -> None:
    UserFactory(username="bob")
    for attempt in range(LIMIT):
        sign_in(f"guess{attempt}", "wrong", address="10.9.9.9")
    assert sign_in("bob", "pw-for-tests", address="10.9.9.9").status_code == 429
    assert sign_in("bob", "pw-for-tests", address="10.9.9.10").status_code == 302  # another address gets in


def test_a_successful_sign_in_clears_the_username_count() -> None:
    UserFactory(username="carol")
    for _ in range(LIMIT - 1):
        sign_in("carol", "wrong", address="10.1.1.1")
    assert sign_in("carol", "pw-for-tests", address="10.1.1.1").status_code == 302
    for _ in range(LIMIT - 1):
        sign_in("carol", "wrong", address="10.1.1.2")
    assert sign_in("carol", "pw-for-tests", address="10.1.1.3").status_code == 302


def test_sessions_expire_after_two_weeks_by_default() -> None:
    UserFactory(username="dora")
    client = Client()
    client.post("/login/", {"username": "dora", "password": "pw-for-tests"})
    assert settings.SESSION_COOKIE_AGE == 14 * 24 * 3600
    assert client.session.get_expiry_age() == settings.SESSION_COOKIE_AGE
    assert client.cookies["sessionid"]["max-age"] == settings.SESSION_COOKIE_AGE


@pytest.mark.parametrize("weak", ["short1", "password123", "12345678901", "erin-the-user"])
def test_djangos_password_validators_refuse_weak_passwords(weak: str) -> None:
    user = UserFactory(username="erin-the-user")
    with pytest.raises(ValidationError):
        validate_password(weak, user)


def test_all_four_of_djangos_password_validators_are_on() -> None:
    names = {type(v).__name__ for v in get_default_password_validators()}
    assert names == {
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    }
