"""Existing auto-named policies follow the new wording of their rule's auto-name (policies migration 0003)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from lore.conditions import Rule
from policies.models import RetentionPolicy
from policies.services import is_named_after_its_rule

migration = importlib.import_module("policies.migrations.0003_auto_names_follow_labels")
pytestmark = pytest.mark.django_db


def policy(account, name: str) -> RetentionPolicy:  # noqa: ANN001
    p = RetentionPolicy(account=account, name=name)
    p.apply_rule(Rule(conditions={"max_seen_count": 1, "min_age_days": 90}))
    p.save()
    return p


def test_a_policy_auto_named_in_the_old_wording_follows_its_rule_again(account) -> None:  # noqa: ANN001
    auto = policy(account, "created >90d ago · written ≤ 1× in all scopes")
    typed = policy(account, "written ≤ 1× is what we keep")
    migration.rename_auto_named(apps, None)
    auto.refresh_from_db()
    typed.refresh_from_db()
    assert auto.name == "created >90d ago · recurrence ≤ 1× in all scopes"
    assert is_named_after_its_rule(auto)
    assert typed.name == "written ≤ 1× is what we keep"
