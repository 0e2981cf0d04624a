"""Accounts, memberships and API tokens."""

from __future__ import annotations

import secrets

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import Http404
from django.utils import timezone

from lore.models import Account, ApiToken, Membership, token_hash

TOKEN_PREFIX = "lk_"


def account_for_user(user: AbstractBaseUser | AnonymousUser) -> Account | None:
    """The account a signed-in person works in (their first membership)."""
    if not user.is_authenticated:
        return None
    cached: Account | bool | None = getattr(user, "_lore_account", None)
    if cached is None:
        membership = Membership.objects.select_related("account").filter(user=user).order_by("pk").first()  # type: ignore[misc]
        cached = membership.account if membership else False
        user._lore_account = cached  # type: ignore[union-attr,attr-defined]
    return cached if isinstance(cached, Account) else None


def account_required(user: AbstractBaseUser | AnonymousUser) -> Account:
    found = account_for_user(user)
    if found is None:
        raise Http404("no account")
    return found


def token_create(
    *, account: Account, name: str, owner: str = "personal", created_by=None
) -> tuple[ApiToken, str]:
    """A new token; the raw value is returned once and never stored."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        account=account,
        name=name[:100] or "token",
        prefix=raw[:10],
        hashed=token_hash(raw),
        owner=owner,
        created_by=created_by,
    )
    return token, raw


def token_authenticate(raw: str | None) -> ApiToken | None:
    """The live token for a raw bearer value, or None. Revoked tokens stop working at once."""
    if not raw or not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    token = (
        ApiToken.objects.select_related("account")
        .filter(hashed=token_hash(raw), revoked_at__isnull=True)
        .first()
    )
    if token is not None:
        now = timezone.now()
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def token_revoke(*, account: Account, token_id: int) -> ApiToken:
    token = ApiToken.objects.filter(account=account, pk=token_id).first()
    if token is None:
        raise Http404("no such token")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token
