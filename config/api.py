"""The REST API (`/api/v1/`): django-ninja, Bearer tokens, OpenAPI at /api/v1/openapi.json, docs at /api/v1/docs.

Every answer that is not a success is `{"error": {"code", "message", "field"}}` (lore.api.errors), including
unknown URLs under /api/v1/.
"""

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import re_path
from ninja import NinjaAPI
from ninja.openapi.schema import OpenAPISchema
from ninja.operation import Operation

from lore.api.auth import BearerToken
from lore.api.errors import ObjectParser, install_error_handlers
from lore.api.memories import router as memories_router
from policies.api import groom_router
from policies.api import router as policies_router


def _unknown_url(request: HttpRequest, rest: str = "") -> JsonResponse:
    body = {"error": {"code": "not_found", "message": f"no such endpoint: {request.path}", "field": None}}
    return JsonResponse(body, status=404)


class ScopedSchema(OpenAPISchema):
    """Each operation's security requirement names the token scope it needs (OpenAPI 3.1 allows role names)."""

    def operation_security(self, operation: Operation) -> list[dict[str, Any]] | None:
        found = super().operation_security(operation)
        scopes = [getattr(auth, "scope", None) for auth in operation.auth_callbacks]
        return [{name: [str(s) for s in scopes if s]} for item in found or [] for name in item]


class LoreAPI(NinjaAPI):
    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> OpenAPISchema:
        if path_prefix is None:
            path_prefix = self.get_root_path(path_params or {})
        return ScopedSchema(self, path_prefix)

    @property
    def urls(self) -> tuple[list[Any], str, str]:
        patterns, app_name, namespace = super().urls  # type: ignore[misc]
        return [*patterns, re_path(r"^(?P<rest>.*)$", _unknown_url)], app_name, namespace


api = LoreAPI(
    title="Lore Explorer API",
    version="1",
    description="Lessons, retention policies and grooming. Authenticate with `Authorization: Bearer <token>` "
    "(`manage.py create_token --account NAME`, or Settings → API tokens). A token carries scopes — `read`, `write`, "
    "`groom`, `admin` — and each operation's security requirement names the one it needs; without it the answer "
    "is 403 `forbidden`, naming the scope. Clients may say who they are with `X-Lore-Surface: api|cli|mcp`; "
    "it is recorded on every read.",
    urls_namespace="api",
    auth=BearerToken(),  # every operation names its own scope (lore.api.auth.needs); this is the safe default
    parser=ObjectParser(),
)
install_error_handlers(api)
api.add_router("/memories/groom", groom_router)
api.add_router("/memories", memories_router)
api.add_router("/policies", policies_router)
