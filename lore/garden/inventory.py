"""An inventory: run the detectors over an account and record what they propose as open Findings.

A nightly inventory examines only lessons written since the last finished one (and ephemera that crossed the age
line since); the first, or one asked for with `full=True`, examines everything. Proposals are cut to the
account's apply cap. A lesson already in an open finding, or in a dismissed one while its content is unchanged,
is not proposed again.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from lore.activity import activity_record
from lore.garden.detect import (
    ROW_FIELDS,
    Examined,
    Proposal,
    Row,
    expired_ephemera,
    near_duplicates,
    superseded,
)
from lore.garden.record import findings_insert
from lore.garden.retiring import findings_analyze
from lore.garden.semantic import semantic_inventory, semantic_inventory_check
from lore.limits import GARDEN_FINDINGS_MAX
from lore.models import Account, Activity, Finding, FindingMember, GardenRun, content_hash
from lore.reads import reads_settle_for

log = logging.getLogger(__name__)
Status = Finding.Status
RETIRE, KEEP = FindingMember.Action.RETIRE, FindingMember.Action.KEEP
# Findings recorded per transaction.
GARDEN_RECORD_BATCH = 200


def fingerprint(kind: str, members: list[tuple[Row, str]]) -> str:
    """A hash of a finding's kind and its members' ids, actions and contents."""
    parts = sorted(f"{row.id}:{action}:{content_hash(row.content)}" for row, action in members)
    return hashlib.sha256("|".join([kind, *parts]).encode()).hexdigest()


def findings_prune_stale(account: Account) -> int:
    """Delete open findings a member of which was rewritten or archived since: their evidence is stale (the next
    inventory proposes again what still holds). Returns how many."""
    stale = FindingMember.objects.filter(finding__account=account, finding__status=Status.OPEN).filter(
        Q(lesson__archived_at__isnull=False) | ~Q(lesson__updated_at=F("updated_at"))
    )
    deleted, _ = Finding.objects.filter(pk__in=stale.values("finding_id")).delete()
    return deleted


class _Known:
    """Lessons the inventory must not propose again: those in open findings, and those in dismissed findings of a
    kind, as long as they were not rewritten since (same updated_at)."""

    def __init__(self, account: Account) -> None:
        members = FindingMember.objects.filter(finding__account=account, action=RETIRE)
        self.taken = set(members.filter(finding__status=Status.OPEN).values_list("lesson_id", flat=True))
        self.dismissed = set(
            members.filter(finding__status=Status.DISMISSED).values_list(
                "finding__kind", "lesson_id", "updated_at"
            )
        )

    def fresh(self, kind: str, row: Row) -> bool:
        return row.id not in self.taken and (kind, row.id, row.updated_at) not in self.dismissed


def _chunks(proposal: Proposal, known: _Known, cap: int) -> Iterator[Proposal]:
    """The proposal without already-known lessons or protected ones (kept, never retired), cut into pieces of
    at most `cap` lessons to retire (one apply each)."""
    keep = list(proposal.keep)
    retire = []
    for row, why in proposal.retire:
        if row.protected:
            keep.append((row, "kept: protected lessons are never retired"))
        elif known.fresh(proposal.kind, row):
            retire.append((row, why))
    for start in range(0, len(retire), max(cap, 1)):
        yield Proposal(
            kind=proposal.kind,
            family=proposal.family,
            keep=keep if start == 0 else keep[:1] if proposal.superseded_by else [],
            retire=retire[start : start + cap],
            evidence=proposal.evidence,
            summary=proposal.summary,
            superseded_by=proposal.superseded_by,
        )


def _finding_rows(
    account: Account, proposal: Proposal, run: GardenRun, now: datetime
) -> tuple[Finding, list[FindingMember]]:
    members = [(row, KEEP, why) for row, why in proposal.keep] + [
        (row, RETIRE, why) for row, why in proposal.retire
    ]
    finding = Finding(
        account=account,
        kind=proposal.kind,
        family=proposal.family[:600],
        fingerprint=fingerprint(proposal.kind, [(row, action) for row, action, _ in members]),
        evidence={**proposal.evidence, "superseded_by": proposal.superseded_by},
        summary=proposal.summary[:500],
        garden_run=run,
        created_at=now,
    )
    return finding, [
        FindingMember(lesson_id=row.id, action=action, why=why[:500], updated_at=row.updated_at)
        for row, action, why in members
    ]


def findings_record(
    account: Account, proposals: list[Proposal], run: GardenRun, now: datetime
) -> list[Finding]:
    """Record proposals as open findings with their members (findings_insert). Answers the new findings."""
    return findings_insert(account, [_finding_rows(account, proposal, run, now) for proposal in proposals])


class GardenRunPending(Exception):
    """An inventory of this account is already queued or running (lore.garden.queue)."""


def _run_start(
    account: Account, run: GardenRun | None, *, trigger: str, full: bool, now: datetime
) -> GardenRun | None:
    """The run, now running: a queued one taken up (None when it is no longer pending: done, failed, or taken
    by another worker and finished), or a new one (GardenRunPending when the account has one pending)."""
    last = (
        GardenRun.objects.filter(account=account, status=GardenRun.Status.DONE)
        .order_by("-started_at")
        .first()
    )
    since = None if (run.full if run else full) or last is None else last.started_at
    if run is None:
        try:
            with transaction.atomic():
                return GardenRun.objects.create(
                    account=account, trigger=trigger, full=since is None, since=since, started_at=now
                )
        except IntegrityError:
            raise GardenRunPending(
                f"an inventory of account {account.pk} is already queued or running"
            ) from None
    started = GardenRun.objects.filter(pk=run.pk, status__in=GardenRun.PENDING).update(
        status=GardenRun.Status.RUNNING, full=since is None, since=since, started_at=now, phase=""
    )
    if not started:
        return None
    run.refresh_from_db()
    return run


def _detections(
    account: Account, run: GardenRun, *, since: datetime | None, now: datetime, examined: Examined
) -> Iterator[Proposal]:
    """The three detectors in turn, each one's name and the lessons examined so far written to the run (its
    progress) as it starts."""
    detectors: list[tuple[str, Callable[[], Iterator[Proposal]]]] = [
        (Finding.Kind.NEAR_DUPLICATE, lambda: near_duplicates(account, since=since, examined=examined)),
        (Finding.Kind.SUPERSEDED, lambda: superseded(account, since=since, examined=examined)),
        (
            Finding.Kind.EXPIRED_EPHEMERA,
            lambda: expired_ephemera(
                account, now=now, days=account.garden_ephemera_days, since=since, examined=examined
            ),
        ),
    ]
    for kind, detect in detectors:
        GardenRun.objects.filter(pk=run.pk).update(phase=kind, examined=examined.total)
        yield from detect()


def garden_inventory(
    account: Account,
    *,
    trigger: str = "manual",
    full: bool = False,
    actor: str = "",
    now: datetime | None = None,
    run: GardenRun | None = None,
) -> GardenRun:
    """Inventory one account: prune stale findings, run the detectors, record new findings (at most
    GARDEN_FINDINGS_MAX). Changes no lesson. With `run`: that queued run (its `full` decides), answered as it
    is when it is no longer pending; without: a new run, GardenRunPending when one is queued or running."""
    reads_settle_for(account, ROW_FIELDS)  # the keeper is the most Chosen: counters exact first (lore.reads)
    now = now or timezone.now()
    started = _run_start(account, run, trigger=trigger, full=full, now=now)
    if started is None:
        assert run is not None
        run.refresh_from_db()
        return run
    run = started
    since = run.since
    try:
        semantic_inventory_check()
        findings_prune_stale(account)
        known, examined, found = _Known(account), Examined(), 0
        detections = _detections(account, run, since=since, now=now, examined=examined)
        batch: list[Proposal] = []
        for proposal in detections:
            for piece in _chunks(proposal, known, account.garden_apply_cap):
                if found + len(batch) >= GARDEN_FINDINGS_MAX.value:
                    break
                if piece.retire:
                    batch.append(piece)
                    known.taken.update(row.id for row, _ in piece.retire)
            if len(batch) >= GARDEN_RECORD_BATCH:
                found += len(findings_record(account, batch, run, now))
                batch = []
        found += len(findings_record(account, batch, run, now))
        room = GARDEN_FINDINGS_MAX.value - found
        found += semantic_inventory(
            account, run, since=since, examined=examined, taken=known.taken, room=room, now=now
        )
    except Exception as exc:
        log.exception("garden inventory of account %s failed", account.pk)
        GardenRun.objects.filter(pk=run.pk).update(
            status=GardenRun.Status.FAILED, finished_at=timezone.now(), error=str(exc)[:2000] or repr(exc)
        )
        raise
    GardenRun.objects.filter(pk=run.pk).update(
        status=GardenRun.Status.DONE,
        finished_at=timezone.now(),
        examined=examined.total,
        found=found,
        phase="",
    )
    if found:
        findings_analyze()  # lists and searches plan their "proposed for retirement" probe on these statistics
    if actor:
        activity_record(
            account=account,
            action=Activity.Action.GARDEN_RUN,
            actor=actor,
            subject="the gardener",
            detail=f"{found:,} new findings from {examined.total:,} lessons examined",
            at=now,
        )
    run.refresh_from_db()
    return run
