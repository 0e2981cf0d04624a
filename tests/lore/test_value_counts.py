"""Issue 16: the filter menu's numbers over the whole store come from per-value counts the database keeps
(lore.value_counts), and those counts are exact — after every kind of write, under 16 concurrent writers racing
the fold, and across a fold that dies. Each check compares them with the GROUP BY over the lessons themselves."""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections, connection, transaction
from django.db.models import Q
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from explorer.filter_control import policy_control
from explorer.queries import dimension_value_counts as explorer_value_counts
from explorer.state import ExplorerState
from lore.conditions import DIMENSIONS_BY_NAME, DimFilter
from lore.demo import demo_store_create
from lore.inputs import LessonInput
from lore.models import Account, Lesson, LessonCountChange, LessonValueCount, LessonValueCountView
from lore.rules.rule import Rule
from lore.selectors import dimension_value_counts
from lore.services import lesson_protect, lesson_restore, lesson_write, lessons_archive, lessons_restore
from lore.value_counts import (
    COUNTED,
    HISTOGRAM_COUNTED,
    TRIGGERED,
    TRIGGERS,
    install_sql,
    installed_dimensions,
    page_counts,
    value_counts,
    value_counts_fold,
)
from tests.factories import AccountFactory, LessonFactory
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
KIND = DIMENSIONS_BY_NAME["kind"]


@pytest.fixture(autouse=True)
def _postgres() -> None:
    require_postgres()


def _counted_by_group_by(account: Account, dim, *, archived: bool, protected: bool | None):  # noqa: ANN001, ANN202
    lessons = Lesson.objects.filter(account=account, archived_at__isnull=not archived)
    if protected is not None:
        lessons = lessons.filter(protected=protected)
    return dimension_value_counts(lessons, dim)


def _page_counted_by_group_by(account: Account) -> set[tuple[str, str, str, bool, bool, int]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT scope, host, kind, archived_at IS NOT NULL, protected, count(*) FROM lore_lesson "
            "WHERE account_id = %s GROUP BY 1, 2, 3, 4, 5",
            [account.pk],
        )
        return set(cursor.fetchall())


def assert_exact(account: Account) -> None:
    """Every counted dimension, in every state the menus ask for, and every (scope, host, kind, state) of the page
    counts, equals the GROUP BY over the lessons."""
    assert set(page_counts(account.pk, Q())) == _page_counted_by_group_by(account)
    for dim in COUNTED:
        for archived in (False, True):
            for protected in (None, False, True):
                kept = value_counts(account.pk, dim, archived=archived, protected=protected)
                assert kept == _counted_by_group_by(account, dim, archived=archived, protected=protected), (
                    dim.name,
                    archived,
                    protected,
                )


def _write(account: Account, key: str, **dims: str) -> Lesson:
    data = LessonInput.from_data({"scope": "repo::acme/app", "key": key, "content": f"about {key}", **dims})
    return lesson_write(account=account, data=data)[0]


def test_the_installed_triggers_count_every_scalar_dimension_and_the_kept_histograms() -> None:
    # the kept histograms' own list is pinned in tests/lore/test_kept_histograms.py
    assert installed_dimensions() == [dim.name for dim in COUNTED] + [h.name for h in HISTOGRAM_COUNTED]


def test_the_installed_triggers_are_what_install_sql_writes_now() -> None:
    """The migration carries the SQL as it was written; a change to the generator needs a migration."""
    statements = " ".join(install_sql())
    with connection.cursor() as cursor:
        for name, _ in TRIGGERS.values():
            cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", [name])
            (source,) = cursor.fetchone()
            assert f"AS $${source}$$;" in statements, name


def test_counts_stay_exact_through_every_kind_of_write(account: Account) -> None:
    first = _write(account, "a", kind="gotcha", host="codex", origin_pr="12")
    _write(account, "b", kind="gotcha", host="cursor")
    third = _write(account, "c", kind="decision")
    LessonFactory.create_batch(5, account=account, kind="lesson", host="")  # bulk, and a blank value
    assert_exact(account)

    _write(account, "a", kind="decision", host="codex")  # a rewrite that moves a lesson to another kind
    lesson_protect(account=account, lesson=third)
    lessons_archive(account=account, lesson_ids=[first.pk], reason="by hand")
    assert_exact(account)

    lesson_restore(account=account, lesson=Lesson.objects.get(pk=first.pk))
    Lesson.objects.filter(account=account, kind="lesson").update(kind="howto")  # a plain queryset update
    Lesson.objects.filter(account=account, key="b").delete()
    assert_exact(account)

    now = timezone.now()
    Lesson.objects.filter(account=account).update(archived_at=now)  # everything archived, then undone
    assert_exact(account)
    lessons_restore(
        account=account, lesson_ids=list(Lesson.objects.filter(account=account).values_list("pk", flat=True))
    )
    assert_exact(account)


