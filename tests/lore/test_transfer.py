"""NDJSON export and import: a store round-trips byte for byte; bad lines are refused by line and field."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from lore.demo import demo_store_create
from lore.models import Account, Lesson, LessonEvent, LessonTag
from lore.transfer import export_lines, import_lines
from tests.factories import AccountFactory, LessonFactory

pytestmark = pytest.mark.django_db


def export_text(account: Account) -> str:
    return "".join(export_lines(account))


def good_line(key: str = "use-uv", **extra: object) -> str:
    row = {"scope": "repo::acme/app", "key": key, "content": "Use uv.", **extra}
    return json.dumps(row)


def import_text(account: Account, text: str):  # noqa: ANN201
    return import_lines(account, io.StringIO(text))


@pytest.fixture
def tricky(account) -> list[Lesson]:  # noqa: ANN001
    """Lessons whose content and state are easy to get wrong in a round trip."""
    now = timezone.now()
    return [
        LessonFactory(
            account=account,
            key="unicode",
            content="naïve “quotes” \\ back\\slash\n\ttab 🎉 \u2028 line sep \u2029 para \x85 nel",
            tags=["ci::pr-review-state", "lang::python"],
            origin_pr="482",
            read_count=1400,
            opened_count=0,
        ),
        LessonFactory(
            account=account,
            key="archived-protected",
            protected=True,
            archived_at=now - timedelta(days=3),
            archive_reason="archived by hand",
            last_opened_at=now - timedelta(days=40, microseconds=7),
            last_read_at=now - timedelta(days=1),
            opened_count=3,
            seen_count=5,
            updated_at=now - timedelta(days=2),
            created_at=now - timedelta(days=400),
        ),
    ]


def test_import_then_export_round_trips_a_store_byte_for_byte(account, other_account, tricky) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=300, seed=3)
    exported = export_text(account)
    assert exported.count("\n") == 302 + 1  # every lesson, then the trailer
    assert exported.endswith('{"export":"complete","lessons":302,"tombstones":0}\n')
    report = import_text(other_account, exported)
    assert report.ok and report.created == 302
    assert export_text(other_account) == exported


def test_the_round_trip_keeps_counters_timestamps_and_tag_rows(account, other_account, tricky) -> None:  # noqa: ANN001
    import_text(other_account, export_text(account))
    fields = ["content", "tags", "seen_count", "read_count", "opened_count", "last_read_at", "last_opened_at"]
    fields += ["created_at", "updated_at", "protected", "archived_at", "archive_reason", "origin_pr"]
    for lesson in tricky:
        copy = Lesson.objects.get(account=other_account, scope=lesson.scope, key=lesson.key)
        lesson.refresh_from_db()
        assert [getattr(copy, f) for f in fields] == [getattr(lesson, f) for f in fields]
    copy = Lesson.objects.get(account=other_account, key="unicode")
    assert set(LessonTag.objects.filter(lesson=copy).values_list("tag", flat=True)) == set(copy.tags)


def test_export_lines_are_split_only_at_newlines(account, tricky) -> None:  # noqa: ANN001
    *lessons, trailer = export_text(account).splitlines()  # splitlines() breaks at U+2028, U+2029 and NEL too
    for line in lessons:
        assert json.loads(line)["scope"] == "repo::acme/app"
    assert json.loads(trailer) == {"export": "complete", "lessons": len(lessons), "tombstones": 0}


def test_an_import_upserts_on_scope_and_key_keeping_the_files_counters(account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="use-uv", read_count=5, seen_count=2)
    report = import_text(account, good_line(read_count=700, opened_count=3, seen_count=9))
    assert (report.created, report.updated) == (0, 1)
    lesson.refresh_from_db()
    assert (lesson.seen_count, lesson.read_count, lesson.opened_count) == (9, 700, 3)
    assert LessonEvent.objects.filter(lesson=lesson, action="imported").count() == 1


BAD_LINES = [
    ("{not json", "line", "not valid JSON"),
    ("[1, 2]", "line", "JSON object"),
    (good_line(key=""), "key", "empty"),
    (good_line(key="a::b"), "key", "'::'"),
    (good_line(key="x" * 513), "key", "512"),
    (good_line(scope=""), "scope", "required"),
    (good_line(scope="repo::" + "a" * 300 + "/" + "b" * 300), "scope", "600"),
    (good_line(scope="repo:acme/app"), "scope", "'::'"),
    (good_line(kind=5), "kind", "string"),
    (good_line(kind=["bus"]), "kind", "string"),
    (good_line(kind="k" * 65), "kind", "64"),
    (good_line(host="h" * 129), "host", "128"),
    (good_line(tags="ok,"), None, None),  # a comma-separated string is accepted
    (good_line(tags=[1]), "tags", "strings"),
    (good_line(tags={"a": 1}), "tags", "list"),
    (good_line(content=""), "content", "non-empty"),
    (good_line(content="nul \x00 here"), "content", "NUL"),
    (good_line(content="lone \ud800 surrogate"), "content", "unencodable"),
    (good_line(read_count=-1), "read_count", "non-negative"),
    (good_line(read_count="12"), "read_count", "whole number"),
    (good_line(read_count=1, opened_count=2), "opened_count", "exceed"),
    (good_line(protected="false"), "protected", "true or false"),
    (good_line(created_at="yesterday"), "created_at", "ISO 8601"),
    (good_line(created_at="2025-13-45T00:00:00+00:00"), "created_at", "ISO 8601"),
    (good_line(created_at="2025-01-01T00:00:00"), "created_at", "time zone"),
    (good_line(created_at="2999-01-01T00:00:00+00:00"), "created_at", "future"),
    (good_line(kindd="bus"), "kindd", "not a lesson field"),
    (good_line(owner="o" * 65), "owner", "64"),
    (good_line(owner="team\x01"), "owner", "control characters"),
    (good_line(owner="nul\x00"), None, None),  # NUL is dropped from free-text metadata
    (good_line(archive_reason="nul\x00 \ud800"), None, None),
    (good_line(archive_reason=5), "archive_reason", "string"),
]


@pytest.mark.parametrize(("line", "field", "words"), BAD_LINES, ids=[str(i) for i in range(len(BAD_LINES))])
def test_a_bad_line_is_refused_with_a_message_naming_the_field_and_line(account, line, field, words) -> None:  # noqa: ANN001
    report = import_text(account, good_line("before") + "\n" + line + "\n" + good_line("after") + "\n")
    if field is None:
        assert report.ok
        return
    assert report.failed == [{"line": 2, "field": field, "message": report.failed[0]["message"]}]
    assert words in report.failed[0]["message"]
    assert set(Lesson.objects.filter(account=account).values_list("key", flat=True)) == {"before", "after"}


def test_a_bad_line_does_not_lose_the_good_ones_before_it_and_the_report_says_which_failed(account) -> None:  # noqa: ANN001
    lines = [good_line(f"k{i}") for i in range(1200)]
    lines[3] = "{oops"
    lines[700] = good_line("k700", kind=["x"])
    lines.insert(900, "")  # blank lines count, so numbers match the file an editor shows
    report = import_text(account, "\n".join(lines))
    assert [(f["line"], f["field"]) for f in report.failed] == [(4, "line"), (701, "kind")]
    assert report.created == 1198
    assert Lesson.objects.filter(account=account).count() == 1198


def test_a_line_the_database_refuses_loses_only_itself(account) -> None:  # noqa: ANN001
    """A refusal that only the database can make (a trigger here) falls back to line-by-line import."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE lore_lesson ADD CONSTRAINT test_no_evil CHECK (content <> 'evil')")
        else:
            cursor.execute(
                "CREATE TEMP TRIGGER test_no_evil BEFORE INSERT ON lore_lesson WHEN NEW.content = 'evil' "
                "BEGIN SELECT RAISE(ABORT, 'no evil'); END"
            )
    lines = [good_line("a"), good_line("b", content="evil"), good_line("c")]
    report = import_text(account, "\n".join(lines))
    assert [f["line"] for f in report.failed] == [2]
    assert "refused by the database" in report.failed[0]["message"]
    assert set(Lesson.objects.filter(account=account).values_list("key", flat=True)) == {"a", "c"}
    assert LessonEvent.objects.filter(account=account, action="imported").count() == 2


