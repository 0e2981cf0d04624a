"""Bearer-token authentication and the per-request context every handler needs (account, surface, actor)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja.security import HttpBearer

from lore.accounts import token_authenticate
from lore.activity import token as activity_token
from lore.models import Account, ApiToken, ReadEvent

SURFACE_HEADER = "X-Lore-Surface"
# The surfaces a client may name; the dashboard records its own reads and is not an API surface.
API_SURFACES = (ReadEvent.Surface.API, ReadEvent.Surface.CLI, ReadEvent.Surface.MCP)


class BearerToken(HttpBearer):
    """`Authorization: Bearer lk_…` → the live ApiToken (request.auth), or 401."""

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        return token_authenticate(token.strip())


def token_of(request: HttpRequest) -> ApiToken:
    return request.auth  # type: ignore[attr-defined,no-any-return]


def account_of(request: HttpRequest) -> Account:
    return token_of(request).account


def surface_of(request: HttpRequest) -> str:
    """Which client made the call (`X-Lore-Surface: api|cli|mcp`, default api); recorded on ReadEvent."""
    raw = request.headers.get(SURFACE_HEADER, "").strip().lower()
    return raw if raw in API_SURFACES else ReadEvent.Surface.API


def actor_of(request: HttpRequest) -> str:
    """Who a REST call's changes are recorded as: its token, by name (lore.activity)."""
    return activity_token(token_of(request))
