"""`/healthz`: the database and the broker, no sign-in, 200 JSON or 503 naming what is down."""

from __future__ import annotations

import pytest
from django.test import Client

from config.celery import app

pytestmark = pytest.mark.django_db


def test_healthz_answers_200_json_without_signing_in_when_database_and_broker_are_up(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "down": [], "checks": {"database": "ok", "broker": "ok"}}
    assert "no-cache" in response["Cache-Control"]


def test_healthz_answers_503_naming_the_broker_when_it_is_down(client: Client) -> None:
    previous = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:9/0"  # the discard port: nothing listens there
    try:
        response = client.get("/healthz")
    finally:
        app.conf.broker_url = previous
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down" and body["down"] == ["broker"]
    assert body["checks"]["database"] == "ok" and body["checks"]["broker"].startswith("down")
    assert "127.0.0.1" not in response.content.decode()  # what is down, never the broker's address


def test_healthz_is_not_redirected_to_https(client: Client, settings) -> None:  # noqa: ANN001
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200
    assert client.get("/login/").status_code == 301
