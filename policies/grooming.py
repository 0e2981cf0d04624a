"""Preview and run (DESIGN.md §7): both resolve through `lore.candidates`, so a run archives exactly what a
preview showed. Runs work in keyset batches; each batch is one UPDATE that repeats the candidate predicate.

Who is executing a run: on PostgreSQL the executing worker holds a session advisory lock on the run for as
long as it works on it. PostgreSQL drops the lock when that worker's connection dies (SIGKILL, OOM, lost host),
so "status is running but nobody holds the lock" means the worker is gone, and the run is marked `interrupted`
the moment anyone looks (a redelivered task, the next run_start). Without advisory locks (SQLite) a run is
presumed dead after STALE_AFTER without a heartbeat. Either way a run that is no longer `running` stops at its
next batch: every batch commits together with the run's counters, only while the run is still `running`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from lore.activity import NIGHTLY_SWEEP, activity_record
from lore.candidates import archive_guard, candidates, touched_since_count
from lore.limits import ARCHIVE_BATCH, RUN_HEARTBEAT_STALE, RUN_TIME_LIMIT
from lore.models import Account, Activity, Lesson, PolicyRun
from lore.reads import reads_settle_for, rule_fields
from lore.rules.codec import RuleError, rule_as_json, rule_from_json
from lore.rules.rule import Rule
from lore.serial import without_parallel_workers
from lore.services import candidate_ids, lessons_archive_batch, lessons_restore
from lore.vacuum import lessons_vacuum_soon
from policies.models import RetentionPolicy

log = logging.getLogger(__name__)
Status = PolicyRun.Status
STALE_AFTER = timedelta(
    seconds=RUN_HEARTBEAT_STALE.default
)  # without advisory locks: no heartbeat for this long means the worker died
PENDING_STALE_AFTER = timedelta(
    hours=1
)  # a run whose task never started (lost message) stops blocking its policy
ACTIVE = (Status.PENDING, Status.RUNNING)
_LOCK_CLASS = 0x4C6F7265  # "Lore": the first key of the two-key advisory lock, the run id is the second
_locks_held: set[int] = set()  # runs this process is executing (advisory locks are re-entrant per session)


class PreviewOutdated(Exception):
    """A run was asked to carry out a preview that no longer describes the policy (or is too old to trust)."""


PREVIEW_VALID_FOR = timedelta(hours=1)


class RunNoLongerRunning(Exception):
    """The run was marked interrupted while this worker was still on it: stop, keep the batch rolled back."""


@dataclass(frozen=True)
class Preview:
    count: int
    keys: list[dict[str, str]]
    taken_at: datetime  # the moment it describes: a run given it as `as_of` archives exactly this set


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
    if rule.dimensions_not_in_policy:
        name = rule.dimensions_not_in_policy[0].name
        raise RuleError(name, f"{name} is an Explorer filter: a retention policy cannot carry it")


def preview(
    account: Account, rule: Rule, *, keys_limit: int | None = None, now: datetime | None = None
) -> Preview:
    """What a run of `rule` would archive now. Changes nothing."""
    rule_validate_for_policy(rule)
    reads_settle_for(account, rule_fields(rule))  # counters exact: buffered reads folded first (lore.reads)
    taken_at = now or timezone.now()
    qs = candidates(account, rule, now=taken_at)
    with without_parallel_workers():  # lore.serial: faster alone than with workers on a small server
        if keys_limit is None:
            # Every key: one query, counted by its rows and sorted here. Sorting ~100k keys in the database
            # spills to disk at the default work_mem and took longer than the scan (bench/RESULTS.md, EXPLAIN.md).
            keys = _in_address_order(qs.order_by().values_list("scope", "key"))
            return Preview(count=len(keys), keys=keys, taken_at=taken_at)
        sample = qs.order_by("scope", "key").values_list("scope", "key")[:keys_limit]
        keys = [{"scope": scope, "key": key} for scope, key in sample]
        return Preview(count=qs.count(), keys=keys, taken_at=taken_at)


def run_keys(run: PolicyRun) -> list[dict[str, str]]:
    """What a run archived (still archived by it), as preview keys in the preview's order."""
    archived = Lesson.objects.filter(account=run.account, archived_by_run=run)
    return _in_address_order(archived.order_by().values_list("scope", "key"))


