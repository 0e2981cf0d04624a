from __future__ import annotations

import pytest

from lore.conditions import DimFilter
from lore.models import PolicyRun
from lore.rules.codec import RuleError
from lore.rules.rule import Rule
from policies import grooming
from policies.models import RetentionPolicy
from policies.services import policy_create, policy_delete, policy_update

pytestmark = pytest.mark.django_db


def test_a_policy_needs_at_least_one_condition_or_filter(account) -> None:  # noqa: ANN001
    with pytest.raises(RuleError) as exc:
        policy_create(account=account, rule=Rule(scope="global"), name="everything")
    assert exc.value.field == "conditions"


def test_reverse_conditions_are_refused_in_policies(account) -> None:  # noqa: ANN001
    with pytest.raises(RuleError):
        policy_create(account=account, rule=Rule(conditions={"min_opened_count": 10}), name="x")


def test_mode_review_is_the_default_and_auto_starts_disabled(account) -> None:  # noqa: ANN001
    rule = Rule(conditions={"unseen_days": 90})
    assert policy_create(account=account, rule=rule, name="a").mode == "review"
    auto = policy_create(account=account, rule=rule, name="b", mode="auto")
    assert auto.enabled is False and not auto.is_swept_nightly


def test_the_name_is_optional_in_the_dashboard_only(account) -> None:  # noqa: ANN001
    rule = Rule(conditions={"max_opened_count": 0})
    with pytest.raises(RuleError):
        policy_create(account=account, rule=rule, name="")
    policy = policy_create(account=account, rule=rule, name="", allow_auto_name=True)
    assert policy.name == "chosen ≤ 0× in all scopes"


def test_update_clears_a_condition_with_none_and_keeps_the_rest(account) -> None:  # noqa: ANN001
    rule = Rule(
        scope="repo::acme/app",
        conditions={"min_age_days": 90, "max_opened_count": 0},
        dimensions={"kind": DimFilter(("bus",), "in")},
    )
    policy = policy_create(account=account, rule=rule, name="unused")
    policy = policy_update(
        policy=policy, changes={"max_opened_count": None, "kind": None, "host": "reviewer,aw"}
    )
    assert policy.rule.conditions == {"min_age_days": 90}
    assert set(policy.rule.dimensions) == {"host"}
    assert policy.rule.dimensions["host"].values == ("reviewer", "aw")
    assert RetentionPolicy.objects.get(pk=policy.pk).max_opened_count is None


def test_update_cannot_empty_a_policy(account) -> None:  # noqa: ANN001
    policy = policy_create(account=account, rule=Rule(conditions={"min_age_days": 9}), name="x")
    with pytest.raises(RuleError):
        policy_update(policy=policy, changes={"min_age_days": None})


def test_new_filter_values_keep_the_saved_mode_unless_the_update_names_one(account) -> None:  # noqa: ANN001
    rule = Rule(
        conditions={"unseen_days": 90},
        dimensions={"kind": DimFilter(("bus",), "nin"), "tags": DimFilter(("keep",), "none")},
    )
    policy = policy_create(account=account, rule=rule, name="spare the keepers")
    policy = policy_update(policy=policy, changes={"kind": ["bus", "decision"], "tags": "keep,pinned"})
    assert policy.rule.dimensions["kind"] == DimFilter(("bus", "decision"), "nin")
    assert policy.rule.dimensions["tags"] == DimFilter(("keep", "pinned"), "none")
    policy = policy_update(policy=policy, changes={"kind": ["bus"], "kind_mode": "in"})
    assert policy.rule.dimensions["kind"] == DimFilter(("bus",), "in")


def test_deleting_a_policy_keeps_its_runs_with_their_name_and_clears_their_policy_id(account) -> None:  # noqa: ANN001
    policy = policy_create(account=account, rule=Rule(conditions={"unseen_days": 90}), name="old")
    kept = policy_create(account=account, rule=Rule(conditions={"unseen_days": 90}), name="kept")
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    other = grooming.run_start(account=account, policy=kept, trigger=PolicyRun.Trigger.MANUAL)
    assert run is not None and other is not None
    policy_delete(policy=policy)
    run.refresh_from_db()
    other.refresh_from_db()
    assert (run.policy_id, run.policy_name) == (None, "old")
    assert other.policy_id == kept.pk
