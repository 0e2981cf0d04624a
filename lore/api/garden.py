"""`/api/v1/findings` and `/api/v1/garden/run`: the gardener's report, its gated apply, dismiss and undo
(docs/gardener.md). A finding of another account answers 404, like every other object."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Body, Path, Query, Router, Schema, Status
from pydantic import Field

from lore.api.auth import account_of, actor_of, needs, surface_of
from lore.api.errors import ApiError, error_responses, not_found
from lore.api.schemas import ID_MAX, InputSchema
from lore.garden.apply import FindingError, finding_apply, finding_dismiss, finding_get, finding_undo
from lore.garden.queue import garden_run_queue
from lore.garden.selectors import LESSON_COLUMNS, findings_filtered, garden_last_run
from lore.limits import FINDINGS_PAGE_MAX
from lore.models import Finding, GardenRun
from lore.reads import reads_settle_for
from lore.roles import Scope

findings_router = Router(tags=["gardener"])
garden_router = Router(tags=["gardener"])
FindingId = Path(..., ge=1, le=ID_MAX)
RunId = Path(..., ge=1, le=ID_MAX)


FindingKind = Literal[tuple(Finding.Kind.values)]  # type: ignore[valid-type]
FindingStatus = Literal[tuple(Finding.Status.values)]  # type: ignore[valid-type]


class FindingsQuery(Schema):
    kind: FindingKind | None = None  # type: ignore[valid-type]
    scope: str | None = Field(
        None, max_length=600, description="a scope family: repo::OWNER/REPO covers its branches"
    )
    status: FindingStatus = Finding.Status.OPEN.value  # type: ignore[valid-type]
    limit: int = Field(50, ge=1, le=FINDINGS_PAGE_MAX.default)


class FindingApplyIn(InputSchema):
    keep: int | None = Field(
        None,
        ge=1,
        le=ID_MAX,
        description="a possible duplicate's lesson to keep (required for that kind: the others are retired)",
    )


class GardenRunIn(InputSchema):
    full: bool = Field(
        False, description="examine every lesson, not only what changed since the last inventory"
    )
    queue: bool = Field(
        True, description="accepted for older clients: every inventory is queued for the worker"
    )


def _lesson(member: Any) -> dict[str, Any]:
    lesson = member.lesson
    return {
        "id": lesson.pk,
        "address": lesson.address,
        "action": member.action,
        "why": member.why,
        "content": lesson.content[:500],
        "opened_count": lesson.opened_count,
        "created_at": lesson.created_at,
        "protected": lesson.protected,
        "archived": lesson.archived_at is not None,
    }


def finding_as_dict(finding: Finding) -> dict[str, Any]:
    """A finding as the API, lorekit and MCP show it."""
    return {
        "id": finding.pk,
        "kind": finding.kind,
        "status": finding.status,
        "family": finding.family,
        "summary": finding.summary,
        "evidence": finding.evidence,
        "members": [_lesson(m) for m in finding.members.all()],
        "run_id": finding.applied_run_id,
        "decided_by": finding.decided_by,
        "decided_at": finding.decided_at,
        "created_at": finding.created_at,
    }


def run_as_dict(run: GardenRun | None) -> dict[str, Any] | None:
    if run is None:
        return None
    fields = (
        "id",
        "trigger",
        "status",
        "phase",
        "full",
        "since",
        "examined",
        "found",
        "started_at",
        "finished_at",
        "error",
    )
    return {name: getattr(run, name) for name in fields}


def _finding_or_404(request: HttpRequest, finding_id: int) -> Finding:
    try:
        return finding_get(account_of(request), finding_id)
    except Finding.DoesNotExist:
        raise not_found("finding") from None


def _refused(exc: FindingError) -> ApiError:
    return ApiError(exc.status, exc.message, code=exc.code, field=exc.field or None)


@findings_router.get(
    "", response={200: dict, **error_responses()}, summary="The gardener's findings", auth=needs(Scope.READ)
)
def findings_list(request: HttpRequest, filters: Query[FindingsQuery]) -> dict[str, Any]:  # type: ignore[valid-type]
    """Open findings by default (newest first): members, the action proposed for each and the evidence."""
    account = account_of(request)
    data = filters.dict()  # type: ignore[attr-defined]
    reads_settle_for(account, LESSON_COLUMNS)  # members show Chosen: exact (lore.reads)
    rows = findings_filtered(
        account, kind=data["kind"] or "", scope=data["scope"] or "", status=data["status"]
    )
    return {
        "items": [finding_as_dict(f) for f in rows[: data["limit"]]],
        "last_run": run_as_dict(garden_last_run(account)),
        "apply_cap": account.garden_apply_cap,
    }


@findings_router.post(
    "/{finding_id}/apply",
    response={200: dict, **error_responses(400, 404, 409, 422)},
    summary="Apply a finding",
    auth=needs(Scope.GROOM),
)
def findings_apply(
    request: HttpRequest,
    finding_id: int = FindingId,
    payload: FindingApplyIn | None = Body(None),  # type: ignore[valid-type]
) -> dict[str, Any]:
    """Retire the finding's lessons to retire (at most the apply cap) as one archive run, undoable as a whole.
    A possible duplicate is review-only: `keep` names the member to keep (422 naming `keep` without it) and the
    others are retired as superseded by it. 409 `stale` when a member changed since the inventory (nothing is
    retired)."""
    finding = _finding_or_404(request, finding_id)
    trigger = "cli" if surface_of(request) == "cli" else "api"
    keep = payload.keep if payload is not None else None  # type: ignore[attr-defined]
    try:
        run = finding_apply(
            account=finding.account,
            finding_id=finding.pk,
            actor=actor_of(request),
            trigger=trigger,
            keep=keep,
        )
    except FindingError as exc:
        raise _refused(exc) from exc
    return {"finding": finding.pk, "run_id": run.pk, "archived": run.archived, "status": "applied"}


@findings_router.post(
    "/{finding_id}/dismiss",
    response={200: dict, **error_responses(404, 409)},
    summary="Dismiss a finding",
    auth=needs(Scope.GROOM),
)
def findings_dismiss(request: HttpRequest, finding_id: int = FindingId) -> dict[str, Any]:
    """Not proposed again unless one of its lessons is rewritten."""
    finding = _finding_or_404(request, finding_id)
    try:
        finding = finding_dismiss(account=finding.account, finding_id=finding.pk, actor=actor_of(request))
    except FindingError as exc:
        raise _refused(exc) from exc
    return finding_as_dict(findings_filtered(finding.account, status="").get(pk=finding.pk))


@findings_router.post(
    "/{finding_id}/undo",
    response={200: dict, **error_responses(404, 409)},
    summary="Undo an applied finding",
    auth=needs(Scope.GROOM),
)
def findings_undo(request: HttpRequest, finding_id: int = FindingId) -> dict[str, Any]:
    """Restore every lesson the finding's apply retired (like Undo run); the finding is then dismissed."""
    finding = _finding_or_404(request, finding_id)
    try:
        restored = finding_undo(account=finding.account, finding_id=finding.pk, actor=actor_of(request))
    except FindingError as exc:
        raise _refused(exc) from exc
    return {"finding": finding.pk, "restored": restored}


