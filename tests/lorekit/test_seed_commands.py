"""Every `lorekit` command line of the seed, run as written (a real process against the live server), doing
what the seed says it does."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from datetime import timedelta

import pytest
from django.utils import timezone

from lore.models import Lesson
from policies.models import PolicyRun, RetentionPolicy
from tests.factories import LessonFactory
from tests.lorekit.conftest import lorekit_command

SCOPE = "repo::acme/app"


@pytest.fixture
def store(account) -> dict[str, Lesson]:  # noqa: ANN001
    now = timezone.now()
    old = now - timedelta(days=200)
    return {
        "stale": LessonFactory(account=account, key="stale", created_at=old),
        "stale-branch": LessonFactory(
            account=account, scope="branch::acme/app::main", key="stale-branch", created_at=old
        ),
        "opened-lately": LessonFactory(
            account=account, key="opened-lately", created_at=old, last_opened_at=now - timedelta(days=2)
        ),
        "young": LessonFactory(account=account, key="young", created_at=now - timedelta(days=7)),
        "elsewhere": LessonFactory(account=account, scope="repo::acme/web", key="elsewhere", created_at=old),
    }


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    return result.stdout


def created_id(result: subprocess.CompletedProcess[str]) -> int:
    return int(ok(result).split(":", 1)[0].removeprefix("Created policy "))


def test_groom_previews_what_a_rule_would_archive_and_changes_nothing(lorekit, store) -> None:  # noqa: ANN001
    before = list(Lesson.objects.order_by("pk").values())
    out = ok(lorekit("groom", "--scope", "repo::acme/app", "--unseen-days", "90"))
    assert out.splitlines()[0] == "2 lessons would be archived (a preview changes nothing)."
    rows = [line.split() for line in out.splitlines()[2:]]
    assert rows == [["branch::acme/app::main", "stale-branch"], ["repo::acme/app", "stale"]]
    assert "young" not in out and "opened-lately" not in out and "elsewhere" not in out
    assert list(Lesson.objects.order_by("pk").values()) == before


def test_groom_json_answers_the_seeds_count_and_keys(lorekit, store) -> None:  # noqa: ANN001
    body = json.loads(ok(lorekit("groom", "--scope", "repo::acme/app", "--unseen-days", "90", "--json")))
    assert body == {
        "count": 2,
        "keys": [
            {"scope": "branch::acme/app::main", "key": "stale-branch"},
            {"scope": SCOPE, "key": "stale"},
        ],
    }


def test_policy_create_stale_repo_lore_in_review_mode(lorekit, account) -> None:  # noqa: ANN001
    out = ok(
        lorekit(
            "policy",
            "create",
            "--scope",
            "repo::acme/app",
            "--name",
            "stale repo lore",
            "--unseen-days",
            "90",
            "--mode",
            "review",
        )
    )
    policy = RetentionPolicy.objects.get(account=account)
    assert (policy.name, policy.scope, policy.unseen_days, policy.mode, policy.enabled) == (
        "stale repo lore",
        SCOPE,
        90,
        "review",
        False,
    )
    assert "unopened >90d in repo::acme/app" in out


def test_policy_create_unused_lore_then_clear_max_opened_count(lorekit) -> None:  # noqa: ANN001
    policy_id = created_id(
        lorekit(
            "policy",
            "create",
            "--scope",
            "repo::acme/app",
            "--name",
            "unused lore",
            "--min-age-days",
            "90",
            "--max-opened-count",
            "0",
            "--mode",
            "review",
        )
    )
    policy = RetentionPolicy.objects.get(pk=policy_id)
    assert (policy.min_age_days, policy.max_opened_count) == (90, 0)
    ok(lorekit("policy", "update", str(policy_id), "--clear-max-opened-count"))
    policy.refresh_from_db()
    assert (policy.min_age_days, policy.max_opened_count) == (90, None)


def test_policy_create_stale_ci_review_events_then_clear_kind_and_set_host(lorekit) -> None:  # noqa: ANN001
    policy_id = created_id(
        lorekit(
            "policy",
            "create",
            "--scope",
            "repo::acme/app",
            "--name",
            "stale ci review events",
            "--kind",
            "bus",
            "--kind-mode",
            "in",
            "--tags",
            "ci::pr-review-state",
            "--tags-mode",
            "all",
            "--min-age-days",
            "30",
        )
    )
    policy = RetentionPolicy.objects.get(pk=policy_id)
    assert (policy.kind, policy.kind_mode, policy.tags, policy.tags_mode, policy.min_age_days) == (
        ["bus"],
        "in",
        ["ci::pr-review-state"],
        "all",
        30,
    )
    ok(lorekit("policy", "update", str(policy_id), "--clear-kind", "--host", "reviewer,aw"))
    policy.refresh_from_db()
    assert (policy.kind, policy.host, policy.tags) == ([], ["reviewer", "aw"], ["ci::pr-review-state"])


def test_policy_create_auto_enabled_is_swept_nightly(lorekit) -> None:  # noqa: ANN001
    ok(
        lorekit(
            "policy",
            "create",
            "--scope",
            "repo::acme/app",
            "--name",
            "stale repo lore",
            "--unseen-days",
            "90",
            "--mode",
            "auto",
            "--enabled",
        )
    )
    policy = RetentionPolicy.objects.get()
    assert (policy.mode, policy.enabled, policy.is_swept_nightly) == ("auto", True, True)


def test_an_auto_policy_created_without_enabled_starts_disabled(lorekit) -> None:  # noqa: ANN001
    ok(
        lorekit(
            "policy",
            "create",
            "--scope",
            "repo::acme/app",
            "--name",
            "stale repo lore",
            "--unseen-days",
            "90",
            "--mode",
            "auto",
        )
    )
    assert RetentionPolicy.objects.get().enabled is False


def test_policy_list_update_and_delete_round_out_the_set(lorekit, store) -> None:  # noqa: ANN001
    policy_id = created_id(
        lorekit("policy", "create", "--scope", "global", "--name", "everything old", "--min-age-days", "100")
    )
    out = ok(lorekit("policy", "list"))
    assert "everything old" in out and "created >100d ago in all scopes" in out
    ok(lorekit("policy", "update", str(policy_id), "--name", "renamed", "--max-read-count", "400"))
    policy = RetentionPolicy.objects.get()
    assert (policy.name, policy.max_read_count) == ("renamed", 400)
    lessons_before = list(Lesson.objects.order_by("pk").values())
    ok(lorekit("policy", "delete", str(policy_id)))
    assert not RetentionPolicy.objects.exists()
    assert list(Lesson.objects.order_by("pk").values()) == lessons_before
    shown = lorekit("policy", "show", str(policy_id))
    assert shown.returncode == 3


def test_a_global_policy_matches_every_lesson_of_the_account(lorekit, store) -> None:  # noqa: ANN001
    body = json.loads(ok(lorekit("groom", "--scope", "global", "--min-age-days", "100", "--json")))
    assert {k["key"] for k in body["keys"]} == {"stale", "stale-branch", "opened-lately", "elsewhere"}


def test_pin_and_unpin_the_load_bearing_lesson(lorekit, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(
        account=account, key="the-load-bearing-lesson", created_at=timezone.now() - timedelta(days=400)
    )
    ok(lorekit("pin", "repo::acme/app::the-load-bearing-lesson"))
    lesson.refresh_from_db()
    assert lesson.protected is True
    preview = json.loads(ok(lorekit("groom", "--scope", "repo::acme/app", "--min-age-days", "30", "--json")))
    assert preview["count"] == 0
    ok(lorekit("unpin", "repo::acme/app::the-load-bearing-lesson"))
    lesson.refresh_from_db()
    assert lesson.protected is False


def test_protect_and_protect_off_are_the_longer_spelling(lorekit, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, key="gotcha")
    ok(lorekit("protect", "repo::acme/app::gotcha"))
    lesson.refresh_from_db()
    assert lesson.protected is True
    ok(lorekit("protect", "repo::acme/app::gotcha", "--off"))
    lesson.refresh_from_db()
    assert lesson.protected is False


def test_groom_run_by_policy_id_with_yes_archives_every_match_and_restore_brings_one_back(
    lorekit, store
) -> None:  # noqa: ANN001
    policy_id = created_id(
        lorekit(
            "policy",
            "create",
            "--scope",
            "repo::acme/app",
            "--name",
            "stale repo lore",
            "--unseen-days",
            "90",
        )
    )
    out = ok(lorekit("groom", "--policy-id", str(policy_id), "--run", "--yes"))
    assert out.startswith("Archived 2 lessons (run ")
    archived = set(Lesson.objects.filter(archived_at__isnull=False).values_list("key", flat=True))
    assert archived == {"stale", "stale-branch"}
    run = PolicyRun.objects.get()
    assert (run.policy_id, run.trigger, run.archived) == (policy_id, "cli", 2)
    ok(lorekit("restore", "repo::acme/app::stale"))
    store["stale"].refresh_from_db()
    assert store["stale"].archived_at is None


def test_groom_run_refuses_without_a_terminal_and_without_yes(lorekit, store) -> None:  # noqa: ANN001
    result = lorekit("groom", "--policy-id", "1", "--run")
    assert result.returncode == 2
    assert "--yes" in result.stderr
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


def _run_at_a_terminal(args: list[str], env: dict[str, str], answer: bytes) -> tuple[int, str]:
    """Run lorekit with a pseudo-terminal as stdin, answer the prompt, return (exit code, stderr)."""
    primary, secondary = pty.openpty()
    try:
        process = subprocess.Popen(
            [*lorekit_command(), *args],
            env=env,
            stdin=secondary,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        os.write(primary, answer)
        out, err = process.communicate(timeout=60)
    finally:
        os.close(primary)
        os.close(secondary)
    return process.returncode, err.decode()


def test_groom_run_at_a_terminal_prompts_and_archives_on_yes(lorekit, lorekit_env, store) -> None:  # noqa: ANN001
    policy_id = created_id(
        lorekit("policy", "create", "--scope", "repo::acme/app", "--name", "p", "--unseen-days", "90")
    )
    code, err = _run_at_a_terminal(["groom", "--policy-id", str(policy_id), "--run"], lorekit_env, b"y\n")
    assert code == 0
    assert "Archive these 2 lessons?" in err
    assert Lesson.objects.filter(archived_at__isnull=False).count() == 2


def test_groom_run_at_a_terminal_archives_nothing_when_declined(lorekit, lorekit_env, store) -> None:  # noqa: ANN001
    code, err = _run_at_a_terminal(
        ["groom", "--scope", "repo::acme/app", "--unseen-days", "90", "--run"], lorekit_env, b"n\n"
    )
    assert code == 1
    assert "Nothing archived." in err
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


def test_groom_run_at_a_terminal_archives_what_it_asked_about_not_what_was_written_while_it_waited(
    lorekit_env,
    account,
    store,  # noqa: ANN001
) -> None:
    """The preview's time travels with the answer (Lore-As-Of → as_of): a lesson written while the prompt waits
    matches the rule, yet is not archived by a "y" given to a question that did not show it."""
    LessonFactory(account=account, key="old-bug", kind="bug", created_at=timezone.now() - timedelta(days=3))
    primary, secondary = pty.openpty()
    try:
        process = subprocess.Popen(
            [*lorekit_command(), "groom", "--scope", "global", "--kind", "bug", "--run"],
            env=lorekit_env,
            stdin=secondary,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stderr is not None
        asked = b""
        while b"[y/N]" not in asked:
            chunk = process.stderr.read1(4096)
            assert chunk, asked
            asked += chunk
        LessonFactory(account=account, key="written-while-asking", kind="bug")
        os.write(primary, b"y\n")
        out, err = process.communicate(timeout=60)
    finally:
        os.close(primary)
        os.close(secondary)
    assert process.returncode == 0, err
    assert b"Archive this lesson?" in asked
    assert b"Archived 1 lesson" in out
    archived = set(Lesson.objects.filter(archived_at__isnull=False).values_list("key", flat=True))
    assert archived == {"old-bug"}
