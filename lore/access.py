"""Who may open which dashboard page: the account in the URL and the role each view needs, declared once.

Every dashboard URL carries its account's slug, `/a/<slug>/explorer/…`. `AccountPathMiddleware` takes the slug
off the path before URL resolution and makes it part of the script prefix, so every `reverse()` and `{% url %}`
made while answering carries it without naming it. `@account_view(Role.EDITOR)` on a view resolves the account
from that slug and the person's membership (404 when they are not a member), answers 403 when their role is
below what the view needs (`post=` for what a POST needs, when that differs from reading the page), and records
the need in `VIEW_NEEDS`, which the role matrix test enumerates. A URL outside any account declares its need with
`@site_view(SiteNeed.…)`, recorded in `SITE_NEEDS`.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import get_script_prefix, reverse, set_script_prefix

from lore.accounts import membership_in, memberships_of
from lore.models import Account, Membership
from lore.roles import RANK, ROLE_CAN, Role, SiteNeed, role_allows

ACCOUNT_PATH = re.compile(r"^/a/(?P<slug>[-a-zA-Z0-9_]{1,50})(?P<rest>/.*)$")
SLUG_PREFIX = re.compile(r"a/[^/]+/$")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@dataclass(frozen=True)
class ViewNeed:
    """What a dashboard view needs: `read` for GET/HEAD, `write` for anything else."""

    read: str
    write: str

    def for_method(self, method: str) -> str:
        return self.read if method in SAFE_METHODS else self.write


# view function's dotted name → what it needs (filled as the views are imported)
VIEW_NEEDS: dict[str, ViewNeed] = {}
# the same for the views outside any account (site_view)
SITE_NEEDS: dict[str, SiteNeed] = {}


def view_name(func: Callable[..., Any]) -> str:
    return f"{func.__module__}.{func.__qualname__}"


class AccountPathMiddleware:
    """`/a/<slug>/rest` → resolves `/rest` with `request.account_slug = slug`; reverse() carries the slug."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        match = ACCOUNT_PATH.match(request.path_info)
        if match is None:
            request.account_slug = None  # type: ignore[attr-defined]
            return self.get_response(request)
        request.account_slug = match["slug"]  # type: ignore[attr-defined]
        request.path_info = match["rest"]
        before = get_script_prefix()
        set_script_prefix(f"{before.rstrip('/')}/a/{match['slug']}/")
        try:
            return self.get_response(request)
        finally:
            set_script_prefix(before)


def account_url(account: Account, path: str) -> str:
    """`path` (slug-less, e.g. "/explorer/?q=x") inside `account`'s URLs, from any request."""
    base = SLUG_PREFIX.sub("", get_script_prefix()).rstrip("/")
    return f"{base}/a/{account.slug}{path}"


def account_path(name: str, *args: Any) -> str:
    """reverse(`name`) without the account part ("/explorer/"): what account_url and account_choices take."""
    return reverse(name, args=args)[len(get_script_prefix()) - 1 :]


def account_reverse(account: Account, name: str, *args: Any) -> str:
    """reverse(`name`) inside `account`'s URLs, from any request (another account's page, or none)."""
    return account_url(account, account_path(name, *args))


def site_reverse(name: str, *args: Any) -> str:
    """reverse() of a URL outside any account (sign-in, set password), even while answering inside one."""
    before = get_script_prefix()
    set_script_prefix(SLUG_PREFIX.sub("", before))
    try:
        return reverse(name, args=args)
    finally:
        set_script_prefix(before)


def role_reason(role: str, needed: str) -> str:
    """Why a control is disabled for `role`: what the needed role may do."""
    return f"Your role is {role}: only {needed}s and above can {ROLE_CAN[Role(needed)]}."


def _forbidden(request: HttpRequest, membership: Membership, needed: str) -> HttpResponse:
    context = {"reason": role_reason(membership.role, needed), "needed": needed}
    return render(request, "403.html", context, status=403)


