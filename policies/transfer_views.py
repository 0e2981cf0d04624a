"""Settings → Import & export: dashboard exports and imports as background jobs with progress (lore.transfer_jobs).

Thin views: they record a job (an upload is streamed to disk within IMPORT_BODY_MAX), enqueue its task on commit,
and show its progress (htmx polls the job page every second while it works), its report and its download link.
"""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from lore.access import account_of, account_view
from lore.activity import person
from lore.htmx import HtmxHttpRequest, is_partial, vary_on_htmx
from lore.limits import IMPORT_BODY_MAX, TRANSFER_EXPIRES, LimitExceeded
from lore.models import TransferJob
from lore.roles import Role
from lore.tasks import transfer_job_execute
from lore.transfer_jobs import export_job_start, import_job_start, transfer_job_file

JOBS_SHOWN = 20
SECTION = "transfers"


def _page(request: HttpRequest, *, error: str = "", status: int = 200) -> HttpResponse:
    account = account_of(request)
    context = {
        "jobs": list(TransferJob.objects.filter(account=account)[:JOBS_SHOWN]),
        "error": error,
        "body_max": IMPORT_BODY_MAX.value,
        "expires_hours": TRANSFER_EXPIRES.value // 3600,
        "section": SECTION,
    }
    return render(request, "policies/transfers.html", context, status=status)


@require_GET
@account_view(Role.VIEWER)
def transfers(request: HttpRequest) -> HttpResponse:
    """The jobs of the account, newest first, and the forms that start one."""
    return _page(request)


def _enqueue(job: TransferJob) -> HttpResponse:
    transaction.on_commit(partial(transfer_job_execute.delay, job.pk))
    return redirect("policies:transfer", job_id=job.pk)


@require_POST
@account_view(Role.VIEWER)
def transfer_export(request: HttpRequest) -> HttpResponse:
    try:
        job = export_job_start(account=account_of(request), actor=person(request.user))
    except LimitExceeded as exc:
        return _page(request, error=str(exc), status=exc.status)
    return _enqueue(job)


@require_POST
@account_view(Role.EDITOR)
def transfer_import(request: HttpRequest) -> HttpResponse:
    """An NDJSON upload, refused (413) before it is read when its body is over IMPORT_BODY_MAX."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > IMPORT_BODY_MAX.value:
        return _page(request, error=f"That file is too large: {IMPORT_BODY_MAX.describe()}.", status=413)
    upload = request.FILES.get("file")
    if upload is None:
        return _page(request, error="Choose an NDJSON file to import.", status=422)
    try:
        job = import_job_start(
            account=account_of(request), chunks=upload.chunks(), actor=person(request.user)
        )
    except LimitExceeded as exc:
        return _page(request, error=f"That file was not imported: {exc}.", status=exc.status)
    return _enqueue(job)


def _job(request: HttpRequest, job_id: int) -> TransferJob:
    return get_object_or_404(TransferJob, account=account_of(request), pk=job_id)


@require_GET
@account_view(Role.VIEWER)
@vary_on_htmx
def transfer_job(request: HtmxHttpRequest, job_id: int) -> HttpResponse:
    """One job: its progress while it works, then its report or its download link."""
    job = _job(request, job_id)
    downloadable = transfer_job_file(job) is not None
    job.refresh_from_db()
    context = {"job": job, "downloadable": downloadable, "section": SECTION}
    template = "policies/transfer.html#progress" if is_partial(request) else "policies/transfer.html"
    return render(request, template, context)


@require_GET
@account_view(Role.VIEWER)
def transfer_download(request: HttpRequest, job_id: int) -> HttpResponse | FileResponse:
    """The export's NDJSON file; 410 once it has expired."""
    job = _job(request, job_id)
    path = transfer_job_file(job)
    if path is None:
        job.refresh_from_db()
        context = {"job": job, "downloadable": False, "section": SECTION}
        return render(request, "policies/transfer.html", context, status=410)
    name = f"lore-export-{job.created_at:%Y%m%d-%H%M%S}.ndjson"
    return FileResponse(
        open(path, "rb"), as_attachment=True, filename=name, content_type="application/x-ndjson"
    )  # noqa: SIM115
