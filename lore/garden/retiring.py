"""Lessons an open finding proposes to retire, as lists and searches read them: the predicate that puts them after
current lore, and what an answer says about each (the finding, and the keeper an agent should prefer).

A lesson is *proposed for retirement* while an open finding lists it to retire and it is unchanged since that
inventory (the same `updated_at`): exactly the lessons an apply would retire now. A rewritten one is not (its
finding is stale, and the next inventory deletes it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef, QuerySet

from lore.models import Finding, FindingMember, Lesson

RETIRE = FindingMember.Action.RETIRE


def _open_retirements() -> QuerySet[FindingMember]:
    return FindingMember.objects.filter(action=RETIRE, finding__status=Finding.Status.OPEN)


def _members_retiring_it() -> QuerySet[FindingMember]:
    """The outer query's lesson as an open finding lists it to retire, unchanged since (FindingMember's lesson
    index, then the finding by id)."""
    return _open_retirements().filter(
        lesson_id=OuterRef("pk"),
        updated_at=OuterRef("updated_at"),
        finding__account_id=OuterRef("account_id"),
    )


def lessons_current(qs: QuerySet[Lesson]) -> QuerySet[Lesson]:
    """The lessons of `qs` no open finding proposes to retire: NOT EXISTS, which PostgreSQL plans as an anti-join
    probing FindingMember's lesson index for each lesson the page's walk reads (the sort index is still walked
    from the cursor and stops at the page). That plan needs statistics of the findings: an inventory that
    records findings analyzes their tables (`findings_analyze`)."""
    return qs.filter(~Exists(_members_retiring_it()))


def findings_analyze() -> None:
    """ANALYZE the findings and their members (PostgreSQL; small tables). Without statistics (before autovacuum's
    first pass) the planner takes the open proposals for a handful and compares each lesson a page reads against
    all of them: at 100k lessons and 19,721 proposals, a list page 102 ms instead of 18, a search 5.5 s instead
    of 0.1 (docs/gardener.md)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Finding._meta.db_table}, {FindingMember._meta.db_table}")


def lessons_retiring(qs: QuerySet[Lesson]) -> QuerySet[Lesson]:
    """The lessons of `qs` an open finding proposes to retire (EXISTS: the planner may start from the proposals,
    which are few next to the store)."""
    return qs.filter(Exists(_members_retiring_it()))


def proposed_retirements(lessons: Sequence[Lesson]) -> dict[int, dict[str, Any]]:
    """{lesson id: {finding_id, kind, keeper: {id, address} or None}} for those of `lessons` an open finding
    proposes to retire; at most two queries whatever their number (the members, then the keepers' addresses)."""
    if not lessons:
        return {}
    by_id = {lesson.pk: lesson for lesson in lessons}
    members = _open_retirements().filter(
        lesson_id__in=list(by_id), finding__account_id__in={lesson.account_id for lesson in lessons}
    )
    found: dict[int, dict[str, Any]] = {}
    keepers: dict[int, int] = {}
    rows = members.order_by("finding_id").values_list(
        "lesson_id", "updated_at", "finding_id", "finding__kind", "finding__evidence"
    )
    for lesson_id, updated_at, finding_id, kind, evidence in rows:
        if lesson_id in found or by_id[lesson_id].updated_at != updated_at:
            continue
        found[lesson_id] = {"finding_id": finding_id, "kind": kind, "keeper": None}
        keeper_id = (evidence or {}).get("superseded_by")
        if isinstance(keeper_id, int):
            keepers[lesson_id] = keeper_id
    addresses = (
        {
            pk: f"{scope}::{key}"
            for pk, scope, key in Lesson.objects.filter(
                account_id__in={lesson.account_id for lesson in lessons}, pk__in=set(keepers.values())
            ).values_list("pk", "scope", "key")
        }
        if keepers
        else {}
    )
    for lesson_id, keeper_id in keepers.items():
        if keeper_id in addresses:
            found[lesson_id]["keeper"] = {"id": keeper_id, "address": addresses[keeper_id]}
    return found


def proposed_retirements_mark(lessons: Sequence[Lesson], *, known_current: bool = False) -> None:
    """Set each lesson's `proposed_retirement` (what the API answers): None for all when the query that read them
    already excluded proposals (`known_current`), else as proposed_retirements says."""
    found = {} if known_current else proposed_retirements(lessons)
    for lesson in lessons:
        lesson.proposed_retirement = found.get(lesson.pk)  # type: ignore[attr-defined]
