"""`/metrics`: off until a token is configured, answers only that token, and reports exactly what the database
holds (scraped over HTTP and read with prometheus-client's own parser), with series bounded whatever the store."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from lore.metrics import POLICY_NONE, POLICY_OTHER, STORE_QUERIES, StoreCollector
from lore.models import (
    Account,
    Finding,
    GardenRun,
    LessonRead,
    PolicyRun,
    PurgeRun,
    Tombstone,
    TransferJob,
)
from policies.models import RetentionPolicy
from tests.factories import AccountFactory, LessonFactory

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "metrics-token-for-tests-" + "x" * 20

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture
def metrics_on(settings):  # noqa: ANN001, ANN201
    settings.LORE_METRICS_TOKEN = TOKEN
    return settings


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def parsed(text: str) -> Samples:
    """Every sample of a scrape, by name and labels, read by prometheus-client's parser."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, frozenset(labels.items()))]


def scrape(client: Client) -> Samples:
    answer = client.get("/metrics", **bearer())
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"].startswith("text/plain; version=")
    return parsed(answer.content.decode())


# ---------------------------------------------------------------- the store, set up


def run(
    account: Account, policy_id: int | None, status: str, *, seconds: int | None, **counts: int
) -> PolicyRun:
    started = timezone.now() - timedelta(hours=1)
    return PolicyRun.objects.create(
        account=account,
        policy_id=policy_id,
        trigger=PolicyRun.Trigger.NIGHTLY,
        status=status,
        started_at=started,
        finished_at=started + timedelta(seconds=seconds) if seconds is not None else None,
        **counts,
    )


def policy(account: Account, name: str) -> int:
    return RetentionPolicy.objects.create(account=account, name=name, scope="global", min_age_days=30).pk


def store_with_everything() -> None:
    """Runs of two policies and an ad-hoc rule, jobs, inventories and findings, pending reads, purges."""
    acme, globex = AccountFactory(name="acme"), AccountFactory(name="globex")
    old, cold = policy(acme, "old"), policy(globex, "cold")
    run(acme, old, PolicyRun.Status.DONE, seconds=3, matched=5, archived=5, restored=2)
    run(acme, old, PolicyRun.Status.DONE, seconds=5, matched=7, archived=7)
    run(acme, old, PolicyRun.Status.FAILED, seconds=2, archived=1)
    run(globex, cold, PolicyRun.Status.INTERRUPTED, seconds=None, archived=4)
    run(globex, cold, PolicyRun.Status.RUNNING, seconds=None)
    run(acme, None, PolicyRun.Status.DONE, seconds=11, archived=9)  # an ad-hoc rule
    for kind, status in [("export", "done"), ("export", "done"), ("export", "expired"), ("import", "failed")]:
        TransferJob.objects.create(account=acme, kind=kind, status=status)
    now = timezone.now()
    GardenRun.objects.create(
        account=acme,
        status="done",
        started_at=now - timedelta(hours=2),
        finished_at=now - timedelta(minutes=110),
    )
    GardenRun.objects.create(
        account=acme,
        status="done",
        started_at=now - timedelta(hours=1),
        finished_at=now - timedelta(minutes=59),
    )
    GardenRun.objects.create(account=globex, status="running", started_at=now)
    for n, (kind, status) in enumerate(
        [
            ("near_duplicate", "open"),
            ("near_duplicate", "open"),
            ("superseded", "open"),
            ("superseded", "applied"),
        ]
    ):
        Finding.objects.create(
            account=acme,
            kind=kind,
            status=status,
            family="repo::acme/app",
            fingerprint=f"f{n}",
            created_at=now,
        )
    lessons = [LessonFactory(account=acme) for _ in range(3)]
    LessonRead.objects.bulk_create(
        [LessonRead(account=acme, lesson_id=lessons[n % 3].pk, opened=n == 0, at=now) for n in range(5)]
    )
    purge = PurgeRun.objects.create(
        account=acme, cutoff=now, status="done", purged=2, started_at=now, finished_at=now
    )
    PurgeRun.objects.create(account=globex, cutoff=now, status="failed", purged=0, started_at=now)
    for n in range(2):
        Tombstone.objects.create(
            account=acme,
            lesson_id=1000 + n,
            scope="global",
            key=f"gone-{n}",
            content_hash="0" * 64,
            archived_at=now - timedelta(days=200),
            purged_at=now,
            purge_run=purge,
        )


