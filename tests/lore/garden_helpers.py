"""Writing lessons for the gardener's tests through lesson_write (signatures kept), then ageing them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from lore.inputs import LessonInput
from lore.models import Account, Lesson
from lore.services import lesson_write


def write(
    account: Account,
    scope: str,
    key: str,
    content: str,
    *,
    age_days: float = 30,
    opened: int = 0,
    **fields: Any,
) -> Lesson:
    lesson, _ = lesson_write(
        account=account,
        data=LessonInput.from_data({"scope": scope, "key": key, "content": content, **fields}),
    )
    at = timezone.now() - timedelta(days=age_days)
    Lesson.objects.filter(pk=lesson.pk).update(created_at=at, updated_at=at, opened_count=opened)
    lesson.refresh_from_db()
    return lesson
