"""lorekit and MCP apply a possible duplicate (semantic, review-only) only with the lesson to keep."""

from __future__ import annotations

import pytest

from lore.garden.inventory import garden_inventory
from lore.models import Finding, Lesson
from tests.lore.garden_helpers import write
from tests.lore.test_garden_semantic import LOG, LOG_SAID_OTHERWISE, needs_model
from tests.lorekit.mcp_session import result_of, with_session

pytestmark = [pytest.mark.django_db(transaction=True), needs_model]


@pytest.fixture
def paraphrases(account, settings):  # noqa: ANN001, ANN201
    settings.LORE_GARDEN_SEMANTIC = True
    first = write(account, "repo::acme/app", "log-json", LOG, opened=4)
    second = write(account, "repo::acme/app", "log-json-said-otherwise", LOG_SAID_OTHERWISE)
    garden_inventory(account)
    return Finding.objects.get(account=account, kind="possible_duplicate"), first, second


def test_lorekit_garden_apply_of_a_possible_duplicate_needs_keep_and_with_it_retires_the_other(
    lorekit, paraphrases
) -> None:  # noqa: ANN001
    finding, first, second = paraphrases
    report = lorekit("garden", "--kind", "possible_duplicate")
    assert report.returncode == 0 and f"review {first.address} (id {first.pk})" in report.stdout
    assert f"--apply {finding.pk} --keep LESSON_ID" in report.stdout
    refused = lorekit("garden", "--apply", str(finding.pk))
    assert refused.returncode == 1 and "(keep)" in refused.stderr
    alone = lorekit("garden", "--keep", str(first.pk))
    assert alone.returncode == 2 and "--keep goes with exactly one --apply" in alone.stderr
    applied = lorekit("garden", "--apply", str(finding.pk), "--keep", str(first.pk))
    assert applied.returncode == 0 and "1 lesson retired" in applied.stdout, applied.stderr
    second.refresh_from_db()
    assert second.archived_at is not None and second.superseded_by_id == first.pk


def test_mcp_garden_apply_of_a_possible_duplicate_takes_keep(lorekit_env, paraphrases) -> None:  # noqa: ANN001
    finding, first, second = paraphrases

    async def script(session):  # noqa: ANN001, ANN202
        refused = await session.call_tool("garden.apply", {"id": finding.pk})
        applied = await session.call_tool("garden.apply", {"id": finding.pk, "keep": second.pk})
        return refused, result_of(applied)

    refused, applied = with_session(lorekit_env, script)
    assert refused.is_error and "keep" in refused.content[0].text
    assert applied["archived"] == 1
    assert Lesson.objects.get(pk=first.pk).superseded_by_id == second.pk
