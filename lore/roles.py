"""Roles and token scopes, declared once (DESIGN.md §15): what a member of an account and an API token may do.

A membership has a role, viewer < editor < admin; a token has scopes, read / write / groom / admin. A role grants
the scopes listed in `ROLE_SCOPES`, so a token can never carry more than the role of the person who made it.
Dashboard views declare their role with `lore.access.account_view`, REST operations their scope with
`lore.api.auth.needs`, and the few URLs outside any account what they need (`SiteNeed`) with
`lore.access.site_view`; all are recorded where the role matrix test enumerates them.
"""

from __future__ import annotations

from django.db import models


class Role(models.TextChoices):
    VIEWER = "viewer", "Viewer"
    EDITOR = "editor", "Editor"
    ADMIN = "admin", "Admin"


class Scope(models.TextChoices):
    READ = "read", "read: list, search, open and export lessons; list policies; preview"
    WRITE = "write", "write: write, pin, restore and import lessons"
    GROOM = "groom", "groom: run retention policies (archive what they match)"
    ADMIN = "admin", "admin: create, change and delete retention policies"


class SiteNeed(models.TextChoices):
    """What a URL outside any account needs: nothing (a load balancer's health check), or the operator's token."""

    PUBLIC = "public", "anyone: no sign-in, no token"
    OPERATOR = "operator", "the operator's token (setting LORE_METRICS_TOKEN) as `Authorization: Bearer …`"


RANK = {Role.VIEWER: 0, Role.EDITOR: 1, Role.ADMIN: 2}

# What each role may do, in the words the dashboard shows next to a control it disables.
ROLE_CAN = {
    Role.VIEWER: "browse, open the sheet and export",
    Role.EDITOR: "pin, archive and restore lessons, create, edit and run review policies, undo runs",
    Role.ADMIN: "enable auto policies, delete policies, manage members and tokens",
}

ROLE_SCOPES: dict[str, tuple[str, ...]] = {
    Role.VIEWER: (Scope.READ,),
    Role.EDITOR: (Scope.READ, Scope.WRITE, Scope.GROOM),
    Role.ADMIN: (Scope.READ, Scope.WRITE, Scope.GROOM, Scope.ADMIN),
}

# A new token can read and write lessons; running or changing policies must be chosen deliberately.
DEFAULT_TOKEN_SCOPES: tuple[str, ...] = (Scope.READ, Scope.WRITE)
ALL_SCOPES: tuple[str, ...] = tuple(Scope.values)


def role_allows(role: str, needed: str) -> bool:
    """Whether a member with `role` may do what needs `needed` (roles are ordered)."""
    return role in RANK and RANK[Role(role)] >= RANK[Role(needed)]


def scopes_beyond(role: str, scopes: tuple[str, ...] | list[str]) -> list[str]:
    """The scopes in `scopes` that `role` may not grant (empty when a token of those scopes is allowed)."""
    allowed = ROLE_SCOPES.get(role, ())
    return [s for s in scopes if s not in allowed]


def scopes_normal(scopes: list[str] | tuple[str, ...]) -> list[str]:
    """Scopes in their declared order, each once; an unknown name raises ValueError."""
    unknown = [s for s in scopes if s not in ALL_SCOPES]
    if unknown:
        raise ValueError(f"unknown scope {unknown[0]!r}: the scopes are {', '.join(ALL_SCOPES)}")
    return [s for s in ALL_SCOPES if s in scopes]
