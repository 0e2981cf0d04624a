"""The bench harness works end to end on a tiny store (one round, no timing assertions: numbers live in bench/)."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from bench.agents import agent_load_measure
from bench.config import Size, size_parse
from bench.measure import rounds_run
from bench.report import BEGIN, END, report_write
from bench.run import arguments
from bench.scenarios import Context, Scenario, scenarios_build
from bench.store import NotEnoughDisk, identities_ensure, store_ensure
from bench.suite import bench_size
from lore.models import Lesson
from tests.services import require_postgres, using_postgres

TINY = Size(label="500", lessons=500)


@pytest.mark.django_db(transaction=True)
def test_the_harness_measures_every_available_scenario_on_a_tiny_store(tmp_path, garden_corpora) -> None:  # noqa: ANN001
    account, loaded = store_ensure(TINY.lessons, log=False)
    assert loaded and Lesson.objects.filter(account=account).count() == TINY.lessons

    result = bench_size(
        TINY,
        rounds=1,
        only=[],
        warmup=1,
        web=False,
        archive=True,
        explain=using_postgres(),
        archive_rounds=1,
        garden_corpus=garden_corpora.evaluations,  # the corpora's evaluation, measured once for the session
    )

    measured = {name: s for name, s in result["scenarios"].items() if "error" not in s}
    assert {"admin.page", "admin.page_filtered", "svc.preview", "svc.read_bump"} <= set(measured)
    assert all(s["n"] == 1 and s["queries"] >= 1 for s in measured.values())
    assert result["archive"]["archived"] == result["archive"]["restored"] > 0
    assert not Lesson.objects.filter(account=account, archived_by_run__isnull=False).exists()
    garden = result["garden"]
    assert garden["corpus"]["heldout"]["lessons"] >= 160 and garden["corpus"]["development"]["lessons"] >= 300
    assert garden["inventory"]["full_examined"] > 0
    assert garden["inventory"]["nightly_examined"] < garden["inventory"]["full_examined"]

    paths = report_write(
        {"started": "smoke", "command": "bench smoke", "machine": _machine(), "sizes": {TINY.label: result}},
        directory=tmp_path,
    )
    assert json.loads(paths[0].read_text())["sizes"]["500"]["lessons"] == TINY.lessons
    markdown = (tmp_path / "RESULTS.md").read_text()
    assert BEGIN in markdown and END in markdown and "| preview of a ~10% rule, p95 |" in markdown
    assert "### The gardener" in markdown


@pytest.mark.django_db(transaction=True)
def test_every_scenario_answers_200_with_its_expected_row_never_a_redirect() -> None:
    account, _ = store_ensure(TINY.lessons, log=False)
    ctx = Context(ids=identities_ensure(account), now=timezone.now())
    scenarios = scenarios_build(ctx)
    dashboard = [s for s in scenarios if s.group == "explorer" and s.is_http]
    assert dashboard and all(s.path.startswith(f"/a/{account.slug}/explorer/") for s in dashboard)
    assert all(s.available() for s in scenarios)

    outcomes = rounds_run(scenarios, ctx, rounds=1, warmup=0)

    assert {o.scenario.name: o.error for o in outcomes if o.error} == {}
    assert all(len(o.samples_ms) == 1 for o in outcomes)


@pytest.mark.django_db(transaction=True)
def test_a_scenario_answering_a_redirect_is_an_error_not_a_timing() -> None:
    account, _ = store_ensure(50, log=False)
    ctx = Context(ids=identities_ensure(account), now=timezone.now())
    slugless = Scenario("explorer.slugless", "the Explorer without its account", path="/explorer/")

    (outcome,) = rounds_run([slugless], ctx, rounds=1, warmup=0)

    assert "302" in outcome.error and not outcome.samples_ms


@pytest.mark.django_db(transaction=True)
def test_a_store_whose_count_matches_is_reused_not_reloaded() -> None:
    store_ensure(50, log=False)
    _, loaded = store_ensure(50, log=False)
    assert not loaded


def test_sizes_parse_with_k_and_m_suffixes() -> None:
    assert size_parse("100k").lessons == 100_000
    assert size_parse("1m").lessons == 1_000_000
    assert size_parse("1m").database == "lore_bench_1m"
    with pytest.raises(ValueError):
        size_parse("lots")


def test_the_command_line_takes_sizes_rounds_and_only() -> None:
    args = arguments(["--sizes", "100k,1m", "--rounds", "3", "--only", "explorer,admin.page"])
    assert [s.label for s in args.size_list] == ["100k", "1m"]
    assert args.rounds == 3 and args.only_list == ["explorer", "admin.page"]


def _machine() -> dict[str, object]:
    return {
        "nproc": 2,
        "memory_gb": 1.0,
        "cpu": "test",
        "kernel": "test",
        "python": "3",
        "django": "5",
        "postgres": {},
        "commit": "test",
    }


@pytest.mark.django_db(transaction=True)
def test_the_agent_load_times_every_agent_request_and_the_explorer_idle_and_loaded() -> None:
    require_postgres()
    account, _ = store_ensure(200, log=False)
    ctx = Context(ids=identities_ensure(account), now=timezone.now())
    page = next(s for s in scenarios_build(ctx) if s.name == "explorer.page")

    load = agent_load_measure(ctx, page, agents=3, cycles=2, workers=1)

    kinds = load["by_kind"]
    assert kinds["list"]["ok"] == kinds["search"]["ok"] == 3 * 2
    assert kinds["read"]["ok"] == 3 * 2  # every list page of the demo store has lessons to read
    assert load["errors_503"] == load["errors_other"] == 0
    assert load["requests"] == 3 * 2 * 3 and load["requests_per_s"] > 0
    assert load["explorer_idle"]["ok"] >= 20 and load["explorer_loaded"]["ok"] >= 20
    assert load["explorer_ratio_p95"] is not None


@pytest.mark.django_db(transaction=True)
def test_a_store_bigger_than_the_free_disk_is_refused_before_a_lesson_is_written() -> None:
    require_postgres()
    with pytest.raises(NotEnoughDisk, match="not enough disk"):
        store_ensure(10**13, log=False)  # ~26 PB by the estimate
    assert not Lesson.objects.exists()


def test_sizes_go_up_to_10m_and_past_3m_are_judged_on_the_10m_targets() -> None:
    assert size_parse("10m").lessons == 10_000_000 and size_parse("10m").tier == "10m"
    assert size_parse("1m").tier == "1m" and size_parse("100k").tier == "100k"
    with pytest.raises(ValueError):
        size_parse("11m")
