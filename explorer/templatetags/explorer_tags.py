"""Small formatting filters for the Explorer's templates."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone

register = template.Library()


@register.filter
def thousands(value: object) -> str:
    """12345 → "12,345"."""
    try:
        return f"{int(value):,}"  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return str(value)


@register.filter
def ago(value: datetime | None, empty: str = "never") -> str:
    """A short relative age: "5m ago", "3h ago", "12d ago", "1.4y ago"; `empty` for None."""
    if value is None:
        return empty
    seconds = (timezone.now() - value).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    days = seconds / 86400
    if days < 365:
        return f"{int(days)}d ago"
    return f"{days / 365:.1f}y ago"


@register.filter
def plural(count: object, word: str) -> str:
    """3|plural:"lesson" → "3 lessons"."""
    try:
        n = int(count)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        n = 0
    return f"{n:,} {word}" + ("" if n == 1 else "s")
