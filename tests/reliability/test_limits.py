"""Every limit is declared once (lore/limits.py), SECURITY.md lists them all, and an answer over one names it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from lore.limits import FILTER_VALUES_MAX, LIMITS, TAGS_ALL_MAX, render_table
from tests.api.conftest import Api, error_of

ROOT = Path(__file__).resolve().parents[2]


def test_security_md_lists_every_limit_as_lore_limits_declares_it() -> None:
    text = (ROOT / "SECURITY.md").read_text()
    table = re.search(r"<!-- limits:begin -->\n(.*?)\n<!-- limits:end -->", text, re.S)
    assert table, "SECURITY.md has no limits table between its markers"
    assert table.group(1) == render_table(), "regenerate it: lore.limits.render_table()"
    assert {limit.name for limit in LIMITS} <= set(re.findall(r"`([A-Z_]+)`", table.group(1)))


def test_every_limit_has_a_distinct_name_and_a_positive_value() -> None:
    assert len({limit.name for limit in LIMITS}) == len(LIMITS)
    assert all(limit.default > 0 for limit in LIMITS)


def test_a_setting_overrides_a_limit(settings) -> None:  # noqa: ANN001
    settings.LORE_TAGS_ALL_MAX = 3
    assert TAGS_ALL_MAX.value == 3


@pytest.mark.django_db
def test_more_tags_than_the_all_filter_allows_is_a_422_naming_tags_all_max(raw_token) -> None:  # noqa: ANN001
    tags = [f"t{i}" for i in range(TAGS_ALL_MAX.value + 1)]
    response = Api(Client(), raw_token).post("/memories/list", {"tags": tags, "tags_mode": "all"})
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "limit_exceeded"
    assert error["field"] == "tags"
    assert "(limit: TAGS_ALL_MAX)" in error["message"]
    assert f"at most {TAGS_ALL_MAX.value} tags" in error["message"]


@pytest.mark.django_db
def test_as_many_tags_as_the_all_filter_allows_is_answered(raw_token) -> None:  # noqa: ANN001
    tags = [f"t{i}" for i in range(TAGS_ALL_MAX.value)]
    response = Api(Client(), raw_token).post("/memories/list", {"tags": tags, "tags_mode": "all"})
    assert response.status_code == 200, response.content


@pytest.mark.django_db
def test_more_values_than_a_filter_allows_is_a_422_naming_filter_values_max(raw_token) -> None:  # noqa: ANN001
    hosts = [f"h{i}" for i in range(FILTER_VALUES_MAX.value + 1)]
    response = Api(Client(), raw_token).post("/memories/list", {"host": hosts})
    assert response.status_code == 422
    assert "FILTER_VALUES_MAX" in error_of(response)["message"]


@pytest.mark.django_db
def test_a_saved_policy_obeys_the_same_caps(raw_token) -> None:  # noqa: ANN001
    tags = [f"t{i}" for i in range(TAGS_ALL_MAX.value + 1)]
    response = Api(Client(), raw_token).post(
        "/policies", {"name": "too many", "scope": "global", "mode": "auto", "tags": tags, "tags_mode": "all"}
    )
    assert response.status_code == 422
    assert error_of(response)["code"] == "limit_exceeded"
    assert "TAGS_ALL_MAX" in error_of(response)["message"]


@pytest.mark.django_db
def test_a_preview_lists_at_most_keys_limit_keys_and_its_count_stays_exact(account, raw_token) -> None:  # noqa: ANN001
    from tests.factories import LessonFactory

    for i in range(5):
        LessonFactory(account=account, key=f"old-{i}", kind="bus")
    api = Api(Client(), raw_token)
    found = api.post("/memories/groom/preview", {"scope": "global", "kind": ["bus"], "keys_limit": 2}).json()
    assert (found["count"], len(found["keys"])) == (5, 2)
    by_default = api.post("/memories/groom/preview", {"scope": "global", "kind": ["bus"]}).json()
    assert (by_default["count"], len(by_default["keys"])) == (5, 5)
    too_many = api.post("/memories/groom/preview", {"scope": "global", "kind": ["bus"], "keys_limit": 10**6})
    assert too_many.status_code == 422 and error_of(too_many)["field"] == "keys_limit"


def test_the_preview_keys_limit_defaults_to_preview_keys_default_in_the_openapi_document(client) -> None:  # noqa: ANN001
    from lore.limits import PREVIEW_KEYS_DEFAULT

    schema = client.get("/api/v1/openapi.json").json()["components"]["schemas"]["GroomPreviewIn"]
    assert schema["properties"]["keys_limit"]["default"] == PREVIEW_KEYS_DEFAULT.value


# Numbers named like a cap that are not limits on input or work, each with why it is not one.
NOT_LIMITS = {
    "lore/api/schemas.py:ID_MAX": "the largest id a 64-bit column holds, not a cap we chose",
    "lore/decay.py:SCORE_MAX": "the top of the decay score's 0–100 scale",
    "lore/conditions.py:DAYS_MAX": "a condition's bound, declared with the condition (the registry)",
    "lore/conditions.py:COUNT_MAX": "a condition's bound, declared with the condition (the registry)",
    "lore/accounts.py:SLUG_MAX": "the width of Account.slug",
    "lore/activity.py:ACTOR_MAX": "the width of Activity.actor",
    "members/views.py:USERNAME_MAX": "the width of Django's User.username",
    "policies/views.py:NEW_TOKEN_MAX_AGE": "how long a new token's one-time display cookie lives, not a cap on work",
}


def test_a_cap_on_input_or_work_is_declared_only_in_lore_limits() -> None:
    """A module-level `…_MAX`/`MAX_…` bound to a number outside lore/limits.py is a second declaration of a limit
    (read it from lore.limits instead) unless it is listed, with its reason, in NOT_LIMITS."""
    import ast

    found = set()
    for package in ("config", "lore", "policies", "explorer", "members"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative == "lore/limits.py" or "/migrations/" in relative:
                continue
            for node in ast.parse(path.read_text()).body:
                targets = node.targets if isinstance(node, ast.Assign) else []
                names = [t for t in targets if isinstance(t, ast.Name)]
                names += [
                    e for t in targets if isinstance(t, ast.Tuple) for e in t.elts if isinstance(e, ast.Name)
                ]
                if not any("_MAX" in n.id or n.id.startswith("MAX_") for n in names):
                    continue
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                if not any(isinstance(v, (ast.Constant, ast.BinOp)) for v in values):
                    continue
                found |= {f"{relative}:{n.id}" for n in names if "_MAX" in n.id or n.id.startswith("MAX_")}
    assert found - set(NOT_LIMITS) == set(), "declare these in lore/limits.py and read them from there"
    assert set(NOT_LIMITS) <= found, "NOT_LIMITS names a constant that is gone: drop it from the list"
