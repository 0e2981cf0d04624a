"""Rewrite vs apply on PostgreSQL, with real concurrent transactions: nothing the person wrote is lost."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction

from lore.events import lesson_history
from lore.garden.apply import FindingStale, finding_apply
from lore.garden.inventory import garden_inventory
from lore.inputs import LessonInput
from lore.models import Account, Finding, Lesson
from lore.services import lesson_write
from tests.factories import AccountFactory
from tests.lore.garden_helpers import write
from tests.lore.test_purge_race import wait_until_a_statement_waits_on_a_lock
from tests.policies.test_grooming_race import in_thread
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
UV = "Use uv instead of pip for every install; the lockfile is uv.lock and CI checks it."
REWRITTEN = "Use uv for every install, and pin it in CI: this copy now says more."


@pytest.fixture
def account() -> Account:
    require_postgres()
    return AccountFactory(name="garden-race")


def found(account: Account) -> tuple[Lesson, Finding]:
    write(account, "repo::acme/app", "use-uv", UV, opened=5)
    copy = write(account, "repo::acme/app", "use-uv-2", UV.lower())
    garden_inventory(account)
    return copy, Finding.objects.get(account=account)


def rewrite(account: Account) -> None:
    data = LessonInput.from_data({"scope": "repo::acme/app", "key": "use-uv-2", "content": REWRITTEN})
    lesson_write(account=account, data=data, actor="alice")


def test_a_rewrite_that_commits_while_the_apply_waits_for_its_row_makes_the_apply_retire_nothing(
    account: Account,
) -> None:
    copy, finding = found(account)
    rewritten, release = threading.Event(), threading.Event()
    result: dict[str, object] = {}

    def rewrite_and_hold() -> None:
        with transaction.atomic():
            rewrite(account)
            rewritten.set()
            release.wait(30)

    def apply_now() -> None:
        try:
            finding_apply(account=account, finding_id=finding.pk, actor="bob")
        except FindingStale as exc:
            result["refused"] = exc.message

    person = in_thread(rewrite_and_hold)
    assert rewritten.wait(30)
    applier = in_thread(apply_now)
    wait_until_a_statement_waits_on_a_lock("SELECT%FOR UPDATE%")
    release.set()
    person.join(30)
    applier.join(30)
    copy.refresh_from_db()
    assert "changed since the inventory" in str(result.get("refused"))
    assert copy.archived_at is None and copy.content == REWRITTEN
    assert Finding.objects.get(pk=finding.pk).status == "open"
    assert not Lesson.objects.filter(account=account, archived_at__isnull=False).exists()


def test_a_rewrite_that_arrives_while_the_apply_holds_the_row_brings_the_lesson_back_rewritten(
    account: Account,
) -> None:
    copy, finding = found(account)
    applied, release = threading.Event(), threading.Event()

    def apply_and_hold() -> None:
        with transaction.atomic():
            finding_apply(account=account, finding_id=finding.pk, actor="bob")
            applied.set()
            release.wait(30)

    applier = in_thread(apply_and_hold)
    assert applied.wait(30)
    person = in_thread(lambda: rewrite(account))
    wait_until_a_statement_waits_on_a_lock("SELECT%FOR UPDATE%")
    release.set()
    applier.join(30)
    person.join(30)
    copy.refresh_from_db()
    assert copy.archived_at is None and copy.content == REWRITTEN and copy.superseded_by_id is None
    history = lesson_history(account.pk, copy.pk, limit=10)  # per-lesson events and the archive's batch
    assert [entry.action for entry in reversed(history)][-3:] == [
        "archived",
        "restored",
        "written",
    ]
