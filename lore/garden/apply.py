"""Applying, dismissing and undoing a finding. Applying is an archive run (a PolicyRun with no policy): the
retired lessons carry the run, the reason and the lesson they are superseded by, and Undo restores the run as a
whole, like any run's undo.

Eligibility is re-checked atomically at apply: inside one transaction every member is locked (in id order) and
must be active and unchanged since the inventory (same `updated_at`), the lessons to retire unprotected, and the
archive UPDATE repeats that guard. If anything changed, nothing is retired and the finding answers FindingStale.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from lore.activity import activity_record
from lore.models import Account, Activity, Finding, FindingMember, Lesson, PolicyRun
from lore.services import lessons_archive, lessons_restore

RETIRE = FindingMember.Action.RETIRE
REVIEW = FindingMember.Action.REVIEW
Status = Finding.Status


class FindingError(Exception):
    """A finding cannot be acted on; `status` is the HTTP answer and the message says why."""

    status = 409
    code = "conflict"
    field = ""  # the input field an answer names, when one is to blame

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FindingStale(FindingError):
    code = "stale"


class FindingNotOpen(FindingError):
    code = "not_open"


class FindingOverCap(FindingError):
    status = 422
    code = "limit_exceeded"


class FindingKeepInvalid(FindingError):
    """A possible duplicate applied without a keeper (or with a lesson that is not its member), or a keeper
    given for a kind whose keeper the gardener chose."""

    status = 422
    code = "invalid"
    field = "keep"


def finding_get(account: Account, finding_id: int) -> Finding:
    """The account's finding `finding_id`; Finding.DoesNotExist for any other (another account's too)."""
    return Finding.objects.get(account=account, pk=finding_id)


def _run_create(account: Account, finding: Finding, *, trigger: str, actor: str, now: datetime) -> PolicyRun:
    return PolicyRun.objects.create(
        account=account,
        policy_name=f"gardener: {finding.get_kind_display()} finding {finding.pk}",
        trigger=trigger,
        rule_snapshot={"finding": finding.pk, "kind": finding.kind},
        status=PolicyRun.Status.RUNNING,
        created_by=actor,
        started_at=now,
        heartbeat_at=now,
    )


def _to_retire(
    finding: Finding, members: list[FindingMember], keep: int | None
) -> tuple[list[FindingMember], Any]:
    """The members to retire and the lesson they are superseded by. A possible duplicate is review-only: a person
    names the lesson to keep (`keep`, one of its members) and the other members are retired in its favour."""
    if finding.kind != Finding.Kind.POSSIBLE_DUPLICATE:
        if keep is not None:
            raise FindingKeepInvalid(
                f"keep: a {finding.get_kind_display()} finding's keeper is already chosen"
            )
        return [m for m in members if m.action == RETIRE], finding.evidence.get("superseded_by")
    if keep is None:
        raise FindingKeepInvalid("keep: a possible duplicate needs the id of the lesson to keep")
    if keep not in {m.lesson_id for m in members}:
        raise FindingKeepInvalid(f"keep: lesson {keep} is not a member of finding {finding.pk}")
    return [m for m in members if m.action == REVIEW and m.lesson_id != keep], keep


def _check_members(
    finding: Finding, members: list[FindingMember], retire: list[FindingMember], cap: int
) -> list[FindingMember]:
    """The members to retire, after locking every member and re-checking it; FindingStale/OverCap if not."""
    if len(retire) > cap:
        raise FindingOverCap(
            f"{len(retire)} lessons to retire: one apply retires at most {cap} (the apply cap)"
        )
    locked = {
        lesson.pk: lesson
        for lesson in Lesson.objects.select_for_update()
        .filter(account_id=finding.account_id, pk__in=[m.lesson_id for m in members])
        .order_by("pk")
    }
    for member in members:
        lesson = locked.get(member.lesson_id)
        if lesson is None or lesson.archived_at is not None or lesson.updated_at != member.updated_at:
            raise FindingStale(
                f"lesson {member.lesson_id} changed since the inventory: run the gardener again"
            )
        if member in retire and lesson.protected:
            raise FindingStale(f"{lesson.address} is protected now: it is never retired")
    return retire


def finding_apply(  # noqa: ANN201
    *, account: Account, finding_id: int, actor: str, trigger: str = "manual", keep: int | None = None
):
    """Retire the finding's lessons to retire (at most the account's apply cap) as one archive run, recording the
    reason and `superseded_by`. Returns the run. FindingStale when anything changed since the inventory. A
    possible duplicate needs `keep` (FindingKeepInvalid without): the lesson a person chose to keep."""
    now = timezone.now()
    with transaction.atomic():
        finding = Finding.objects.select_for_update().get(account=account, pk=finding_id)
        if finding.status != Status.OPEN:
            raise FindingNotOpen(f"finding {finding.pk} is {finding.status}, not open")
        members = list(finding.members.order_by("lesson_id"))
        retire, superseded_by = _to_retire(finding, members, keep)
        retire = _check_members(finding, members, retire, account.garden_apply_cap)
        run = _run_create(account, finding, trigger=trigger, actor=actor, now=now)
        guard = Q()
        for member in retire:
            guard |= Q(pk=member.lesson_id, updated_at=member.updated_at)
        archived = lessons_archive(
            account=account,
            lesson_ids=[m.lesson_id for m in retire],
            guard=guard,
            run_id=run.pk,
            reason=f"gardener: {finding.get_kind_display()} (finding {finding.pk})",
            superseded_by=superseded_by,
            actor=actor,
            now=now,
        )
        if len(archived) != len(retire):  # cannot happen under the locks; never retire half a finding
            raise FindingStale(f"finding {finding.pk} changed while it was applied")
        type(run).objects.filter(pk=run.pk).update(
            status="done", matched=len(archived), archived=len(archived), finished_at=timezone.now()
        )
        Finding.objects.filter(pk=finding.pk).update(
            status=Status.APPLIED,
            applied_run=run,
            decided_by=actor,
            decided_at=now,
            evidence={**finding.evidence, "superseded_by": superseded_by},  # a person's keeper, recorded
        )
        _activity(
            finding, Activity.Action.FINDING_APPLIED, actor, f"{len(archived)} lessons retired", run.pk, now
        )
    run.refresh_from_db()
    return run


def finding_dismiss(*, account: Account, finding_id: int, actor: str) -> Finding:
    """Dismiss an open finding: its lessons are not proposed again (for this kind) until one is rewritten."""
    now = timezone.now()
    with transaction.atomic():
        finding = Finding.objects.select_for_update().get(account=account, pk=finding_id)
        if finding.status != Status.OPEN:
            raise FindingNotOpen(f"finding {finding.pk} is {finding.status}, not open")
        Finding.objects.filter(pk=finding.pk).update(
            status=Status.DISMISSED, decided_by=actor, decided_at=now
        )
        _activity(finding, Activity.Action.FINDING_DISMISSED, actor, "", None, now)
    finding.refresh_from_db()
    return finding


def finding_undo(*, account: Account, finding_id: int, actor: str) -> int:
    """Undo an applied finding: restore every lesson its run retired (like Undo run). The finding is then
    dismissed — a person chose to keep those lessons. Returns how many were restored."""
    now = timezone.now()
    with transaction.atomic():
        finding = Finding.objects.select_for_update().get(account=account, pk=finding_id)
        if finding.status != Status.APPLIED or finding.applied_run_id is None:
            raise FindingNotOpen(
                f"finding {finding.pk} is {finding.status}: only an applied finding is undone"
            )
        run_id = finding.applied_run_id
    restored = lessons_restore(account=account, run_id=run_id, actor=actor)
    with transaction.atomic():
        PolicyRun.objects.filter(pk=run_id).update(restored=F("restored") + restored)
        Finding.objects.filter(pk=finding.pk).update(
            status=Status.DISMISSED, decided_by=actor, decided_at=now
        )
        _activity(finding, Activity.Action.FINDING_UNDONE, actor, f"{restored} lessons restored", run_id, now)
    return restored


def _activity(
    finding: Finding, action: str, actor: str, detail: str, run_id: int | None, now: datetime
) -> None:
    activity_record(
        account=finding.account_id,
        action=action,
        actor=actor,
        subject=f"finding {finding.pk} ({finding.get_kind_display()})",
        run_id=run_id,
        detail=detail,
        at=now,
    )