def test_export_and_import_commands_work_end_to_end(account, tricky, tmp_path: Path) -> None:  # noqa: ANN001
    demo_store_create(account, lessons=50, seed=5)
    first, second = tmp_path / "a.ndjson", tmp_path / "b.ndjson"
    call_command("export_lessons", "--account", account.name, "--output", str(first), stderr=io.StringIO())
    err = io.StringIO()
    call_command("import_lessons", "--account", "copy", "--create-account", "--input", str(first), stderr=err)
    assert "created 52, updated 0, failed 0" in err.getvalue()
    call_command("export_lessons", "--account", "copy", "--output", str(second), stderr=io.StringIO())
    assert first.read_bytes() == second.read_bytes()


def test_the_import_command_lists_failed_lines_and_exits_non_zero(account, tmp_path: Path) -> None:  # noqa: ANN001
    source = tmp_path / "bad.ndjson"
    source.write_text(good_line("ok") + "\n{oops\n" + good_line("", content="x") + "\n", encoding="utf-8")
    err = io.StringIO()
    with pytest.raises(CommandError, match="2 line"):
        call_command("import_lessons", "--account", account.name, "--input", str(source), stderr=err)
    assert "line 2: line: not valid JSON" in err.getvalue()
    assert "line 3: key: key is empty" in err.getvalue()
    assert Lesson.objects.filter(account=account, key="ok").exists()


def test_the_commands_refuse_an_unknown_account_and_an_unreadable_file(tmp_path: Path) -> None:
    AccountFactory(name="exists")
    with pytest.raises(CommandError, match="no account named 'nope'"):
        call_command("export_lessons", "--account", "nope")
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_lessons", "--account", "exists", "--input", str(tmp_path / "missing.ndjson"))
