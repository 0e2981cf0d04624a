"""The Findings page: the report with evidence, filters, apply, dismiss, undo, the empty state, and the sheet's
"Superseded by" / "Supersedes" links."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from lore.garden.inventory import garden_inventory
from lore.models import Finding, GardenRun, Lesson
from tests.lore.garden_helpers import write

pytestmark = pytest.mark.django_db
UV = "Use uv instead of pip for every install; the lockfile is uv.lock and CI checks it."


@pytest.fixture
def duplicates(account):  # noqa: ANN001, ANN201
    keeper = write(account, "repo::acme/app", "use-uv", UV, opened=5)
    copy = write(account, "branch::acme/app::main", "use-uv-2", UV.lower())
    write(account, "project::platform", "status", "PR #42 is draft", age_days=30)
    garden_inventory(account)
    return keeper, copy


def test_the_findings_page_says_when_there_is_nothing_to_review(logged_in: Client) -> None:
    page = logged_in.get(reverse("findings:index")).content.decode()
    assert "Nothing to review" in page and "has not run yet" in page


def test_the_findings_page_shows_each_findings_members_actions_and_evidence(
    logged_in: Client, duplicates
) -> None:  # noqa: ANN001
    page = logged_in.get(reverse("findings:index")).content.decode()
    assert page.count("data-finding=") == 2
    assert "repo::acme/app::use-uv" in page and "branch::acme/app::main::use-uv-2" in page
    assert "Similarity" in page and "subject_state" in page and 'data-action="retire"' in page


def test_a_reworded_copy_is_named_on_its_finding_with_why_it_scores_below_the_threshold(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    from tests.lore.test_garden import REWORDED

    write(account, "repo::acme/billing", "jdk-17-for-codegen", REWORDED[0], opened=9)
    write(account, "repo::acme/billing", "gradle-87-jdk17", REWORDED[1])
    garden_inventory(account)
    page = logged_in.get(reverse("findings:index")).content.decode()
    assert (
        "<dt>Reworded</dt><dd>gradle-87-jdk17: the kept lesson's words and numbers in another order" in page
    )
    assert "a reworded member may score below it" in page


def test_the_findings_page_filters_by_kind_and_scope(logged_in: Client, duplicates) -> None:  # noqa: ANN001
    url = reverse("findings:index")
    assert logged_in.get(url, {"kind": "expired_ephemera"}).content.decode().count("data-finding=") == 1
    by_scope = logged_in.get(url, {"scope": "branch::acme/app::main"}).content.decode()
    assert by_scope.count("data-finding=") == 1 and 'data-kind="near_duplicate"' in by_scope
    assert logged_in.get(url, {"kind": "bogus"}).status_code == 200  # a bad value shows the default view


def test_apply_from_the_page_retires_and_undo_restores(logged_in: Client, duplicates) -> None:  # noqa: ANN001
    keeper, copy = duplicates
    finding = Finding.objects.get(kind="near_duplicate")
    response = logged_in.post(reverse("findings:apply", args=[finding.pk]), {"status": "open"})
    assert response.status_code == 302
    copy.refresh_from_db()
    assert copy.archived_at is not None and copy.superseded_by_id == keeper.pk
    logged_in.post(reverse("findings:undo", args=[finding.pk]))
    copy.refresh_from_db()
    assert copy.archived_at is None


def test_dismiss_from_the_page_hides_the_finding(logged_in: Client, duplicates) -> None:  # noqa: ANN001
    finding = Finding.objects.get(kind="expired_ephemera")
    logged_in.post(reverse("findings:dismiss", args=[finding.pk]))
    page = logged_in.get(reverse("findings:index")).content.decode()
    assert page.count("data-finding=") == 1 and Lesson.objects.filter(archived_at__isnull=False).count() == 0


def test_run_the_gardener_now_from_the_page(
    logged_in: Client, account, django_capture_on_commit_callbacks
) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "use-uv", UV)
    write(account, "repo::acme/app", "use-uv-2", UV.lower())
    with django_capture_on_commit_callbacks(
        execute=True
    ):  # the worker (eager in tests) runs the queued inventory
        logged_in.post(reverse("findings:run"))
    response = logged_in.get(reverse("findings:index"))
    assert "1 new findings" in response.content.decode()


def test_run_the_gardener_now_queues_the_inventory_and_the_request_examines_nothing(
    logged_in: Client,
    account,
    django_capture_on_commit_callbacks,  # noqa: ANN001
) -> None:
    write(account, "repo::acme/app", "use-uv", UV)
    write(account, "repo::acme/app", "use-uv-2", UV.lower())
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = logged_in.post(reverse("findings:run"))
    assert response.status_code == 302 and len(queued) == 1
    run = GardenRun.objects.get(account=account)
    assert (run.status, run.examined) == ("queued", 0)  # the request itself examined nothing
    queued[0]()  # what the worker runs
    run.refresh_from_db()
    assert (run.status, run.found) == ("done", 1)


def test_while_an_inventory_is_pending_the_page_shows_it_and_a_second_click_queues_no_other(
    logged_in: Client,
    account,
    django_capture_on_commit_callbacks,  # noqa: ANN001
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as queued:
        logged_in.post(reverse("findings:run"))
        again = logged_in.post(reverse("findings:run"), follow=True)
    run = GardenRun.objects.get(account=account)
    page = again.content.decode()
    assert len(queued) == 1 and f"Inventory #{run.pk} is already queued" in page
    assert "data-garden-pending" in page and 'data-garden-run disabled aria-disabled="true"' in page
    queued[0]()
    page = logged_in.get(reverse("findings:index")).content.decode()
    assert "data-garden-pending" not in page and "data-last-run" in page


def test_another_accounts_finding_answers_404_on_the_page(duplicates, other_account) -> None:  # noqa: ANN001
    from tests.factories import MembershipFactory, UserFactory
    from tests.urls import AccountClient

    client = AccountClient(other_account)  # mallory, in her own account, aims at acme's finding
    client.force_login(MembershipFactory(account=other_account, user=UserFactory(username="mallory")).user)
    finding = Finding.objects.first()
    assert finding is not None
    for name in ("findings:apply", "findings:dismiss", "findings:undo"):
        assert client.post(reverse(name, args=[finding.pk])).status_code == 404
    assert "data-finding=" not in client.get(reverse("findings:index")).content.decode()
    assert Finding.objects.get(pk=finding.pk).status == "open"


def test_the_sheet_links_superseded_by_and_supersedes(logged_in: Client, duplicates) -> None:  # noqa: ANN001
    keeper, copy = duplicates
    finding = Finding.objects.get(kind="near_duplicate")
    logged_in.post(reverse("findings:apply", args=[finding.pk]))
    retired = logged_in.get(reverse("explorer:sheet", args=[copy.pk])).content.decode()
    assert "Superseded by" in retired and reverse("explorer:sheet", args=[keeper.pk]) in retired
    kept = logged_in.get(reverse("explorer:sheet", args=[keeper.pk])).content.decode()
    assert "Supersedes" in kept and reverse("explorer:sheet", args=[copy.pk]) in kept


def test_a_run_no_worker_finished_in_time_no_longer_shows_pending_on_the_page(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    lost = GardenRun.objects.create(
        account=account, status="running", started_at=timezone.now() - timedelta(days=1)
    )
    page = logged_in.get(reverse("findings:index")).content.decode()
    assert "data-garden-pending" not in page and "data-garden-run>" in page
    lost.refresh_from_db()
    assert lost.status == "failed" and "time limit" in lost.error


def test_the_findings_page_shows_the_gardeners_measured_precision_and_recall_held_out_first(
    logged_in,
) -> None:  # noqa: ANN001
    from lore.garden.figures import garden_figures

    page = logged_in.get("/findings/").content.decode()
    held_out = garden_figures()["heldout"]
    assert "How far to trust these findings" in page and "held-out" in page
    expected = f"{round(held_out['precision']['expired_ephemera'] * 100)}%"
    assert expected in page
    assert f"Of {held_out['must_not_flag']['ephemera_lookalikes']} durable look-alikes" in page
