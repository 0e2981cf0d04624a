"""Writes of retention policies. The API, CLI, MCP and the Settings pages all go through here."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction

from lore.activity import activity_record, person
from lore.conditions import NAME_MAX, POLICY_DIMENSIONS, RETENTION_PARAMS, auto_name
from lore.models import Account, Activity, PolicyRun
from lore.rules.codec import RuleError, rule_as_form_data, rule_parse_strict
from lore.rules.rule import Rule
from policies.grooming import rule_validate_for_policy
from policies.models import RetentionPolicy

MODES = tuple(RetentionPolicy.Mode.values)


def _name_check(name: object, rule: Rule, *, allow_auto_name: bool) -> str:
    text = name.strip() if isinstance(name, str) else ""
    if not text:
        if allow_auto_name:
            return auto_name(rule)
        raise RuleError("name", "name is required")
    if len(text) > NAME_MAX:
        raise RuleError("name", f"name is longer than {NAME_MAX} characters")
    return text


def is_named_after_its_rule(policy: RetentionPolicy) -> bool:
    """A blank name was saved as the rule's auto-name: the name follows the rule when the rule changes."""
    return policy.name == auto_name(policy.rule)


def _mode_check(mode: object) -> str:
    if mode not in MODES:
        raise RuleError("mode", f"mode must be one of {', '.join(MODES)}")
    return str(mode)


@transaction.atomic
def policy_create(
    *,
    account: Account,
    rule: Rule,
    name: str | None,
    mode: str = RetentionPolicy.Mode.REVIEW,
    enabled: bool = False,
    created_by=None,  # noqa: ANN001
    allow_auto_name: bool = False,
    actor: str = "",
) -> RetentionPolicy:
    """A new policy. It needs a condition or a filter; an auto policy is swept only once enabled."""
    rule_validate_for_policy(rule)
    policy = RetentionPolicy(
        account=account,
        name=_name_check(name, rule, allow_auto_name=allow_auto_name),
        mode=_mode_check(mode),
        enabled=bool(enabled),
        created_by=created_by,
    )
    policy.apply_rule(rule)
    policy.save()
    _history(
        policy, Activity.Action.POLICY_CREATED, actor=actor or _person(created_by), detail=_summary(policy)
    )
    return policy


def _person(user) -> str:  # noqa: ANN001
    return person(user) if user is not None else ""


def _summary(policy: RetentionPolicy) -> str:
    state = "enabled" if policy.enabled else "disabled"
    return f"{policy.mode}, {state}: {auto_name(policy.rule)}"


def _history(policy: RetentionPolicy, action: str, *, actor: str, detail: str = "") -> None:
    activity_record(
        account=policy.account_id,
        action=action,
        actor=actor,
        subject=policy.name,
        policy_id=policy.pk,
        detail=detail,
    )


def rule_with_changes(rule: Rule, changes: Mapping[str, object]) -> Rule:
    """`rule` with PATCH-style changes: a key present with None (or "") clears that part; absent keys stay.

    The saved rule is written as form data, the changes laid over it, and the whole read back by the codec.
    Changes that touch no part of the rule (name, mode, enabled) leave the saved rule as it is."""
    rule_keys = {"scope", *(p.name for p in RETENTION_PARAMS)}
    rule_keys |= {name for dim in POLICY_DIMENSIONS for name in (dim.name, dim.mode_param)}
    if not rule_keys & set(changes):
        return rule
    data: dict[str, object] = {"scope": rule.scope, **dict(rule_as_form_data(rule))}
    for name in ("scope", *(p.name for p in RETENTION_PARAMS)):
        if name in changes:
            _put(data, name, changes[name])
    for dim in POLICY_DIMENSIONS:
        if dim.name in changes:
            _put(data, dim.name, changes[dim.name])
            if not _given(changes[dim.name]):
                data.pop(dim.mode_param, None)  # cleared: its mode goes with it
        if dim.mode_param in changes:
            if _given(changes[dim.mode_param]) and not _given(data.get(dim.name)):
                raise RuleError(
                    dim.name,
                    f"{dim.mode_param} needs {dim.name} values: this policy has no {dim.label} filter",
                )
            _put(data, dim.mode_param, changes[dim.mode_param])  # null: back to the default
    # Without a mode in the changes the saved one stays: `--tags a,b` on an exclusion keeps it an exclusion.
    return rule_parse_strict(data, in_policy=True)


def _given(value: object) -> bool:
    return value not in (None, "", [])


def _put(data: dict[str, object], name: str, value: object) -> None:
    if _given(value):
        data[name] = value
    else:
        data.pop(name, None)


@transaction.atomic
def policy_update(
    *, policy: RetentionPolicy, changes: Mapping[str, object], allow_auto_name: bool = False, actor: str = ""
) -> RetentionPolicy:
    """Apply changes (name, mode, enabled, scope, conditions, filters; None clears) and re-validate the rule."""
    policy = RetentionPolicy.objects.select_for_update().get(pk=policy.pk, account=policy.account)
    was_enabled, before = policy.enabled, _summary(policy)
    named_after_rule = is_named_after_its_rule(policy)
    rule = rule_with_changes(policy.rule, changes)
    rule_validate_for_policy(rule)
    if "name" in changes:
        policy.name = _name_check(changes["name"], rule, allow_auto_name=allow_auto_name)
    elif named_after_rule:
        policy.name = auto_name(rule)
    if "mode" in changes and changes["mode"] is not None:
        policy.mode = _mode_check(changes["mode"])
    if "enabled" in changes and changes["enabled"] is not None:
        if not isinstance(changes["enabled"], bool):
            raise RuleError("enabled", "enabled must be true or false")
        policy.enabled = changes["enabled"]
    policy.apply_rule(rule)
    policy.save()
    if set(changes) == {"enabled"}:
        if policy.enabled != was_enabled:
            action = Activity.Action.POLICY_ENABLED if policy.enabled else Activity.Action.POLICY_DISABLED
            _history(policy, action, actor=actor)
    elif _summary(policy) != before or "name" in changes:
        _history(policy, Activity.Action.POLICY_EDITED, actor=actor, detail=_summary(policy))
    return policy


@transaction.atomic
def policy_delete(*, policy: RetentionPolicy, actor: str = "") -> None:
    """Delete the rule only: lessons it archived stay archived and restorable (their runs keep their history and
    the policy's name; their policy id clears, as no id of a deleted policy may be reused for another)."""
    _history(policy, Activity.Action.POLICY_DELETED, actor=actor, detail=_summary(policy))
    PolicyRun.objects.filter(account=policy.account, policy_id=policy.pk).update(policy_id=None)
    policy.delete()
