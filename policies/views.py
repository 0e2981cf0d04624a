"""Settings → Retention Policies and API tokens (DESIGN.md §9). Thin views: parse, call a service or selector,
render. Every view is login-only and account-scoped (another account's object answers 404); state changes are
POST-only and CSRF-protected."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.text import Truncator
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from lore.access import account_of, account_view, role_of, role_reason
from lore.accounts import TokenNotYours, token_create, token_revoke
from lore.activity import activities_of, person
from lore.candidates import candidates
from lore.htmx import HtmxHttpRequest, is_partial, vary_on_htmx
from lore.models import Account, Lesson, PolicyRun
from lore.reads import reads_settle_for, rule_fields
from lore.roles import ROLE_SCOPES, Role, role_allows
from lore.rules.codec import RuleError
from policies import grooming, selectors
from policies.charts import forecast_chart, runs_chart
from policies.forms import PolicyForm, TokenForm, handoff_initial, policy_initial
from policies.models import RetentionPolicy
from policies.presenters import archived_by_run_url, dialog_context, explorer_url
from policies.services import policy_create, policy_delete, policy_update
from policies.tasks import execute_run

RUN_SAMPLE_SIZE = 20
POLICY_HISTORY_SHOWN = 50
# The raw value of a token just made travels to the page that shows it once in a short-lived signed cookie
# bound to the user, never through the session: sessions live in the database, and no raw token may.
NEW_TOKEN_COOKIE = "lore_new_token"
NEW_TOKEN_MAX_AGE = 300


def _account(request: HtmxHttpRequest) -> Account:
    return account_of(request)


def _actor(request: HtmxHttpRequest) -> str:
    return person(request.user)


def _go(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """Redirect; from an htmx request, make the browser navigate (so the dialog closes onto the new page)."""
    return HttpResponseClientRedirect(url) if is_partial(request) else HttpResponseRedirect(url)


# ---------------------------------------------------------------- the list


@require_GET
@account_view(Role.VIEWER)
def policy_list(request: HtmxHttpRequest) -> HttpResponse:
    account = _account(request)
    return render(request, "policies/list.html", _list_context(account))


def _list_context(account: Account) -> dict[str, Any]:
    return {"policies": selectors.policies_with_last_run(account), "section": "policies"}


@require_GET
@account_view(Role.VIEWER)
def policy_count(request: HtmxHttpRequest, policy_id: int) -> HttpResponse:
    """How many lessons the policy would catch now (loaded lazily per row of the list)."""
    account = _account(request)
    policy = selectors.policy_get(account, policy_id)
    reads_settle_for(account, rule_fields(policy.rule))  # counters exact (lore.reads)
    count = candidates(account, policy.rule).count()
    context = {"policy": policy, "count": count, "explorer_url": explorer_url(policy.rule)}
    return render(request, "policies/_count.html", context)


@require_GET
@account_view(Role.VIEWER)
@vary_on_htmx
def policy_forecast(request: HtmxHttpRequest, policy_id: int) -> HttpResponse:
    """What the rule would archive tonight, in 7 and in 30 days if nothing is read (loaded by the policy page)."""
    policy = selectors.policy_get(_account(request), policy_id)
    points = selectors.policy_forecast(policy, now=timezone.now())
    chart = forecast_chart(points, swept_nightly=policy.is_swept_nightly)
    context = {"policy": policy, "points": points, "chart": chart, "explorer_url": explorer_url(policy.rule)}
    if is_partial(request):
        return render(request, "policies/_forecast.html", context)
    return render(request, "policies/forecast_page.html", {**context, "section": "policies"})


# ---------------------------------------------------------------- the New / Edit dialog


def _dialog(
    request: HtmxHttpRequest,
    account: Account,
    form: PolicyForm,
    *,
    policy: RetentionPolicy | None = None,
    notices: list[str] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = dialog_context(account, form, policy=policy, notices=notices or [])
    context["plain_fallback"] = not is_partial(request)
    if is_partial(request):
        # htmx swaps only 2xx answers: the dialog with its inline errors comes back as 200.
        return render(request, "policies/list.html#dialog", context)
    context.update(_list_context(account))
    return render(request, "policies/list.html", context, status=status)


@require_http_methods(["GET", "POST"])
@account_view(Role.EDITOR)
@vary_on_htmx
def policy_new(request: HtmxHttpRequest) -> HttpResponse:
    """The New policy dialog; pre-filled from the Explorer's hand-off URL (?scope=&retention=&kind=…)."""
    account = _account(request)
    if request.method == "GET":
        initial, notices = handoff_initial(request.GET)
        return _dialog(request, account, PolicyForm(initial=initial), notices=notices)
    form = PolicyForm(request.POST)
    if form.is_valid() and form.rule is not None:
        try:
            policy = policy_create(
                account=account,
                rule=form.rule,
                name=form.cleaned_data["name"],
                mode=form.cleaned_data["mode"],
                enabled=False,  # a new policy never sweeps unattended: auto starts disabled
                created_by=request.user,
                allow_auto_name=True,
                actor=_actor(request),
            )
        except RuleError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, f"Saved “{policy.name}”.")
            return _go(request, reverse("policies:list"))
    return _dialog(request, account, form, status=422)


