"""Reading findings: the list a person or an agent reviews, filtered by kind, scope family and status."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Prefetch, QuerySet

from lore.limits import SUPERSEDES_SHOWN_MAX
from lore.models import Account, Finding, FindingMember, GardenRun, Lesson, SupersedesClaim
from lore.scopes import repo_of


def findings_filtered(
    account: Account, *, kind: str = "", scope: str = "", status: str = Finding.Status.OPEN
) -> QuerySet[Finding]:
    """The account's findings, newest first, with their members and members' lessons (no query per row).
    `scope` is a scope family (a repo covers its branches: a branch asks for its repo's family)."""
    findings = Finding.objects.filter(account=account)
    if status:
        findings = findings.filter(status=status)
    if kind:
        findings = findings.filter(kind=kind)
    if scope:
        findings = findings.filter(family=repo_of(scope) or scope)
    members = FindingMember.objects.select_related("lesson").only(
        "finding_id", "action", "why", "updated_at", *(f"lesson__{f}" for f in LESSON_COLUMNS)
    )
    return findings.order_by("-id").prefetch_related(
        Prefetch("members", queryset=members.order_by("action", "lesson_id"))
    )


LESSON_COLUMNS = (
    "id",
    "scope",
    "key",
    "content",
    "opened_count",
    "created_at",
    "updated_at",
    "protected",
    "archived_at",
)


def finding_families(account: Account) -> list[str]:
    """The scope families that have open findings (the page's scope filter)."""
    return sorted(
        set(
            Finding.objects.filter(account=account, status=Finding.Status.OPEN).values_list(
                "family", flat=True
            )
        )
    )


def garden_last_run(account: Account) -> GardenRun | None:
    """The account's latest inventory, if any."""
    return GardenRun.objects.filter(account=account).order_by("-started_at").first()


def lesson_supersedes(lesson: Lesson) -> list[Lesson]:
    """The lessons retired as superseded by this one (the sheet's "Supersedes" links)."""
    return list(
        Lesson.objects.filter(account_id=lesson.account_id, superseded_by=lesson).order_by("-archived_at")[
            :20
        ]
    )


def lessons_superseded_by_mark(lessons: Sequence[Lesson]) -> None:
    """Set each lesson's `superseded_by_ref` ({id, address} of the lesson that replaced it when the gardener
    retired it, or None): one query for the lessons that carry one (only retired lessons do), none otherwise."""
    wanted = {lesson.superseded_by_id for lesson in lessons if lesson.superseded_by_id is not None}
    found = {}
    if wanted:
        rows = Lesson.objects.filter(
            account_id__in={lesson.account_id for lesson in lessons}, pk__in=wanted
        ).values_list("pk", "scope", "key")
        found = {pk: {"id": pk, "address": f"{scope}::{key}"} for pk, scope, key in rows}
    for lesson in lessons:
        lesson.superseded_by_ref = found.get(lesson.superseded_by_id)  # type: ignore[attr-defined,arg-type]


def lesson_superseded_by(lesson: Lesson) -> dict[str, Any] | None:
    """{id, address} of the lesson that replaced `lesson` when the gardener retired it, or None."""
    if not hasattr(lesson, "superseded_by_ref"):
        lessons_superseded_by_mark([lesson])
    return lesson.superseded_by_ref  # type: ignore[attr-defined,no-any-return]


def lesson_supersedes_addresses(lesson: Lesson) -> list[str]:
    """The addresses `lesson` replaces: the lessons the gardener retired in its favour (newest first), then the
    ones it names in its `supersedes`; at most SUPERSEDES_SHOWN_MAX, each once. Two indexed queries."""
    cap = SUPERSEDES_SHOWN_MAX.value
    retired = Lesson.objects.filter(account_id=lesson.account_id, superseded_by=lesson).order_by(
        "-archived_at", "-id"
    )
    claimed = SupersedesClaim.objects.filter(account_id=lesson.account_id, lesson=lesson).order_by("id")
    addresses = [f"{scope}::{key}" for scope, key in retired.values_list("scope", "key")[:cap]]
    addresses += [f"{scope}::{key}" for scope, key in claimed.values_list("scope", "key")]
    return list(dict.fromkeys(addresses))[:cap]
