"""Accounts, memberships (with their roles) and API tokens (with their scopes)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.contrib.auth.tokens import default_token_generator
from django.db import connection, transaction
from django.http import Http404
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.text import slugify

from lore.activity import activity_record
from lore.models import Account, Activity, ApiToken, Membership, token_hash
from lore.roles import DEFAULT_TOKEN_SCOPES, Role, scopes_beyond, scopes_normal

TOKEN_PREFIX = "lk_"
SLUG_MAX = 40


class MembershipError(ValueError):
    """A membership change that would break a rule (the last admin, an unknown role); the message says which."""


class TokenNotYours(PermissionError):
    """A member who is not an admin tried to revoke another person's token."""


class FirstRunClosed(Exception):
    """The instance already has a user: the first account was made."""


class ScopeNotAllowed(ValueError):
    """A token asked for more than its creator's role grants."""


# ---------------------------------------------------------------- accounts


def slug_free(name: str) -> str:
    """A slug for a new account named `name`, not yet taken by another."""
    base = (slugify(name) or "account")[:SLUG_MAX].strip("-") or "account"
    slug, n = base, 1
    while Account.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def account_create(*, name: str) -> Account:
    """A new account with a slug of its own (its URLs are /a/<slug>/…)."""
    return Account.objects.create(name=name, slug=slug_free(name))


# Held while the first account is made, so two first-run forms sent at once cannot both succeed (PostgreSQL).
FIRST_RUN_LOCK = 0x10AE_F125


def instance_is_empty() -> bool:
    """No user at all yet: the first-run page is open."""
    return not get_user_model().objects.exists()


@transaction.atomic
def first_account_create(
    *, name: str, username: str, password: str, actor: str = "first run"
) -> tuple[Account, User]:
    """The instance's first account and its admin, only while there is no user at all (else FirstRunClosed)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [FIRST_RUN_LOCK])
    users = get_user_model().objects
    if users.exists():
        raise FirstRunClosed("the first account already exists")
    user = users.create_user(username=username, password=password)
    if users.count() > 1:  # SQLite: another first run committed while we waited for the write lock
        raise FirstRunClosed("the first account already exists")
    account = account_create(name=name)
    membership_add(account=account, user=user, role=Role.ADMIN, actor=actor)
    return account, user


def memberships_of(user: AbstractBaseUser | AnonymousUser) -> list[Membership]:
    """The accounts a person belongs to, oldest membership first (the account switcher)."""
    if not user.is_authenticated:
        return []
    cached: list[Membership] | None = getattr(user, "_lore_memberships", None)
    if cached is None:
        cached = list(Membership.objects.select_related("account").filter(user=user).order_by("pk"))  # type: ignore[misc]
        user._lore_memberships = cached  # type: ignore[union-attr,attr-defined]
    return cached


def membership_in(user: AbstractBaseUser | AnonymousUser, slug: str) -> Membership | None:
    """The person's membership of the account with this slug; None when there is none (answer 404)."""
    return next((m for m in memberships_of(user) if m.account.slug == slug), None)


def account_for_user(user: AbstractBaseUser | AnonymousUser) -> Account | None:
    """The account of a person with exactly one; None with none or several (they choose)."""
    found = memberships_of(user)
    return found[0].account if len(found) == 1 else None


# ---------------------------------------------------------------- members and roles


def _role(role: str) -> str:
    if role not in Role.values:
        raise MembershipError(f"unknown role {role!r}: the roles are {', '.join(Role.values)}")
    return role


@transaction.atomic
def membership_add(*, account: Account, user: User, role: str = Role.VIEWER, actor: str) -> Membership:
    """Make `user` a member of `account` with `role` (an existing member gets the role)."""
    membership, created = Membership.objects.get_or_create(
        account=account, user=user, defaults={"role": _role(role)}
    )
    if not created and membership.role != role:
        return membership_role_set(account=account, membership_id=membership.pk, role=role, actor=actor)
    if created:
        activity_record(
            account=account,
            action=Activity.Action.MEMBER_ADDED,
            actor=actor,
            subject=user.get_username(),
            detail=f"as {role}",
        )
    return membership


@transaction.atomic
def member_invite(
    *, account: Account, username: str, role: str, actor: str, email: str = ""
) -> tuple[Membership, str]:
    """Add a person to the account; a new person gets no password yet but a one-time set-password link
    (`<uid>/<token>` of Django's password-reset token: it stops working once the password is set)."""
    users = get_user_model().objects
    user = users.filter(username=username).first()
    if user is None:
        user = users.create_user(username=username, email=email or "")
        user.set_unusable_password()
        user.save(update_fields=["password"])
    if Membership.objects.filter(account=account, user=user).exists():
        raise MembershipError(f"{username} is already a member")
    membership = membership_add(account=account, user=user, role=role, actor=actor)
    return membership, set_password_token(user) if not user.has_usable_password() else ""


