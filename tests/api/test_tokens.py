"""`manage.py create_token --account NAME` prints a token that the API accepts as a Bearer token."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from tests.api.conftest import Api

pytestmark = pytest.mark.django_db


def test_create_token_prints_a_bearer_token_the_api_accepts(account) -> None:  # noqa: ANN001
    out = StringIO()
    call_command("create_token", account="acme", name="laptop", stdout=out)
    token = out.getvalue().strip()
    assert token.startswith("lk_")
    assert Api(Client(), token).get("/memories").status_code == 200


def test_create_token_refuses_an_unknown_account(db) -> None:  # noqa: ANN001
    with pytest.raises(CommandError):
        call_command("create_token", account="nobody", stdout=StringIO())
