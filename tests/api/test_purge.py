"""A purged lesson through the REST API: restore answers 410 "purged on …", export can carry tombstones."""

from __future__ import annotations

import json
from datetime import timedelta

from django.utils import timezone

from lore.purge import account_purge
from lore.transfer import import_lines
from tests.factories import LessonFactory


def purged_lesson(account, key: str = "old"):  # noqa: ANN001, ANN201
    lesson = LessonFactory(account=account, key=key, archived_at=timezone.now() - timedelta(days=400))
    account_purge(account)
    return lesson


def test_restore_of_a_purged_lesson_answers_410_purged_on_the_day(api, account) -> None:  # noqa: ANN001
    purged_lesson(account)
    response = api.post("/memories/restore", {"address": "repo::acme/app::old"})
    assert response.status_code == 410
    error = response.json()["error"]
    today = timezone.now().strftime("%Y-%m-%d")
    assert error["code"] == "purged" and f"purged on {today}" in error["message"]


def test_restore_of_a_key_that_never_existed_is_still_404(api, account) -> None:  # noqa: ANN001
    assert api.post("/memories/restore", {"address": "repo::acme/app::nope"}).status_code == 404


def test_a_tombstone_of_another_account_is_not_shown(api, other_account) -> None:  # noqa: ANN001
    purged_lesson(other_account)
    assert api.post("/memories/restore", {"address": "repo::acme/app::old"}).status_code == 404


def test_export_includes_tombstones_only_when_asked_and_import_skips_them(api, account) -> None:  # noqa: ANN001
    purged_lesson(account)
    LessonFactory(account=account, key="kept")
    plain = b"".join(api.get("/memories/export").streaming_content).decode().splitlines()
    assert [json.loads(line)["key"] for line in plain[:-1]] == ["kept"]
    assert json.loads(plain[-1]) == {"export": "complete", "lessons": 1, "tombstones": 0}
    full = b"".join(api.get("/memories/export", tombstones="true").streaming_content).decode().splitlines()
    assert json.loads(full[-1]) == {"export": "complete", "lessons": 1, "tombstones": 1}
    tomb = json.loads(full[-2])
    assert tomb["tombstone"] is True and tomb["key"] == "old" and tomb["purged_at"] and tomb["content_hash"]
    report = import_lines(account, full)
    assert report.failed == [] and report.updated == 1 and report.created == 0
