"""The one candidate query (DESIGN.md §7).

Preview, run, the nightly sweep, the Explorer list, its counts, stat cards and matrix all build on these
functions; nothing else re-implements a condition.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from lore.events import decided_lesson_ids
from lore.models import Account, Lesson
from lore.rules.rule import Rule
from lore.scopes import scope_q


def rule_predicate(rule: Rule, now: datetime) -> Q:
    """Scope AND every condition AND every dimension filter."""
    return scope_q(rule.scope) & rule.q(now)


def lessons_matching(
    account: Account, rule: Rule, *, now: datetime | None = None, archived: bool = False
) -> QuerySet[Lesson]:
    """Lessons of the account the rule describes, protected ones included; active ones unless `archived`."""
    now = now or timezone.now()
    return Lesson.objects.filter(account=account, archived_at__isnull=not archived).filter(
        rule_predicate(rule, now)
    )


def candidates(account: Account, rule: Rule, *, now: datetime | None = None) -> QuerySet[Lesson]:
    """What a run of `rule` would archive: active, unprotected lessons matching it. One SQL query."""
    return lessons_matching(account, rule, now=now).filter(protected=False)


def candidate_predicate(rule: Rule, now: datetime) -> Q:
    """The candidate predicate, for repeating inside an UPDATE (the race guard of DESIGN.md §7)."""
    return Q(archived_at__isnull=True, protected=False) & rule_predicate(rule, now)


def untouched_since(snapshot: datetime) -> Q:
    """Lessons nobody rewrote, restored, unpinned or re-imported after `snapshot`: a run never overrides a
    decision made after it read its candidates (seeds/004: eligibility is checked again when the archive
    happens), and never archives what its preview did not show.

    `NOT IN` over the few decisions since `snapshot`, not `NOT EXISTS`: PostgreSQL reads those decisions once
    (lessonevent_decision_at) into a hashed subplan, where an anti-join probed the event log once per lesson of
    the batch — a fifth of an archive batch's time at 1M (bench/RESULTS.md, issue 16 #21). `lesson_id` is
    never NULL, so `NOT IN` means what `NOT EXISTS` meant. The decisions are those logged per lesson and per
    batch (lore.events)."""
    return Q(updated_at__lte=snapshot) & ~Q(pk__in=decided_lesson_ids(snapshot))


def touched_since_count(qs: QuerySet[Lesson], snapshot: datetime) -> int:
    """How many lessons of `qs` fail untouched_since(snapshot), counted from the few recent writes and decisions
    (the updated_at index, lessonevent_decision_at) rather than by checking every lesson against the event log."""
    rewritten = qs.filter(updated_at__gt=snapshot).count()
    decided = qs.filter(updated_at__lte=snapshot, pk__in=decided_lesson_ids(snapshot)).count()
    return rewritten + decided


def archive_guard(rule: Rule, snapshot: datetime) -> Q:
    """What each archive batch of a run repeats: still a candidate as of `snapshot`, and untouched since."""
    return candidate_predicate(rule, snapshot) & untouched_since(snapshot)
