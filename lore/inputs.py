"""Validation of a lesson as it arrives from the API, the CLI, MCP or an import line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.utils.dateparse import parse_datetime

from lore.conditions import DIMENSIONS, MAX_FILTER_VALUES
from lore.scopes import ScopeError, parse_scope, validate_dimension_value, validate_key

MAX_CONTENT = 100_000
SCALAR_DIMENSIONS = tuple(d.name for d in DIMENSIONS if not d.is_tags and d.name != "owner")


class FieldError(ValueError):
    """Bad input: names the field and says what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass
class LessonInput:
    scope: str
    key: str
    content: str
    tags: list[str] = field(default_factory=list)
    dims: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_data(cls, data: Mapping[str, object]) -> LessonInput:
        if not isinstance(data, Mapping):
            raise FieldError("lesson", "must be a JSON object")
        try:
            scope = parse_scope(data.get("scope"))  # type: ignore[arg-type]
            key = validate_key(data.get("key"))  # type: ignore[arg-type]
        except ScopeError as exc:
            raise FieldError(exc.field, exc.message) from exc
        content = data.get("content")
        if not isinstance(content, str) or not content.strip():
            raise FieldError("content", "must be a non-empty string")
        if "\x00" in content:
            raise FieldError("content", "contains a NUL character")
        if len(content) > MAX_CONTENT:
            raise FieldError("content", f"is longer than {MAX_CONTENT:,} characters")
        raw_tags = data.get("tags") or []
        if isinstance(raw_tags, str):
            raw_tags = [t for t in raw_tags.split(",") if t.strip()]
        if not isinstance(raw_tags, list):
            raise FieldError("tags", "must be a list of strings")
        if len(raw_tags) > MAX_FILTER_VALUES:
            raise FieldError("tags", f"holds more than {MAX_FILTER_VALUES} values")
        try:
            tags = list(dict.fromkeys(validate_dimension_value(t, "tags") for t in raw_tags))
            dims = {}
            for name in SCALAR_DIMENSIONS:
                raw = data.get(name)
                if raw in (None, ""):
                    dims[name] = ""
                    continue
                value = validate_dimension_value(raw, name)
                dims[name] = value.removeprefix("#") if name == "origin_pr" else value
        except ScopeError as exc:
            raise FieldError(exc.field, exc.message) from exc
        return cls(scope=scope, key=key, content=content, tags=tags, dims=dims)


def parse_count(data: Mapping[str, object], name: str, default: int = 0) -> int:
    raw = data.get(name, default)
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0 or raw > 2**31 - 1:
        raise FieldError(name, "must be a non-negative whole number")
    return raw


def parse_timestamp(data: Mapping[str, object], name: str, *, required: bool = False) -> datetime | None:
    raw = data.get(name)
    if raw in (None, ""):
        if required:
            raise FieldError(name, "is required")
        return None
    try:
        parsed = parse_datetime(raw) if isinstance(raw, str) else None
    except ValueError:  # well-formed but impossible, e.g. month 13
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise FieldError(name, "must be an ISO 8601 timestamp with a time zone")
    return parsed