def expected_from_the_database() -> Samples:
    """The figures, worked out row by row in Python from what the database holds (not with the collector's SQL)."""
    expected: Samples = {}

    def put(name: str, amount: float, **labels: str) -> None:
        expected[(name, frozenset(labels.items()))] = amount

    by_policy: dict[str, list[PolicyRun]] = defaultdict(list)
    for policy_run in PolicyRun.objects.all():
        by_policy[str(policy_run.policy_id) if policy_run.policy_id else POLICY_NONE].append(policy_run)
    for label, runs in by_policy.items():
        for status in PolicyRun.Status.values:
            put("lore_policy_runs", sum(r.status == status for r in runs), policy=label, status=status)
        put("lore_policy_run_archived_lessons_total", sum(r.archived for r in runs), policy=label)
        put("lore_policy_run_restored_lessons_total", sum(r.restored for r in runs), policy=label)
        finished = [r for r in runs if r.started_at and r.finished_at]
        seconds = sum((r.finished_at - r.started_at).total_seconds() for r in finished)  # type: ignore[operator]
        put("lore_policy_run_duration_seconds_count", len(finished), policy=label)
        put("lore_policy_run_duration_seconds_sum", seconds, policy=label)
    jobs = list(TransferJob.objects.values_list("kind", "status"))
    for kind in TransferJob.Kind.values:
        for status in TransferJob.Status.values:
            put("lore_transfer_jobs", jobs.count((kind, status)), kind=kind, status=status)
    garden = list(GardenRun.objects.all())
    for status in GardenRun.Status.values:
        put("lore_garden_runs", sum(r.status == status for r in garden), status=status)
    last = max((r for r in garden if r.finished_at), key=lambda r: r.finished_at)  # type: ignore[arg-type,return-value]
    put("lore_garden_last_run_duration_seconds", (last.finished_at - last.started_at).total_seconds())  # type: ignore[operator]
    findings = list(Finding.objects.values_list("kind", "status"))
    for kind in Finding.Kind.values:
        for status in Finding.Status.values:
            put("lore_garden_findings", findings.count((kind, status)), kind=kind, status=status)
    reads = list(LessonRead.objects.all())
    put("lore_reads_pending", len(reads))
    put("lore_reads_pending_opens", sum(r.opened for r in reads))
    purges = list(PurgeRun.objects.all())
    for status in PurgeRun.Status.values:
        put("lore_purge_runs", sum(p.status == status for p in purges), status=status)
    put("lore_purged_lessons_total", sum(p.purged for p in purges))
    put("lore_tombstones", Tombstone.objects.count())
    return expected


# ---------------------------------------------------------------- off, and only with the token


@pytest.mark.django_db
def test_metrics_answers_404_while_no_token_is_configured(settings) -> None:  # noqa: ANN001
    settings.LORE_METRICS_TOKEN = ""
    assert Client().get("/metrics").status_code == 404
    assert Client().get("/metrics", **bearer("")).status_code == 404
    assert Client().get("/metrics", **bearer()).status_code == 404


@pytest.mark.django_db
def test_metrics_answers_401_without_the_token_or_with_another(metrics_on) -> None:  # noqa: ANN001
    client = Client()
    for headers in (
        {},
        bearer("not-the-token"),
        bearer(TOKEN[:-1]),
        bearer(TOKEN + "x"),
        {"HTTP_AUTHORIZATION": f"Basic {TOKEN}"},
        {"HTTP_AUTHORIZATION": TOKEN},
    ):
        answer = client.get("/metrics", **headers)
        assert answer.status_code == 401, headers
        assert answer["WWW-Authenticate"].startswith("Bearer")
        assert b"lore_" not in answer.content
    assert client.get("/metrics", **bearer()).status_code == 200


@pytest.mark.django_db
def test_metrics_is_not_redirected_to_https_so_a_scraper_inside_the_network_reaches_it(metrics_on) -> None:  # noqa: ANN001
    metrics_on.SECURE_SSL_REDIRECT = True
    assert Client().get("/metrics", **bearer()).status_code == 200


