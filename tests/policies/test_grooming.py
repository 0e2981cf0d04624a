"""Preview and run (DESIGN.md §7): the same set, archived in batches, reversibly, once."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from lore.inputs import LessonInput
from lore.models import Lesson, LessonEvent, ReadEvent
from lore.rules.codec import RuleError
from lore.rules.rule import Rule
from lore.services import lesson_open, lesson_protect, lesson_restore, lesson_write, lessons_archive
from lore.transfer import import_lines, lesson_as_line
from policies import grooming
from policies.models import PolicyRun
from policies.services import policy_create
from tests.audit import audited
from tests.factories import LessonFactory
from tests.services import require_postgres

pytestmark = pytest.mark.django_db

UNUSED = Rule(scope="repo::acme/app", conditions={"max_opened_count": 0})


def days_ago(n: float):  # noqa: ANN201
    return timezone.now() - timedelta(days=n)


@pytest.fixture
def store(account):  # noqa: ANN001, ANN201
    """Six unused lessons in repo::acme/app (and its branch), plus lessons the rule must leave alone."""
    unused = [LessonFactory(account=account, key=f"unused-{i}") for i in range(5)]
    unused.append(LessonFactory(account=account, scope="branch::acme/app::main", key="on-a-branch"))
    LessonFactory(account=account, key="used", opened_count=3)
    LessonFactory(account=account, key="pinned", protected=True)
    LessonFactory(account=account, key="elsewhere", scope="repo::acme/api")
    LessonFactory(account=account, key="gone", archived_at=days_ago(1))
    return unused


def addresses(rows) -> set[tuple[str, str]]:  # noqa: ANN001
    return {(r["scope"], r["key"]) if isinstance(r, dict) else (r.scope, r.key) for r in rows}


def run_rule(account, rule: Rule = UNUSED, **kwargs) -> PolicyRun:  # noqa: ANN001, ANN003
    run = grooming.run_start(account=account, rule=rule, trigger=PolicyRun.Trigger.MANUAL)
    assert run is not None
    return grooming.run_execute(run.pk, **kwargs)


def state(account) -> list[dict]:  # noqa: ANN001
    return list(Lesson.objects.filter(account=account).order_by("pk").values())


def test_a_preview_changes_nothing(account, store) -> None:  # noqa: ANN001
    before = state(account)
    found = grooming.preview(account, UNUSED)
    assert found.count == 6 and len(found.keys) == 6
    assert state(account) == before
    assert not ReadEvent.objects.exists() and not LessonEvent.objects.exists()


def test_a_preview_answers_count_and_keys_in_address_order(account, store) -> None:  # noqa: ANN001
    found = grooming.preview(account, UNUSED, keys_limit=2)
    assert found.count == 6
    assert found.keys == [{"scope": "branch::acme/app::main", "key": "on-a-branch"}] + [
        {"scope": "repo::acme/app", "key": "unused-0"}
    ]


def test_a_preview_refuses_an_empty_rule(account) -> None:  # noqa: ANN001
    with pytest.raises(RuleError) as exc:
        grooming.preview(account, Rule(scope="global"))
    assert exc.value.field == "conditions"


def test_a_run_archives_exactly_what_the_preview_showed(account, store) -> None:  # noqa: ANN001
    previewed = addresses(grooming.preview(account, UNUSED).keys)
    run = run_rule(account, batch_size=4)
    archived = Lesson.objects.filter(account=account, archived_by_run=run)
    assert addresses(archived) == previewed
    assert (run.status, run.matched, run.archived) == ("done", 6, 6)
    assert run.started_at and run.finished_at and not run.error


def test_every_archived_lesson_records_its_run_and_reason(account, store) -> None:  # noqa: ANN001
    policy = policy_create(account=account, rule=UNUSED, name="unused lore")
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    run = grooming.run_execute(run.pk)
    events = audited(action="archived", run=run)
    assert len(events) == 6
    assert set(Lesson.objects.filter(archived_by_run=run).values_list("archive_reason", flat=True)) == {
        "policy “unused lore”"
    }
    # Every lesson in the trail, written in the batch's own statement: the lesson, its account, who, why and when.
    archived = {lesson.pk: lesson for lesson in Lesson.objects.filter(archived_by_run=run)}
    assert [row[0] for row in events] == sorted(archived)
    assert events == audited(action="archived", run=run, account=account)
    for lesson_id, _, actor, _, detail, at in events:
        assert (actor, detail) == ("manual", "policy “unused lore”")
        assert at == archived[lesson_id].archived_at


def test_a_second_run_archives_nothing(account, store) -> None:  # noqa: ANN001
    run_rule(account)
    again = run_rule(account)
    assert (again.status, again.matched, again.archived) == ("done", 0, 0)


def test_protected_lessons_are_never_archived(account, store) -> None:  # noqa: ANN001
    run_rule(account, Rule(scope="global", conditions={"max_read_count": 100_000}))
    pinned = Lesson.objects.get(key="pinned")
    assert pinned.archived_at is None
    assert Lesson.objects.filter(account=account, archived_at__isnull=True).get() == pinned


def test_undo_restores_exactly_what_the_run_archived(account, store) -> None:  # noqa: ANN001
    before = {row["id"]: row["archived_at"] for row in state(account)}
    run = run_rule(account)
    other = run_rule(account, Rule(scope="repo::acme/api", conditions={"max_opened_count": 0}))
    assert other.archived == 1
    assert grooming.run_undo(run) == 6
    after = {row["id"]: row["archived_at"] for row in state(account)}
    elsewhere = Lesson.objects.get(key="elsewhere")
    assert after == {**before, elsewhere.pk: after[elsewhere.pk]}
    assert after[elsewhere.pk] is not None  # the other run's archive is untouched
    assert PolicyRun.objects.get(pk=run.pk).restored == 6
    assert len(audited(action="restored", run=run)) == 6
    assert grooming.run_undo(run) == 0


# ---------------------------------------------------------------- changes made while a run is under way


def _change_after_first_batch(change):  # noqa: ANN001, ANN202
    calls = []

    def on_batch(run: PolicyRun) -> None:
        if not calls:
            change(run)
        calls.append(run.archived)

    return on_batch


@pytest.mark.parametrize("change", ["protect", "rewrite", "open", "restore", "import"])
def test_a_lesson_changed_after_the_run_read_its_candidates_is_not_archived(account, change: str) -> None:  # noqa: ANN001
    rule = Rule(scope="repo::acme/app", conditions={"unseen_days": 30})
    first = LessonFactory(account=account, key="a-first", created_at=days_ago(100))
    target = LessonFactory(account=account, key="b-target", created_at=days_ago(100))
    last = LessonFactory(account=account, key="c-last", created_at=days_ago(100))
    if change == "restore":
        lessons_archive(account=account, lesson_ids=[target.pk], reason="by hand")

    def act(_: PolicyRun) -> None:
        if change == "protect":
            lesson_protect(account=account, lesson=target)
        elif change == "rewrite":
            data = LessonInput.from_data({"scope": target.scope, "key": target.key, "content": "still true"})
            lesson_write(account=account, data=data)
        elif change == "open":
            lesson_open(account=account, lesson=target, surface="mcp")
        elif change == "import":  # the file's own (old) timestamps: only the import's event tells
            target.refresh_from_db()
            line = lesson_as_line(target).replace(target.content, "imported again")
            assert import_lines(account, [line]).updated == 1
        else:
            lesson_restore(account=account, lesson=target)

    run = run_rule(account, rule, batch_size=1, on_batch=_change_after_first_batch(act))
    target.refresh_from_db()
    assert target.archived_at is None
    assert set(Lesson.objects.filter(archived_by_run=run).values_list("pk", flat=True)) == {first.pk, last.pk}
    assert run.archived == 2 and run.status == "done"


def test_the_archive_guard_skips_a_lesson_that_stopped_matching(account) -> None:  # noqa: ANN001
    """lessons_archive repeats the predicate: ids selected earlier are re-checked inside the UPDATE."""
    kept, archived = LessonFactory(account=account), LessonFactory(account=account)
    from lore.candidates import archive_guard

    guard = archive_guard(UNUSED, timezone.now())
    lesson_protect(account=account, lesson=kept)
    assert lessons_archive(account=account, lesson_ids=[kept.pk, archived.pk], guard=guard) == [archived.pk]


# ---------------------------------------------------------------- one run at a time, once per tick, interruptions


def test_a_policy_never_has_two_runs_going(account, store) -> None:  # noqa: ANN001
    policy = policy_create(account=account, rule=UNUSED, name="p")
    first = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    assert first is not None
    assert grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL) is None
    grooming.run_execute(first.pk)
    assert grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL) is not None


def test_a_nightly_sweep_runs_a_policy_once_per_tick(account, store) -> None:  # noqa: ANN001
    policy = policy_create(account=account, rule=UNUSED, name="p", mode="auto", enabled=True)
    tick = timezone.now() - timedelta(hours=1)
    [run] = grooming.nightly_runs_start(since=tick)
    grooming.run_execute(run.pk)
    assert grooming.nightly_runs_start(since=tick) == []
    PolicyRun.objects.filter(pk=run.pk).update(status=PolicyRun.Status.INTERRUPTED)
    [again] = grooming.nightly_runs_start(since=tick)  # an interrupted run is finished by the next one
    assert again.policy_id == policy.pk
    assert grooming.nightly_runs_start(since=timezone.now() + timedelta(seconds=1)) == []  # one still pending


def test_the_nightly_sweep_starts_only_auto_and_enabled_policies(account, store) -> None:  # noqa: ANN001
    swept = policy_create(account=account, rule=UNUSED, name="swept", mode="auto", enabled=True)
    policy_create(account=account, rule=UNUSED, name="auto but not enabled", mode="auto")
    policy_create(account=account, rule=UNUSED, name="review", mode="review", enabled=True)
    assert [run.policy_id for run in grooming.nightly_runs_start(since=None)] == [swept.pk]


def test_a_run_whose_task_never_started_stops_blocking_its_policy(account, store) -> None:  # noqa: ANN001
    policy = policy_create(account=account, rule=UNUSED, name="p")
    lost = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.NIGHTLY)
    PolicyRun.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(hours=2))
    assert grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL) is not None
    assert PolicyRun.objects.get(pk=lost.pk).status == "interrupted"
    grooming.run_execute(lost.pk)  # its message turns up after all: nothing happens
    assert PolicyRun.objects.get(pk=lost.pk).status == "interrupted"
    assert not Lesson.objects.filter(archived_by_run=lost).exists()


def _abandoned_run(account) -> PolicyRun:  # noqa: ANN001
    """A run left `running` by a worker that died before its first batch."""
    run = grooming.run_start(account=account, rule=UNUSED, trigger=PolicyRun.Trigger.NIGHTLY)
    PolicyRun.objects.filter(pk=run.pk).update(
        status=PolicyRun.Status.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    return run


def test_a_redelivered_run_whose_worker_died_is_marked_interrupted_and_archives_nothing(
    account, store
) -> None:  # noqa: ANN001
    run = grooming.run_execute(_abandoned_run(account).pk)
    assert run.status == "interrupted" and "stopped mid-run" in run.error
    assert not Lesson.objects.filter(archived_by_run=run).exists()
    assert run_rule(account).archived == 6  # the next run completes the job


def test_a_run_interrupted_under_a_live_worker_stops_with_whole_batches(account, store) -> None:  # noqa: ANN001
    def interrupt(run: PolicyRun) -> None:
        PolicyRun.objects.filter(pk=run.pk).update(status=PolicyRun.Status.INTERRUPTED)

    run = run_rule(account, batch_size=2, on_batch=_change_after_first_batch(interrupt))
    assert run.status == "interrupted"
    archived = Lesson.objects.filter(archived_by_run=run).count()
    assert archived == run.archived == 2  # the batch that found the run interrupted was rolled back
    assert len(audited(action="archived", run=run)) == 2


def test_without_advisory_locks_a_run_is_stale_after_ten_quiet_minutes(account, store) -> None:  # noqa: ANN001
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL knows for certain whether the worker is alive (see the advisory lock tests)")
    run = _abandoned_run(account)
    assert grooming.runs_mark_stale() == 0
    PolicyRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=11))
    assert grooming.runs_mark_stale() == 1
    assert PolicyRun.objects.get(pk=run.pk).status == "interrupted"


@pytest.fixture
def second_connection():  # noqa: ANN201
    """A separate PostgreSQL session, standing in for another worker."""
    require_postgres()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:
        yield other


def _wait_until_lock_released(run_id: int, attempts: int = 100) -> None:
    """Poll pg_locks until no session holds the run's advisory lock (a closed connection's backend exits
    asynchronously: under load the next statement could still see the lock held)."""
    import time

    for _ in range(attempts):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s",
                [grooming._LOCK_CLASS, run_id % 2**31],
            )
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.05)


@pytest.mark.postgres
def test_a_run_whose_worker_holds_its_lock_is_left_alone_until_the_worker_is_gone(
    account,
    store,
    second_connection,  # noqa: ANN001
) -> None:
    run = _abandoned_run(account)
    key = [grooming._LOCK_CLASS, run.pk]
    second_connection.execute("SELECT pg_advisory_lock(%s, %s)", key)  # the worker, alive
    assert grooming.runs_mark_stale() == 0
    assert grooming.run_execute(run.pk).status == "running"  # a duplicate delivery does nothing
    assert not Lesson.objects.filter(archived_by_run=run).exists()
    second_connection.close()  # the worker dies: PostgreSQL drops its session lock
    _wait_until_lock_released(run.pk)  # the closed session's backend exits on its own time
    assert grooming.runs_mark_stale() == 1
    assert PolicyRun.objects.get(pk=run.pk).status == "interrupted"


@pytest.mark.postgres
def test_marking_stale_never_overwrites_a_run_that_just_finished(account, store) -> None:  # noqa: ANN001
    require_postgres()
    run = run_rule(account)
    assert grooming._interrupt_if_abandoned(run.pk, timezone.now()) == 0
    assert PolicyRun.objects.get(pk=run.pk).status == "done"


def test_a_failing_run_is_marked_failed_with_its_error(account, store) -> None:  # noqa: ANN001
    run = grooming.run_start(account=account, rule=UNUSED, trigger=PolicyRun.Trigger.MANUAL)
    PolicyRun.objects.filter(pk=run.pk).update(rule_snapshot={"conditions": {}})  # a corrupt snapshot
    with pytest.raises(KeyError):
        grooming.run_execute(run.pk)
    run.refresh_from_db()
    assert run.status == "failed" and "scope" in run.error
    assert grooming.run_start(account=account, rule=UNUSED, trigger=PolicyRun.Trigger.MANUAL) is not None


def test_a_runs_matched_count_leaves_out_exactly_what_its_guard_skips(account) -> None:  # noqa: ANN001
    """touched_since_count counts from recent events; it must agree with the guard's per-lesson check."""
    from lore.candidates import candidates, touched_since_count, untouched_since

    old = timezone.now() - timedelta(days=400)
    lessons = {
        name: LessonFactory(account=account, key=name, created_at=old, updated_at=old)
        for name in (
            "untouched",
            "rewritten",
            "restored",
            "restored-logged-per-lesson",
            "unpinned",
            "imported",
            "pinned-then-unpinned-before",
        )
    }
    lesson_protect(account=account, lesson=lessons["pinned-then-unpinned-before"], protected=True)
    lesson_protect(account=account, lesson=lessons["pinned-then-unpinned-before"], protected=False)
    lesson_protect(account=account, lesson=lessons["unpinned"], protected=True)
    snapshot = timezone.now()
    Lesson.objects.filter(pk=lessons["rewritten"].pk).update(updated_at=timezone.now())
    lesson_protect(account=account, lesson=lessons["unpinned"], protected=False)
    lessons_archive(account=account, lesson_ids=[lessons["restored"].pk], now=snapshot - timedelta(seconds=1))
    lesson_restore(account=account, lesson=Lesson.objects.get(pk=lessons["restored"].pk))
    LessonEvent.objects.create(
        account=account, lesson=lessons["imported"], action="imported", at=timezone.now()
    )
    # A restore logged per lesson, as every restore was before issue 29 batched them.
    LessonEvent.objects.create(
        account=account, lesson=lessons["restored-logged-per-lesson"], action="restored", at=timezone.now()
    )
    pending = candidates(account, Rule(conditions={"min_age_days": 30}), now=snapshot)
    skipped = set(pending.exclude(untouched_since(snapshot)).values_list("key", flat=True))
    assert skipped == {"rewritten", "unpinned", "restored", "restored-logged-per-lesson", "imported"}
    assert touched_since_count(pending, snapshot) == len(skipped)
