"""The team pages (thin views): the home redirect, the first run, Settings → Members and Settings → Activity."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from lore.access import (
    account_choices,
    account_of,
    account_path,
    account_reverse,
    account_view,
    site_reverse,
)
from lore.accounts import (
    FirstRunClosed,
    MembershipError,
    first_account_create,
    instance_is_empty,
    member_invite,
    membership_remove,
    membership_role_set,
    memberships_of,
)
from lore.activity import activities_of, activities_page, actors_of, person
from lore.models import Activity, Membership
from lore.roles import ROLE_CAN, Role

USERNAME_MAX = 150


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """`/`: the Explorer of the person's one account; a chooser with several; a page that says so with none."""
    if not request.user.is_authenticated:
        return redirect("first_run" if instance_is_empty() else "login")
    memberships = memberships_of(request.user)
    if len(memberships) == 1:
        return HttpResponseRedirect(account_reverse(memberships[0].account, "explorer:index"))
    if not memberships:
        return render(request, "members/no_membership.html")
    return render(
        request,
        "members/choose.html",
        {"choices": account_choices(memberships, account_path("explorer:index"))},
    )


class FirstRunForm(forms.Form):
    account = forms.CharField(label="Account name", max_length=100, help_text="Your team or organisation.")
    username = forms.CharField(label="Your username", max_length=USERNAME_MAX)
    password = forms.CharField(
        label="Password", widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )

    def clean_username(self) -> str:
        username = self.cleaned_data["username"].strip()
        get_user_model().username_validator(username)  # type: ignore[attr-defined]
        return str(username)

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if data.get("password"):
            user = get_user_model()(username=data.get("username", ""))
            try:
                validate_password(str(data["password"]), user)
            except ValidationError as exc:
                self.add_error("password", exc)
        return data


@require_http_methods(["GET", "POST"])
def first_run(request: HttpRequest) -> HttpResponse:
    """ "Create the first account": open only while the instance has no user at all, then gone (404)."""
    if not instance_is_empty():
        raise Http404("the first account already exists: sign in")
    form = FirstRunForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            account, user = first_account_create(
                name=form.cleaned_data["account"],
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password"],
            )
        except FirstRunClosed as exc:
            raise Http404("the first account already exists: sign in") from exc
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return HttpResponseRedirect(account_reverse(account, "explorer:index"))
    return render(request, "members/first_run.html", {"form": form}, status=422 if form.errors else 200)


# ---------------------------------------------------------------- Settings → Members


class InviteForm(forms.Form):
    username = forms.CharField(max_length=USERNAME_MAX)
    email = forms.EmailField(
        required=False, help_text="Optional: the link is also emailed when mail is set up."
    )
    role = forms.ChoiceField(choices=Role.choices, initial=Role.VIEWER)

    def clean_username(self) -> str:
        username = self.cleaned_data["username"].strip()
        get_user_model().username_validator(username)  # type: ignore[attr-defined]
        return str(username)


def _members_page(
    request: HttpRequest, form: InviteForm, invite: dict[str, str] | None, status: int = 200
) -> HttpResponse:
    account = account_of(request)
    members = Membership.objects.filter(account=account).select_related("user").order_by("user__username")
    context = {
        "form": form,
        "members": list(members),
        "invite": invite,
        "roles": Role.choices,
        "role_can": [(Role(r).label, ROLE_CAN[Role(r)]) for r in Role.values],
        "section": "members",
    }
    return render(request, "members/list.html", context, status=status)


def _email_link(email: str, link: str, account_name: str) -> None:
    if email and settings.EMAIL_HOST:
        send_mail(
            f"You were added to {account_name} on Lore Explorer",
            f"Choose your password (the link works once):\n\n{link}\n",
            None,
            [email],
            fail_silently=True,
        )


@require_http_methods(["GET", "POST"])
@account_view(Role.VIEWER, post=Role.ADMIN)
def member_list(request: HttpRequest) -> HttpResponse:
    """The members and their roles; an admin invites (the one-time link is shown once, on this answer only)."""
    form = InviteForm(request.POST or None)
    if request.method != "POST" or not form.is_valid():
        return _members_page(request, form, None, status=422 if form.errors else 200)
    account = account_of(request)
    try:
        membership, token = member_invite(
            account=account,
            username=form.cleaned_data["username"],
            role=form.cleaned_data["role"],
            email=form.cleaned_data["email"],
            actor=person(request.user),
        )
    except MembershipError as exc:
        form.add_error("username", str(exc))
        return _members_page(request, form, None, status=422)
    invite = {"username": membership.user.get_username(), "role": membership.role, "link": ""}
    if token:
        uid, _, secret = token.partition("/")
        invite["link"] = request.build_absolute_uri(site_reverse("password_reset_confirm", uid, secret))
        _email_link(form.cleaned_data["email"], invite["link"], account.name)
    response = _members_page(request, InviteForm(), invite)
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@account_view(Role.ADMIN)
def member_role(request: HttpRequest, membership_id: int) -> HttpResponse:
    try:
        membership = membership_role_set(
            account=account_of(request),
            membership_id=membership_id,
            role=request.POST.get("role", ""),
            actor=person(request.user),
        )
    except MembershipError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{membership.user.get_username()} is now {membership.role}.")
    return redirect("members:list")


@require_POST
@account_view(Role.ADMIN)
def member_remove(request: HttpRequest, membership_id: int) -> HttpResponse:
    try:
        membership = membership_remove(
            account=account_of(request), membership_id=membership_id, actor=person(request.user)
        )
    except MembershipError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Removed {membership.user.get_username()} from the account.")
    return redirect("members:list")


# ---------------------------------------------------------------- Settings → Activity


@require_GET
@account_view(Role.VIEWER)
def activity(request: HttpRequest) -> HttpResponse:
    """The account's activity, newest first, filtered by actor and action, in keyset pages."""
    account = account_of(request)
    actor = request.GET.get("actor", "")[:200]
    action = request.GET.get("action", "")
    if action not in Activity.Action.values:
        action = ""
    page = activities_page(
        activities_of(account, actor=actor, action=action), cursor=request.GET.get("cursor", "")
    )
    context = {
        "page": page,
        "rows": page.rows,
        "actor": actor,
        "action": action,
        "actors": actors_of(account),
        "actions": Activity.Action.choices,
        "filtering": bool(actor or action),
        "caption": "What happened in this account, newest first",
        "section": "activity",
    }
    return render(request, "members/activity.html", context)
