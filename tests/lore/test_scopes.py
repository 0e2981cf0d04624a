"""Scopes against the database (DESIGN.md §4): which lessons a policy or view scope covers."""

from __future__ import annotations

import pytest

from lore.candidates import candidates, lessons_matching
from lore.models import Lesson
from lore.rules.rule import Rule
from lore.scopes import scope_covers, scope_q
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db

SCOPES = [
    "global",
    "project::onboarding",
    "repo::acme/app",
    "branch::acme/app::main",
    "branch::acme/app::feat/x",
    "repo::acme/app2",
    "branch::acme/app2::main",
    "repo::acme/api",
    "branch::acme/api::main",
    "repo::acme/a_p",
    "branch::acme/a_p::main",
    "repo::acme/axp",
    "branch::acme/axp::main",
    "repo::acme/ap",
    "branch::acme/ap::main",
]


@pytest.fixture
def store(account, other_account):  # noqa: ANN001, ANN201
    for scope in SCOPES:
        LessonFactory(account=account, scope=scope, key="k")
        LessonFactory(account=other_account, scope=scope, key="k")


def covered(account, scope: str) -> set[str]:  # noqa: ANN001
    return set(Lesson.objects.filter(account=account).filter(scope_q(scope)).values_list("scope", flat=True))


def test_a_named_scope_matches_itself(store, account) -> None:  # noqa: ANN001
    assert covered(account, "project::onboarding") == {"project::onboarding"}
    assert covered(account, "branch::acme/app::main") == {"branch::acme/app::main"}
    assert covered(account, "repo::acme/api") == {"repo::acme/api", "branch::acme/api::main"}


def test_a_repo_scope_covers_every_branch_under_it(store, account) -> None:  # noqa: ANN001
    assert covered(account, "repo::acme/app") == {
        "repo::acme/app",
        "branch::acme/app::main",
        "branch::acme/app::feat/x",
    }


def test_a_repo_scope_does_not_cover_a_repo_whose_name_starts_the_same(store, account) -> None:  # noqa: ANN001
    assert "repo::acme/app2" not in covered(account, "repo::acme/app")
    assert "branch::acme/app2::main" not in covered(account, "repo::acme/app")


def test_underscore_and_percent_in_a_scope_are_not_wildcards(store, account) -> None:  # noqa: ANN001
    assert covered(account, "repo::acme/a_p") == {"repo::acme/a_p", "branch::acme/a_p::main"}
    # parse_scope never lets a '%' through, but the SQL builder must not rely on that.
    assert covered(account, "repo::acme/a%") == set()
    assert covered(account, "repo::acme/%") == set()


def test_global_covers_every_scope_of_the_account(store, account) -> None:  # noqa: ANN001
    assert covered(account, "global") == set(SCOPES)


def test_nothing_crosses_accounts(store, account, other_account) -> None:  # noqa: ANN001
    rule = Rule(scope="global", conditions={"max_read_count": 100_000})
    mine = candidates(account, rule)
    assert mine.count() == len(SCOPES)
    assert set(mine.values_list("account_id", flat=True)) == {account.pk}
    assert set(lessons_matching(other_account, rule).values_list("account_id", flat=True)) == {
        other_account.pk
    }


def test_the_sql_predicate_and_the_python_rule_agree(store, account) -> None:  # noqa: ANN001
    for policy_scope in SCOPES:
        expected = {s for s in SCOPES if scope_covers(policy_scope, s)}
        assert covered(account, policy_scope) == expected, policy_scope


def test_a_branch_scope_names_the_repo_that_covers_it() -> None:
    from lore.scopes import repo_of, scope_covers

    assert repo_of("branch::acme/app::fix/ssr-hydration") == "repo::acme/app"
    assert scope_covers(repo_of("branch::acme/app::main") or "", "branch::acme/app::main")
    assert (
        repo_of("repo::acme/app") is None and repo_of("global") is None and repo_of("project::docs") is None
    )