@require_http_methods(["GET", "POST"])
@account_view(Role.EDITOR)
@vary_on_htmx
def policy_edit(request: HtmxHttpRequest, policy_id: int) -> HttpResponse:
    account = _account(request)
    policy = selectors.policy_get(account, policy_id)
    if request.method == "GET":
        return _dialog(request, account, PolicyForm(initial=policy_initial(policy)), policy=policy)
    form = PolicyForm(request.POST)
    if form.is_valid() and form.rule is not None:
        changes = form.policy_changes()
        sweeps = changes["mode"] == RetentionPolicy.Mode.AUTO and changes["enabled"]
        if (policy.is_swept_nightly or sweeps) and not role_allows(role_of(request), Role.ADMIN):
            # Only an admin decides what the nightly sweep archives unattended.
            reason = role_reason(role_of(request), Role.ADMIN)
            return render(request, "403.html", {"reason": reason}, status=403)
        try:
            policy = policy_update(
                policy=policy, changes=changes, allow_auto_name=True, actor=_actor(request)
            )
        except RuleError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, f"Saved “{policy.name}”.")
            return _go(request, reverse("policies:list"))
    return _dialog(request, account, form, policy=policy, status=422)


@require_GET
@account_view(Role.EDITOR)
def policy_live(request: HtmxHttpRequest) -> HttpResponse:
    """While the rule is built: the placeholder name and "this rule would archive N lessons now"."""
    account = _account(request)
    form = PolicyForm(request.GET)
    refresh_control = request.GET.get("refresh_control") == "1"
    context = dialog_context(
        account, form, policy=None, notices=[], live=True, refresh_control=refresh_control
    )
    return render(request, "policies/list.html#live", context)


@require_POST
@account_view(Role.ADMIN)
def policy_enable(request: HtmxHttpRequest, policy_id: int) -> HttpResponse:
    """Turn the nightly sweep of an auto policy on or off."""
    account = _account(request)
    policy = selectors.policy_get(account, policy_id)
    enabled = request.POST.get("enabled") == "1"
    policy = policy_update(policy=policy, changes={"enabled": enabled}, actor=_actor(request))
    state = "enabled: it is swept every night" if policy.is_swept_nightly else "disabled"
    if enabled and policy.mode != RetentionPolicy.Mode.AUTO:
        state = "enabled, but it is a review policy: it runs only when you run it by hand"
    messages.success(request, f"“{policy.name}” is {state}.")
    return redirect(reverse("policies:list") + f"#policy-{policy.pk}")


# ---------------------------------------------------------------- one policy: history, run, delete


