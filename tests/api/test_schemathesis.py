"""schemathesis against /api/v1/openapi.json on a live server: no 5xx and no schema violations on any endpoint.

Bounded (a few dozen examples per operation) so the whole run takes about a minute. Every built-in check runs
except `positive_data_acceptance`: a request can be schema-valid and still be refused for a rule the schema
cannot express (e.g. both directions of one condition, a policy_id together with an inline rule) — a 422 there
is correct. `negative_data_rejection` is left out too: the Authorization header is added to every call (the
token is per test), so a negative case whose only mutation is a missing Authorization header reaches the server
valid and is rightly answered 200 — a false positive. Rejection of bad input is asserted directly in
tests/api/test_errors.py and tests/reliability/.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import schemathesis
from django.utils import timezone
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from config.api import api as ninja_api
from tests.factories import LessonFactory

schemathesis.serializer.alias("application/x-ndjson", "text/plain")
schema = schemathesis.openapi.from_dict(ninja_api.get_openapi_schema())


@pytest.fixture
def populated(account) -> None:  # noqa: ANN001
    old = timezone.now() - timedelta(days=200)
    for i in range(5):
        LessonFactory(account=account, key=f"lesson-{i}", created_at=old, tags=["ci::x"])


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_errors_and_no_schema_violations(case, live_server, raw_token, populated) -> None:  # noqa: ANN001
    case.call_and_validate(
        base_url=live_server.url,
        headers={"Authorization": f"Bearer {raw_token}"},
        excluded_checks=[positive_data_acceptance, negative_data_rejection],
    )


@pytest.mark.slow
def test_stateful_sequences_over_the_inferred_links_never_fail(live_server, raw_token, populated) -> None:  # noqa: ANN001
    """Sequences such as create a policy → show / patch / preview / run / delete it, write a lesson → fetch it:
    schemathesis infers the links from the schema (an `id` in one answer, a `{policy_id}` in the next path)."""
    headers = {"Authorization": f"Bearer {raw_token}"}

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case):  # noqa: ANN001, ANN202
            return {"base_url": live_server.url, "headers": headers}

        def validate_response(self, response, case, additional_checks=None, **kwargs) -> None:  # noqa: ANN001, ANN003
            excluded = [positive_data_acceptance, negative_data_rejection]
            case.validate_response(response, excluded_checks=excluded, headers=headers)

    Workflow.run(
        settings=settings(
            max_examples=12,
            stateful_step_count=6,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
    )
