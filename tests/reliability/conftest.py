"""Two tenants for the reliability layer: account A owns lessons, policies, runs and tokens; B is the intruder.

`tenant_state(account)` is everything A owns (its export, policies, runs, events, reads, tokens): a test takes
it before and after an attack and asserts it did not move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from lore.accounts import token_create
from lore.models import (
    Account,
    Activity,
    ApiToken,
    Finding,
    FindingMember,
    GardenRun,
    Lesson,
    LessonEvent,
    LessonEventBatch,
    LessonTag,
    Membership,
    ReadEvent,
    TransferJob,
)
from lore.roles import ALL_SCOPES, Role
from lore.transfer import export_lines
from policies import grooming
from policies.models import PolicyRun, RetentionPolicy
from tests.audit import audited
from tests.factories import LessonFactory, MembershipFactory, UserFactory

A_MARKER = "a-only-secret-text"  # every lesson of A carries it; nothing B sees may contain it
SCOPE = "repo::acme/app"


@dataclass
class World:
    """What A owns, by role: the objects an intruder aims at."""

    account: Account
    active: Lesson
    archived: Lesson
    protected: Lesson
    policy: RetentionPolicy
    global_policy: RetentionPolicy
    run: PolicyRun
    token: ApiToken
    raw_token: str
    job: TransferJob
    member: Membership
    findings: list[Finding] = field(default_factory=list)
    garden_runs: list[GardenRun] = field(default_factory=list)

    @property
    def lessons(self) -> list[Lesson]:
        return [self.active, self.archived, self.protected]

    @property
    def policies(self) -> list[RetentionPolicy]:
        return [self.policy, self.global_policy]


def world_build(account: Account) -> World:
    """A store with one lesson of each state, a review policy that has run, an auto global policy, a token."""
    old = timezone.now() - timedelta(days=400)

    def lesson(key: str, **extra: Any) -> Lesson:
        return LessonFactory(
            account=account,
            scope=SCOPE,
            key=key,
            content=f"{A_MARKER} {key}",
            tags=["a-tag"],
            created_at=old,
            **extra,
        )

    archived = lesson("a-secret-archived")
    active = lesson("a-secret-active", read_count=7, opened_count=2)
    protected = lesson("a-secret-protected", protected=True)
    policy = RetentionPolicy.objects.create(
        account=account, name=f"{A_MARKER} review rule", scope=SCOPE, min_age_days=30
    )
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    assert run is not None
    # The run archives `archived` only: the others are made non-candidates for its duration.
    Lesson.objects.filter(pk=active.pk).update(created_at=timezone.now())
    run = grooming.run_execute(run.pk)
    Lesson.objects.filter(pk=active.pk).update(created_at=old)
    global_policy = RetentionPolicy.objects.create(
        account=account,
        name=f"{A_MARKER} global rule",
        scope="global",
        min_age_days=1,
        mode="auto",
        enabled=True,
    )
    token, raw = token_create(account=account, name=f"{A_MARKER} laptop", scopes=ALL_SCOPES)
    job = TransferJob.objects.create(
        account=account,
        kind=TransferJob.Kind.EXPORT,
        status=TransferJob.Status.DONE,
        file_name="a-export.ndjson",
    )
    for item in (active, archived, protected):
        item.refresh_from_db()
    assert archived.archived_by_run_id == run.pk and active.archived_at is None
    member = MembershipFactory(account=account, user=UserFactory(username="a-viewer"), role=Role.VIEWER)
    findings = [_finding(account, active, "open"), _finding(account, archived, "applied", run)]
    garden_run = GardenRun.objects.create(
        account=account, status=GardenRun.Status.DONE, started_at=timezone.now(), finished_at=timezone.now()
    )
    return World(
        account,
        active,
        archived,
        protected,
        policy,
        global_policy,
        run,
        token,
        raw,
        job,
        member,
        findings,
        [garden_run],
    )


def _finding(account: Account, lesson: Lesson, status: str, run: PolicyRun | None = None) -> Finding:
    """A finding of A's (open: B would apply or dismiss it; applied by `run`: B would undo it)."""
    finding = Finding.objects.create(
        account=account,
        kind=Finding.Kind.EXPIRED_EPHEMERA,
        status=status,
        family=SCOPE,
        fingerprint=f"{A_MARKER}-{status}",
        summary=f"{A_MARKER} finding",
        applied_run=run,
        created_at=timezone.now(),
    )
    FindingMember.objects.create(
        finding=finding, lesson=lesson, action="retire", why=A_MARKER, updated_at=lesson.updated_at
    )
    return finding


def _rows(qs: Any) -> list[dict[str, Any]]:
    return [dict(row) for row in qs.order_by("pk").values()]


def tenant_state(account: Account) -> dict[str, Any]:
    """Everything the account owns, in a comparable form."""
    return {
        "export": "".join(export_lines(account)),
        "lessons": _rows(Lesson.objects.filter(account=account)),
        "tags": _rows(LessonTag.objects.filter(account=account)),
        "events": _rows(LessonEvent.objects.filter(account=account)),
        "event_batches": _rows(LessonEventBatch.objects.filter(account=account)),
        "reads": _rows(ReadEvent.objects.filter(account=account)),
        "policies": _rows(RetentionPolicy.objects.filter(account=account)),
        "runs": _rows(PolicyRun.objects.filter(account=account)),
        "tokens": _rows(ApiToken.objects.filter(account=account)),
        "findings": _rows(Finding.objects.filter(account=account)),
        "garden_runs": _rows(GardenRun.objects.filter(account=account)),
        "transfer_jobs": _rows(TransferJob.objects.filter(account=account)),
        "members": _rows(Membership.objects.filter(account=account)),
        "activity": _rows(Activity.objects.filter(account=account)),
    }


def assert_archived_completely(account: Account, run: PolicyRun) -> None:
    """archived_at set ⇔ archived_by_run set ⇔ an ARCHIVED event of that run exists; the run counts them all."""
    by_run = set(Lesson.objects.filter(account=account, archived_by_run=run).values_list("pk", flat=True))
    events = {row[0] for row in audited(account=account, run=run, action=LessonEvent.Action.ARCHIVED)}
    stamped = set(
        Lesson.objects.filter(account=account, archived_at__isnull=False, archived_by_run=run).values_list(
            "pk", flat=True
        )
    )
    unowned = Lesson.objects.filter(account=account, archived_at__isnull=False, archived_by_run__isnull=True)
    assert not unowned.exists()
    assert by_run == stamped
    assert events >= by_run  # a lesson restored after its archive keeps the event of that archive
    still = Lesson.objects.filter(pk__in=events - by_run, archived_by_run=run)
    assert not still.exists()
    assert run.archived == len(events)


@pytest.fixture
def world(account) -> World:  # noqa: ANN001
    return world_build(account)


@pytest.fixture
def intruder(other_account):  # noqa: ANN001, ANN201
    """B's signed-in user (B is `other_account`)."""
    return MembershipFactory(account=other_account, user=UserFactory(username="mallory")).user


@pytest.fixture
def intruder_token(other_account) -> str:  # noqa: ANN001
    return token_create(account=other_account, name="b's laptop", scopes=ALL_SCOPES)[1]