def test_a_read_bump_appends_count_rows_of_delivered_alone(account: Account) -> None:
    """Issue 28: Delivered is a kept histogram, so a read bump moves its counts, and no other dimension's (the
    trigger groups per dimension only the rows whose value of it changed); a rewrite of the text moves none."""
    LessonFactory.create_batch(3, account=account, kind="gotcha")
    value_counts_fold(account.pk)
    kept = LessonValueCount.objects.count()
    Lesson.objects.filter(account=account).update(content="rewritten text")
    assert (LessonValueCount.objects.count(), LessonCountChange.objects.count()) == (kept, 0)
    Lesson.objects.filter(account=account).update(read_count=7, content="rewritten again")
    assert list(LessonCountChange.objects.values_list("dimension", "archived", "counts")) == [
        ("h:read_count", False, {"100": -3, "7": 3})
    ]
    assert_exact(account)


def test_an_archive_of_many_values_appends_one_packed_row_per_dimension_and_state(account: Account) -> None:
    """Issue 29: the count rows a statement appends grow with the counted dimensions, not with the values it
    moved. 40 lessons with 40 pull requests, archived at once: one row per dimension and state (old and new), one
    per state for the page counts, and not a kept row."""
    for i in range(40):
        LessonFactory(account=account, kind="gotcha", origin_pr=f"{100 + i}")
    value_counts_fold(account.pk)
    kept, changes = LessonValueCount.objects.count(), LessonCountChange.objects.count()
    lessons_archive(account=account, lesson_ids=list(Lesson.objects.values_list("pk", flat=True)))
    assert LessonValueCount.objects.count() == kept
    appended = LessonCountChange.objects.count() - changes
    assert appended <= 2 * (len(TRIGGERED) + 1)
    assert LessonCountChange.objects.filter(dimension="origin_pr", archived=True).get().counts == {
        lesson.origin_pr: 1 for lesson in Lesson.objects.filter(account=account)
    }
    assert_exact(account)


def test_a_fold_moves_the_packed_changes_into_kept_rows(account: Account) -> None:
    for i in range(5):
        _write(account, f"k{i}", kind="gotcha", origin_pr=str(i))
    lessons_archive(account=account, lesson_ids=list(Lesson.objects.values_list("pk", flat=True)[:2]))
    assert LessonCountChange.objects.filter(account=account).exists()
    assert value_counts_fold(account.pk) > 0
    assert not LessonCountChange.objects.filter(account=account).exists()
    assert_exact(account)


def test_the_demo_store_loaded_with_copy_is_counted(account: Account) -> None:
    demo_store_create(account, lessons=300, seed=3, batch=100)
    assert Lesson.objects.filter(account=account).count() == 300
    assert_exact(account)


def test_a_fold_keeps_every_sum_and_leaves_one_row_per_key(account: Account) -> None:
    for i in range(6):
        _write(account, f"k{i}", kind="gotcha" if i % 2 else "decision", host="codex")
    lessons_archive(
        account=account,
        lesson_ids=list(Lesson.objects.filter(account=account).values_list("pk", flat=True)[:3]),
    )
    rows_before = LessonValueCountView.objects.filter(account=account).count()  # kept and packed
    assert value_counts_fold(account.pk) > 0
    rows_after = LessonValueCount.objects.filter(account=account).count()
    assert rows_after < rows_before
    keys = LessonValueCount.objects.filter(account=account).values_list(
        "dimension", "value", "archived", "protected"
    )
    assert len(set(keys)) == rows_after  # one row per key
    assert not LessonValueCount.objects.filter(n__lte=0).exists()
    assert_exact(account)


def test_a_fold_that_dies_changes_nothing(account: Account) -> None:
    for i in range(4):
        _write(account, f"k{i}", kind="gotcha")
    Lesson.objects.filter(account=account, key="k0").update(kind="decision")
    rows = sorted(
        LessonValueCountView.objects.values_list("dimension", "value", "archived", "protected", "n")
    )

    class Crash(Exception):
        pass

    with pytest.raises(Crash), transaction.atomic():
        assert value_counts_fold(account.pk) > 0
        raise Crash  # the worker died before its transaction committed
    assert (
        sorted(LessonValueCountView.objects.values_list("dimension", "value", "archived", "protected", "n"))
        == rows
    )
    assert_exact(account)


def test_a_deleted_account_leaves_no_counts_once_folded() -> None:
    doomed = AccountFactory(name="doomed")
    LessonFactory.create_batch(4, account=doomed, kind="gotcha")
    doomed.delete()
    value_counts_fold()
    assert not LessonValueCount.objects.exists()
    assert not LessonCountChange.objects.exists()


