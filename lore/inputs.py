"""Validation of a lesson as it arrives from the API, the CLI, MCP or an import line."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from lore.conditions import DIMENSIONS, DIMENSIONS_BY_NAME
from lore.limits import CONTENT_MAX, SUPERSEDES_MAX, TAGS_PER_LESSON_MAX
from lore.models import Lesson
from lore.scopes import (
    Address,
    ScopeError,
    parse_address,
    parse_scope,
    validate_dimension_value,
    validate_key,
)

MAX_CONTENT = CONTENT_MAX.value
SCALAR_DIMENSIONS = tuple(d.name for d in DIMENSIONS if not d.is_tags and d.name != "owner")
# Content may hold newlines and tabs, but not NUL or lone surrogates: no database can store those.
UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
# A timestamp this far ahead of the server's clock is a mistake, not a clock skew.
FUTURE_TOLERANCE = timedelta(minutes=5)


class FieldError(ValueError):
    """Bad input: names the field and says what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def max_length(name: str) -> int:
    """The column width of a lesson field: longer values are refused here rather than by the database."""
    return int(Lesson._meta.get_field(name).max_length or 0)  # type: ignore[union-attr]


def dimension_value(name: str, raw: object) -> str:
    """One dimension value of a lesson: a string (a pull request may be a number) that fits its column."""
    prefix = DIMENSIONS_BY_NAME[name].value_prefix  # "#" for a pull request, which may also come as a number
    if not isinstance(raw, str) and not (prefix and isinstance(raw, int)):
        raise FieldError(name, "must be a string")
    try:
        value = validate_dimension_value(raw, name)
    except ScopeError as exc:
        raise FieldError(exc.field, exc.message) from exc
    if prefix:
        value = value.removeprefix(prefix).strip()
        if not value:
            raise FieldError(name, "holds an empty value")
    limit = max_length(name)
    if len(value) > limit:
        raise FieldError(name, f"is longer than {limit} characters")
    return value


def _tags(raw_tags: object) -> list[str]:
    if raw_tags in (None, ""):
        return []
    if isinstance(raw_tags, str):
        raw_tags = [t for t in raw_tags.split(",") if t.strip()]
    if not isinstance(raw_tags, list):
        raise FieldError("tags", "must be a list of strings")
    if len(raw_tags) > TAGS_PER_LESSON_MAX.value:
        raise FieldError("tags", f"holds more than {TAGS_PER_LESSON_MAX.value} values")
    for tag in raw_tags:
        if not isinstance(tag, str):
            raise FieldError("tags", "must be a list of strings")
    try:
        return list(dict.fromkeys(validate_dimension_value(t, "tags") for t in raw_tags))
    except ScopeError as exc:
        raise FieldError(exc.field, exc.message) from exc


def _content(raw: object) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise FieldError("content", "must be a non-empty string")
    if len(raw) > MAX_CONTENT:
        raise FieldError("content", f"is longer than {MAX_CONTENT:,} characters")
    if UNSTORABLE.search(raw):
        raise FieldError("content", "contains a NUL character or unencodable text")
    return raw


def _supersedes(raw: object, scope: str, key: str) -> list[Address]:
    """`supersedes`: the addresses (SCOPE::KEY) of lessons this one replaces; never itself."""
    if raw in (None, "", []):
        return []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        raise FieldError("supersedes", "must be a list of addresses (SCOPE::KEY)")
    SUPERSEDES_MAX.check(len(raw), "supersedes")
    try:
        addresses = list(dict.fromkeys(parse_address(a) for a in raw))
    except ScopeError as exc:
        raise FieldError("supersedes", exc.message) from exc
    if Address(scope, key) in addresses:
        raise FieldError("supersedes", "a lesson cannot supersede itself")
    return addresses


@dataclass
class LessonInput:
    scope: str
    key: str
    content: str
    tags: list[str] = field(default_factory=list)
    dims: dict[str, str] = field(default_factory=dict)
    supersedes: list[Address] = field(default_factory=list)

    @classmethod
    def from_data(cls, data: Mapping[str, object]) -> LessonInput:
        """Validate a lesson's fields; raises FieldError naming the first bad field."""
        if not isinstance(data, Mapping):
            raise FieldError("lesson", "must be a JSON object")
        try:
            scope = parse_scope(data.get("scope"))  # type: ignore[arg-type]
            key = validate_key(data.get("key"))  # type: ignore[arg-type]
        except ScopeError as exc:
            raise FieldError(exc.field, exc.message) from exc
        content = _content(data.get("content"))
        tags = _tags(data.get("tags"))
        dims = {}
        for name in SCALAR_DIMENSIONS:
            raw = data.get(name)
            dims[name] = "" if raw in (None, "") else dimension_value(name, raw)
        supersedes = _supersedes(data.get("supersedes"), scope, key)
        return cls(scope=scope, key=key, content=content, tags=tags, dims=dims, supersedes=supersedes)


def parse_count(data: Mapping[str, object], name: str, default: int = 0) -> int:
    raw = data.get(name, default)
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0 or raw > 2**31 - 1:
        raise FieldError(name, "must be a non-negative whole number")
    return raw


def parse_flag(data: Mapping[str, object], name: str) -> bool:
    raw = data.get(name, False)
    if raw is None:
        return False
    if not isinstance(raw, bool):
        raise FieldError(name, "must be true or false")
    return raw


def parse_timestamp(data: Mapping[str, object], name: str, *, required: bool = False) -> datetime | None:
    """An ISO 8601 timestamp with a time zone, not in the future; None when absent (unless required)."""
    raw = data.get(name)
    if raw in (None, ""):
        if required:
            raise FieldError(name, "is required")
        return None
    try:
        parsed = parse_datetime(raw) if isinstance(raw, str) else None
    except ValueError:  # well formed but impossible, e.g. month 13
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise FieldError(name, "must be an ISO 8601 timestamp with a time zone")
    if parsed > timezone.now() + FUTURE_TOLERANCE:
        raise FieldError(name, "is in the future")
    return parsed
