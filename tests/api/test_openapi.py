"""The OpenAPI document is served, documents every endpoint of DESIGN.md §10, and its request schemas are
the registry: every condition with its bounds, every dimension with its modes."""

from __future__ import annotations

import pytest
from django.test import Client

from lore.conditions import DIMENSIONS, PARAMS, POLICY_DIMENSIONS, RETENTION_PARAMS, REVERSE_PARAMS

pytestmark = pytest.mark.django_db

ENDPOINTS = {
    ("post", "/api/v1/memories"),
    ("get", "/api/v1/memories"),
    ("post", "/api/v1/memories/list"),
    ("post", "/api/v1/memories/search"),
    ("get", "/api/v1/memories/{lesson_id}"),
    ("post", "/api/v1/memories/read"),
    ("post", "/api/v1/memories/protect"),
    ("post", "/api/v1/memories/restore"),
    ("post", "/api/v1/memories/groom/preview"),
    ("post", "/api/v1/memories/groom/run"),
    ("get", "/api/v1/memories/export"),
    ("post", "/api/v1/memories/import"),
    ("get", "/api/v1/policies"),
    ("post", "/api/v1/policies"),
    ("get", "/api/v1/policies/{policy_id}"),
    ("patch", "/api/v1/policies/{policy_id}"),
    ("delete", "/api/v1/policies/{policy_id}"),
    ("get", "/api/v1/findings"),
    ("post", "/api/v1/findings/{finding_id}/apply"),
    ("post", "/api/v1/findings/{finding_id}/dismiss"),
    ("post", "/api/v1/findings/{finding_id}/undo"),
    ("post", "/api/v1/garden/run"),
    ("get", "/api/v1/garden/runs/{garden_run_id}"),
}


@pytest.fixture(scope="module")
def document() -> dict:
    from config.api import api

    return api.get_openapi_schema()


def props(document: dict, name: str) -> dict:
    return document["components"]["schemas"][name]["properties"]


def test_openapi_json_and_the_interactive_docs_are_served() -> None:
    client = Client()
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    assert response.json()["info"]["title"] == "Lore Explorer API"
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200
    assert b"swagger-ui-bundle.js" in docs.content
    assert b"cdn." not in docs.content  # served from our own static files


def test_every_endpoint_of_the_design_is_documented_with_bearer_auth(document) -> None:  # noqa: ANN001
    documented = {(m, path) for path, ops in document["paths"].items() for m in ops}
    assert documented == ENDPOINTS
    assert document["components"]["securitySchemes"]["BearerToken"]["scheme"] == "bearer"


def test_list_filters_carry_every_condition_direction_and_dimension(document) -> None:  # noqa: ANN001
    fields = props(document, "ListIn")
    for param in PARAMS.values():
        bounds = fields[param.name]["anyOf"][0]
        assert (bounds["minimum"], bounds["maximum"]) == param.bounds
    for dim in DIMENSIONS:
        assert dim.name in fields
        assert fields[dim.mode_param]["anyOf"][0]["enum"] == list(dim.modes)


def test_policy_and_groom_schemas_carry_retention_conditions_and_policy_dimensions_only(document) -> None:  # noqa: ANN001
    for schema in ("PolicyIn", "PolicyPatch", "GroomPreviewIn", "GroomRunIn", "Policy"):
        fields = props(document, schema)
        assert {p.name for p in RETENTION_PARAMS} <= set(fields)
        assert not {p.name for p in REVERSE_PARAMS} & set(fields)
        assert {d.name for d in POLICY_DIMENSIONS} <= set(fields)
        assert "owner" not in fields
    assert set(document["components"]["schemas"]["PolicyIn"]["required"]) == {"name", "scope"}


def test_errors_are_documented_in_the_envelope(document) -> None:  # noqa: ANN001
    responses = document["paths"]["/api/v1/memories/read"]["post"]["responses"]
    assert {200, 400, 401, 404, 409, 422} <= {int(code) for code in responses}
    assert document["components"]["schemas"]["ErrorOut"]["required"] == ["error"]
