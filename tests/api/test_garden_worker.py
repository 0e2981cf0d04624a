"""Queued gardener runs with a real Celery worker on Redis, on the PostgreSQL test database: `POST /garden/run`
answers at once with a queued run, the worker takes it, `GET /garden/runs/{id}` follows it to done; two POSTs
racing each other queue one run."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from lore.models import Finding, GardenRun
from tests.api.conftest import Api
from tests.lore.garden_helpers import write
from tests.policies.test_tasks_worker import send, start_worker, wait_for, worker_env  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.celery, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
UV = "Use uv instead of pip for every install; the lockfile is uv.lock and CI checks it."
RUN_TASK = "lore.tasks.garden_inventory_run"


@pytest.fixture
def duplicates(account):  # noqa: ANN001, ANN201
    write(account, "repo::acme/app", "use-uv", UV, opened=3)
    write(account, "branch::acme/app::main", "use-uv-2", UV.lower())


def test_a_queued_inventory_is_run_by_the_worker_and_followed_until_done(
    api: Api,
    duplicates,  # noqa: ANN001
    start_worker,  # noqa: ANN001, F811
    send,  # noqa: ANN001, F811 (publishes to the worker's broker: the test's tasks are not eager)
) -> None:
    queued = api.post("/garden/run")
    assert queued.status_code == 202 and queued.json()["status"] == "queued"
    run_id = queued.json()["id"]
    worker = start_worker()
    wait_for(lambda: api.get(f"/garden/runs/{run_id}").json()["status"] == "done", "the inventory")
    # The run is marked done inside the task; the worker logs the task's success just after it returns.
    wait_for(lambda: worker.succeeded(RUN_TASK), "the worker's log of the task")
    done = api.get(f"/garden/runs/{run_id}").json()
    assert (done["found"], done["phase"], done["error"]) == (1, "", "") and worker.succeeded(RUN_TASK) == [
        "'done'"
    ]
    assert Finding.objects.filter(garden_run_id=run_id).count() == 1


def test_two_racing_posts_queue_one_inventory(api: Api, duplicates, start_worker, send) -> None:  # noqa: ANN001, F811
    barrier = threading.Barrier(2)
    answers: list[Any] = []

    def post() -> None:
        try:
            barrier.wait(timeout=30)
            answers.append(api.post("/garden/run").json())
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(answers) == 2 and answers[0]["id"] == answers[1]["id"]
    assert sorted(a["already_pending"] for a in answers) == [False, True]
    start_worker()
    wait_for(lambda: GardenRun.objects.get(pk=answers[0]["id"]).status == "done", "the inventory")
    assert GardenRun.objects.count() == 1 and Finding.objects.count() == 1
