"""`manage.py groom`: preview by default, --run with confirmation (--yes without a terminal), --undo."""

from __future__ import annotations

import io
import json
import sys

import pytest
from django.core.management import CommandError, call_command

from lore.conditions import POLICY_DIMENSIONS, RETENTION_PARAMS
from lore.models import Lesson
from lore.rules.rule import Rule
from policies.management.commands.groom import Command
from policies.models import PolicyRun
from policies.services import policy_create
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def store(account):  # noqa: ANN001, ANN201
    for i in range(3):
        LessonFactory(account=account, key=f"unused-{i}")
    LessonFactory(account=account, key="used", opened_count=2)
    LessonFactory(account=account, key="pinned", protected=True)
    return account


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def groom(*args: str, stdin: io.StringIO | None = None, monkeypatch=None) -> str:  # noqa: ANN001
    out = io.StringIO()
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", stdin)
    call_command("groom", "--account", "acme", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def archived() -> set[str]:
    return set(Lesson.objects.filter(archived_at__isnull=False).values_list("key", flat=True))


def test_every_condition_and_filter_has_its_flag_from_the_registry() -> None:
    parser = Command().create_parser("manage.py", "groom")
    flags = {opt for action in parser._actions for opt in action.option_strings}
    assert {p.flag for p in RETENTION_PARAMS} <= flags
    assert {d.flag for d in POLICY_DIMENSIONS} | {f"{d.flag}-mode" for d in POLICY_DIMENSIONS} <= flags
    assert "--owner" not in flags and "--min-opened-count" not in flags  # Explorer-only parts


def test_groom_previews_by_default_and_changes_nothing(store) -> None:  # noqa: ANN001
    out = groom("--scope", "repo::acme/app", "--max-opened-count", "0")
    assert out.splitlines()[0] == "3 lesson(s) match"
    assert "  repo::acme/app::unused-0" in out
    assert archived() == set()


def test_groom_answers_count_and_keys_as_json(store) -> None:  # noqa: ANN001
    out = groom("--scope", "repo::acme/app", "--max-opened-count", "0", "--json", "--kind", "lesson")
    assert json.loads(out) == {
        "count": 3,
        "keys": [{"scope": "repo::acme/app", "key": f"unused-{i}"} for i in range(3)],
    }


def test_groom_run_refuses_without_a_terminal_unless_yes(store, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))  # piped input is not a confirmation
    with pytest.raises(CommandError, match="pass --yes"):
        groom("--scope", "repo::acme/app", "--max-opened-count", "0", "--run")
    assert archived() == set()
    out = groom("--scope", "repo::acme/app", "--max-opened-count", "0", "--run", "--yes")
    assert "Archived 3 of 3 matched" in out
    assert archived() == {"unused-0", "unused-1", "unused-2"}
    assert PolicyRun.objects.get().trigger == "cli"


def test_groom_run_asks_on_a_terminal_and_respects_no(store, monkeypatch) -> None:  # noqa: ANN001
    with pytest.raises(CommandError, match="not confirmed"):
        groom(
            "--scope",
            "global",
            "--max-opened-count",
            "0",
            "--run",
            stdin=FakeTerminal("n\n"),
            monkeypatch=monkeypatch,
        )
    assert archived() == set()
    out = groom(
        "--scope",
        "global",
        "--max-opened-count",
        "0",
        "--run",
        stdin=FakeTerminal("y\n"),
        monkeypatch=monkeypatch,
    )
    assert "Archive these 3 lessons? They stay restorable (--undo). [y/N]" in out and "Archived 3" in out


class TerminalWhileALessonIsWritten(FakeTerminal):
    """Answers "y", but only after a lesson matching the rule was written while the question waited."""

    def __init__(self, account) -> None:  # noqa: ANN001
        super().__init__("y\n")
        self.account = account

    def readline(self, size: int | None = -1) -> str:
        LessonFactory(account=self.account, key="written-while-asking")
        return super().readline(size)


def test_groom_run_archives_what_it_asked_about_not_what_was_written_while_it_waited(
    store,
    monkeypatch,  # noqa: ANN001
) -> None:
    out = groom(
        "--scope",
        "global",
        "--max-opened-count",
        "0",
        "--run",
        stdin=TerminalWhileALessonIsWritten(store),
        monkeypatch=monkeypatch,
    )
    assert (
        "Archive these 3 lessons? They stay restorable (--undo). [y/N]" in out
        and "Archived 3 of 3 matched" in out
    )
    assert archived() == {"unused-0", "unused-1", "unused-2"}
    assert PolicyRun.objects.get().as_of is not None


def test_groom_runs_a_saved_policy_and_undo_restores_it(store) -> None:  # noqa: ANN001
    policy = policy_create(account=store, rule=Rule(conditions={"max_opened_count": 0}), name="unused")
    out = groom("--policy-id", str(policy.pk), "--run", "--yes")
    run = PolicyRun.objects.get(policy_id=policy.pk)
    assert f"(run {run.pk})" in out and archived() == {"unused-0", "unused-1", "unused-2"}
    assert "Restored 3 lesson(s)" in groom("--undo", str(run.pk))
    assert archived() == set()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scope", "global"], "at least one condition or filter"),
        (["--max-opened-count", "0"], "pass --policy-id, or --scope"),
        (["--scope", "repo:acme/app", "--max-opened-count", "0"], "scope: use '::'"),
        (["--scope", "global", "--max-opened-count", "-1"], "max_opened_count: "),
        (["--scope", "global", "--unseen-days", "abc"], "unseen_days: unseen_days must be a whole number"),
        (["--policy-id", "999"], "no policy 999"),
        (["--policy-id", "1", "--unseen-days", "3"], "drop --unseen-days"),
        (["--undo", "999"], "no run 999"),
    ],
)
def test_groom_refuses_bad_input_with_one_line(store, args: list[str], message: str) -> None:  # noqa: ANN001
    with pytest.raises(CommandError) as exc:
        groom(*args)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_groom_never_reaches_another_account(store, other_account) -> None:  # noqa: ANN001
    theirs = policy_create(account=other_account, rule=Rule(conditions={"max_opened_count": 0}), name="x")
    with pytest.raises(CommandError, match=f"no policy {theirs.pk}"):
        groom("--policy-id", str(theirs.pk))
    LessonFactory(account=other_account, key="theirs")
    groom("--scope", "global", "--max-opened-count", "0", "--run", "--yes")
    assert Lesson.objects.get(key="theirs").archived_at is None
