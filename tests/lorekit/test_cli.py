"""The rest of the `lorekit` contract: exit codes that mean something, --json, deliberate opens, list/search/
write, export/import with progress on stderr, and no Django anywhere in the client."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from datetime import timedelta

import pytest
from django.utils import timezone

from lore.models import Lesson, ReadEvent
from lore.reads import reads_settle
from tests.factories import LessonFactory


def test_lorekit_never_imports_django() -> None:
    code = (
        "import sys, lorekit.cli, lorekit.client, lorekit.flags, lorekit.output, lorekit.registry, lorekit.mcp_server;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env={"PATH": ""}
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_read_and_show_are_deliberate_opens_recorded_as_cli(lorekit, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="use-uv", content="use uv, not pip", read_count=7)
    for command in ("read", "show"):
        result = lorekit(command, "repo::acme/app::use-uv")
        assert result.returncode == 0, result.stderr
        assert "use uv, not pip" in result.stdout and "Chosen" in result.stdout
    reads_settle(account)  # the buffered reads, folded (lore.reads)
    lesson.refresh_from_db()
    assert (lesson.read_count, lesson.opened_count) == (9, 2)
    assert lesson.last_opened_at is not None
    assert set(ReadEvent.objects.values_list("surface", flat=True)) == {"cli"}


def test_list_and_search_deliver_the_page_and_print_a_table(lorekit, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="use-uv", content="prefer uv", read_count=10, opened_count=3)
    LessonFactory(account=account, key="pin-node", content="node 20", read_count=10)
    listing = lorekit("list", "--sort", "opened_count")
    assert listing.returncode == 0
    lines = listing.stdout.splitlines()
    assert lines[0].split()[:3] == ["ADDRESS", "KIND", "RECURRENCE"]
    assert lines[1].startswith("repo::acme/app::use-uv")
    found = json.loads(lorekit("search", "uv", "--json").stdout)
    assert [item["key"] for item in found["items"]] == ["use-uv"]
    reads_settle(account)  # the buffered reads, folded (lore.reads)
    assert Lesson.objects.get(key="use-uv").read_count == 12
    assert Lesson.objects.get(key="pin-node").read_count == 11


def test_list_takes_every_condition_direction_and_dimension_flag(lorekit, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="popular", opened_count=20, read_count=50, kind="bus", host="aw")
    LessonFactory(account=account, key="quiet", opened_count=0, kind="bus", host="aw")
    args = [
        "list",
        "--json",
        "--min-opened-count",
        "10",
        "--kind",
        "bus",
        "--host",
        "reviewer",
        "--host-mode",
        "nin",
    ]
    body = json.loads(lorekit(*args).stdout)
    assert [item["key"] for item in body["items"]] == ["popular"]


def test_write_creates_then_recurs(lorekit, account) -> None:  # noqa: ANN001
    first = lorekit(
        "write", "repo::acme/app::use-uv", "use uv, not pip", "--kind", "lesson", "--tags", "python,tooling"
    )
    assert first.returncode == 0 and "(new)" in first.stdout
    second = lorekit("write", "repo::acme/app::use-uv", "-", stdin="use uv everywhere")
    assert "(recurrence 2)" in second.stdout
    lesson = Lesson.objects.get(account=account)
    assert (lesson.content, lesson.seen_count) == ("use uv everywhere", 2)


def test_export_then_import_round_trips_with_progress_on_stderr(
    lorekit, lorekit_env, account, other_account, other_raw_token, tmp_path
) -> None:  # noqa: ANN001
    for i in range(25):
        LessonFactory(account=account, key=f"k{i}", read_count=100 + i, opened_count=i % 4)
    target = tmp_path / "lessons.ndjson"
    exported = lorekit("export", "--output", str(target))
    assert exported.returncode == 0
    assert "exported 25 lessons" in exported.stderr
    assert len(target.read_text().splitlines()) == 25 + 1  # and the trailer: the export is complete
    env = {**lorekit_env, "LOREKIT_TOKEN": other_raw_token}
    imported = lorekit("import", str(target), env=env)
    assert imported.returncode == 0, imported.stderr
    assert "25 created" in imported.stdout
    assert "sent 25 lines of lessons" in imported.stderr  # the trailer is not one of them
    copies = Lesson.objects.filter(account=other_account)
    assert sorted(copies.values_list("read_count", flat=True)) == list(range(100, 125))


def test_an_import_with_bad_lines_names_them_and_exits_1(lorekit, tmp_path) -> None:  # noqa: ANN001
    source = tmp_path / "mixed.ndjson"
    source.write_text('{"scope":"global","key":"ok","content":"c"}\nnot json\n')
    result = lorekit("import", str(source))
    assert result.returncode == 1
    assert "line 2" in result.stdout


def test_json_errors_and_exit_code_3_for_not_found(lorekit) -> None:  # noqa: ANN001
    result = lorekit("show", "repo::acme/app::missing", "--json")
    assert result.returncode == 3
    assert json.loads(result.stdout)["error"]["code"] == "not_found"
    assert result.stderr.strip() == "lorekit: no lesson at repo::acme/app::missing"


def test_exit_1_when_the_server_refuses(lorekit) -> None:  # noqa: ANN001
    result = lorekit("policy", "create", "--scope", "global", "--name", "everything")
    assert result.returncode == 1
    assert "at least one condition or filter" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["groom", "--scope", "global", "--unseen-days", "0"],
        ["groom", "--unseen-days", "90"],
        ["groom", "--policy-id", "1", "--scope", "global"],
        ["policy", "create", "--scope", "global", "--unseen-days", "90"],
        ["policy", "update", "1"],
        ["policy", "update", "1", "--kind", "bus", "--clear-kind"],
        ["pin", "no-separator"],
        ["frobnicate"],
        ["list", "--sort", "random"],
    ],
)
def test_exit_2_for_usage_errors(lorekit, args) -> None:  # noqa: ANN001
    result = lorekit(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.strip()


def test_exit_2_without_configuration(lorekit, lorekit_env) -> None:  # noqa: ANN001
    env = {k: v for k, v in lorekit_env.items() if k != "LOREKIT_TOKEN"}
    result = lorekit("policy", "list", env=env)
    assert result.returncode == 2
    assert "LOREKIT_TOKEN" in result.stderr


def test_exit_4_for_a_bad_token(lorekit, lorekit_env) -> None:  # noqa: ANN001
    result = lorekit("policy", "list", env={**lorekit_env, "LOREKIT_TOKEN": "lk_wrong"})
    assert result.returncode == 4


def test_exit_5_when_the_server_is_unreachable(lorekit, lorekit_env) -> None:  # noqa: ANN001
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = lorekit("policy", "list", env={**lorekit_env, "LOREKIT_URL": f"http://127.0.0.1:{port}"})
    assert result.returncode == 5
    assert "cannot reach" in result.stderr


def test_garden_reports_findings_and_apply_retires_them(lorekit, account) -> None:  # noqa: ANN001
    from lore.models import Finding
    from tests.lore.garden_helpers import write

    write(account, "repo::acme/api", "backup", "Backups run nightly with pg_dump.", age_days=200)
    wrote = lorekit(
        "write",
        "repo::acme/api::backup-now",
        "Backups are continuous WAL archiving.",
        "--supersedes",
        "repo::acme/api::backup",
    )
    assert wrote.returncode == 0, wrote.stderr
    report = lorekit("garden", "--run", "--wait", "60")
    assert (
        report.returncode == 0
        and "Inventory #" in report.stdout
        and "done: " in report.stdout
        and "superseded" in report.stdout
        and "retire repo::acme/api::backup" in report.stdout
    )
    finding = Finding.objects.get(account=account)
    as_json = json.loads(lorekit("garden", "--json").stdout)
    assert [f["id"] for f in as_json["items"]] == [finding.pk]
    applied = lorekit("garden", "--apply", str(finding.pk))
    assert applied.returncode == 0 and "1 lesson retired" in applied.stdout
    old = Lesson.objects.get(key="backup")
    assert old.archived_at is not None and old.superseded_by_id == Lesson.objects.get(key="backup-now").pk
    again = lorekit("garden", "--apply", str(finding.pk))
    assert again.returncode == 1 and "not open" in again.stderr
    assert lorekit("garden", "--apply", "999999").returncode == 3


def test_show_prints_the_decay_score_and_immune_for_a_pinned_lesson(lorekit, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="old", created_at=timezone.now() - timedelta(days=300))
    LessonFactory(account=account, key="pinned", protected=True)
    listed = lorekit("list", "--max-decay-score", "10", "--sort", "coldest", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(i["key"], i["decay_score"]) for i in json.loads(listed.stdout)["items"]] == [("old", 0)]
    result = lorekit("show", "repo::acme/app::old")
    assert result.returncode == 0, result.stderr
    assert "Decay score 100/100" in result.stdout  # opening it just now restarted its clock
    assert "Decay score: immune (protected)" in lorekit("show", "repo::acme/app::pinned").stdout


def test_garden_undo_restores_what_an_applied_finding_retired_and_refuses_a_finding_not_applied(
    lorekit, account
) -> None:  # noqa: ANN001
    from lore.models import Finding
    from tests.factories import finding_open

    keeper = LessonFactory(account=account, key="use-uv", content="use uv, not pip")
    copy = LessonFactory(account=account, key="use-uv-copy", content="Use uv, not pip.")
    finding = finding_open(keeper, [copy])
    not_applied = lorekit("garden", "--undo", str(finding.pk))
    assert not_applied.returncode == 1
    assert f"finding {finding.pk} is open: only an applied finding is undone" in not_applied.stderr
    assert lorekit("garden", "--apply", str(finding.pk)).returncode == 0
    copy.refresh_from_db()
    assert copy.archived_at is not None and copy.superseded_by_id == keeper.pk
    undone = lorekit("garden", "--undo", str(finding.pk))
    assert undone.returncode == 0, undone.stderr
    assert f"Undid finding {finding.pk}: 1 lesson restored; the finding is dismissed." in undone.stdout
    copy.refresh_from_db()
    assert copy.archived_at is None and copy.superseded_by_id is None
    assert Finding.objects.get(pk=finding.pk).status == "dismissed"
    again = lorekit("garden", "--undo", str(finding.pk), "--json")
    assert again.returncode == 1 and json.loads(again.stdout)["error"]["code"] == "not_open"
    assert lorekit("garden", "--undo", "999999").returncode == 3
    both = lorekit("garden", "--apply", str(finding.pk), "--undo", str(finding.pk))
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_show_prints_what_replaced_a_lesson_and_what_it_replaces_without_terminal_controls(
    lorekit, account
) -> None:  # noqa: ANN001
    from tests.factories import finding_open

    keeper = LessonFactory(account=account, key="use-uv\u202e", content="use uv, not pip")
    copy = LessonFactory(account=account, key="use-uv-copy", content="Use uv, not pip.")
    finding = finding_open(keeper, [copy])
    listed = lorekit("list")
    assert "repo::acme/app::use-uv-copy [proposed for retirement]" in listed.stdout
    assert listed.stdout.index("repo::acme/app::use-uv ") < listed.stdout.index("use-uv-copy")
    shown = lorekit("show", "repo::acme/app::use-uv-copy")
    assert shown.returncode == 0, shown.stderr
    assert (
        f"Proposed for retirement (near duplicate, finding {finding.pk}): prefer repo::acme/app::use-uv\n"
        in shown.stdout
    )
    assert "\u202e" not in shown.stdout
    copy.refresh_from_db()  # the open moved its counters, not updated_at: still the finding's
    assert lorekit("garden", "--apply", str(finding.pk)).returncode == 0
    retired = lorekit("show", "repo::acme/app::use-uv-copy")
    assert retired.returncode == 1
    assert "is archived, superseded by repo::acme/app::use-uv: read that one" in retired.stderr
    assert "\u202e" not in retired.stderr
    archived = json.loads(lorekit("list", "--archived", "--json").stdout)["items"]
    assert [(item["key"], item["superseded_by"]["address"]) for item in archived] == [
        ("use-uv-copy", "repo::acme/app::use-uv\u202e")  # --json is the server's answer, untouched
    ]
    keeper_shown = lorekit("show", "repo::acme/app::use-uv\u202e")
    assert "Supersedes: repo::acme/app::use-uv-copy" in keeper_shown.stdout
    detail = json.loads(lorekit("show", "repo::acme/app::use-uv\u202e", "--json").stdout)
    assert detail["supersedes"] == ["repo::acme/app::use-uv-copy"] and detail["superseded_by"] is None
