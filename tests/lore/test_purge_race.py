"""Restore vs purge on PostgreSQL, with real concurrent transactions: nothing the person kept is lost."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from lore import purge
from lore.models import Account, Lesson, Tombstone
from lore.services import lesson_restore, lessons_restore
from tests.factories import AccountFactory, LessonFactory
from tests.policies.test_grooming_race import in_thread
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def wait_until_a_statement_waits_on_a_lock(like: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND query LIKE %s",
                [like],
            )
            if cursor.fetchone()[0]:
                return
        time.sleep(0.02)
    raise AssertionError(f"no statement like {like!r} ever waited for a row lock")


@pytest.fixture
def account() -> Account:
    require_postgres()
    return AccountFactory(name="purge-race")


def old_archived(account: Account) -> Lesson:
    return LessonFactory(account=account, archived_at=timezone.now() - timedelta(days=400))


def test_a_restore_that_commits_while_the_purge_waits_for_its_row_wins(account: Account) -> None:
    kept, bystander = old_archived(account), old_archived(account)
    restored, release = threading.Event(), threading.Event()
    result: dict[str, object] = {}

    def restore_and_hold() -> None:
        with transaction.atomic():
            lesson_restore(account=account, lesson=Lesson.objects.get(pk=kept.pk))
            restored.set()
            release.wait(30)

    def purge_now() -> None:
        result["run"] = purge.account_purge(account)

    person = in_thread(restore_and_hold)
    assert restored.wait(30)
    purger = in_thread(purge_now)
    wait_until_a_statement_waits_on_a_lock("SELECT%FOR UPDATE%")
    release.set()
    person.join(30)
    purger.join(30)
    kept.refresh_from_db()
    assert kept.archived_at is None
    assert not Lesson.objects.filter(pk=bystander.pk).exists()
    assert list(Tombstone.objects.values_list("lesson_id", flat=True)) == [bystander.pk]
    assert result["run"].purged == 1  # type: ignore[attr-defined]


def test_a_restore_that_arrives_while_the_purge_holds_the_row_finds_the_tombstone(account: Account) -> None:
    target = old_archived(account)
    locked, release = threading.Event(), threading.Event()
    result: dict[str, int] = {}
    original = Tombstone.objects.bulk_create

    def hold_after_delete(*args: object, **kwargs: object) -> object:
        created = original(*args, **kwargs)
        locked.set()
        release.wait(30)
        return created

    def purge_now() -> None:
        Tombstone.objects.bulk_create = hold_after_delete  # type: ignore[method-assign]
        try:
            purge.account_purge(account)
        finally:
            Tombstone.objects.bulk_create = original  # type: ignore[method-assign]

    def restore_now() -> None:
        result["restored"] = lessons_restore(account=account, lesson_ids=[target.pk])

    purger = in_thread(purge_now)
    assert locked.wait(30)
    person = in_thread(restore_now)
    # The restore's batch is one statement on PostgreSQL (WITH picked AS (SELECT … FOR UPDATE) …).
    wait_until_a_statement_waits_on_a_lock("%SELECT%FOR UPDATE%")
    release.set()
    purger.join(30)
    person.join(30)
    assert result["restored"] == 0
    tomb = purge.tombstone_latest(account, target.scope, target.key)
    assert tomb is not None and "purged on" in purge.purged_message(tomb)