def test_a_read_that_sums_many_rows_folds_them(account: Account, settings) -> None:  # noqa: ANN001
    settings.LORE_VALUE_COUNTS_FOLD_AFTER = 5
    for i in range(8):
        _write(account, f"k{i}", kind="gotcha")
    assert LessonValueCountView.objects.filter(account=account, dimension="kind").count() == 8
    assert value_counts(account.pk, KIND, archived=False) == [("gotcha", 8)]
    assert LessonValueCountView.objects.filter(account=account, dimension="kind").count() == 1


def test_counts_never_cross_accounts(account: Account, other_account: Account) -> None:
    LessonFactory.create_batch(3, account=account, kind="gotcha")
    LessonFactory.create_batch(2, account=other_account, kind="gotcha")
    assert value_counts(account.pk, KIND, archived=False) == [("gotcha", 3)]
    assert value_counts(other_account.pk, KIND, archived=False) == [("gotcha", 2)]


# ---------------------------------------------------------------- 16 writers and the fold, real connections

THREADS = 16


def test_sixteen_concurrent_writers_racing_the_fold_keep_the_counts_exact() -> None:
    account = AccountFactory(name="concurrency")
    kinds = ("gotcha", "decision", "lesson")
    start = threading.Barrier(THREADS + 1)
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            start.wait()
            for round_ in range(6):
                lesson = _write(account, f"w{i}-{round_}", kind=kinds[(i + round_) % 3], host=f"h{i % 4}")
                if round_ % 2:
                    _write(account, lesson.key, kind=kinds[(i + round_ + 1) % 3])  # moved to another kind
                if round_ % 3 == 2:
                    lessons_archive(account=account, lesson_ids=[lesson.pk])
                if i % 4 == 0 and round_ == 5:
                    lessons_restore(account=account, lesson_ids=[lesson.pk])
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    def folder() -> None:
        try:
            start.wait()
            for _ in range(30):
                value_counts_fold(account.pk)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(THREADS)]
    threads.append(threading.Thread(target=folder))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert Lesson.objects.filter(account=account).count() == THREADS * 6
    assert_exact(account)
    value_counts_fold()
    assert_exact(account)


# ---------------------------------------------------------------- the menus that read them


def test_the_explorer_menu_over_the_whole_store_reads_the_kept_counts(account: Account) -> None:
    LessonFactory.create_batch(3, account=account, kind="gotcha", host="codex")
    LessonFactory.create_batch(2, account=account, kind="decision", host="cursor", protected=True)
    now = timezone.now()
    with CaptureQueriesContext(connection) as queries:
        counts = explorer_value_counts(account, ExplorerState(), KIND, now=now)
    assert counts == [("gotcha", 3), ("decision", 2)]  # protected lessons are listed when nothing is filtered
    assert any("lore_lessonvaluecount" in q["sql"] for q in queries.captured_queries)

    # Its own filter does not narrow a dimension's menu; another dimension's filter does, by GROUP BY.
    own = ExplorerState(rule=Rule().with_dimension("kind", DimFilter(("gotcha",), "in")))
    assert explorer_value_counts(account, own, KIND, now=now) == counts
    other = ExplorerState(rule=Rule().with_dimension("host", DimFilter(("codex",), "in")))
    with CaptureQueriesContext(connection) as queries:
        assert explorer_value_counts(account, other, KIND, now=now) == [("gotcha", 3)]
    assert not any("lore_lessonvaluecount" in q["sql"] for q in queries.captured_queries)
    assert explorer_value_counts(account, ExplorerState(q="nothing-says-this"), KIND, now=now) == []


def test_a_scoped_explorer_menu_counts_only_that_scope(account: Account) -> None:
    """The kept counts are the whole account's: a view or a policy narrowed to a scope counts its own lessons."""
    LessonFactory.create_batch(3, account=account, kind="gotcha", scope="repo::acme/app")
    LessonFactory.create_batch(2, account=account, kind="gotcha", scope="repo::acme/api")
    LessonFactory(account=account, kind="decision", scope="branch::acme/app::main")
    now = timezone.now()
    scoped = ExplorerState(rule=Rule(scope="repo::acme/app"))
    assert explorer_value_counts(account, scoped, KIND, now=now) == [("gotcha", 3), ("decision", 1)]
    policy_menu = policy_control(account, Rule(scope="repo::acme/api"))
    assert policy_menu.value_counts is not None
    assert policy_menu.value_counts(KIND, "") == [("gotcha", 2)]
    assert explorer_value_counts(account, ExplorerState(), KIND, now=now) == [("gotcha", 5), ("decision", 1)]


