"""The counter rules of the seed and DESIGN.md §3, one test per sentence."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import close_old_connections, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore.inputs import LessonInput
from lore.models import Lesson, LessonRead, ReadEvent
from lore.reads import reads_fold, reads_settle
from lore.selectors import lessons_page
from lore.services import lesson_open, lesson_write, lessons_deliver
from tests.factories import AccountFactory, LessonFactory
from tests.services import require_postgres

pytestmark = pytest.mark.django_db


def write(account, key="use-uv", scope="repo::acme/app", **extra):  # noqa: ANN001, ANN201
    data = LessonInput.from_data({"scope": scope, "key": key, "content": "use uv", **extra})
    return lesson_write(account=account, data=data)[0]


def counters(lesson: Lesson) -> tuple[int, int, int]:
    """The lesson's counters once its account's buffered reads are folded (lore.reads)."""
    reads_settle(lesson.account)
    lesson.refresh_from_db()
    return lesson.seen_count, lesson.read_count, lesson.opened_count


def test_a_write_bumps_recurrence(account) -> None:  # noqa: ANN001
    lesson = write(account)
    assert lesson.seen_count == 1
    lesson = write(account)
    assert lesson.seen_count == 2
    assert Lesson.objects.count() == 1


def test_a_write_moves_neither_delivered_nor_chosen(account) -> None:  # noqa: ANN001
    lesson = write(account)
    write(account)
    assert counters(lesson) == (2, 0, 0)
    assert lesson.last_read_at is None and lesson.last_opened_at is None
    assert not ReadEvent.objects.exists()


def test_a_list_page_bumps_delivered_for_every_lesson_on_it_in_one_insert_and_updates_no_lesson(
    account,
) -> None:  # noqa: ANN001
    lessons = [write(account, key=f"k{i}") for i in range(20)]
    bystander = write(account, key="not-on-the-page")
    with CaptureQueriesContext(connection) as captured:
        lessons_deliver(
            account=account, lesson_ids=[x.pk for x in lessons], scope="repo::acme/app", surface="api"
        )
    writes = [q["sql"] for q in captured.captured_queries if q["sql"].startswith(("INSERT", "UPDATE"))]
    assert [sql.split()[2].strip('"') for sql in writes] == ["lore_lessonread", "lore_readevent"]
    assert {counters(x) for x in lessons} == {(1, 1, 0)}
    assert counters(bystander) == (1, 0, 0)
    event = ReadEvent.objects.get()
    assert (event.lesson_count, event.scope, event.surface) == (20, "repo::acme/app", "api")


def test_a_detail_sheet_delivery_bumps_delivered_but_not_chosen(account) -> None:  # noqa: ANN001
    lesson = write(account)
    lessons_deliver(account=account, lesson_ids=[lesson.pk], scope=lesson.scope, surface="dashboard")
    assert counters(lesson) == (1, 1, 0)
    assert lesson.last_read_at is not None and lesson.last_opened_at is None
    assert ReadEvent.objects.get().surface == "dashboard"


def test_a_single_fetch_bumps_delivered_but_not_chosen(account) -> None:  # noqa: ANN001
    lesson = write(account)
    lessons_deliver(account=account, lesson_ids=[lesson.pk], scope=lesson.scope, surface="api")
    lessons_deliver(account=account, lesson_ids=[lesson.pk], scope=lesson.scope, surface="api")
    assert counters(lesson) == (1, 2, 0)
    assert lesson.last_opened_at is None


def test_a_deliberate_open_bumps_chosen_last_agent_open_and_delivered(account) -> None:  # noqa: ANN001
    lesson = lesson_open(account=account, lesson=write(account), surface="mcp")
    assert (lesson.seen_count, lesson.read_count, lesson.opened_count) == (1, 1, 1)
    assert lesson.last_opened_at is not None and lesson.last_read_at == lesson.last_opened_at
    assert ReadEvent.objects.get().lesson_count == 1


def test_reading_never_moves_last_updated(account) -> None:  # noqa: ANN001
    lesson = write(account)
    before = lesson.updated_at
    later = timezone.now() + timedelta(days=3)
    for surface in ("api", "cli", "mcp", "dashboard"):
        lessons_deliver(account=account, lesson_ids=[lesson.pk], scope="global", surface=surface, now=later)
    lesson = lesson_open(account=account, lesson=lesson, surface="cli", now=later)
    assert lesson.updated_at == before
    assert lesson.last_read_at == later and lesson.last_opened_at == later


def test_a_write_moves_last_updated(account) -> None:  # noqa: ANN001
    lesson = write(account)
    later = timezone.now() + timedelta(seconds=5)
    data = LessonInput.from_data({"scope": "repo::acme/app", "key": "use-uv", "content": "use uv!"})
    lesson, created = lesson_write(account=account, data=data, now=later)
    assert not created and lesson.updated_at == later and lesson.content == "use uv!"


def test_opened_count_never_exceeds_read_count(account) -> None:  # noqa: ANN001
    lesson = write(account)
    for _ in range(3):
        lesson = lesson_open(account=account, lesson=lesson, surface="mcp")
    lessons_deliver(account=account, lesson_ids=[lesson.pk], scope="global", surface="api")
    _, delivered, chosen = counters(lesson)
    assert chosen <= delivered


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["write", "page", "fetch", "sheet", "open"]), max_size=25))
def test_opened_count_stays_at_most_read_count_whatever_the_sequence(account, steps: list[str]) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, read_count=0)
    expected = [1, 0, 0]
    for step in steps:
        if step == "write":
            write(account, key=lesson.key)
            expected[0] += 1
        elif step == "open":
            lesson_open(account=account, lesson=lesson, surface="mcp")
            expected[1] += 1
            expected[2] += 1
        else:
            surface = "dashboard" if step == "sheet" else "api"
            lessons_deliver(account=account, lesson_ids=[lesson.pk], scope=lesson.scope, surface=surface)
            expected[1] += 1
    assert counters(lesson) == tuple(expected)
    assert lesson.opened_count <= lesson.read_count


def test_a_write_to_an_archived_key_restores_it(account) -> None:  # noqa: ANN001
    lesson = write(account)
    Lesson.objects.filter(pk=lesson.pk).update(archived_at=timezone.now())
    lesson = write(account)
    assert lesson.archived_at is None
    assert lesson.events.filter(action="restored").exists()


def test_reads_never_cross_accounts(account, other_account) -> None:  # noqa: ANN001
    theirs = LessonFactory(account=other_account, read_count=0)
    lessons_deliver(account=account, lesson_ids=[theirs.pk], scope="global", surface="api")
    with pytest.raises(Lesson.DoesNotExist):
        lesson_open(account=account, lesson=theirs, surface="mcp")
    reads_settle(account)  # the fold of the reading account moves nothing of theirs
    assert counters(theirs) == (1, 0, 0)
    assert not ReadEvent.objects.filter(account=account, lesson_count=1, surface="mcp").exists()


# ---------------------------------------------------------------- concurrency (real connections, PostgreSQL)

THREADS = 16


def _in_threads(work, count: int = THREADS) -> list[BaseException]:  # noqa: ANN001
    """Run `work(i)` in `count` threads, each on its own database connection, all released at once."""
    start = threading.Barrier(count)
    errors: list[BaseException] = []

    def body(i: int) -> None:
        try:
            start.wait()
            work(i)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_deliveries_racing_folds_lose_and_double_no_increment() -> None:
    require_postgres()
    account = AccountFactory(name="concurrency")
    page = [LessonFactory(account=account, read_count=0, key=f"k{i}") for i in range(20)]
    lessons = Lesson.objects.filter(account=account)
    ids = [lesson.pk for lesson in page]
    rounds = 10

    def deliver(i: int) -> None:
        if i % 2:  # half the clients get bitmap heap scans (physical order), half index scans (id order)
            with connection.cursor() as cursor:
                cursor.execute("SET enable_indexscan = off")
                cursor.execute("SET enable_seqscan = off")
        for n in range(rounds):
            # Pages overlap in different orders, as concurrent list calls do.
            order = ids if (i + n) % 2 else list(reversed(ids))
            lessons_deliver(account=account, lesson_ids=order, scope="repo::acme/app", surface="api")
            only = ids[i % len(ids)]
            lesson_open(account=account, lesson=Lesson.objects.get(pk=only), surface="mcp")
            if n % 4 == i % 4:  # folds race the reads: the beat's (skipping held rows) and a rule's (waiting)
                reads_fold() if i % 2 else reads_settle(account)

    assert _in_threads(deliver) == []
    shown = {
        lesson.pk: (lesson.read_count, lesson.opened_count) for lesson in lessons_page(lessons, limit=50).rows
    }
    reads_settle(account)
    assert not LessonRead.objects.filter(account=account).exists()
    reads = dict(Lesson.objects.filter(pk__in=ids).values_list("pk", "read_count"))
    opens = dict(Lesson.objects.filter(pk__in=ids).values_list("pk", "opened_count"))
    for index, pk in enumerate(ids):
        opened_here = sum(rounds for i in range(THREADS) if i % len(ids) == index)
        assert opens[pk] == opened_here
        assert reads[pk] == THREADS * rounds + opened_here
        assert shown[pk] == (reads[pk], opens[pk])  # what a page showed before the last fold: the same
    assert ReadEvent.objects.filter(account=account).count() == THREADS * rounds * 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_writes_of_one_key_make_one_lesson_and_count_every_write() -> None:
    require_postgres()
    account = AccountFactory(name="concurrent-writes")

    def write_it(i: int) -> None:
        write(account, key="raced", content=f"version {i}")

    assert _in_threads(write_it) == []
    lesson = Lesson.objects.get(account=account, key="raced")
    assert lesson.seen_count == THREADS


def test_a_rewrite_keeps_the_tag_rows_in_step_with_its_tags(account) -> None:  # noqa: ANN001
    from lore.models import LessonTag

    def rows(lesson: Lesson) -> set[str]:
        return set(LessonTag.objects.filter(lesson=lesson).values_list("tag", flat=True))

    lesson = write(account, tags=["ci", "flaky"])
    assert rows(lesson) == {"ci", "flaky"}
    with CaptureQueriesContext(connection) as same:
        lesson = write(account, tags=["ci", "flaky"])
    assert rows(lesson) == {"ci", "flaky"}
    assert not [q for q in same.captured_queries if "lore_lessontag" in q["sql"]]  # unchanged: left alone
    lesson = write(account, tags=["ci"])
    assert rows(lesson) == {"ci"} and lesson.tags == ["ci"]
