from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from lore.accounts import token_create
from lore.models import Account
from lore.roles import ALL_SCOPES
from tests.factories import AccountFactory, MembershipFactory, UserFactory
from tests.urls import AccountClient


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):  # noqa: ANN001
    """PBKDF2 takes most of a second per user on a busy machine; tests need a hash, not a strong one."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _celery_eager_by_default(settings):  # noqa: ANN001
    """Outside the tests that start a real worker, tasks run in-process."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture(scope="session")
def garden_evaluations(django_db_setup, django_db_blocker) -> dict[str, Any]:  # noqa: ANN001
    """The gardener's evaluation on both corpora (bench/garden_eval.py, `corpus_bench`: each loaded into an account
    of its own through the write path, inventoried in full, evaluated), measured once per test session and rolled
    back. Loading the corpora is most of a test run's gardener time, and the figures depend on the code and the
    corpora only: the evaluation tests and the bench harness's smoke test read the same measurement."""
    from django.db import transaction

    from bench.garden_eval import corpus_bench

    with django_db_blocker.unblock(), transaction.atomic():
        results = corpus_bench()  # the held-out one as figures only: a failure shows no held-out address
        transaction.set_rollback(True)
    return results


@pytest.fixture
def account(db) -> Account:  # noqa: ANN001
    return AccountFactory(name="acme")


@pytest.fixture
def other_account(db) -> Account:  # noqa: ANN001
    return AccountFactory(name="globex")


@pytest.fixture
def user(account):  # noqa: ANN001, ANN201
    member = MembershipFactory(account=account, user=UserFactory(username="alice"))
    return member.user


@pytest.fixture
def logged_in(account, user) -> Client:  # noqa: ANN001
    """alice, signed in, working in acme (slug-less dashboard paths are sent to /a/acme/…)."""
    client = AccountClient(account)
    client.force_login(user)
    return client


@pytest.fixture
def raw_token(account) -> str:  # noqa: ANN001
    return token_create(account=account, name="tests", scopes=ALL_SCOPES)[1]


@pytest.fixture
def other_raw_token(other_account) -> str:  # noqa: ANN001
    return token_create(account=other_account, name="tests", scopes=ALL_SCOPES)[1]
