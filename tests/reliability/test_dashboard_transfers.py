"""Issue 14, point 6: exports and large imports from the dashboard run as background jobs with progress.

Settings → Import & export records a job and a Celery task does the work (eager in these tests; the task is the
same one a worker runs), so no export or import is bound by the web timeout. An export's file ends with the
trailer, is downloadable until TRANSFER_EXPIRES and then answers 410; an upload is streamed to disk within
IMPORT_BODY_MAX (413 over it, no job, no file); an import's report is capped and numbers every refused line.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from lore.limits import TRANSFER_TIME_LIMIT
from lore.models import Account, Lesson, TransferJob
from lore.transfer import export_lines
from lore.transfer_jobs import PROGRESS_EVERY, transfer_jobs_expire
from tests.factories import MembershipFactory, UserFactory
from tests.urls import AccountClient, in_account

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _transfer_dir(settings, tmp_path: Path) -> Path:  # noqa: ANN001
    settings.LORE_TRANSFER_DIR = str(tmp_path / "transfers")
    return tmp_path / "transfers"


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_an_export_runs_as_a_job_with_progress_and_its_file_downloads_until_it_expires(
    account: Account,
    logged_in: Client,
    django_capture_on_commit_callbacks,  # noqa: ANN001
    _transfer_dir: Path,
) -> None:
    now = timezone.now()
    Lesson.objects.bulk_create(
        [
            Lesson(account=account, scope="global", key=f"k{i}", content="c", created_at=now, updated_at=now)
            for i in range(PROGRESS_EVERY + 500)
        ]
    )
    assert "Import &amp; export" in logged_in.get(reverse("policies:transfers")).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        started = logged_in.post(reverse("policies:transfer_export"))
    job = TransferJob.objects.get(account=account)
    assert started.status_code == 302 and started["Location"] == in_account(
        account, reverse("policies:transfer", args=[job.pk])
    )
    assert (job.kind, job.status, job.lines_total, job.lines_done) == ("export", "done", 1500, 1500)

    page = logged_in.get(reverse("policies:transfer", args=[job.pk])).content.decode()
    download = reverse("policies:transfer_download", args=[job.pk])
    assert 'data-status="done"' in page and f'href="{in_account(account, download)}" data-download' in page
    answer = logged_in.get(download)
    assert answer.status_code == 200 and "attachment" in answer["Content-Disposition"]
    body = b"".join(answer.streaming_content).decode()
    assert body == "".join(export_lines(account))
    assert json.loads(body.splitlines()[-1]) == {"export": "complete", "lessons": 1500, "tombstones": 0}
    assert not any(name.endswith(".partial") for name in files_in(_transfer_dir))

    with time_machine.travel(timezone.now() + timedelta(hours=25)):
        assert transfer_jobs_expire() == 1
        assert logged_in.get(download).status_code == 410
        assert "data-expired" in logged_in.get(reverse("policies:transfer", args=[job.pk])).content.decode()
    assert files_in(_transfer_dir) == []


def test_an_import_job_keeps_good_lines_around_bad_ones_and_reports_them_capped(
    account: Account,
    logged_in: Client,
    django_capture_on_commit_callbacks,  # noqa: ANN001
    _transfer_dir: Path,
) -> None:
    good = [json.dumps({"scope": "global", "key": f"k{i}", "content": "c"}) for i in range(700)]
    bad = ["not json"] * 150 + [
        '{"scope": "global", "key": "deep", "content": ' + "[" * 5000 + "]" * 5000 + "}"
    ]
    upload = SimpleUploadedFile("store.ndjson", "\n".join(good[:400] + bad + good[400:]).encode())
    with django_capture_on_commit_callbacks(execute=True):
        logged_in.post(reverse("policies:transfer_import"), {"file": upload})
    job = TransferJob.objects.get(account=account)
    assert (job.kind, job.status, job.lines_done) == ("import", "done", 851)
    assert (job.report["created"], job.report["updated"], job.report["failed_total"]) == (700, 0, 151)
    assert len(job.report["failed"]) == 100 and job.report["failed"][0]["line"] == 401
    assert Lesson.objects.filter(account=account).count() == 700
    page = logged_in.get(reverse("policies:transfer", args=[job.pk])).content.decode()
    assert "<strong data-created>700</strong>" in page and "The first 100 of 151 refused lines" in page
    assert files_in(_transfer_dir) == []  # the upload is deleted once read


def test_an_upload_over_import_body_max_is_refused_with_413_naming_the_limit_and_leaves_nothing(
    account: Account,
    logged_in: Client,
    settings,  # noqa: ANN001
    _transfer_dir: Path,
) -> None:
    settings.LORE_IMPORT_BODY_MAX = 10_000
    upload = SimpleUploadedFile("big.ndjson", b'{"scope":"global","key":"k","content":"c"}\n' * 1000)
    refused = logged_in.post(reverse("policies:transfer_import"), {"file": upload})
    assert refused.status_code == 413
    assert "IMPORT_BODY_MAX" in refused.content.decode()
    assert not TransferJob.objects.exists() and files_in(_transfer_dir) == []


def test_another_accounts_jobs_answer_404(
    account: Account,
    other_account: Account,
    logged_in: Client,
    django_capture_on_commit_callbacks,  # noqa: ANN001
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        logged_in.post(reverse("policies:transfer_export"))
    job = TransferJob.objects.get(account=account)
    intruder = AccountClient(other_account)
    intruder.force_login(MembershipFactory(account=other_account, user=UserFactory(username="mallory")).user)
    for name in ("policies:transfer", "policies:transfer_download"):
        assert intruder.get(reverse(name, args=[job.pk])).status_code == 404
    assert f"#{job.pk}" not in intruder.get(reverse("policies:transfers")).content.decode()


def test_a_job_whose_worker_died_is_marked_failed_after_transfer_time_limit_and_stops_blocking_new_ones(
    account: Account,
    logged_in: Client,
) -> None:
    logged_in.post(reverse("policies:transfer_export"))  # never executed: no commit, the worker "died"
    logged_in.post(reverse("policies:transfer_export"))
    refused = logged_in.post(reverse("policies:transfer_export"))
    assert refused.status_code == 429 and "TRANSFER_JOBS_ACTIVE_MAX" in refused.content.decode()
    with time_machine.travel(timezone.now() + timedelta(seconds=TRANSFER_TIME_LIMIT.value + 1)):
        started = logged_in.post(reverse("policies:transfer_export"))
    assert started.status_code == 302
    statuses = sorted(TransferJob.objects.filter(account=account).values_list("status", flat=True))
    assert statuses == ["failed", "failed", "pending"]
    failed = TransferJob.objects.filter(account=account, status="failed").first()
    assert failed is not None and "TRANSFER_TIME_LIMIT" in failed.error