def _in_address_order(pairs: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    """(scope, key) pairs as preview keys, sorted by scope then key. Grouped by scope first: sorting plain
    strings is about twice as fast as sorting tuples, and a store has few scopes."""
    keys_by_scope: dict[str, list[str]] = {}
    for scope, key in pairs:
        keys_by_scope.setdefault(scope, []).append(key)
    return [
        {"scope": scope, "key": key}
        for scope in sorted(keys_by_scope)
        for key in sorted(keys_by_scope[scope])
    ]


# ---------------------------------------------------------------- who is executing a run


def _advisory_locks() -> bool:
    return connection.vendor == "postgresql"


def run_lock_try(run_id: int) -> bool:
    """Take the run's execution lock (PostgreSQL: a session advisory lock). Always True elsewhere."""
    if not _advisory_locks():
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [_LOCK_CLASS, run_id % 2**31])
        return bool(cursor.fetchone()[0])


def run_lock_release(run_id: int) -> None:
    if _advisory_locks():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [_LOCK_CLASS, run_id % 2**31])


def _interrupt(run_ids: Iterable[int], *, now: datetime, error: str, **extra: object) -> int:
    """Mark runs interrupted, but only those still in the state the caller saw (never a finished run)."""
    return PolicyRun.objects.filter(pk__in=list(run_ids), **extra).update(
        status=Status.INTERRUPTED, finished_at=now, error=error
    )


def _interrupt_if_abandoned(run_id: int, now: datetime) -> int:
    if run_id in _locks_held:
        return 0
    if not _advisory_locks():
        return _interrupt(
            [run_id],
            now=now,
            error="the worker stopped mid-run (no heartbeat)",
            status=Status.RUNNING,
            heartbeat_at__lt=now - STALE_AFTER,
        )
    if not run_lock_try(run_id):
        return 0  # a live worker holds it
    try:
        return _interrupt([run_id], now=now, error="the worker stopped mid-run", status=Status.RUNNING)
    finally:
        run_lock_release(run_id)


def run_interrupt_overtime(run_id: int) -> int:
    """A run that reached RUN_TIME_LIMIT: interrupted (its batches so far stay committed; Run now completes it)."""
    return _interrupt(
        [run_id],
        now=timezone.now(),
        error=f"stopped: {RUN_TIME_LIMIT.describe()}",
        status__in=ACTIVE,
    )


def run_mark_if_abandoned(run: PolicyRun) -> PolicyRun:
    """The run, marked `interrupted` first if it claims to be running but its worker is gone."""
    if run.status == Status.RUNNING and _interrupt_if_abandoned(run.pk, timezone.now()):
        run.refresh_from_db()
    return run


def run_undoable(run: PolicyRun) -> bool:
    """Whether Undo has anything left to restore: a lesson still archived by this run."""
    return Lesson.objects.filter(
        account=run.account_id, archived_by_run=run, archived_at__isnull=False
    ).exists()


def runs_mark_stale(*, now: datetime | None = None) -> int:
    """Runs whose worker died become `interrupted` (the next run completes the job); so do runs whose task
    never started within PENDING_STALE_AFTER, so that a lost message cannot block a policy forever."""
    now = now or timezone.now()
    marked = _interrupt(
        PolicyRun.objects.filter(status=Status.PENDING, created_at__lt=now - PENDING_STALE_AFTER).values_list(
            "pk", flat=True
        ),
        now=now,
        error="the run's task never started",
        status=Status.PENDING,
    )
    for run_id in PolicyRun.objects.filter(status=Status.RUNNING).values_list("pk", flat=True):
        marked += _interrupt_if_abandoned(run_id, now)
    return marked


# ---------------------------------------------------------------- starting a run


