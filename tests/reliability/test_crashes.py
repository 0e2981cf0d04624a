"""Crashes, with real processes killed by SIGKILL on the test PostgreSQL database.

- The web server killed in the middle of a large `lorekit import`: the lines committed are intact (whole
  batches), and re-running the same import completes it without a duplicate.
- A Celery worker killed in the middle of a large run (every lesson archived completely or untouched, the run
  marked interrupted, the next run completes it) is tests/policies/test_tasks_worker.py, with the real worker
  harness of the engine tests.
"""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from lore.accounts import token_create
from lore.models import Account, Lesson, LessonEvent
from lore.transfer import IMPORT_BATCH, lesson_as_dict
from tests.factories import AccountFactory
from tests.lorekit.conftest import lorekit_command
from tests.reliability import processes
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SCOPE = "repo::acme/app"
OLD = timezone.now() - timedelta(days=400)


@pytest.fixture(autouse=True)
def _real_services() -> None:
    require_postgres()


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
