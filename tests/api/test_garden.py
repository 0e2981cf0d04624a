"""`/api/v1/findings` and `/api/v1/garden/run`: the report, gated apply, dismiss, undo; `supersedes` on write."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from lore.models import Finding, GardenRun, Lesson, SupersedesClaim
from tests.api.conftest import error_of
from tests.lore.garden_helpers import write

pytestmark = pytest.mark.django_db
UV = "Use uv instead of pip for every install; the lockfile is uv.lock and CI checks it."


@pytest.fixture
def garden_run(api, django_capture_on_commit_callbacks):  # noqa: ANN001, ANN201
    """POST /garden/run, its queued task run at commit (eager in tests)."""

    def run(body: dict | None = None):  # noqa: ANN202
        with django_capture_on_commit_callbacks(execute=True):
            return api.post("/garden/run", body)

    return run


@pytest.fixture
def duplicates(account):  # noqa: ANN001, ANN201
    keeper = write(account, "repo::acme/app", "use-uv", UV, opened=3)
    copy = write(account, "branch::acme/app::main", "use-uv-2", UV.lower())
    return keeper, copy


def test_garden_run_queues_an_inventory_and_get_findings_reports_members_actions_and_evidence(
    api, garden_run, duplicates
) -> None:  # noqa: ANN001
    keeper, copy = duplicates
    run = garden_run()
    assert (
        run.status_code == 202 and run.json()["status"] == "queued" and run.json()["already_pending"] is False
    )
    done = api.get(f"/garden/runs/{run.json()['id']}").json()
    assert (done["status"], done["found"], done["full"], done["phase"]) == ("done", 1, True, "")
    report = api.get("/findings").json()
    (finding,) = report["items"]
    assert report["apply_cap"] == 25 and report["last_run"]["id"] == run.json()["id"]
    assert finding["kind"] == "near_duplicate" and finding["family"] == "repo::acme/app"
    assert {(m["address"], m["action"]) for m in finding["members"]} == {
        (keeper.address, "keep"),
        (copy.address, "retire"),
    }
    assert finding["evidence"]["similarity_min"] >= 0.6
    assert api.get("/findings", kind="superseded").json()["items"] == []
    assert len(api.get("/findings", scope="branch::acme/app::main").json()["items"]) == 1
    assert api.get("/findings", kind="bogus").status_code == 422


def test_apply_retires_then_undo_restores_and_a_second_apply_is_a_409(api, garden_run, duplicates) -> None:  # noqa: ANN001
    keeper, copy = duplicates
    garden_run()
    finding_id = api.get("/findings").json()["items"][0]["id"]
    applied = api.post(f"/findings/{finding_id}/apply")
    assert applied.status_code == 200 and applied.json()["archived"] == 1
    copy.refresh_from_db()
    assert copy.archived_at is not None and copy.superseded_by_id == keeper.pk
    again = api.post(f"/findings/{finding_id}/apply")
    assert again.status_code == 409 and error_of(again)["code"] == "not_open"
    undone = api.post(f"/findings/{finding_id}/undo")
    assert undone.status_code == 200 and undone.json()["restored"] == 1
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


def test_apply_after_a_rewrite_is_a_409_stale_and_retires_nothing(
    api, account, garden_run, duplicates
) -> None:  # noqa: ANN001
    garden_run()
    finding_id = api.get("/findings").json()["items"][0]["id"]
    api.post(
        "/memories", {"scope": "branch::acme/app::main", "key": "use-uv-2", "content": UV.lower() + " yes"}
    )
    refused = api.post(f"/findings/{finding_id}/apply")
    assert refused.status_code == 409 and error_of(refused)["code"] == "stale"
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


def test_dismiss_answers_the_finding_dismissed(api, garden_run, duplicates) -> None:  # noqa: ANN001
    garden_run()
    finding_id = api.get("/findings").json()["items"][0]["id"]
    dismissed = api.post(f"/findings/{finding_id}/dismiss")
    assert dismissed.status_code == 200 and dismissed.json()["status"] == "dismissed"
    assert api.get("/findings").json()["items"] == []
    assert [f["id"] for f in api.get("/findings", status="dismissed").json()["items"]] == [finding_id]


def test_another_accounts_finding_answers_404(api, other_api, garden_run, duplicates) -> None:  # noqa: ANN001
    garden_run()
    finding_id = api.get("/findings").json()["items"][0]["id"]
    for action in ("apply", "dismiss", "undo"):
        assert other_api.post(f"/findings/{finding_id}/{action}").status_code == 404
    assert other_api.get("/findings").json()["items"] == []
    assert Finding.objects.get(pk=finding_id).status == "open"


def test_a_second_garden_run_while_one_is_queued_answers_that_one_already_pending(api, duplicates) -> None:  # noqa: ANN001
    first = api.post("/garden/run")  # its task is never sent: the test transaction never commits
    second = api.post("/garden/run", {"full": True})
    assert first.status_code == second.status_code == 202
    assert second.json()["id"] == first.json()["id"] and second.json()["already_pending"] is True
    assert GardenRun.objects.filter(status="queued").count() == 1 and Finding.objects.count() == 0


def test_a_garden_run_no_worker_finished_in_time_stops_blocking_the_next_one(
    api, account, duplicates
) -> None:  # noqa: ANN001
    first = api.post("/garden/run").json()
    GardenRun.objects.filter(pk=first["id"]).update(started_at=timezone.now() - timedelta(days=1))
    second = api.post("/garden/run").json()
    assert second["id"] != first["id"] and second["already_pending"] is False
    assert GardenRun.objects.get(pk=first["id"]).status == "failed"


def test_another_accounts_garden_run_answers_404(api, other_api, garden_run, duplicates) -> None:  # noqa: ANN001
    run_id = garden_run().json()["id"]
    assert other_api.get(f"/garden/runs/{run_id}").status_code == 404
    assert api.get(f"/garden/runs/{run_id}").status_code == 200


def test_write_takes_supersedes_addresses(api, account) -> None:  # noqa: ANN001
    written = api.post(
        "/memories",
        {
            "scope": "repo::acme/api",
            "key": "new",
            "content": "WAL archiving.",
            "supersedes": ["repo::acme/api::old"],
        },
    )
    assert written.status_code == 201
    assert list(SupersedesClaim.objects.values_list("scope", "key")) == [("repo::acme/api", "old")]


@pytest.mark.parametrize(
    ("supersedes", "words"),
    [
        (["not an address"], "SCOPE::KEY"),
        (["repo::acme/api::new"], "itself"),
        ([f"repo::acme/api::k{n}" for n in range(21)], "SUPERSEDES_MAX"),
    ],
)
def test_bad_supersedes_is_a_422_naming_the_field(api, supersedes: list[str], words: str) -> None:  # noqa: ANN001
    answer = api.post(
        "/memories", {"scope": "repo::acme/api", "key": "new", "content": "x", "supersedes": supersedes}
    )
    assert answer.status_code == 422
    error = error_of(answer)
    assert error["field"] == "supersedes" and words in error["message"]
    assert not Lesson.objects.exists()
