"""Forms of the Settings pages. Fields derive from the registry; the rules themselves live in lore.conditions and
policies.grooming — a form only turns what was typed into a Rule and puts each complaint next to its field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.http import QueryDict

from lore.conditions import (
    DIMENSIONS,
    NAME_MAX,
    PARAMS,
    POLICY_DIMENSIONS,
    RETENTION_PARAMS,
    Rule,
    RuleError,
    auto_name,
    parse_dimension,
    parse_retention,
    rule_from_data,
)
from lore.models import Account, Membership
from lore.roles import DEFAULT_TOKEN_SCOPES, Scope, scopes_beyond, scopes_normal
from lore.scopes import GLOBAL, ScopeError, parse_scope
from policies.grooming import rule_validate_for_policy
from policies.models import RetentionPolicy

MODE_HELP = {
    "review": "Saved for you to run by hand from this page whenever you like.",
    "auto": "Swept every night — but only once enabled. A new auto policy starts disabled.",
}


def _rule_field_names() -> list[str]:
    names = [p.name for p in RETENTION_PARAMS]
    for dim in POLICY_DIMENSIONS:
        names += [dim.name, dim.mode_param]
    return names


RULE_FIELDS: tuple[str, ...] = ("scope", *_rule_field_names())


class PolicyForm(forms.Form):
    """Name, scope, mode, enabled, the five conditions and the eight filters of a policy (a plain form too)."""

    name = forms.CharField(required=False, max_length=NAME_MAX, strip=True)
    scope = forms.CharField(required=False, max_length=600)
    mode = forms.ChoiceField(
        choices=RetentionPolicy.Mode.choices, initial=RetentionPolicy.Mode.REVIEW, widget=forms.RadioSelect
    )
    enabled = forms.BooleanField(required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in RETENTION_PARAMS:
            self.fields[param.name] = forms.CharField(
                required=False,
                label=param.condition.label,
                widget=forms.TextInput(attrs={"inputmode": "numeric", "size": 6}),
            )
        for dim in POLICY_DIMENSIONS:
            self.fields[dim.name] = forms.CharField(required=False, label=dim.label)
            self.fields[dim.mode_param] = forms.ChoiceField(
                choices=[(m, m) for m in dim.modes], initial=dim.default_mode, required=False
            )
        self.rule: Rule | None = None

    def raw_rule_data(self) -> dict[str, str]:
        """What was typed into the rule's fields (the scope defaulting to All scopes)."""
        source = self.data if self.is_bound else self.initial
        raw = {name: str(source.get(name) or "").strip() for name in RULE_FIELDS}
        raw["scope"] = raw["scope"] or GLOBAL
        return raw

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = self.raw_rule_data()
        errors = rule_errors(raw)
        for field, message in errors.items():
            self.add_error(field if field in self.fields else None, message)
        if errors:
            return data
        rule = rule_from_data(raw, require_scope=True)
        try:
            rule_validate_for_policy(rule)
        except RuleError as exc:
            self.add_error(None, exc.message[0].upper() + exc.message[1:] + ".")
            return data
        self.rule = rule
        return data

    def live_rule(self) -> Rule | None:
        """The rule as typed so far, if it is whole: for the live placeholder name and preview."""
        raw = self.raw_rule_data()
        if rule_errors(raw):
            return None
        rule = rule_from_data(raw, require_scope=True)
        return None if rule.is_empty else rule

    def policy_changes(self) -> dict[str, object]:
        """A valid form as policy_update changes: every part of the rule is set or cleared (None)."""
        assert self.rule is not None
        rule = self.rule
        changes: dict[str, object] = {
            "name": self.cleaned_data["name"],
            "mode": self.cleaned_data["mode"],
            "enabled": bool(self.cleaned_data["enabled"]),
            "scope": rule.scope,
        }
        for param in RETENTION_PARAMS:
            changes[param.name] = rule.conditions.get(param.name)
        for dim in POLICY_DIMENSIONS:
            flt = rule.dimensions.get(dim.name)
            changes[dim.name] = list(flt.values) if flt else None
            if flt:
                changes[dim.mode_param] = flt.mode
        return changes


