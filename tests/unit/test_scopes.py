from __future__ import annotations

import pytest

from lore.scopes import ScopeError, parse_address, parse_scope, scope_covers, validate_key


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("global", "global"),
        ("GLOBAL", "global"),
        ("repo::Acme/App", "repo::acme/app"),
        ("branch::acme/app::feat/x", "branch::acme/app::feat/x"),
        ("project::Onboarding", "project::onboarding"),
    ],
)
def test_scopes_are_canonical(raw: str, canonical: str) -> None:
    assert parse_scope(raw) == canonical


@pytest.mark.parametrize(
    "raw",
    ["", "repo:acme/app", "repo::acme", "repo::", "team::x", "branch::acme/app", "repo::a/b/c", "x" * 700],
)
def test_bad_scopes_are_refused_with_a_message(raw: str) -> None:
    with pytest.raises(ScopeError) as exc:
        parse_scope(raw)
    assert exc.value.message


def test_the_key_is_what_follows_the_last_separator() -> None:
    address = parse_address("branch::acme/app::main::use-uv")
    assert (address.scope, address.key) == ("branch::acme/app::main", "use-uv")


def test_keys_may_not_contain_the_separator_or_control_characters() -> None:
    for bad in ("", "a::b", "a\nb", "x" * 513):
        with pytest.raises(ScopeError):
            validate_key(bad)


def test_a_repo_scope_covers_its_branches_and_nothing_else() -> None:
    assert scope_covers("repo::acme/app", "repo::acme/app")
    assert scope_covers("repo::acme/app", "branch::acme/app::main")
    assert not scope_covers("repo::acme/app", "branch::acme/app2::main")
    assert not scope_covers("repo::acme/app", "repo::acme/api")
    assert not scope_covers("branch::acme/app::main", "repo::acme/app")
    assert scope_covers("global", "project::x")
