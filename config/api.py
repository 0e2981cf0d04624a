"""The REST API (`/api/v1/`): django-ninja, Bearer tokens, OpenAPI at /api/v1/openapi.json."""

from ninja import NinjaAPI

from lore.api import router as memories_router
from policies.api import router as policies_router

api = NinjaAPI(title="Lore Explorer API", version="1", urls_namespace="api")
api.add_router("/memories", memories_router)
api.add_router("/policies", policies_router)