def rule_errors(raw: Mapping[str, object]) -> dict[str, str]:
    """Every field of a rule that is wrong (not just the first), worded with the labels the form shows."""
    errors: dict[str, str] = {}
    try:
        parse_scope(raw.get("scope") or GLOBAL)  # type: ignore[arg-type]
    except ScopeError as exc:
        errors["scope"] = exc.message
    for param in RETENTION_PARAMS:
        value = raw.get(param.name)
        if value in (None, ""):
            continue
        try:
            param.check(value)
        except ValueError as exc:
            errors[param.name] = str(exc).replace(param.name, param.condition.label)
    for dim in POLICY_DIMENSIONS:
        if not raw.get(dim.name):
            continue
        try:
            parse_dimension(dim, raw[dim.name], raw.get(dim.mode_param))
        except ScopeError as exc:
            errors[exc.field] = exc.message
    return errors


def handoff_initial(query: QueryDict) -> tuple[dict[str, object], list[str]]:
    """Initial values of the New policy dialog from the Explorer's hand-off URL (its own ?retention= format).

    Parts a policy cannot carry (a reverse direction, the Owner filter) are dropped with a notice saying so.
    """
    initial: dict[str, object] = {}
    notices: list[str] = []
    if query.get("scope"):
        initial["scope"] = query["scope"]
    conditions, parse_notices = parse_retention(query.get("retention"))
    notices += parse_notices
    for name, value in conditions.items():
        param = PARAMS[name]
        if param.is_reverse:
            notices.append(f"Left out {param.pill(value)}: reverse directions are for exploring only.")
            continue
        initial[name] = str(value)
    for dim in DIMENSIONS:
        values = query.get(dim.name)
        if not values:
            continue
        if not dim.in_policy:
            notices.append(f"Left out the {dim.label} filter: a retention policy cannot carry it.")
            continue
        initial[dim.name] = values
        if query.get(dim.mode_param):
            initial[dim.mode_param] = query[dim.mode_param]
    for name in ("name", "mode"):
        if query.get(name):
            initial[name] = query[name]
    return initial, notices


def policy_initial(policy: RetentionPolicy) -> dict[str, object]:
    """The Edit dialog's values: the saved policy as form fields."""
    rule = policy.rule
    initial: dict[str, object] = {
        # A name that is the rule's auto-name stays blank: the placeholder shows it, and it follows the rule.
        "name": "" if policy.name == auto_name(rule) else policy.name,
        "scope": rule.scope,
        "mode": policy.mode,
        "enabled": policy.enabled,
    }
    initial.update({name: str(value) for name, value in rule.conditions.items()})
    for name, flt in rule.dimensions.items():
        initial[name] = ",".join(flt.values)
        initial[f"{name}_mode"] = flt.mode
    return initial


def placeholder_name(rule: Rule | None) -> str:
    """The name field's placeholder: what a blank name will be saved as."""
    if rule is None or rule.is_empty:
        return "Named after the rule when left blank"
    return auto_name(rule)


class TokenForm(forms.Form):
    """A new API token: a name to recognise it by, whose lessons it writes (personal or a team), and its scopes
    (read,write unless chosen; never more than the creator's role grants)."""

    name = forms.CharField(max_length=100, strip=True, error_messages={"required": "Give the token a name."})
    owner = forms.ChoiceField(initial="personal")
    scopes = forms.MultipleChoiceField(
        choices=Scope.choices,
        initial=list(DEFAULT_TOKEN_SCOPES),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one scope."},
    )

    def __init__(self, *args: Any, account: Account, user: Any, role: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.role = role
        teams = (
            Membership.objects.filter(account=account, user=user)
            .exclude(team="")
            .order_by("team")
            .values_list("team", flat=True)
        )
        owner: forms.ChoiceField = self.fields["owner"]  # type: ignore[assignment]
        owner.choices = [("personal", "personal")] + [(t, f"team {t}") for t in teams]

    def clean_scopes(self) -> list[str]:
        chosen = scopes_normal(self.cleaned_data["scopes"])
        beyond = scopes_beyond(self.role, chosen)
        if beyond:
            raise forms.ValidationError(
                f"Your role ({self.role}) cannot grant {', '.join(beyond)}: a token never has more than its creator."
            )
        return chosen
