"""Over time (issue 28, part 2): a policy's runs as a chart and its forecast, and the account's Health page, read
from the daily rollups. Through the pages."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from lore.models import Account, DailyRollup, PolicyRun
from lore.rollups import day_of
from lore.rules.rule import Rule
from lore.schedule import next_sweep
from policies import grooming
from policies.models import RetentionPolicy
from policies.services import policy_create
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def _policy(account: Account, **conditions: int) -> RetentionPolicy:
    rule = Rule(scope="repo::acme/app", conditions=conditions or {"min_age_days": 30})
    return policy_create(account=account, rule=rule, name="old lore")


def _table(html: str, dom_id: str) -> list[list[str]]:
    """The rows of a chart's data table (its <details>), cells as text."""
    figure = re.search(rf'<figure class="chart" id="{dom_id}">.*?</figure>', html, re.S)
    assert figure, f"no chart {dom_id}"
    body = re.search(r"<tbody>(.*?)</tbody>", figure.group(0), re.S)
    assert body
    return [
        re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row) for row in re.findall(r"<tr>(.*?)</tr>", body.group(1))
    ]


def test_the_forecast_counts_what_the_rule_matches_tonight_in_7_and_in_30_days(
    account: Account, logged_in: Client
) -> None:
    now = timezone.now()
    tonight = next_sweep(now)
    for age in (40, 35, 29, 25, 10, 2):  # days old now; min_age_days 30 catches more as they age
        LessonFactory(account=account, created_at=now - timedelta(days=age))
    LessonFactory(account=account, created_at=now - timedelta(days=90), protected=True)
    policy = _policy(account)
    html = logged_in.get(f"/settings/policies/{policy.pk}/forecast/", HTTP_HX_REQUEST="true").content.decode()
    rows = _table(html, "forecast-chart")
    expected = [
        sum(1 for age in (40, 35, 29, 25, 10, 2) if now - timedelta(days=age) < at - timedelta(days=30))
        for at in (tonight, tonight + timedelta(days=7), tonight + timedelta(days=30))
    ]
    assert [int(cells[1].replace(",", "")) for cells in rows] == expected
    assert [cells[0] for cells in rows] == ["Tonight", "In 7 days", "In 30 days"]
    assert 'role="img"' in html and "This review policy runs only by hand" in html


def test_the_forecast_is_a_page_of_its_own_without_htmx(account: Account, logged_in: Client) -> None:
    policy = _policy(account)
    response = logged_in.get(f"/settings/policies/{policy.pk}/forecast/")
    assert response.status_code == 200 and b"<html" in response.content[:200].lower()


def test_another_accounts_policy_forecast_is_not_found(
    account: Account, other_account: Account, logged_in: Client
) -> None:
    theirs = policy_create(account=other_account, rule=Rule(conditions={"min_age_days": 3}), name="theirs")
    assert logged_in.get(f"/settings/policies/{theirs.pk}/forecast/").status_code == 404


def test_the_policy_page_draws_its_runs_archived_undone_and_interrupted(
    account: Account, logged_in: Client
) -> None:
    for _ in range(3):
        LessonFactory(account=account, created_at=timezone.now() - timedelta(days=60))
    policy = _policy(account)
    run = grooming.run_start(account=account, policy=policy, trigger="manual", actor="alice")
    assert run is not None
    grooming.run_execute(run.pk)
    grooming.run_undo(run, actor="alice")
    PolicyRun.objects.create(account=account, policy_id=policy.pk, policy_name=policy.name, trigger="nightly",
                             status=PolicyRun.Status.INTERRUPTED, archived=0)  # fmt: skip
    html = logged_in.get(f"/settings/policies/{policy.pk}/").content.decode()
    rows = _table(html, "runs-chart")
    assert [cells[1:] for cells in rows] == [["3", "3", ""], ["0", "0", "yes"]]
    assert "archived 3 lessons; 3 of them were undone; 1 run interrupted or failed" in html


def test_a_policy_never_run_has_no_runs_chart_and_says_so(account: Account, logged_in: Client) -> None:
    html = logged_in.get(f"/settings/policies/{_policy(account).pk}/").content.decode()
    assert 'id="runs-chart"' not in html and "This policy has not run yet" in html


def test_a_new_accounts_health_page_shows_today_and_says_no_rollup_yet(
    account: Account, logged_in: Client
) -> None:
    LessonFactory(account=account)
    html = logged_in.get("/settings/health/").content.decode()
    assert "No daily rollup yet" in html
    assert html.count('role="img"') == 4 and html.count("<details") == 4
    assert _table(html, "health-lessons")[-1][1:] == ["1", "0", "0"]


def test_the_health_page_reads_the_daily_rollups(account: Account, logged_in: Client) -> None:
    today = day_of(timezone.now())
    DailyRollup.objects.create(
        account=account, day=today - timedelta(days=3), active=120, archived=30, purged=4, findings_opened=5,
        findings_applied=2, reads=777, runs=2, runs_interrupted=1, rows_archived=30, rows_undone=7,
        computed_at=timezone.now(),
    )  # fmt: skip
    html = logged_in.get("/settings/health/").content.decode()
    assert "No daily rollup yet" not in html
    label = f"{today - timedelta(days=3):%b %-d}"
    assert [label, "120", "30", "4"] in _table(html, "health-lessons")
    assert [label, "5", "2"] in _table(html, "health-findings")
    assert [label, "777"] in _table(html, "health-reads")
    assert [label, "30", "7", "yes"] in _table(html, "health-runs")
    assert ["–"] * 3 == _table(html, "health-lessons")[0][1:]  # a day nobody counted is a gap, not a zero


def test_the_health_page_costs_the_same_queries_whatever_the_rollups_hold(
    account: Account, logged_in: Client, django_assert_max_num_queries
) -> None:  # noqa: ANN001
    logged_in.get("/settings/health/")
    today = day_of(timezone.now())
    DailyRollup.objects.bulk_create(
        [
            DailyRollup(account=account, day=today - timedelta(days=d), reads=d, computed_at=timezone.now())
            for d in range(1, 90)
        ]
    )
    with django_assert_max_num_queries(16):
        logged_in.get("/settings/health/")


def test_another_accounts_rollups_never_show(
    account: Account, other_account: Account, logged_in: Client
) -> None:
    DailyRollup.objects.create(
        account=other_account,
        day=day_of(timezone.now()) - timedelta(days=1),
        reads=424242,
        computed_at=timezone.now(),
    )
    assert "424,242" not in logged_in.get("/settings/health/").content.decode()