def test_a_metrics_token_shorter_than_32_characters_stops_the_server_at_start() -> None:
    env = {**os.environ, "DEBUG": "1", "LORE_METRICS_TOKEN": "x" * 31}
    done = subprocess.run(
        [sys.executable, "-c", "import config.wsgi"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "LORE_METRICS_TOKEN has fewer than 32 characters" in done.stderr
    assert "x" * 31 not in done.stderr  # the reason, never the value


# ---------------------------------------------------------------- the numbers


@pytest.mark.django_db(transaction=True)
def test_a_scrape_by_a_real_http_client_reports_exactly_what_the_database_holds(
    metrics_on, live_server
) -> None:  # noqa: ANN001
    store_with_everything()
    answer = httpx.get(f"{live_server.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200
    samples = parsed(answer.text)
    expected = expected_from_the_database()
    assert {key: samples.get(key) for key in expected} == expected
    # and the figures are the ones the store was set up with (the worked-out values are not vacuous)
    old, cold = RetentionPolicy.objects.get(name="old").pk, RetentionPolicy.objects.get(name="cold").pk
    assert value(samples, "lore_policy_run_archived_lessons_total", policy=str(old)) == 13
    assert value(samples, "lore_policy_run_duration_seconds_sum", policy=str(old)) == 10
    assert value(samples, "lore_policy_run_duration_seconds_count", policy=str(cold)) == 0
    assert value(samples, "lore_policy_runs", policy=str(cold), status="running") == 1
    assert value(samples, "lore_policy_run_archived_lessons_total", policy=POLICY_NONE) == 9
    assert value(samples, "lore_garden_findings", kind="near_duplicate", status="open") == 2
    assert value(samples, "lore_garden_last_run_duration_seconds") == 60
    assert value(samples, "lore_reads_pending") == 5 and value(samples, "lore_reads_pending_opens") == 1
    assert value(samples, "lore_purged_lessons_total") == 2 == value(samples, "lore_tombstones")
    assert value(samples, "lore_transfer_jobs", kind="export", status="done") == 2
    oldest = min(LessonRead.objects.values_list("at", flat=True))
    assert value(samples, "lore_reads_pending_oldest_timestamp_seconds") == oldest.timestamp()


@pytest.mark.django_db
def test_pending_reads_drop_to_zero_once_folded(metrics_on) -> None:  # noqa: ANN001
    from lore.reads import reads_fold, reads_record

    acme = AccountFactory(name="acme")
    lessons = [LessonFactory(account=acme) for _ in range(4)]
    reads_record(account=acme, lesson_ids=[lesson.pk for lesson in lessons], at=timezone.now(), opened=True)
    assert value(scrape(Client()), "lore_reads_pending_opens") == 4
    reads_fold()
    after = scrape(Client())
    assert value(after, "lore_reads_pending") == 0
    assert ("lore_reads_pending_oldest_timestamp_seconds", frozenset()) not in after


@pytest.mark.django_db
def test_request_latency_is_labelled_by_the_route_never_by_the_path(metrics_on, logged_in) -> None:  # noqa: ANN001
    lessons = [LessonFactory(account=logged_in.account) for _ in range(3)]
    route = "explorer/lessons/<int:lesson_id>/"
    before = scrape(Client())
    count = "lore_http_request_duration_seconds_count"
    for lesson in lessons:
        assert logged_in.get(f"/explorer/lessons/{lesson.pk}/").status_code == 200
    logged_in.get("/no/such/page/")
    after = scrape(Client())
    seen = before.get((count, frozenset({"route": route, "method": "GET"}.items())), 0)
    assert value(after, count, route=route, method="GET") == seen + 3
    assert value(after, count, route="unmatched", method="GET") >= 1
    routes = {dict(labels)["route"] for name, labels in after if name == count}
    assert not any(str(lesson.pk) in r or "/a/" in r for r in routes for lesson in lessons), routes


# ---------------------------------------------------------------- bounded


@pytest.mark.django_db
def test_policies_past_the_label_limit_are_summed_as_other_so_series_stay_bounded(metrics_on) -> None:  # noqa: ANN001
    metrics_on.LORE_METRICS_POLICIES_MAX = 3
    acme = AccountFactory(name="acme")
    ids = [policy(acme, f"p{n}") for n in range(7)]
    for n, policy_id in enumerate(ids):
        run(acme, policy_id, PolicyRun.Status.DONE, seconds=n, archived=n + 1)
    run(acme, None, PolicyRun.Status.DONE, seconds=1, archived=100)
    samples = scrape(Client())
    archived = {
        dict(labels)["policy"]: amount
        for (name, labels), amount in samples.items()
        if name == "lore_policy_run_archived_lessons_total"
    }
    assert set(archived) == {*(str(i) for i in ids[-3:]), POLICY_OTHER, POLICY_NONE}  # the 3 run last
    assert archived[POLICY_OTHER] == 1 + 2 + 3 + 4 and archived[POLICY_NONE] == 100
    assert sum(archived.values()) == sum(PolicyRun.objects.values_list("archived", flat=True))
    runs = [labels for name, labels in samples if name == "lore_policy_runs"]
    assert len(runs) == (3 + 2) * len(PolicyRun.Status.values)


@pytest.mark.django_db
def test_a_scrape_asks_the_database_the_same_few_queries_whatever_it_holds(
    metrics_on,  # noqa: ANN001
    django_assert_num_queries,  # noqa: ANN001
) -> None:
    with django_assert_num_queries(STORE_QUERIES):
        list(StoreCollector().collect())
    store_with_everything()
    acme = Account.objects.get(name="acme")
    for n in range(20):
        run(acme, policy(acme, f"more-{n}"), PolicyRun.Status.DONE, seconds=1)
    with django_assert_num_queries(STORE_QUERIES):
        families = list(StoreCollector().collect())
    assert sum(len(family.samples) for family in families) < 400


# ---------------------------------------------------------------- behind gunicorn


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(url: str, deadline_seconds: float = 60.0) -> None:
    """Until `url` answers (a request that timed out may still be answered later: ask a URL the test counts not)."""
    for _ in range(int(deadline_seconds * 10)):
        try:
            httpx.get(url, timeout=1.0)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"{url} never answered")


@pytest.mark.slow
def test_behind_two_gunicorn_workers_every_scrape_adds_up_the_latency_of_both(tmp_path) -> None:  # noqa: ANN001
    """The production shape: gunicorn with config/gunicorn_conf.py. Whichever worker answers a scrape, it reports
    the requests both workers served, and a previous run's samples are gone."""
    samples_dir = tmp_path / "prometheus"
    samples_dir.mkdir()
    (samples_dir / "histogram_1.db").write_bytes(b"a previous run's samples")
    env = {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'lore.sqlite3'}",
        "LORE_METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(samples_dir),
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [
        "-m",
        "gunicorn",
        "--config",
        "config/gunicorn_conf.py",
        "--workers",
        "2",
        "--no-control-socket",
    ]
    server = subprocess.Popen(
        [sys.executable, *command, "--bind", f"127.0.0.1:{port}", "config.wsgi:application"],
        cwd=ROOT,
        env=env,
    )
    try:
        wait_for(f"{base}/metrics")
        # Concurrent batches, so both workers take requests; on a loaded machine the second worker may still be
        # booting when the first answers, so batches go on (at most 25) until both have written their samples.
        answers: list[int] = []
        for _ in range(25):
            with ThreadPoolExecutor(max_workers=8) as pool:
                answers += pool.map(lambda _: httpx.get(f"{base}/favicon.ico").status_code, range(40))
            if len(set(samples_dir.glob("histogram_*.db")) - {samples_dir / "histogram_1.db"}) >= 2:
                break
        assert set(answers) == {301}
        workers = {path.name for path in samples_dir.glob("histogram_*.db")}
        assert "histogram_1.db" not in workers and len(workers) == 2, workers
        for _ in range(6):
            answer = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
            assert answer.status_code == 200, answer.text
            count = "lore_http_request_duration_seconds_count"
            assert value(parsed(answer.text), count, route="favicon.ico", method="GET") == len(answers)
    finally:
        server.terminate()
        server.wait(timeout=30)
