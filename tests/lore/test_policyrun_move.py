"""PolicyRun moved from policies into lore without moving data: migrating a store from the schema before the move
keeps every run, its policy id and name, and the lessons it archived (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("lore", "0015_lesson_search_index"), ("policies", "0004_retentionpolicy_max_decay_score")]


def _migrate(targets: list[tuple[str, str]] | None):  # noqa: ANN202
    """Migrate to `targets` (None: every app's latest) and answer the apps of that state."""
    executor = MigrationExecutor(connection)
    targets = targets or executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_migrating_from_before_the_move_keeps_every_run_and_what_it_archived() -> None:
    old = _migrate(BEFORE)
    Account = old.get_model("lore", "Account")
    Policy = old.get_model("policies", "RetentionPolicy")
    OldRun = old.get_model("policies", "PolicyRun")
    Lesson = old.get_model("lore", "Lesson")
    now = timezone.now()
    account = Account.objects.create(name="moving", slug="moving")
    policy = Policy.objects.create(account=account, name="old and unused", min_age_days=90)
    by_policy = OldRun.objects.create(
        account=account, policy=policy, policy_name=policy.name, trigger="manual", status="done", archived=1
    )
    ad_hoc = OldRun.objects.create(account=account, trigger="api", status="done")
    lesson = Lesson.objects.create(
        account=account,
        scope="global",
        key="k",
        content="c",
        created_at=now,
        updated_at=now,
        archived_at=now,
        archived_by_run=by_policy,
    )

    new = _migrate(None)
    assert ("lore", "0016_policyrun_moves_into_lore") in MigrationExecutor(
        connection
    ).loader.applied_migrations
    Run = new.get_model("lore", "PolicyRun")
    assert Run._meta.db_table == "policies_policyrun"
    runs = {run.pk: (run.policy_id, run.policy_name, run.archived) for run in Run.objects.order_by("pk")}
    assert runs == {by_policy.pk: (policy.pk, "old and unused", 1), ad_hoc.pk: (None, "", 0)}
    assert new.get_model("lore", "Lesson").objects.get(pk=lesson.pk).archived_by_run_id == by_policy.pk
    # The policy can go now without touching its runs' table constraints (the run keeps its history).
    new.get_model("policies", "RetentionPolicy").objects.filter(pk=policy.pk).delete()
    assert Run.objects.filter(pk=by_policy.pk).exists()
