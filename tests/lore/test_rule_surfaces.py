"""One table of inputs fed to every surface that reads a rule — the Explorer URL, the REST list, the REST groom
preview, the policy form and the policy API — and the rules they end up with compared (lore.rules.codec).

The same input gives the same rule everywhere. Where the input has a problem, the lenient surface (the Explorer)
keeps the rest with a notice and the strict ones answer 422 naming a field the problem names.
"""

from __future__ import annotations

import pytest
from django.http import QueryDict
from django.test import Client

from explorer.state import ExplorerState
from lore.candidates import candidates
from lore.conditions import DIMENSIONS, PARAMS
from lore.rules.codec import rule_parse
from lore.rules.rule import Rule
from lore.selectors import lessons_filtered
from policies.forms import PolicyForm
from policies.models import RetentionPolicy
from tests.api.conftest import Api
from tests.explorer.test_nasty_urls import NASTY
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db

RULE_KEYS = {
    "scope",
    "retention",
    *PARAMS,
    *(d.name for d in DIMENSIONS),
    *(d.mode_param for d in DIMENSIONS),
}

TABLE = [
    "min_age_days=90",
    "scope=repo::acme/app&max_opened_count=0",
    "scope=REPO::Acme/App&kind=bus,decision&kind_mode=nin",
    "tags=ci,deploy&tags_mode=all&host=claude-code",
    "origin_pr=%23482&max_read_count=200",
    "unseen_days=30&max_seen_count=2&trigger=manual",
    "min_opened_count=1",  # a reverse direction: Explorer only
    "owner=platform",  # an Explorer-only dimension
    "max_opened_count=0&min_opened_count=5",  # both directions: the later is kept, and that is a problem
    "retention=max_opened_count:0&min_opened_count=5",  # the same across the two spellings
    "retention=min_age_days:90,max_opened_count:0&kind=bus",
    "min_age_days=0",
    "min_age_days=1e3",
    "min_age_days=%D9%A3%D9%A0",  # Arabic-Indic digits: not a number a rule takes
    "max_read_count=100001",
    "tags=a&tags_mode=in",
    "kind=bus&kind_mode=maybe",
    "origin_pr=%23",
    "scope=repo:acme&min_age_days=90",
    "kind=bus%0Adecision",
    *NASTY,
]


def rule_part(query: str) -> QueryDict:
    data = QueryDict(query, mutable=True)
    for key in [k for k in data if k not in RULE_KEYS]:
        del data[key]
    return data


def as_json(data: QueryDict) -> dict[str, str]:
    body = {key: data[key] for key in data}
    body.setdefault("scope", "global")
    return body


@pytest.fixture
def api(raw_token: str) -> Api:
    return Api(Client(), raw_token)


@pytest.fixture
def store(account):  # noqa: ANN001, ANN201
    LessonFactory(account=account, key="old", kind="bus", opened_count=0, origin_pr="482", read_count=50)
    LessonFactory(
        account=account, key="chosen", kind="decision", opened_count=7, trigger="manual", seen_count=2
    )
    LessonFactory(account=account, scope="repo::acme/other", key="elsewhere", host="codex", owner="platform")
    return account


def keys(rows) -> list[str]:  # noqa: ANN001
    return sorted(lesson.key for lesson in rows)


@pytest.mark.parametrize("query", TABLE)
def test_every_surface_reads_the_same_input_as_the_same_rule(  # noqa: ANN001
    logged_in: Client, api: Api, store, query: str
) -> None:
    data = rule_part(query)
    state = ExplorerState.from_query(data)
    rule, problems = rule_parse(data)
    assert state.rule == rule
    assert [p.notice for p in problems] == [n for n in state.notices if n in {p.notice for p in problems}]
    assert logged_in.get(f"/explorer/?{query}").status_code == 200

    listed = api.get("/memories", **{key: data.getlist(key) for key in data})
    if problems:
        assert listed.status_code == 422, (query, listed.content)
    else:
        assert listed.status_code == 200, (query, listed.content)
        expected = lessons_filtered(store, rule)
        assert sorted(item["key"] for item in listed.json()["items"]) == keys(expected)

    if "retention" in data:
        return  # the JSON and form surfaces take one field per param
    policy_rule, policy_problems = rule_parse(data, in_policy=True)
    assert_policy_surfaces(api, store, as_json(data), policy_rule, policy_problems, explorer_rule=rule)


def assert_policy_surfaces(api: Api, account, body, rule: Rule, problems, *, explorer_rule: Rule) -> None:  # noqa: ANN001
    fields = {p.field for p in problems} | set(body)
    refused = bool(problems) or rule.is_empty
    if not refused:
        assert rule == explorer_rule  # what a policy carries is what the Explorer shows

    preview = api.post("/memories/groom/preview", body)
    if refused:
        assert preview.status_code == 422 and preview.json()["error"]["field"] in fields | {"conditions"}, (
            body
        )
    else:
        assert preview.status_code == 200, (body, preview.content)
        assert preview.json()["count"] == candidates(account, rule).count()

    form = PolicyForm(data={"mode": "review", **body})
    assert form.is_valid() is not refused, (body, form.errors)
    if not refused:
        assert form.rule == rule

    created = api.post("/policies", {**body, "name": "from the table"})
    if refused:
        assert created.status_code == 422 and created.json()["error"]["field"] in fields | {"conditions"}, (
            body
        )
    else:
        assert created.status_code == 201, (body, created.content)
        assert RetentionPolicy.objects.get(pk=created.json()["id"]).rule == rule