@require_GET
@account_view(Role.VIEWER)
def policy_detail(request: HtmxHttpRequest, policy_id: int) -> HttpResponse:
    account = _account(request)
    policy = selectors.policy_get(account, policy_id)
    runs = list(selectors.policy_runs(policy))
    context = {
        "policy": policy,
        "runs": runs,
        "runs_chart": runs_chart(runs),
        "interrupted": selectors.policy_run_interrupted(policy),
        "history": list(activities_of(account, policy_id=policy.pk)[:POLICY_HISTORY_SHOWN]),
        "explorer_url": explorer_url(policy.rule),
        "section": "policies",
    }
    return render(request, "policies/detail.html", context)


@require_http_methods(["GET", "POST"])
@account_view(Role.VIEWER, post=Role.EDITOR)
def policy_run(request: HtmxHttpRequest, policy_id: int) -> HttpResponse:
    """Run now: GET shows what would be archived (count and a sample); POST starts the run in the background."""
    account = _account(request)
    policy = selectors.policy_get(account, policy_id)
    active = selectors.policy_run_active(policy)
    if active is not None and not grooming.run_mark_if_abandoned(active).is_active:
        active = None  # its worker died: the run is interrupted now, and this run completes it
    if request.method == "POST":
        try:
            run = grooming.run_start(
                account=account,
                policy=policy,
                trigger=PolicyRun.Trigger.MANUAL,
                actor=_actor(request),
                as_of=_preview_time(request.POST.get("as_of")),
            )
        except grooming.PreviewOutdated as exc:
            messages.warning(request, f"Nothing was archived: {exc}. Here is what the policy matches now.")
            return redirect("policies:run_new", policy_id)
        if run is None:
            messages.info(request, "This policy already has a run going; here it is.")
            return (
                redirect("policies:run", run_id=active.pk)
                if active
                else redirect("policies:detail", policy_id)
            )
        transaction.on_commit(partial(execute_run.delay, run.pk))
        return redirect("policies:run", run_id=run.pk)
    found = grooming.preview(account, policy.rule, keys_limit=RUN_SAMPLE_SIZE)
    context = {
        "policy": policy,
        "preview": found,
        "as_of": found.taken_at.isoformat(),
        "active": active,
        "interrupted": selectors.policy_run_interrupted(policy),
        "explorer_url": explorer_url(policy.rule),
        "section": "policies",
    }
    return render(request, "policies/run_confirm.html", context)


def _preview_time(raw: str | None) -> datetime | None:
    """The confirm page's preview time; a value that is not one (tampered with) makes the preview outdated."""
    if not raw:
        return None
    try:
        parsed = parse_datetime(raw)
    except ValueError:
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise grooming.PreviewOutdated("that preview could not be read")
    return parsed


