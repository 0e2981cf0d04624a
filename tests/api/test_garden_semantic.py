"""`POST /api/v1/findings/{id}/apply` for a possible duplicate (semantic, review-only): `keep` is required."""

from __future__ import annotations

import pytest

from lore.garden.inventory import garden_inventory
from lore.models import Finding
from tests.api.conftest import error_of
from tests.lore.garden_helpers import write
from tests.lore.test_garden_semantic import LOG, LOG_SAID_OTHERWISE, needs_model, possible

pytestmark = pytest.mark.django_db


@pytest.fixture
def paraphrases(account, settings):  # noqa: ANN001, ANN201
    settings.LORE_GARDEN_SEMANTIC = True
    first = write(account, "repo::acme/app", "log-json", LOG, opened=4)
    second = write(account, "repo::acme/app", "log-json-said-otherwise", LOG_SAID_OTHERWISE)
    garden_inventory(account)
    (finding,) = possible(account)
    return finding, first, second


@needs_model
def test_over_rest_a_possible_duplicate_without_keep_is_a_422_naming_keep_and_with_it_archives_the_others(
    api, paraphrases
) -> None:  # noqa: ANN001
    finding, first, second = paraphrases
    listed = api.get("/findings", kind="possible_duplicate").json()["items"]
    assert {m["action"] for m in listed[0]["members"]} == {"review"}
    refused = api.post(f"/findings/{finding.pk}/apply")
    assert refused.status_code == 422 and error_of(refused)["field"] == "keep"
    stranger = api.post(f"/findings/{finding.pk}/apply", {"keep": 10**9})
    assert stranger.status_code == 422 and error_of(stranger)["field"] == "keep"
    applied = api.post(f"/findings/{finding.pk}/apply", {"keep": first.pk})
    assert applied.status_code == 200 and applied.json()["archived"] == 1
    second.refresh_from_db()
    assert second.archived_at is not None and second.superseded_by_id == first.pk
    assert api.post(f"/findings/{finding.pk}/undo").json()["restored"] == 1


@needs_model
def test_keep_is_refused_for_a_finding_whose_keeper_the_gardener_chose(api, account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "log-json", LOG, opened=2)
    write(account, "repo::acme/app", "log-json-2", LOG.lower())
    garden_inventory(account)
    finding = Finding.objects.get(account=account)
    refused = api.post(f"/findings/{finding.pk}/apply", {"keep": finding.members.first().lesson_id})
    assert refused.status_code == 422 and error_of(refused)["field"] == "keep"
