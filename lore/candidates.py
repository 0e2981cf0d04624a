"""The one candidate query (DESIGN.md §7).

Preview, run, the nightly sweep, the Explorer list, its counts, stat cards and matrix all build on these
functions; nothing else re-implements a condition.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from lore.conditions import Rule
from lore.models import Account, Lesson
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
