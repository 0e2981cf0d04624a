"""Exports and imports from the dashboard as background jobs with progress (issue 14, point 6).

A web request only records a job (and, for an import, streams the upload to a file within IMPORT_BODY_MAX); a
Celery task does the work and counts lines as it goes, so no export or import is bound by the web timeout. An
export's file is written beside its final name and renamed when complete (it ends with the export trailer), and is
deleted when it expires (TRANSFER_EXPIRES); an import's upload is deleted once it has been read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from lore.limits import IMPORT_BODY_MAX, TRANSFER_EXPIRES, TRANSFER_JOBS_ACTIVE_MAX, TRANSFER_TIME_LIMIT
from lore.models import Account, Lesson, TransferJob
from lore.transfer import ImportReport, export_lines, import_stream

Status = TransferJob.Status
PROGRESS_EVERY = 1000  # lines between two progress updates of an export
_COPY_CHUNK = 64 * 1024


def transfer_dir() -> Path:
    folder = Path(settings.LORE_TRANSFER_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def job_path(job: TransferJob) -> Path:
    return transfer_dir() / job.file_name


def _job_create(account: Account, kind: str, actor: str) -> TransferJob:
    transfer_jobs_mark_stale(account=account)
    active = TransferJob.objects.filter(account=account, status__in=[Status.PENDING, Status.RUNNING]).count()
    TRANSFER_JOBS_ACTIVE_MAX.check(active + 1, field="job")
    job = TransferJob.objects.create(account=account, kind=kind, created_by=actor)
    job.file_name = f"{account.pk}-{job.pk}-{os.urandom(8).hex()}-{kind}.ndjson"
    job.save(update_fields=["file_name"])
    return job


def export_job_start(*, account: Account, actor: str = "") -> TransferJob:
    """Record an export job of the whole store (the caller enqueues `transfer_job_execute` on commit)."""
    return _job_create(account, TransferJob.Kind.EXPORT, actor)


def import_job_start(*, account: Account, chunks: Iterable[bytes], actor: str = "") -> TransferJob:
    """Record an import job, its upload copied to disk chunk by chunk: LimitExceeded (413) past IMPORT_BODY_MAX,
    and then no job and no file are left behind."""
    job = _job_create(account, TransferJob.Kind.IMPORT, actor)
    size = 0
    try:
        with open(job_path(job), "wb") as target:
            for chunk in chunks:
                size += len(chunk)
                IMPORT_BODY_MAX.check(size, field="file")
                target.write(chunk)
    except BaseException:
        job_path(job).unlink(missing_ok=True)
        job.delete()
        raise
    TransferJob.objects.filter(pk=job.pk).update(size=size)
    job.size = size
    return job


def transfer_job_execute(job_id: int) -> TransferJob:
    """Carry out a pending job (a job not pending, e.g. a duplicate delivery, is left alone)."""
    claimed = TransferJob.objects.filter(pk=job_id, status=Status.PENDING).update(status=Status.RUNNING)
    job = TransferJob.objects.select_related("account").get(pk=job_id)
    if not claimed:
        return job
    try:
        if job.kind == TransferJob.Kind.EXPORT:
            _export(job)
        else:
            _import(job)
    except Exception as exc:
        TransferJob.objects.filter(pk=job.pk).update(
            status=Status.FAILED, error=str(exc)[:2000], finished_at=timezone.now()
        )
        job_path(job).unlink(missing_ok=True)
        raise
    job.refresh_from_db()
    return job


def _export(job: TransferJob) -> None:
    total = Lesson.objects.filter(account=job.account).count()
    TransferJob.objects.filter(pk=job.pk).update(lines_total=total)
    final = job_path(job)
    partial = final.with_suffix(".partial")
    done = 0
    with open(partial, "w", encoding="utf-8") as target:
        for line in export_lines(job.account):
            target.write(line)
            done += 1
            if done % PROGRESS_EVERY == 0:
                TransferJob.objects.filter(pk=job.pk).update(lines_done=min(done, total))
    os.replace(partial, final)
    now = timezone.now()
    TransferJob.objects.filter(pk=job.pk).update(
        status=Status.DONE,
        lines_done=done - 1,  # the trailer is not a lesson
        size=final.stat().st_size,
        finished_at=now,
        expires_at=now + timedelta(seconds=TRANSFER_EXPIRES.value),
    )


def _import(job: TransferJob) -> None:
    source = job_path(job)

    def progress(report: ImportReport) -> None:
        lines = report.created + report.updated + report.failed_total
        TransferJob.objects.filter(pk=job.pk).update(lines_done=lines)

    with open(source, "rb") as stream:
        report = import_stream(job.account, stream.read, actor=job.created_by, progress=progress)
    source.unlink(missing_ok=True)
    TransferJob.objects.filter(pk=job.pk).update(
        status=Status.DONE,
        lines_done=report.created + report.updated + report.failed_total,
        report=report.as_dict(),
        finished_at=timezone.now(),
    )


def transfer_job_file(job: TransferJob) -> Path | None:
    """The export's file while it can be downloaded; None once it expired (and it is then deleted)."""
    if job.kind != TransferJob.Kind.EXPORT or job.status not in (Status.DONE, Status.EXPIRED):
        return None
    if job.status == Status.EXPIRED or (job.expires_at and job.expires_at <= timezone.now()):
        transfer_jobs_expire(account=job.account)
        return None
    path = job_path(job)
    return path if path.exists() else None


def transfer_jobs_mark_stale(*, account: Account | None = None) -> int:
    """Jobs still pending or running after TRANSFER_TIME_LIMIT (stopped, or their worker died) become `failed`,
    so that they stop counting against TRANSFER_JOBS_ACTIVE_MAX; their files are deleted. Answers how many."""
    cutoff = timezone.now() - timedelta(seconds=TRANSFER_TIME_LIMIT.value)
    stale = TransferJob.objects.filter(status__in=[Status.PENDING, Status.RUNNING], created_at__lt=cutoff)
    if account is not None:
        stale = stale.filter(account=account)
    jobs = list(stale)
    for job in jobs:
        job_path(job).unlink(missing_ok=True)
        job_path(job).with_suffix(".partial").unlink(missing_ok=True)
    return TransferJob.objects.filter(
        pk__in=[job.pk for job in jobs], status__in=[Status.PENDING, Status.RUNNING]
    ).update(
        status=Status.FAILED, error=f"stopped: {TRANSFER_TIME_LIMIT.describe()}", finished_at=timezone.now()
    )


def transfer_jobs_expire(*, account: Account | None = None) -> int:
    """Delete the files of exports past TRANSFER_EXPIRES and mark them expired. Answers how many."""
    due = TransferJob.objects.filter(
        status=Status.DONE, kind=TransferJob.Kind.EXPORT, expires_at__lte=timezone.now()
    )
    if account is not None:
        due = due.filter(account=account)
    jobs = list(due)
    for job in jobs:
        job_path(job).unlink(missing_ok=True)
    return TransferJob.objects.filter(pk__in=[job.pk for job in jobs]).update(status=Status.EXPIRED)
