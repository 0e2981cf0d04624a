"""Tenancy: with account B's token, every endpoint on account A's lessons and policies answers 404 and
changes nothing; lists, searches and exports of B never show A's lessons."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from lore.models import ReadEvent
from lore.transfer import export_trailer
from policies.models import PolicyRun
from tests.api.conftest import error_of
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def export(api) -> bytes:  # noqa: ANN001
    return b"".join(api.get("/memories/export").streaming_content)


def test_another_accounts_lessons_and_policies_answer_404_and_change_nothing(api, other_api, account) -> None:  # noqa: ANN001
    old = timezone.now() - timedelta(days=200)
    lesson = LessonFactory(account=account, key="secret", created_at=old)
    archived = LessonFactory(account=account, key="archived", created_at=old, archived_at=timezone.now())
    policy = api.post("/policies", {"name": "a's rule", "scope": "repo::acme/app", "unseen_days": 90}).json()
    policies_before = api.get("/policies").json()
    before = export(api)

    attempts = [
        other_api.get(f"/memories/{lesson.pk}"),
        other_api.post("/memories/read", {"address": "repo::acme/app::secret"}),
        other_api.post("/memories/read", {"scope": "repo::acme/app", "key": "secret"}),
        other_api.post("/memories/protect", {"address": "repo::acme/app::secret", "protected": True}),
        other_api.post("/memories/protect", {"address": "repo::acme/app::secret", "protected": False}),
        other_api.post("/memories/restore", {"address": "repo::acme/app::archived"}),
        other_api.post("/memories/groom/preview", {"policy_id": policy["id"]}),
        other_api.post("/memories/groom/run", {"policy_id": policy["id"]}),
        other_api.get(f"/policies/{policy['id']}"),
        other_api.patch(f"/policies/{policy['id']}", {"name": "mine now", "unseen_days": None}),
        other_api.delete(f"/policies/{policy['id']}"),
    ]
    for response in attempts:
        assert response.status_code == 404, response.content
        assert error_of(response)["code"] == "not_found"

    # What B can see of its own account holds nothing of A's.
    assert other_api.get("/memories").json()["items"] == []
    assert other_api.post("/memories/search", {"query": "secret"}).json()["items"] == []
    assert other_api.get("/policies").json() == []
    assert export(other_api) == export_trailer(lessons=0, tombstones=0).encode()
    assert other_api.post("/memories/groom/run", {"scope": "global", "min_age_days": 1}).json()["count"] == 0

    assert export(api) == before
    assert api.get("/policies").json() == policies_before
    archived.refresh_from_db()
    assert archived.archived_at is not None
    assert not PolicyRun.objects.filter(account=account).exists()
    assert not ReadEvent.objects.filter(account=account).exists()


def test_the_same_address_in_another_account_is_another_lesson(api, other_api, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="shared-name", content="a's text")
    before = export(api)
    created = other_api.post(
        "/memories", {"scope": "repo::acme/app", "key": "shared-name", "content": "b's text"}
    )
    assert created.status_code == 201
    assert export(api) == before
    assert (
        other_api.post("/memories/read", {"address": "repo::acme/app::shared-name"}).json()["content"]
        == "b's text"
    )
