"""REST endpoints for retention policies (DESIGN.md §10)."""

from ninja import Router

router = Router(tags=["policies"])
