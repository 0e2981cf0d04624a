"""Reads for the Settings pages (no side effects). Every query is filtered by account."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import OuterRef, QuerySet, Subquery
from django.shortcuts import get_object_or_404

from lore.candidates import candidates
from lore.models import Account, ApiToken, PolicyRun
from lore.reads import reads_settle_for, rule_fields
from lore.schedule import next_sweep
from lore.scopes import GLOBAL, repo_of
from lore.selectors import scopes_present
from policies.models import RetentionPolicy

RUN_HISTORY_LIMIT = 50


def policies_with_last_run(account: Account) -> list[RetentionPolicy]:
    """The account's policies, each with `.last_run` (None if never run). Two queries, whatever the count."""
    latest = (
        PolicyRun.objects.filter(account=OuterRef("account"), policy_id=OuterRef("pk"))
        .order_by("-created_at", "-id")
        .values("pk")[:1]
    )
    policies: list[RetentionPolicy] = list(
        RetentionPolicy.objects.filter(account=account)
        .annotate(last_run_id=Subquery(latest))
        .order_by("name", "id")
    )
    runs = PolicyRun.objects.in_bulk([p.last_run_id for p in policies if p.last_run_id])  # type: ignore[attr-defined]
    for policy in policies:
        policy.last_run = runs.get(policy.last_run_id)  # type: ignore[attr-defined]
    return policies


def policy_get(account: Account, policy_id: int) -> RetentionPolicy:
    """The account's policy, or 404 (another account's policy is not found, not forbidden)."""
    return get_object_or_404(RetentionPolicy, account=account, pk=policy_id)


def run_get(account: Account, run_id: int) -> PolicyRun:
    return get_object_or_404(PolicyRun, account=account, pk=run_id)


def run_policy(run: PolicyRun) -> RetentionPolicy | None:
    """The policy that started the run, if it still exists (a run keeps only its id and name)."""
    if run.policy_id is None:
        return None
    return RetentionPolicy.objects.filter(account_id=run.account_id, pk=run.policy_id).first()


def run_expected(run: PolicyRun) -> int | None:
    """What a run still waiting for a worker is expected to archive: its preview's count (as of the preview it
    carries out, else now). None once it has started, when its own counts say more."""
    if run.status != PolicyRun.Status.PENDING:
        return None
    from lore.rules.codec import rule_from_json

    rule = rule_from_json(run.rule_snapshot)
    reads_settle_for(run.account, rule_fields(rule))  # counters exact (lore.reads)
    return candidates(run.account, rule, now=run.as_of).count()


def policy_runs(policy: RetentionPolicy) -> QuerySet[PolicyRun]:
    """A policy's runs, newest first."""
    return PolicyRun.objects.filter(account=policy.account, policy_id=policy.pk).order_by(
        "-created_at", "-id"
    )[:RUN_HISTORY_LIMIT]


def policy_run_active(policy: RetentionPolicy) -> PolicyRun | None:
    return (
        PolicyRun.objects.filter(
            account=policy.account,
            policy_id=policy.pk,
            status__in=[PolicyRun.Status.PENDING, PolicyRun.Status.RUNNING],
        )
        .order_by("-created_at")
        .first()
    )


def policy_run_interrupted(policy: RetentionPolicy) -> PolicyRun | None:
    """The policy's latest run when it was interrupted: Run now completes it."""
    last = (
        PolicyRun.objects.filter(account=policy.account, policy_id=policy.pk)
        .order_by("-created_at", "-id")
        .first()
    )
    return last if last is not None and last.status == PolicyRun.Status.INTERRUPTED else None


def account_scopes(account: Account) -> list[str]:
    """The scopes a policy of this account can name: every scope holding lessons, plus the repo of every branch
    (a repo rule covers its branches), sorted. `global` is not in the list: the picker pins it on top."""
    present = scopes_present(account)
    scopes = set(present) | {repo for repo in map(repo_of, present) if repo}
    scopes.discard(GLOBAL)
    return sorted(scopes)


def tokens_of(account: Account) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(account=account).order_by("revoked_at", "-created_at", "-id")


FORECAST_DAYS = (0, 7, 30)  # tonight's sweep, and the sweeps a week and a month after it


@dataclass(frozen=True)
class ForecastPoint:
    days: int  # after tonight's sweep
    at: datetime  # the sweep it describes
    count: int  # what the rule matches then if nothing is read or written before


def policy_forecast(policy: RetentionPolicy, *, now: datetime) -> list[ForecastPoint]:
    """What the rule would archive at tonight's sweep, and a week and a month later, if nothing is read: the one
    candidate query evaluated as of those moments (three counts, each under the request's statement timeout)."""
    reads_settle_for(policy.account, rule_fields(policy.rule))  # counters exact (lore.reads)
    tonight = next_sweep(now)
    points = []
    for days in FORECAST_DAYS:
        at = tonight + timedelta(days=days)
        points.append(ForecastPoint(days, at, candidates(policy.account, policy.rule, now=at).count()))
    return points