@pytest.mark.parametrize(
    "query",
    [
        "",
        "archived=1",
        "kind=lesson,bus",
        "kind=bus&kind_mode=nin&host=aw",
        "scope=repo::acme/app",
        "matrix=kind,host",
    ],
)
def test_the_explorer_cards_and_matrix_over_the_whole_store_read_the_kept_page_counts(
    account: Account, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the page counts (stat cards and matrix) with no condition, search, date range or run equals the pass
    over the lessons it replaces, and is read from lore_lessonpagecount."""
    import explorer.queries

    demo_store_create(account, lessons=400, seed=11)
    lesson_protect(account=account, lesson=Lesson.objects.filter(account=account).first(), protected=True)
    state = ExplorerState.from_query(QueryDict(query))
    now = timezone.now()
    with CaptureQueriesContext(connection) as queries:
        kept = explorer.queries.cards_and_matrix(account, state, now=now)
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert "lore_lessonpagecount" in sql and 'FROM "lore_lesson"' not in sql
    monkeypatch.setattr(
        explorer.queries, "maintained", lambda: False
    )  # the pass over the lessons, for reference
    assert kept == explorer.queries.cards_and_matrix(account, state, now=now)
    assert kept[0].lessons > 0


def test_the_every_minute_task_folds_and_is_on_the_beat_schedule(account: Account) -> None:
    from config.celery import VALUE_COUNTS_FOLD_TASK, app
    from lore.tasks import value_counts_fold_all

    for i in range(3):
        _write(account, f"k{i}", kind="gotcha")
    assert value_counts_fold_all() > 0
    assert LessonValueCount.objects.filter(account=account, dimension="kind").count() == 1
    entry = app.conf.beat_schedule["value-counts-fold"]
    assert entry["task"] == VALUE_COUNTS_FOLD_TASK == value_counts_fold_all.name
    assert entry["schedule"].minute == set(range(60))


def _varied_lessons(account: Account, n: int) -> list[Lesson]:
    hosts, kinds, agents = ("codex", "cursor", ""), ("gotcha", "decision", "bus"), ("claude", "planner", "")
    return [
        LessonFactory(
            account=account,
            key=f"v{i:03d}",
            host=hosts[i % 3],
            kind=kinds[i % 2],
            source_agent=agents[i % 3],
            owner=f"team-{i % 4}" if i % 5 else "",
            origin_repo="acme/app" if i % 2 else "acme/api",
            origin_branch=f"b{i % 3}",
            origin_pr=str(100 + i) if i % 3 else "",
            trigger="pre-commit" if i % 4 else "",
        )
        for i in range(n)
    ]


def test_a_runs_batches_and_its_undo_keep_the_counts_exact(account: Account) -> None:
    """Issue 29: an archive batch and a restore batch count the lessons they move in their own statement (the
    trigger steps aside for that statement only); the counts stay exact through a run of several batches, a pin
    on an archived lesson and the undo."""
    from policies import grooming
    from policies.models import PolicyRun

    lessons = _varied_lessons(account, 23)
    lesson_protect(account=account, lesson=lessons[4])  # not a candidate
    value_counts_fold(account.pk)
    rule = Rule(scope="repo::acme/app", conditions={"max_opened_count": 0})
    run = grooming.run_start(account=account, rule=rule, trigger=PolicyRun.Trigger.MANUAL)
    assert run is not None
    changes = LessonCountChange.objects.count()
    run = grooming.run_execute(run.pk, batch_size=5)
    assert run.archived == 22
    assert LessonCountChange.objects.count() - changes <= 5 * 2 * (len(TRIGGERED) + 1)
    assert_exact(account)
    lesson_protect(account=account, lesson=Lesson.objects.get(pk=lessons[7].pk))  # archived and pinned
    assert_exact(account)
    assert grooming.run_undo(run) == 22
    assert_exact(account)


def test_a_statement_that_counted_itself_leaves_the_next_one_counted(account: Account) -> None:
    """The trigger steps aside only for the statement that counted its own lessons: a plain update right after it,
    in the same transaction, is counted by the trigger as usual."""
    from lore.services import lessons_archive_batch

    lessons = _varied_lessons(account, 6)
    with transaction.atomic():
        archived = lessons_archive_batch(
            account=account,
            lesson_ids=[lesson.pk for lesson in lessons[:3]],
            guard=Q(),
            run_id=None,
            reason="test",
            actor="test",
            now=timezone.now(),
        )
        assert archived == 3
        Lesson.objects.filter(account=account, pk__in=[lesson.pk for lesson in lessons]).update(kind="howto")
    assert_exact(account)