def run_start(
    *,
    account: Account,
    rule: Rule | None = None,
    policy: RetentionPolicy | None = None,
    trigger: str,
    actor: str = "",
    once_since: datetime | None = None,
    as_of: datetime | None = None,
) -> PolicyRun | None:
    """Record a pending run of a policy (or an ad-hoc rule). None when that policy already has a run going, or
    (with `once_since`, the nightly sweep's tick) already had a run of this trigger since then that did not die.

    `as_of`, the moment of a preview, makes the run archive exactly what that preview showed (less what was
    touched since); PreviewOutdated when the policy changed after it, or it is older than PREVIEW_VALID_FOR."""
    if as_of is not None:
        now = timezone.now()
        if as_of > now:
            raise PreviewOutdated("that preview time is in the future")
        if as_of < now - PREVIEW_VALID_FOR:
            raise PreviewOutdated("that preview is too old to act on")
    runs_mark_stale()
    with transaction.atomic():
        if policy is not None:
            # The policy row lock serialises concurrent starts of one policy: at most one active run each.
            policy = RetentionPolicy.objects.select_for_update().get(pk=policy.pk, account=account)
            runs = PolicyRun.objects.filter(account=account, policy_id=policy.pk)
            if runs.filter(status__in=ACTIVE).exists():
                return None
            if (
                once_since is not None
                and runs.filter(trigger=trigger, created_at__gte=once_since)
                .exclude(status=Status.INTERRUPTED)
                .exists()
            ):
                return None
            if as_of is not None and policy.updated_at > as_of:
                raise PreviewOutdated("the policy was changed after that preview")
            rule = policy.rule
        assert rule is not None
        rule_validate_for_policy(rule)
        actor = actor or (NIGHTLY_SWEEP if trigger == PolicyRun.Trigger.NIGHTLY else trigger)
        run = PolicyRun.objects.create(
            account=account,
            policy_id=policy.pk if policy else None,
            policy_name=policy.name if policy else "",
            trigger=trigger,
            rule_snapshot=rule_as_json(rule),
            created_by=actor,
            as_of=as_of,
        )
        activity_record(
            account=account,
            action=Activity.Action.RUN_STARTED,
            actor=actor,
            subject=run.policy_name or "an ad-hoc rule",
            policy_id=policy.pk if policy else None,
            run_id=run.pk,
            detail=f"run {run.pk} ({trigger})",
        )
        return run


def nightly_runs_start(*, since: datetime | None) -> list[PolicyRun]:
    """Start a run of every auto + enabled policy, once per sweep tick. One bad policy does not stop the rest."""
    started = []
    policies = RetentionPolicy.objects.filter(mode=RetentionPolicy.Mode.AUTO, enabled=True).select_related(
        "account"
    )
    for policy in policies.order_by("pk"):
        try:
            run = run_start(
                account=policy.account, policy=policy, trigger=PolicyRun.Trigger.NIGHTLY, once_since=since
            )
        except Exception:
            log.exception("nightly sweep: could not start policy %s", policy.pk)
            continue
        if run is not None:
            started.append(run)
    return started


# ---------------------------------------------------------------- executing a run


def _lock_for_execution(run_id: int) -> bool:
    """The run's execution lock. A redelivered task may arrive while PostgreSQL is still tearing down the dead
    worker's session, so a run left `running` gets a few short retries before we conclude someone is alive."""
    for attempt in range(20):
        if run_lock_try(run_id):
            _locks_held.add(run_id)
            return True
        if PolicyRun.objects.filter(pk=run_id, status=Status.RUNNING).exists() and attempt < 19:
            time.sleep(0.1)
            continue
        return False
    return False


def _run_claim(run_id: int) -> PolicyRun | None:
    """PENDING → RUNNING, or None. A run found RUNNING while we hold its lock was abandoned by a dead worker."""
    with transaction.atomic():
        run = PolicyRun.objects.select_for_update().get(pk=run_id)
        now = timezone.now()
        if run.status == Status.RUNNING:
            _interrupt([run.pk], now=now, error="the worker stopped mid-run", status=Status.RUNNING)
            return None
        if run.status != Status.PENDING:
            return None
        run.status, run.started_at, run.heartbeat_at = Status.RUNNING, now, now
        run.save(update_fields=["status", "started_at", "heartbeat_at"])
        return run


