"""The REST API of the lesson store (DESIGN.md §10). `config.api` mounts `router` at /api/v1/memories."""

from lore.api.memories import router

__all__ = ["router"]
