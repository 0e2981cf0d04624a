"""Preview and run (DESIGN.md §7): both resolve through `lore.candidates`, so a run archives exactly what a
preview showed. Runs work in keyset batches; each batch is one UPDATE that repeats the candidate predicate."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from lore.candidates import candidate_predicate, candidates
from lore.conditions import DimFilter, Rule, RuleError, canonical_conditions
from lore.models import Account
from lore.services import lessons_archive, lessons_restore
from policies.models import PolicyRun, RetentionPolicy

log = logging.getLogger(__name__)
STALE_AFTER = timedelta(minutes=10)


@dataclass(frozen=True)
class Preview:
    count: int
    keys: list[dict[str, str]]


def rule_validate_for_policy(rule: Rule) -> None:
    """A policy needs at least one condition or filter, and cannot carry exploring-only parts."""
    if rule.is_empty:
        raise RuleError(
            "conditions",
            "a policy needs at least one condition or filter: an empty rule would archive everything",
        )
    if rule.reverse_params:
        name = rule.reverse_params[0].name
        raise RuleError(name, f"{name} is for exploring only: a retention policy cannot carry it")
    if rule.explorer_only_dimensions:
        name = rule.explorer_only_dimensions[0].name
        raise RuleError(name, f"{name} is an Explorer filter: a retention policy cannot carry it")


def preview(
    account: Account, rule: Rule, *, keys_limit: int | None = None, now: datetime | None = None
) -> Preview:
    """What a run of `rule` would archive now. Changes nothing."""
    rule_validate_for_policy(rule)
    qs = candidates(account, rule, now=now).order_by("scope", "key")
    count = qs.count()
    rows = qs.values("scope", "key")
    if keys_limit is not None:
        rows = rows[:keys_limit]
    return Preview(count=count, keys=[{"scope": r["scope"], "key": r["key"]} for r in rows])


def rule_snapshot(rule: Rule) -> dict:
    return {
        "scope": rule.scope,
        "conditions": dict(rule.conditions),
        "dimensions": {n: {"values": list(f.values), "mode": f.mode} for n, f in rule.dimensions.items()},
    }


def rule_from_snapshot(snapshot: dict) -> Rule:
    return Rule(
        scope=snapshot["scope"],
        conditions=canonical_conditions(snapshot.get("conditions", {})),
        dimensions={
            n: DimFilter(tuple(f["values"]), f["mode"]) for n, f in snapshot.get("dimensions", {}).items()
        },
    )


def runs_mark_stale(*, now: datetime | None = None) -> int:
    """Runs whose worker died (no heartbeat for STALE_AFTER) become `interrupted`; the next run completes them."""
    now = now or timezone.now()
    return PolicyRun.objects.filter(
        status=PolicyRun.Status.RUNNING, heartbeat_at__lt=now - STALE_AFTER
    ).update(status=PolicyRun.Status.INTERRUPTED, finished_at=now, error="the worker stopped mid-run")


def run_start(
    *,
    account: Account,
    rule: Rule | None = None,
    policy: RetentionPolicy | None = None,
    trigger: str,
    actor: str = "",
) -> PolicyRun | None:
    """Record a pending run of a policy (or an ad-hoc rule). None when that policy already has a run going."""
    runs_mark_stale()
    with transaction.atomic():
        if policy is not None:
            policy = RetentionPolicy.objects.select_for_update().get(pk=policy.pk, account=account)
            active = PolicyRun.objects.filter(
                policy=policy, status__in=[PolicyRun.Status.PENDING, PolicyRun.Status.RUNNING]
            )
            if active.exists():
                return None
            rule = policy.rule
        assert rule is not None
        rule_validate_for_policy(rule)
        return PolicyRun.objects.create(
            account=account,
            policy=policy,
            policy_name=policy.name if policy else "",
            trigger=trigger,
            rule_snapshot=rule_snapshot(rule),
            created_by=actor,
        )


def run_execute(run_id: int, *, batch_size: int | None = None) -> PolicyRun:
    """Archive the run's candidates in keyset batches. Idempotent: what is archived is no longer a candidate."""
    batch_size = batch_size or settings.LORE_ARCHIVE_BATCH_SIZE
    with transaction.atomic():
        run = PolicyRun.objects.select_for_update().get(pk=run_id)
        if run.status not in (PolicyRun.Status.PENDING,):
            if run.status == PolicyRun.Status.RUNNING:
                # A redelivered task whose first worker died: mark it and let a fresh run finish the job.
                PolicyRun.objects.filter(pk=run.pk).update(
                    status=PolicyRun.Status.INTERRUPTED,
                    finished_at=timezone.now(),
                    error="the worker stopped mid-run",
                )
            return run
        now = timezone.now()
        run.status, run.started_at, run.heartbeat_at = PolicyRun.Status.RUNNING, now, now
        run.save(update_fields=["status", "started_at", "heartbeat_at"])
    rule = rule_from_snapshot(run.rule_snapshot)
    account = run.account
    try:
        pending = candidates(account, rule, now=now)
        run.matched = pending.count()
        PolicyRun.objects.filter(pk=run.pk).update(matched=run.matched)
        guard = candidate_predicate(rule, now)
        reason = f"policy “{run.policy_name}”" if run.policy_name else "ad-hoc groom run"
        last_pk = 0
        while True:
            batch = list(
                pending.filter(pk__gt=last_pk).order_by("pk").values_list("pk", flat=True)[:batch_size]
            )
            if not batch:
                break
            last_pk = batch[-1]
            archived = lessons_archive(
                account=account,
                lesson_ids=batch,
                guard=guard,
                run_id=run.pk,
                reason=reason,
                actor=run.created_by or run.trigger,
                now=timezone.now(),
            )
            run.archived += len(archived)
            PolicyRun.objects.filter(pk=run.pk).update(archived=run.archived, heartbeat_at=timezone.now())
    except Exception as exc:
        log.exception("run %s failed", run.pk)
        PolicyRun.objects.filter(pk=run.pk).update(
            status=PolicyRun.Status.FAILED, finished_at=timezone.now(), error=str(exc)[:2000]
        )
        raise
    PolicyRun.objects.filter(pk=run.pk).update(status=PolicyRun.Status.DONE, finished_at=timezone.now())
    run.refresh_from_db()
    return run


def run_undo(run: PolicyRun, *, actor: str = "") -> int:
    """Restore every lesson this run archived (that is still archived by it)."""
    restored = lessons_restore(account=run.account, run_id=run.pk, actor=actor)
    PolicyRun.objects.filter(pk=run.pk).update(restored=run.restored + restored)
    return restored