def _slugless(request: HttpRequest) -> HttpResponse:
    """An old URL without the account: go to the person's one account, else let them choose (or say so)."""
    memberships = memberships_of(request.user)
    if len(memberships) == 1:
        return HttpResponseRedirect(account_url(memberships[0].account, request.get_full_path()))
    if not memberships:
        return render(request, "members/no_membership.html", status=403)
    return render(
        request, "members/choose.html", {"choices": account_choices(memberships, request.get_full_path())}
    )


def account_choices(memberships: list[Membership], path: str) -> list[dict[str, str]]:
    """The chooser's rows: each account's name, role and `path` inside it."""
    return [
        {"name": m.account.name, "role": m.role, "url": account_url(m.account, path)} for m in memberships
    ]


def account_view(role: str = Role.VIEWER, *, post: str | None = None) -> Callable[..., Any]:
    """Declare what a dashboard view needs: sign-in, membership of the account in the URL, and `role` (`post` for
    state changes when they need more than reading). Sets request.account, request.membership."""
    need = ViewNeed(read=role, write=post or role)
    assert need.read in RANK and need.write in RANK

    def decorate(func: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        VIEW_NEEDS[view_name(func)] = need

        @wraps(func)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            slug = getattr(request, "account_slug", None)
            if not slug:
                return _slugless(request)
            membership = membership_in(request.user, slug)
            if membership is None:
                raise Http404("no such account")
            request.account = membership.account  # type: ignore[attr-defined]
            request.membership = membership  # type: ignore[attr-defined]
            needed = need.for_method(request.method or "GET")
            if not role_allows(membership.role, needed):
                return _forbidden(request, membership, needed)
            return func(request, *args, **kwargs)

        wrapper.lore_need = need  # type: ignore[attr-defined]
        return wrapper

    return decorate


def account_of(request: HttpRequest) -> Account:
    """The account of a request that passed `account_view`."""
    return request.account  # type: ignore[attr-defined,no-any-return]


def role_of(request: HttpRequest) -> str:
    membership: Membership | None = getattr(request, "membership", None)
    return membership.role if membership else ""


# ---------------------------------------------------------------- URLs outside any account


def operator_token() -> str:
    """The operator's token (settings.LORE_METRICS_TOKEN); "" while none is configured."""
    return str(getattr(settings, "LORE_METRICS_TOKEN", "") or "")


def bearer_matches(request: HttpRequest, expected: str) -> bool:
    """Whether the request's `Authorization: Bearer …` is `expected`, compared in constant time."""
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), expected.encode())


def _operator_refusal(request: HttpRequest) -> HttpResponse | None:
    """None when the request carries the operator's token; 404 while none is configured (the URL is off), 401
    without it or with another."""
    expected = operator_token()
    if not expected:
        raise Http404("not configured")
    if bearer_matches(request, expected):
        return None
    refusal = HttpResponse(
        "this endpoint needs the operator's token as `Authorization: Bearer …`\n",
        status=401,
        content_type="text/plain; charset=utf-8",
    )
    refusal["WWW-Authenticate"] = 'Bearer realm="lore"'
    return refusal


def site_view(need: str) -> Callable[..., Any]:
    """Declare what a view outside any account needs: `SiteNeed.PUBLIC` (anyone) or `SiteNeed.OPERATOR` (the
    token of settings.LORE_METRICS_TOKEN; 404 while it is unset, 401 without it)."""
    declared = SiteNeed(need)

    def decorate(func: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        SITE_NEEDS[view_name(func)] = declared

        @wraps(func)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if declared == SiteNeed.OPERATOR and (refusal := _operator_refusal(request)) is not None:
                return refusal
            return func(request, *args, **kwargs)

        # Not `lore_need`: that marks a dashboard view (inside an account), which the tests enumerate as such.
        wrapper.lore_site_need = declared  # type: ignore[attr-defined]
        return wrapper

    return decorate