def set_password_token(user: User) -> str:
    """`<uid>/<token>` of a one-time link that lets `user` choose a password (the `password_reset_confirm` URL)."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return f"{uid}/{default_token_generator.make_token(user)}"


def _admins_locked(account: Account) -> list[int]:
    """Lock the account's admin memberships (so two demotions cannot both pass the last-admin check)."""
    return list(
        Membership.objects.select_for_update()
        .filter(account=account, role=Role.ADMIN)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


@transaction.atomic
def membership_role_set(*, account: Account, membership_id: int, role: str, actor: str) -> Membership:
    """Change a member's role; the last admin of an account can never be demoted."""
    Account.objects.select_for_update().filter(pk=account.pk).first()
    membership = Membership.objects.filter(account=account, pk=membership_id).first()
    if membership is None:
        raise Http404("no such member")
    _role(role)
    admins = _admins_locked(account)
    if membership.role == Role.ADMIN and role != Role.ADMIN and admins == [membership.pk]:
        raise MembershipError("the last admin cannot be demoted: make someone else an admin first")
    if membership.role != role:
        detail = f"{membership.role} → {role}"
        membership.role = role
        membership.save(update_fields=["role"])
        activity_record(
            account=account,
            action=Activity.Action.MEMBER_ROLE,
            actor=actor,
            subject=membership.user.get_username(),
            detail=detail,
        )
    return membership


@transaction.atomic
def membership_remove(*, account: Account, membership_id: int, actor: str) -> Membership:
    """Remove a member from the account; the last admin can never be removed."""
    Account.objects.select_for_update().filter(pk=account.pk).first()
    membership = Membership.objects.filter(account=account, pk=membership_id).select_related("user").first()
    if membership is None:
        raise Http404("no such member")
    if membership.role == Role.ADMIN and _admins_locked(account) == [membership.pk]:
        raise MembershipError("the last admin cannot be removed: make someone else an admin first")
    membership.delete()
    activity_record(
        account=account,
        action=Activity.Action.MEMBER_REMOVED,
        actor=actor,
        subject=membership.user.get_username(),
        detail=f"was {membership.role}",
    )
    return membership


# ---------------------------------------------------------------- tokens


def token_create(
    *,
    account: Account,
    name: str,
    owner: str = "personal",
    created_by: User | None = None,
    scopes: Sequence[str] | None = None,
    actor: str = "",
) -> tuple[ApiToken, str]:
    """A new token (default scopes read,write); the raw value is returned once and never stored.

    A token made by a person never carries more than that person's role in the account grants
    (ScopeNotAllowed); one made by an operator's command (no `created_by`) may carry any scope.
    """
    chosen = scopes_normal(list(DEFAULT_TOKEN_SCOPES if scopes is None else scopes))
    if not chosen:
        raise ScopeNotAllowed("choose at least one scope")
    if created_by is not None:
        membership = Membership.objects.filter(account=account, user=created_by).first()
        beyond = scopes_beyond(membership.role if membership else "", chosen)
        if beyond:
            role = membership.role if membership else "no role"
            raise ScopeNotAllowed(f"a {role} cannot make a token with the {', '.join(beyond)} scope")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        account=account,
        name=name[:100] or "token",
        prefix=raw[:10],
        hashed=token_hash(raw),
        owner=owner,
        scopes=chosen,
        created_by=created_by,
    )
    activity_record(
        account=account,
        action=Activity.Action.TOKEN_CREATED,
        actor=actor or (created_by.get_username() if created_by else "manage.py create_token"),
        subject=token.name,
        detail=", ".join(chosen),
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


def token_has(token: ApiToken, scope: str) -> bool:
    """Whether the token carries `scope`."""
    return scope in (token.scopes or [])


def token_revoke(
    *, account: Account, token_id: int, actor: str = "", by: Membership | None = None
) -> ApiToken:
    """Revoke a token at once. A member who is not an admin may revoke only the tokens they made
    (TokenNotYours); `by=None` is an operator."""
    token = ApiToken.objects.filter(account=account, pk=token_id).first()
    if token is None:
        raise Http404("no such token")
    if by is not None and by.role != Role.ADMIN and token.created_by_id != by.user_id:
        raise TokenNotYours("only an admin can revoke a token someone else made")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        activity_record(
            account=account,
            action=Activity.Action.TOKEN_REVOKED,
            actor=actor or "operator",
            subject=token.name,
        )
    return token