@garden_router.post(
    "/run",
    response={202: dict, **error_responses(400)},
    summary="Queue the gardener",
    auth=needs(Scope.GROOM),
)
def garden_run(request: HttpRequest, payload: GardenRunIn | None = Body(None)) -> Any:  # type: ignore[valid-type]
    """Queue an inventory for the worker (only what changed since the last one unless `full`) and answer 202
    with the run at once; follow it at `GET /garden/runs/{id}`. When one is already queued or running for the
    account, that one is answered with `already_pending: true`. Changes no lesson."""
    options = payload or GardenRunIn(full=False, queue=True)
    run, queued = garden_run_queue(
        account_of(request),
        full=options.full,  # type: ignore[attr-defined]
        trigger="cli" if surface_of(request) == "cli" else "api",
        actor=actor_of(request),
    )
    return Status(202, {**run_as_dict(run), "already_pending": not queued})  # type: ignore[dict-item]


@garden_router.get(
    "/runs/{garden_run_id}",
    response={200: dict, **error_responses(404)},
    summary="An inventory's status",
    auth=needs(Scope.READ),
)
def garden_run_status(request: HttpRequest, garden_run_id: int = RunId) -> dict[str, Any]:
    """A gardener run: queued, running (with its phase and the lessons examined so far), done (with the new
    findings) or failed (with the error)."""
    run = GardenRun.objects.filter(account=account_of(request), pk=garden_run_id).first()
    if run is None:
        raise not_found("gardener run")
    return run_as_dict(run)  # type: ignore[return-value]
