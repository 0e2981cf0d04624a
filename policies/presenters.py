"""What the Settings templates show, computed once per request (no writes)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from explorer.filter_control import control_context, policy_control, rule_from_query, rule_query
from lore.conditions import POLICY_DIMENSIONS, RETENTION_PARAMS, Rule
from lore.models import Account
from lore.scopes import GLOBAL, ScopeError, parse_scope
from policies import grooming, selectors
from policies.forms import MODE_HELP, PolicyForm, placeholder_name
from policies.models import RetentionPolicy


def explorer_url(rule: Rule) -> str:
    """The same rule as a view in the Explorer (its own URL format): the rows a run would archive."""
    pairs = [("scope", rule.scope), *rule_query(rule, include_scope=False)]
    return reverse("explorer:index") + "?" + urlencode(pairs, safe=":,/")


def archived_by_run_url(run_id: int) -> str:
    return reverse("explorer:index") + "?" + urlencode({"archived": "1", "run": run_id})


def scope_choices(account: Account, current: str) -> list[tuple[str, str]]:
    """All scopes pinned on top, then the account's scopes (and the current value, if it holds no lessons yet)."""
    scopes = selectors.account_scopes(account)
    if current and current != GLOBAL and current not in scopes:
        scopes = sorted([*scopes, current])
    return [(GLOBAL, "All scopes"), *[(s, s) for s in scopes]]


def _control(account: Account, form: PolicyForm) -> dict[str, Any]:
    """The Explorer's filter control over the valid part of what was typed (bad parts get rows of their own)."""
    source = form.data if form.is_bound else form.initial
    rule, _ = rule_from_query(source, allow_reverse=False, allow_owner=False)
    return control_context(policy_control(account, rule))


def dialog_context(
    account: Account,
    form: PolicyForm,
    *,
    policy: RetentionPolicy | None,
    notices: list[str],
    live: bool = False,
    refresh_control: bool = False,
) -> dict[str, Any]:
    """The New/Edit dialog: the form, the scope picker, the live name placeholder and the live preview."""
    rule = form.live_rule()
    raw = form.raw_rule_data()
    try:
        current_scope = parse_scope(raw["scope"])
    except ScopeError:
        current_scope = raw["scope"]
    context: dict[str, Any] = {
        "form": form,
        "policy": policy,
        "notices": notices,
        "rule": rule,
        "placeholder": placeholder_name(rule),
        "preview_count": grooming.preview(account, rule, keys_limit=0).count if rule else None,
        "explorer_url": explorer_url(rule) if rule else "",
        "live_url": reverse("policies:live"),
        "section": "policies",
    }
    if live:
        context["oob_name"] = True
        if refresh_control:
            context.update(_control(account, form))
            context["refresh_control"] = True
        return context
    context.update(_control(account, form))
    context.update(
        {
            "action": reverse("policies:edit", args=[policy.pk]) if policy else reverse("policies:new"),
            "scopes": scope_choices(account, current_scope),
            "current_scope": current_scope,
            "condition_fields": [(param, form[param.name]) for param in RETENTION_PARAMS],
            "dimension_fields": [(dim, form[dim.name], form[dim.mode_param]) for dim in POLICY_DIMENSIONS],
            "mode_help": MODE_HELP,
        }
    )
    return context
