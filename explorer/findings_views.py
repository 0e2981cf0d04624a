"""The Findings page (docs/gardener.md): the gardener's report, filtered by kind, scope family and status, with
apply, dismiss and undo. Plain forms that POST and redirect back, so every action works without JavaScript.

Roles: viewing needs a viewer; apply, dismiss, undo and "Run the gardener now" need an editor.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from lore.access import account_of, account_view
from lore.activity import person
from lore.garden.apply import FindingError, finding_apply, finding_dismiss, finding_undo
from lore.garden.figures import garden_lookalikes_flagged, garden_trust_rows
from lore.garden.queue import garden_run_pending, garden_run_queue
from lore.garden.selectors import LESSON_COLUMNS, finding_families, findings_filtered, garden_last_run
from lore.limits import FINDINGS_PAGE_MAX
from lore.models import Finding
from lore.reads import reads_settle_for
from lore.roles import Role

STATUSES = [s.value for s in Finding.Status]


def _filters(data: dict[str, str]) -> dict[str, str]:
    """The page's filters from the query (unknown values dropped, so a bad URL shows the default view)."""
    kind = data.get("kind", "")
    status = data.get("status", Finding.Status.OPEN)
    return {
        "kind": kind if kind in Finding.Kind.values else "",
        "scope": data.get("scope", "")[:600],
        "status": status if status in STATUSES else Finding.Status.OPEN,
    }


def _back(request: HttpRequest, status: str = "") -> HttpResponseRedirect:
    """Back to the page with the filters it was posted from (after an apply: the applied findings, with Undo)."""
    filters = _filters({**request.POST.dict(), **({"status": status} if status else {})})
    filters = {k: v for k, v in filters.items() if v and (k, v) != ("status", "open")}
    url = reverse("findings:index")
    return HttpResponseRedirect(f"{url}?{urlencode(filters)}" if filters else url)


@require_GET
@account_view(Role.VIEWER)
def findings(request: HttpRequest) -> HttpResponse:
    """The report: findings with their members, the action proposed for each and the evidence."""
    account = account_of(request)
    filters = _filters(request.GET.dict())
    reads_settle_for(account, LESSON_COLUMNS)  # members show Chosen: exact (lore.reads)
    rows = list(findings_filtered(account, **filters)[: FINDINGS_PAGE_MAX.value])
    context = {
        "findings": rows,
        "filters": filters,
        "kinds": Finding.Kind.choices,
        "statuses": STATUSES,
        "families": finding_families(account),
        "last_run": garden_last_run(account),
        "pending_run": garden_run_pending(account),
        "apply_cap": account.garden_apply_cap,
        "ephemera_days": account.garden_ephemera_days,
        "trust_rows": garden_trust_rows(),
        "lookalikes": garden_lookalikes_flagged(),
    }
    return render(request, "explorer/findings.html", context)


@require_POST
@account_view(Role.EDITOR)
def garden_run_now(request: HttpRequest) -> HttpResponse:
    """Queue an inventory of what changed since the last one for the worker (the request itself examines
    nothing), or point at the one already queued or running. Changes no lesson."""
    run, queued = garden_run_queue(account_of(request), trigger="manual", actor=person(request.user))
    if queued:
        messages.success(request, f"Inventory #{run.pk} queued: its findings appear here when it finishes.")
    else:
        messages.info(
            request,
            f"Inventory #{run.pk} is already {run.status}: its findings appear here when it finishes.",
        )
    return _back(request)


def _keep(value: str | None) -> int | None:
    """The lesson a person chose to keep (a possible duplicate's radio group); None when absent or not an id."""
    return int(value) if value and value.isdigit() and len(value) <= 18 else None


def _act(request: HttpRequest, finding_id: int, action: str) -> HttpResponse:
    account = account_of(request)
    actor = person(request.user)
    try:
        if action == "apply":
            run = finding_apply(
                account=account, finding_id=finding_id, actor=actor, keep=_keep(request.POST.get("keep"))
            )
            messages.success(
                request, f"Applied: {run.archived} lessons retired (run #{run.pk}). Undo restores them."
            )
            return _back(request, status=Finding.Status.APPLIED)
        elif action == "dismiss":
            finding_dismiss(account=account, finding_id=finding_id, actor=actor)
            messages.success(request, "Dismissed: not proposed again unless one of its lessons is rewritten.")
        else:
            restored = finding_undo(account=account, finding_id=finding_id, actor=actor)
            messages.success(request, f"Undone: {restored} lessons restored.")
    except Finding.DoesNotExist:
        raise Http404("no such finding") from None
    except FindingError as exc:
        messages.error(request, exc.message)
    return _back(request)


@require_POST
@account_view(Role.EDITOR)
def finding_apply_view(request: HttpRequest, finding_id: int) -> HttpResponse:
    return _act(request, finding_id, "apply")


@require_POST
@account_view(Role.EDITOR)
def finding_dismiss_view(request: HttpRequest, finding_id: int) -> HttpResponse:
    return _act(request, finding_id, "dismiss")


@require_POST
@account_view(Role.EDITOR)
def finding_undo_view(request: HttpRequest, finding_id: int) -> HttpResponse:
    return _act(request, finding_id, "undo")
