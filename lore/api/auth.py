"""Bearer-token authentication with scopes, and the per-request context every handler needs (account, surface,
actor).

Each REST operation declares the scope it needs in one place, its `auth=needs(Scope.…)`; the OpenAPI document
lists it as the operation's security requirement (`{"BearerToken": ["write"]}`), which is where the role
matrix test reads it. A live token without the scope answers 403 forbidden, naming the scope.
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja.security import HttpBearer

from lore.accounts import token_authenticate, token_has
from lore.activity import token as activity_token
from lore.api.errors import ApiError
from lore.models import Account, ApiToken, ReadEvent
from lore.roles import Scope

SURFACE_HEADER = "X-Lore-Surface"
# The surfaces a client may name; the dashboard records its own reads and is not an API surface.
API_SURFACES = (ReadEvent.Surface.API, ReadEvent.Surface.CLI, ReadEvent.Surface.MCP)


class BearerToken(HttpBearer):
    """`Authorization: Bearer lk_…` → the live ApiToken (request.auth), 401 without one, 403 when it lacks
    `scope`."""

    def __init__(self, scope: str = Scope.ADMIN) -> None:
        super().__init__()
        self.scope = Scope(scope)

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        found = token_authenticate(token.strip())
        if found is not None and not token_has(found, self.scope):
            has = ", ".join(found.scopes or []) or "none"
            raise ApiError(
                403,
                f"this token lacks the `{self.scope}` scope this endpoint needs (it has: {has}); "
                "an admin of the account can make a token that has it",
                code="forbidden",
            )
        return found


def needs(scope: str) -> BearerToken:
    """The `auth=` of an operation that needs `scope` (the one place an endpoint declares it)."""
    return BearerToken(scope)


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