@require_GET
@account_view(Role.VIEWER)
@vary_on_htmx
def run_detail(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    """A run: live progress while it works (htmx polls this URL every second), then the result and Undo."""
    account = _account(request)
    run = grooming.run_mark_if_abandoned(selectors.run_get(account, run_id))
    context = {
        "run": run,
        "policy": selectors.run_policy(run),
        "expected": selectors.run_expected(run),
        "undoable": not run.is_active and grooming.run_undoable(run),
        "archived_url": archived_by_run_url(run.pk),
        "section": "policies",
    }
    if is_partial(request):
        return render(request, "policies/run.html#progress", context)
    return render(request, "policies/run.html", context)


@require_POST
@account_view(Role.EDITOR)
def run_undo(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    account = _account(request)
    run = selectors.run_get(account, run_id)
    if run.is_active:
        messages.error(request, "This run is still going: undo it once it has finished.")
        return redirect("policies:run", run_id=run.pk)
    restored = grooming.run_undo(run, actor=_actor(request))
    noun = "lesson" if restored == 1 else "lessons"
    messages.success(request, f"Undone: restored {restored} {noun} this run had archived.")
    return redirect("policies:run", run_id=run.pk)


@require_http_methods(["GET", "POST"])
@account_view(Role.ADMIN)
def policy_delete_view(request: HtmxHttpRequest, policy_id: int) -> HttpResponse:
    """Delete the rule only: the lessons it archived stay archived and restorable."""
    account = _account(request)
    policy = selectors.policy_get(account, policy_id)
    archived = Lesson.objects.filter(account=account, archived_by_run__policy_id=policy.pk).count()
    if request.method == "POST":
        name = policy.name
        policy_delete(policy=policy, actor=_actor(request))
        where = "restorable from the Explorer's archived view"
        kept = (
            ""
            if not archived
            else f" The 1 lesson it archived stays archived and {where}."
            if archived == 1
            else f" The {archived:,} lessons it archived stay archived and {where}."
        )
        messages.success(request, f"Deleted the policy “{Truncator(name).chars(60)}”.{kept}")
        return redirect("policies:list")
    context = {"policy": policy, "archived": archived, "section": "policies"}
    return render(request, "policies/delete.html", context)


# ---------------------------------------------------------------- API tokens


@require_http_methods(["GET", "POST"])
@account_view(Role.VIEWER)
def token_list(request: HtmxHttpRequest) -> HttpResponse:
    """List, create (the raw token is shown once, on the page right after creating it)."""
    account = _account(request)
    form = TokenForm(request.POST or None, account=account, user=request.user, role=role_of(request))
    if request.method == "POST" and form.is_valid():
        token, raw = token_create(
            account=account,
            name=form.cleaned_data["name"],
            owner=form.cleaned_data["owner"],
            created_by=request.user,  # type: ignore[arg-type]
            scopes=form.cleaned_data["scopes"],
            actor=_actor(request),
        )
        response = redirect("policies:tokens")
        response.set_signed_cookie(
            NEW_TOKEN_COOKIE,
            f"{request.user.pk}:{token.pk}:{raw}",
            salt=NEW_TOKEN_COOKIE,
            max_age=NEW_TOKEN_MAX_AGE,
            path=reverse("policies:tokens"),
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
            samesite="Strict",
        )
        return response
    new_token = _new_token_shown_once(request)
    context = {
        "form": form,
        "tokens": list(selectors.tokens_of(account).select_related("created_by")),
        "new_token": new_token,
        "can_scopes": ROLE_SCOPES.get(role_of(request), ()),
        "server_url": request.build_absolute_uri("/").rstrip("/"),
        "section": "tokens",
    }
    page = render(request, "policies/tokens.html", context, status=422 if form.errors else 200)
    if NEW_TOKEN_COOKIE in request.COOKIES:
        page.delete_cookie(NEW_TOKEN_COOKIE, path=reverse("policies:tokens"), samesite="Strict")
    return page


def _new_token_shown_once(request: HtmxHttpRequest) -> dict[str, object] | None:
    """The token this user made a moment ago, from its signed cookie (deleted by the page that shows it)."""
    signed = request.get_signed_cookie(
        NEW_TOKEN_COOKIE, default=None, salt=NEW_TOKEN_COOKIE, max_age=NEW_TOKEN_MAX_AGE
    )
    user_id, token_id, raw = (signed or "::").split(":", 2)
    if not raw or user_id != str(request.user.pk) or not token_id.isdigit():
        return None
    return {"id": int(token_id), "raw": raw}


@require_POST
@account_view(Role.VIEWER)
def token_revoke_view(request: HtmxHttpRequest, token_id: int) -> HttpResponse:
    account = _account(request)
    try:
        token = token_revoke(
            account=account,
            token_id=token_id,
            actor=_actor(request),
            by=request.membership,  # type: ignore[attr-defined]
        )
    except TokenNotYours as exc:
        return render(request, "403.html", {"reason": str(exc)}, status=403)
    messages.success(request, f"Revoked “{token.name}”: it stops working at once.")
    return redirect("policies:tokens")
