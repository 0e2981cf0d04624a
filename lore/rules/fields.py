"""Form fields of the rule language's values. They know nothing of the registry: the FilterSet gives each one
its name, bounds and wording."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from lore.scopes import ScopeError, parse_scope
from lore.text import values_of

_WHOLE = re.compile(r"-?[0-9]{1,12}")  # ASCII digits: what the API's schemas take too


class WholeNumberField(forms.IntegerField):
    """A whole number within [low, high], written with digits only (no sign but '-', exponent or decimals):
    `1e3`, `90.0` and `true` are not numbers a rule takes."""

    def __init__(self, *, name: str, low: int, high: int, unit: str, **kwargs: Any) -> None:
        between = f"{name} must be between {low} and {high:,}{f' {unit}' if unit else ''}"
        messages = {"invalid": f"{name} must be a whole number", "min_value": between, "max_value": between}
        kwargs.setdefault("required", False)
        super().__init__(min_value=low, max_value=high, error_messages=messages, **kwargs)

    def to_python(self, value: Any) -> int | None:
        if value is None or value == "":
            return None
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        text = str(value).strip()
        if not _WHOLE.fullmatch(text):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return int(text)


class ScopeField(forms.CharField):
    """A scope in its canonical spelling (lore.scopes.parse_scope); empty is "not given"."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(strip=False, **kwargs)

    def clean(self, value: Any) -> str | None:
        if value is None or str(value).strip() == "":
            return None
        try:
            return parse_scope(str(value))
        except ScopeError as exc:
            raise ValidationError(exc.message, code="invalid") from exc


class ValuesWidget(forms.Widget):
    """One or many values: a repeated query parameter, a JSON list, or one comma-separated string."""

    def value_from_datadict(self, data: Mapping[str, Any], files: Any, name: str) -> list[object] | None:
        values = values_of(data, name)
        if not values:
            return None
        if not hasattr(data, "getlist") and isinstance(data.get(name), list | tuple):
            return list(values)  # a JSON list: each item is one value, commas and all
        return [part for value in values for part in value.split(",")]

    def value_omitted_from_data(self, data: Mapping[str, Any], files: Any, name: str) -> bool:
        return name not in data


def distinct_values(raw: object) -> list[object]:
    """Stripped, de-duplicated, non-empty values in order (a comma-separated string or a list)."""
    if raw is None:
        return []
    items: list[object] = list(raw) if isinstance(raw, list | tuple) else list(str(raw).split(","))
    seen: dict[object, None] = {}
    for item in items:
        value = item.strip() if isinstance(item, str) else item
        if value is None or value == "":
            continue
        seen.setdefault(value if isinstance(value, str) else str(value), None)
    return list(seen)
