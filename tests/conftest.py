from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class GardenCorpora:
    """Both corpora of the gardener's evaluation as the write path stores them (bench/garden_eval.py)."""

    # `corpus_bench`: each corpus inventoried in full and evaluated; the held-out one as figures only.
    evaluations: dict[str, Any]
    # Per corpus: (the lessons the grammar calls ephemera, the ids the SQL pre-filter keeps).
    ephemera: dict[str, tuple[set[int], set[int]]]


@pytest.fixture(scope="session")
def garden_corpora(django_db_setup, django_db_blocker) -> GardenCorpora:  # noqa: ANN001
    """Both corpora loaded (each into an account of its own), inventoried and evaluated once per test session,
    then rolled back. Loading them through the write path is most of a test run's gardener time, and what is
    measured depends on the code and the corpora only: the evaluation tests, the grammar's pre-filter test and the
    bench harness's smoke test read the same load."""
    from django.db import transaction

    from bench.garden_eval import CORPORA, corpus_account, corpus_bench
    from lore.garden.ephemera import ephemera_candidates, ephemera_match
    from lore.models import Lesson

    with django_db_blocker.unblock(), transaction.atomic():
        evaluations = corpus_bench()
        ephemera = {}
        for name in CORPORA:
            corpus = Account.objects.get(name=corpus_account(name))
            lessons = Lesson.objects.filter(account=corpus)
            matched = {
                lesson.pk for lesson in lessons if ephemera_match(lesson.content, lesson.kind, lesson.tags)
            }
            ephemera[name] = (matched, set(ephemera_candidates(corpus.pk, lessons)))
        transaction.set_rollback(True)
    return GardenCorpora(evaluations, ephemera)


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
