"""Crashes, with real processes killed by SIGKILL on the test PostgreSQL database.

- A Celery worker killed in the middle of a large run: every lesson is archived completely or untouched, the run
  is marked interrupted, and the next run (on a fresh worker) completes the job.
- The web server killed in the middle of a large `lorekit import`: the lines committed are intact (whole
  batches), and re-running the same import completes it without a duplicate.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from lore.accounts import token_create
from lore.models import Account, Lesson, LessonEvent
from lore.transfer import IMPORT_BATCH, lesson_as_dict
from policies import grooming
from policies.models import PolicyRun, RetentionPolicy
from tests.factories import AccountFactory
from tests.lorekit.conftest import lorekit_command
from tests.reliability import processes
from tests.reliability.conftest import assert_archived_completely
from tests.services import require_postgres, require_redis

pytestmark = [pytest.mark.postgres, pytest.mark.celery, pytest.mark.django_db(transaction=True)]

SCOPE = "repo::acme/app"
OLD = timezone.now() - timedelta(days=400)


@pytest.fixture(autouse=True)
def _real_services() -> None:
    require_postgres()
    require_redis()


# ---------------------------------------------------------------- a Celery worker killed mid-run


def store(account: Account, count: int) -> None:
    """`count` old lessons a policy catches, with protected and young ones among them that it must leave."""
    now = timezone.now()
    Lesson.objects.bulk_create(
        [
            Lesson(
                account=account,
                scope=SCOPE,
                key=f"k{i:05d}",
                content=f"lesson {i}",
                created_at=now if i % 10 == 1 else OLD,
                updated_at=OLD,
                protected=i % 10 == 2,
                read_count=i,
            )
            for i in range(count)
        ],
        batch_size=2000,
    )


def enqueue(run_id: int, queue: str) -> None:
    """Send execute_run to the real broker (the test process itself runs tasks eagerly)."""
    from config.celery import app

    with app.connection_for_write(processes.BROKER_URL) as conn, conn.Producer() as producer:
        app.send_task("policies.tasks.execute_run", args=[run_id], queue=queue, producer=producer)


def rows(account: Account) -> dict[int, dict[str, Any]]:
    return {row["id"]: row for row in Lesson.objects.filter(account=account).values()}


def test_a_worker_killed_mid_run_leaves_every_lesson_archived_or_untouched_and_the_next_run_completes_it(
    tmp_path: Path,
) -> None:
    account = AccountFactory(name="crash")
    store(account, 6000)
    before = rows(account)
    policy = RetentionPolicy.objects.create(account=account, name="old", scope=SCOPE, min_age_days=30)
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.NIGHTLY)
    assert run is not None
    queue = f"rel-crash-{uuid.uuid4().hex[:8]}"
    worker = processes.celery_worker(queue, tmp_path / "worker.log", LORE_ARCHIVE_BATCH_SIZE="20")
    try:
        enqueue(run.pk, queue)
        processes.wait_until(
            lambda: PolicyRun.objects.get(pk=run.pk).archived >= 300,
            "the run to be well under way",
            process=worker,
        )
    finally:
        processes.kill(worker)

    run.refresh_from_db()
    assert run.status == PolicyRun.Status.RUNNING and 0 < run.archived < run.matched, (
        run.archived,
        run.matched,
    )
    after = rows(account)
    for pk, row in after.items():
        if row["archived_by_run_id"] is None:
            assert row == before[pk]  # untouched, to the last counter and timestamp
    assert_archived_completely(account, run)

    # The worker's PostgreSQL session is gone, so whoever looks next marks the run interrupted.
    processes.wait_until(
        lambda: grooming.runs_mark_stale() > 0 or _status(run) != "running", "the stale mark"
    )
    assert _status(run) == PolicyRun.Status.INTERRUPTED

    rerun = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.NIGHTLY)
    assert rerun is not None
    worker = processes.celery_worker(queue, tmp_path / "worker2.log", LORE_ARCHIVE_BATCH_SIZE="500")
    try:
        enqueue(rerun.pk, queue)
        processes.wait_until(
            lambda: _status(rerun) not in ("pending", "running"), "the next run", process=worker
        )
    finally:
        processes.kill(worker)
    rerun.refresh_from_db()
    run.refresh_from_db()
    assert rerun.status == PolicyRun.Status.DONE, rerun.error
    assert run.archived + rerun.archived == run.matched and rerun.archived == rerun.matched
    assert_archived_completely(account, run)
    assert_archived_completely(account, rerun)
    archived = Lesson.objects.filter(account=account, archived_at__isnull=False)
    assert archived.count() == run.matched
    assert not archived.filter(protected=True).exists() and not archived.filter(created_at__gt=OLD).exists()


def _status(run: PolicyRun) -> str:
    return PolicyRun.objects.get(pk=run.pk).status


# ---------------------------------------------------------------- the web server killed mid-import


def source_lines(count: int) -> list[dict[str, Any]]:
    """Lines in the export format, with every field set (unicode, tags, counters, timestamps, archived ones)."""
    base = OLD.astimezone(UTC)
    lines = []
    for i in range(count):
        created = base + timedelta(minutes=i)
        lines.append(
            {
                "scope": SCOPE if i % 3 else f"branch::acme/app::feature-{i % 7}",
                "key": f"imported-{i:05d}",
                "content": f"lesson {i}: use uv, not pip — ünïcødé ✓ 中文",
                "kind": ("lesson", "bus", "decision")[i % 3],
                "tags": [f"t{i % 5}", "ci::review"],
                "host": "claude-code",
                "trigger": "",
                "source_agent": "agent-" + str(i % 4),
                "origin_repo": "acme/app",
                "origin_branch": "main",
                "origin_pr": str(i % 900 + 1),
                "owner": "personal",
                "seen_count": 1 + i % 6,
                "read_count": 100 + i,
                "last_read_at": (created + timedelta(days=1)).isoformat(timespec="microseconds"),
                "opened_count": i % 40,
                "last_opened_at": (created + timedelta(days=2)).isoformat(timespec="microseconds")
                if i % 40
                else None,
                "created_at": created.isoformat(timespec="microseconds"),
                "updated_at": created.isoformat(timespec="microseconds"),
                "protected": i % 11 == 0,
                "archived_at": (created + timedelta(days=3)).isoformat(timespec="microseconds")
                if i % 13 == 0
                else None,
                "archive_reason": "imported archive" if i % 13 == 0 else "",
            }
        )
    return lines


def assert_lessons_equal_their_lines(account: Account, lines: dict[tuple[str, str], dict[str, Any]]) -> int:
    lessons = list(Lesson.objects.filter(account=account))
    for lesson in lessons:
        assert lesson_as_dict(lesson) == lines[(lesson.scope, lesson.key)]
    assert len({(lsn.scope, lsn.key) for lsn in lessons}) == len(lessons)
    return len(lessons)


def test_a_web_server_killed_mid_import_keeps_whole_batches_and_the_import_reruns_without_duplicates(
    tmp_path: Path,
) -> None:
    account = AccountFactory(name="importer")
    raw = token_create(account=account, name="laptop")[1]
    lines = source_lines(3000)
    by_address = {(line["scope"], line["key"]): line for line in lines}
    source = tmp_path / "lessons.ndjson"
    source.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))

    def lorekit_import(port: int) -> subprocess.Popen[str]:
        env = processes.process_env(LOREKIT_URL=f"http://127.0.0.1:{port}", LOREKIT_TOKEN=raw)
        command = [*lorekit_command(), "import", str(source), "--json"]
        return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    port = processes.free_port()
    server = processes.web_server(port, tmp_path / "web.log")
    try:
        cli = lorekit_import(port)
        processes.wait_until(
            lambda: Lesson.objects.filter(account=account).count() >= 2500,
            "the import to be under way",
            process=server,
        )
    finally:
        processes.kill(server)
    out, err = cli.communicate(timeout=60)
    assert cli.returncode == 5 and len(err.strip().splitlines()) == 1, (cli.returncode, out, err)

    committed = assert_lessons_equal_their_lines(account, by_address)
    assert 1000 <= committed < len(lines) and committed % IMPORT_BATCH == 0
    imported = LessonEvent.objects.filter(account=account, action=LessonEvent.Action.IMPORTED)
    assert imported.count() == committed

    port = processes.free_port()
    server = processes.web_server(port, tmp_path / "web2.log")
    try:
        cli = lorekit_import(port)
        out, err = cli.communicate(timeout=300)
    finally:
        processes.kill(server)
    assert cli.returncode == 0, err
    report = json.loads(out)
    assert (report["created"], report["updated"], report["failed"]) == (len(lines) - committed, committed, [])
    assert assert_lessons_equal_their_lines(account, by_address) == len(lines)
