"""`POST /memories/groom/preview` and `/groom/run`: the seed's curl request and answer, and a run that archives
exactly the previewed set."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from lore.models import Lesson
from policies.models import PolicyRun
from tests.api.conftest import error_of
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db
SEED_BODY = {"scope": "repo::acme/app", "unseen_days": 90}


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
            account=account, key="opened-lately", created_at=old, last_opened_at=now - timedelta(days=3)
        ),
        "young": LessonFactory(account=account, key="young", created_at=now - timedelta(days=7)),
        "pinned": LessonFactory(account=account, key="pinned", created_at=old, protected=True),
        "other-repo": LessonFactory(
            account=account, scope="repo::acme/web", key="other-repo", created_at=old
        ),
    }


def test_the_seeds_curl_preview_answers_count_and_keys(api, store) -> None:  # noqa: ANN001
    response = api.post("/memories/groom/preview", SEED_BODY)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"count", "keys"}
    assert body["count"] == 2
    assert body["keys"] == [
        {"scope": "branch::acme/app::main", "key": "stale-branch"},
        {"scope": "repo::acme/app", "key": "stale"},
    ]


def test_a_preview_changes_nothing(api, store) -> None:  # noqa: ANN001
    before = list(Lesson.objects.order_by("pk").values())
    api.post("/memories/groom/preview", SEED_BODY)
    assert list(Lesson.objects.order_by("pk").values()) == before
    assert not PolicyRun.objects.exists()


def test_a_run_archives_exactly_the_previewed_set_and_records_the_run(api, store) -> None:  # noqa: ANN001
    preview = api.post("/memories/groom/preview", SEED_BODY).json()
    result = api.as_surface("cli").post("/memories/groom/run", SEED_BODY).json()
    assert (result["count"], result["keys"]) == (preview["count"], preview["keys"])
    archived = {(lsn.scope, lsn.key) for lsn in Lesson.objects.filter(archived_at__isnull=False)}
    assert archived == {(k["scope"], k["key"]) for k in preview["keys"]}
    run = PolicyRun.objects.get(pk=result["run_id"])
    assert (run.trigger, run.status, run.archived) == ("cli", "done", 2)
    assert api.post("/memories/groom/run", SEED_BODY).json()["count"] == 0  # idempotent


def test_a_saved_policy_is_previewed_and_run_by_policy_id(api, store) -> None:  # noqa: ANN001
    policy = api.post("/policies", {"name": "stale repo lore", **SEED_BODY}).json()
    preview = api.post("/memories/groom/preview", {"policy_id": policy["id"]}).json()
    assert preview["count"] == 2
    result = api.post("/memories/groom/run", {"policy_id": policy["id"]}).json()
    assert result["keys"] == preview["keys"]
    run = PolicyRun.objects.get(pk=result["run_id"])
    assert (run.policy_id, run.trigger) == (policy["id"], "api")


def test_protected_lessons_are_never_previewed_or_archived(api, store) -> None:  # noqa: ANN001
    api.post("/memories/groom/run", {"scope": "global", "min_age_days": 30})
    store["pinned"].refresh_from_db()
    assert store["pinned"].archived_at is None


def test_policy_id_and_an_inline_rule_cannot_be_mixed(api, store) -> None:  # noqa: ANN001
    policy = api.post("/policies", {"name": "p", **SEED_BODY}).json()
    response = api.post("/memories/groom/preview", {"policy_id": policy["id"], "scope": "global"})
    assert response.status_code == 422 and error_of(response)["field"] == "scope"


def test_an_empty_rule_is_refused_rather_than_archiving_everything(api, store) -> None:  # noqa: ANN001
    response = api.post("/memories/groom/run", {"scope": "global"})
    assert response.status_code == 422
    assert error_of(response)["field"] == "conditions"
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


def test_a_misspelt_condition_is_an_error_not_a_wider_rule(api, store) -> None:  # noqa: ANN001
    response = api.post("/memories/groom/run", {"scope": "global", "min_age_days": 30, "max_opened_cout": 0})
    assert response.status_code == 422
    assert error_of(response)["field"] == "max_opened_cout"
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


def test_reverse_conditions_are_refused_in_a_groom(api, store) -> None:  # noqa: ANN001
    response = api.post("/memories/groom/preview", {"scope": "global", "min_opened_count": 3})
    assert response.status_code == 422


def test_a_policy_with_a_run_going_answers_409(api, account, store) -> None:  # noqa: ANN001
    policy = api.post("/policies", {"name": "p", **SEED_BODY}).json()
    PolicyRun.objects.create(account=account, policy_id=policy["id"], trigger="manual", status="pending")
    response = api.post("/memories/groom/run", {"policy_id": policy["id"]})
    assert response.status_code == 409
    assert error_of(response)["code"] == "run_active"


# ---------------------------------------------------------------- a run carries out the preview it was shown


def as_of_of(preview_response) -> str:  # noqa: ANN001
    return preview_response["Lore-As-Of"]


def test_a_preview_says_when_it_was_taken_and_its_body_stays_count_and_keys(api, store) -> None:  # noqa: ANN001
    before = timezone.now()
    response = api.post("/memories/groom/preview", SEED_BODY)
    taken = datetime.fromisoformat(as_of_of(response))
    assert before <= taken <= timezone.now()
    assert set(response.json()) == {"count", "keys"}


def test_a_run_given_its_previews_as_of_archives_that_preview_not_what_was_written_since(
    api,
    store,
    account,  # noqa: ANN001
) -> None:
    rule = {"scope": "global", "kind": ["bug"]}
    LessonFactory(account=account, key="old-bug", kind="bug")
    shown = api.post("/memories/groom/preview", rule)
    written = api.post("/memories", {"scope": "global", "key": "new-bug", "kind": "bug", "content": "x"})
    assert written.status_code == 201
    result = api.post("/memories/groom/run", {**rule, "as_of": as_of_of(shown)}).json()
    assert (result["count"], result["keys"]) == (shown.json()["count"], shown.json()["keys"])
    assert not Lesson.objects.get(key="new-bug").archived_at
    assert PolicyRun.objects.get(pk=result["run_id"]).as_of == datetime.fromisoformat(as_of_of(shown))


def test_a_run_without_as_of_archives_what_matches_when_it_runs(api, store, account) -> None:  # noqa: ANN001
    rule = {"scope": "global", "kind": ["bug"]}
    api.post("/memories/groom/preview", rule)
    api.post("/memories", {"scope": "global", "key": "new-bug", "kind": "bug", "content": "x"})
    assert api.post("/memories/groom/run", rule).json()["keys"] == [{"scope": "global", "key": "new-bug"}]


@pytest.mark.parametrize(
    ("age", "reason"),
    [(timedelta(hours=2), "too old"), (-timedelta(minutes=5), "in the future")],
)
def test_a_run_of_a_preview_over_an_hour_old_or_from_the_future_archives_nothing(
    api,
    store,
    age: timedelta,
    reason: str,  # noqa: ANN001
) -> None:
    as_of = (timezone.now() - age).isoformat()
    response = api.post("/memories/groom/run", {**SEED_BODY, "as_of": as_of})
    assert response.status_code == 409
    error = error_of(response)
    assert (error["code"], error["field"]) == ("preview_outdated", "as_of")
    assert reason in error["message"] and "preview again" in error["message"]
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()
    assert not PolicyRun.objects.exists()


def test_a_run_of_a_preview_taken_before_its_policy_changed_archives_nothing(api, store) -> None:  # noqa: ANN001
    policy = api.post("/policies", {"name": "stale repo lore", **SEED_BODY}).json()
    shown = api.post("/memories/groom/preview", {"policy_id": policy["id"]})
    api.patch(f"/policies/{policy['id']}", {"unseen_days": 30})
    response = api.post("/memories/groom/run", {"policy_id": policy["id"], "as_of": as_of_of(shown)})
    assert response.status_code == 409
    assert "changed after that preview" in error_of(response)["message"]
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


@pytest.mark.parametrize("as_of", ["2026-11-29T12:00:00", "yesterday", "2026-13-45T00:00:00+00:00"])
def test_an_as_of_that_is_not_a_time_with_its_zone_is_refused_by_field(api, store, as_of) -> None:  # noqa: ANN001
    response = api.post("/memories/groom/run", {**SEED_BODY, "as_of": as_of})
    assert response.status_code == 422
    assert error_of(response)["field"] == "as_of"
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()
