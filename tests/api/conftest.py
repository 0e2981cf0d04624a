"""The REST API through Django's test client, as a Bearer-token client calls it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client


@dataclass
class Api:
    """`api.post("/memories/read", {...})` → the response; paths are relative to /api/v1."""

    client: Client
    token: str | None
    surface: str | None = None

    def headers(self) -> dict[str, str]:
        headers = {}
        if self.token is not None:
            headers["HTTP_AUTHORIZATION"] = f"Bearer {self.token}"
        if self.surface:
            headers["HTTP_X_LORE_SURFACE"] = self.surface
        return headers

    def call(self, method: str, path: str, body: Any = None, **query: Any) -> Any:
        url = "/api/v1" + path
        handler = getattr(self.client, method.lower())
        if method == "GET":
            return handler(url, query, **self.headers())
        data = body if isinstance(body, str | bytes) else json.dumps(body if body is not None else {})
        return handler(url, data, content_type="application/json", **self.headers())

    def get(self, path: str, **query: Any) -> Any:
        return self.call("GET", path, **query)

    def post(self, path: str, body: Any = None) -> Any:
        return self.call("POST", path, body)

    def patch(self, path: str, body: Any = None) -> Any:
        return self.call("PATCH", path, body)

    def delete(self, path: str) -> Any:
        return self.call("DELETE", path)

    def as_surface(self, surface: str) -> Api:
        return Api(self.client, self.token, surface)


@pytest.fixture
def api(raw_token) -> Api:  # noqa: ANN001
    return Api(Client(), raw_token)


@pytest.fixture
def other_api(other_raw_token) -> Api:  # noqa: ANN001
    return Api(Client(), other_raw_token)


def error_of(response: Any) -> dict[str, Any]:
    body = response.json()
    assert set(body["error"]) == {"code", "message", "field"}, body
    return body["error"]  # type: ignore[no-any-return]
