"""The audit trail as rows of one lesson each, whether stored per lesson (LessonEvent) or per batch
(LessonEventBatch): what tests compare against."""

from __future__ import annotations

from datetime import datetime

from lore.models import LessonEvent, LessonEventBatch

Row = tuple[int, str, str, int | None, str, datetime]


def audited(lesson_id: int | None = None, **filters: object) -> list[Row]:
    """(lesson_id, action, actor, run_id, detail, at) of every lesson event matching `filters` (fields both
    models have: account, action, actor, run, detail, at), per-lesson and batched alike, by lesson then time;
    with `lesson_id`, that lesson's only."""
    fields = ("action", "actor", "run_id", "detail", "at")
    rows: list[Row] = [
        (lesson_id, *rest)
        for lesson_id, *rest in LessonEvent.objects.filter(**filters).values_list("lesson_id", *fields)
    ]
    for lesson_ids, *rest in LessonEventBatch.objects.filter(**filters).values_list("lesson_ids", *fields):
        rows += [(lesson_id, *rest) for lesson_id in lesson_ids]
    return sorted(
        (row for row in rows if lesson_id is None or row[0] == lesson_id), key=lambda row: (row[0], row[5])
    )