def run_execute(
    run_id: int, *, batch_size: int | None = None, on_batch: Callable[[PolicyRun], None] | None = None
) -> PolicyRun:
    """Archive the run's candidates in keyset batches. Idempotent: what is archived is no longer a candidate,
    a run already finished is left alone, and a duplicate delivery of a run in progress does nothing."""
    if not _lock_for_execution(run_id):
        return PolicyRun.objects.get(pk=run_id)
    try:
        run = _run_claim(run_id)
        if run is not None:
            try:
                _run_archive(run, batch_size or ARCHIVE_BATCH.value, on_batch)
            finally:
                lessons_vacuum_soon(run.archived)  # the pages it changed all-visible again (lore.vacuum)
    finally:
        _locks_held.discard(run_id)
        run_lock_release(run_id)
    return PolicyRun.objects.get(pk=run_id)


def _run_archive(run: PolicyRun, batch_size: int, on_batch: Callable[[PolicyRun], None] | None) -> None:
    snapshot = run.as_of or run.started_at
    assert snapshot is not None
    reason = f"policy “{run.policy_name}”" if run.policy_name else "ad-hoc groom run"
    try:
        rule = rule_from_json(run.rule_snapshot)
        counters = rule_fields(rule)
        reads_settle_for(run.account, counters)  # counters exact, as the preview read them (lore.reads)
        pending = candidates(run.account, rule, now=snapshot)
        guard = archive_guard(rule, snapshot)
        # What the run's preview counted: a lesson written, restored or imported since is not the run's to archive
        # (the guard skips it), so it is not counted as matched either.
        # The candidates' ids, read once (an index-only scan of lesson_active_facts) and walked in id order: each
        # batch locks and archives its ids where the guard still holds, instead of scanning the table again for
        # the next candidates after the last id (bench/RESULTS.md, optimisations).
        ids = candidate_ids(pending)
        run.matched = len(ids) - touched_since_count(pending, snapshot)
        PolicyRun.objects.filter(pk=run.pk).update(matched=run.matched)
        for start in range(0, len(ids), batch_size):
            reads_settle_for(run.account, counters)  # each batch's guard reads the reads made meanwhile
            run.archived += _archive_batch(run, ids[start : start + batch_size], guard=guard, reason=reason)
            if on_batch is not None:
                on_batch(run)
    except RunNoLongerRunning:
        log.warning("run %s was marked interrupted while this worker was on it; stopped", run.pk)
        return
    except Exception as exc:
        log.exception("run %s failed", run.pk)
        PolicyRun.objects.filter(pk=run.pk, status=Status.RUNNING).update(
            status=Status.FAILED, finished_at=timezone.now(), error=str(exc)[:2000]
        )
        raise
    PolicyRun.objects.filter(pk=run.pk, status=Status.RUNNING).update(
        status=Status.DONE, finished_at=timezone.now()
    )


def _archive_batch(run: PolicyRun, lesson_ids: Sequence[int], *, guard: Q, reason: str) -> int:
    """One batch and the run's counters, committed together (a kill leaves both or neither). Returns how many
    lessons were archived."""
    with transaction.atomic():
        archived = lessons_archive_batch(
            account=run.account,
            lesson_ids=lesson_ids,
            guard=guard,
            run_id=run.pk,
            reason=reason,
            actor=run.created_by or run.trigger,
            now=timezone.now(),
        )
        still_running = PolicyRun.objects.filter(pk=run.pk, status=Status.RUNNING).update(
            archived=F("archived") + archived, heartbeat_at=timezone.now()
        )
        if not still_running:
            raise RunNoLongerRunning(run.pk)
    return archived


def run_undo(run: PolicyRun, *, actor: str = "") -> int:
    """Restore every lesson this run archived (that is still archived by it). The run's `restored` counter grows
    in each batch's own transaction, so an Undo killed half-way counts what it restored, and Undo again resumes."""

    def count(restored: int) -> None:
        PolicyRun.objects.filter(pk=run.pk).update(restored=F("restored") + restored)

    restored = lessons_restore(account=run.account, run_id=run.pk, actor=actor, on_batch=count)
    activity_record(
        account=run.account_id,
        action=Activity.Action.RUN_UNDONE,
        actor=actor,
        subject=run.policy_name or "an ad-hoc rule",
        policy_id=run.policy_id,
        run_id=run.pk,
        detail=f"run {run.pk}: {restored:,} lessons restored",
    )
    return restored
