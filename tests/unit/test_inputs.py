"""Validation of an incoming lesson: every refusal names its field. Pure functions: no database."""

from __future__ import annotations

import pytest

from lore.inputs import FieldError, LessonInput, max_length
from lore.scopes import ScopeError, parse_address, validate_key

BASE = {"scope": "Repo::Acme/App", "key": "use-uv", "content": "Use uv."}


def test_a_valid_lesson_is_canonicalised() -> None:
    lesson = LessonInput.from_data({**BASE, "tags": "a, b,a", "origin_pr": "#482", "kind": "bus"})
    assert (lesson.scope, lesson.key, lesson.tags) == ("repo::acme/app", "use-uv", ["a", "b"])
    assert lesson.dims["origin_pr"] == "482" and lesson.dims["kind"] == "bus" and lesson.dims["host"] == ""


def test_a_pull_request_may_be_a_number() -> None:
    assert LessonInput.from_data({**BASE, "origin_pr": 482}).dims["origin_pr"] == "482"


@pytest.mark.parametrize(
    "name", ["kind", "host", "trigger", "source_agent", "origin_repo", "origin_branch", "origin_pr"]
)
def test_a_dimension_longer_than_its_column_is_refused_naming_it(name: str) -> None:
    limit = max_length(name)
    assert LessonInput.from_data({**BASE, name: "7" * limit}).dims[name] == "7" * limit
    with pytest.raises(FieldError) as exc:
        LessonInput.from_data({**BASE, name: "7" * (limit + 1)})
    assert exc.value.field == name and str(limit) in exc.value.message


@pytest.mark.parametrize("value", [5, True, ["bus"], {"a": 1}, 1.5])
def test_a_dimension_of_the_wrong_type_is_refused(value: object) -> None:
    with pytest.raises(FieldError) as exc:
        LessonInput.from_data({**BASE, "kind": value})
    assert exc.value.field == "kind"


def test_a_bare_hash_is_not_a_pull_request() -> None:
    with pytest.raises(FieldError) as exc:
        LessonInput.from_data({**BASE, "origin_pr": "#"})
    assert exc.value.field == "origin_pr"


def test_keys_and_addresses_refuse_unencodable_text() -> None:
    with pytest.raises(ScopeError):
        validate_key("lone \ud800")
    with pytest.raises(ScopeError) as exc:
        parse_address("repo::acme/app::bad\x00key")
    assert exc.value.field == "key"
