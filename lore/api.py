"""REST endpoints for lessons (DESIGN.md §10). Thin: validate → service/selector → serialise."""

from ninja import Router

router = Router(tags=["memories"])
