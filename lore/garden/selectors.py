"""Reading findings: the list a person or an agent reviews, filtered by kind, scope family and status."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from lore.models import Account, Finding, FindingMember, GardenRun, Lesson
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
