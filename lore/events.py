"""The audit trail of lessons, stored two ways and read as one (issue 29).

A change to one lesson (written, pinned, unpinned, imported, restored by hand) is a `LessonEvent` row. An archive
or restore batch is one `LessonEventBatch` row for all its lessons, their ids ascending in a JSON list: at 2,000
lessons a batch, one row and three index entries where a row per lesson wrote 2,000 rows and 8,000 index entries
(bench/archive_parts.py). Archives and restores written per lesson before that are read beside the batches, so
nothing needs converting. Everything that reads the trail by lesson reads it here: a lesson's history (the detail
sheet), the decisions a run's guard respects (lore.candidates), the restores a day undid (lore.rollups), and the
purge, which takes a purged lesson's id out of the batches.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Q, Sum
from django.db.models.expressions import RawSQL

from lore.models import DECISIONS_A_RUN_RESPECTS, Account, LessonEvent, LessonEventBatch

BATCHES = LessonEventBatch._meta.db_table
# The columns the one-statement batch (lore.services) fills, and how it fills them from its changed rows.
BATCH_COLUMNS = (
    "account_id, action, actor, run_id, detail, at, lesson_ids, first_lesson_id, last_lesson_id, lessons"
)
BATCH_FROM_CHANGED = (
    "min(account_id), %s, %s, %s, %s, %s, jsonb_agg(id ORDER BY id), min(id), max(id), count(*)"
)


@dataclass(frozen=True)
class AuditEntry:
    """One line of a lesson's history, from a LessonEvent or from the batch that held the lesson."""

    action: str
    actor: str
    run_id: int | None
    detail: str
    at: datetime


def event_batch_write(
    *,
    account_id: int,
    lesson_ids: Sequence[int],
    action: str,
    actor: str,
    run_id: int | None,
    detail: str,
    now: datetime,
) -> LessonEventBatch | None:
    """One audit row for every lesson of a batch (none for an empty one)."""
    ids = sorted(lesson_ids)
    if not ids:
        return None
    return LessonEventBatch.objects.create(
        account_id=account_id,
        action=action,
        actor=actor,
        run_id=run_id,
        detail=detail,
        at=now,
        lesson_ids=ids,
        first_lesson_id=ids[0],
        last_lesson_id=ids[-1],
        lessons=len(ids),
    )


def _holding(lesson_id: int) -> RawSQL:
    """True for a batch whose ids hold `lesson_id` (after its span has narrowed the rows to a few)."""
    if connection.vendor == "postgresql":
        sql = f'"{BATCHES}"."lesson_ids" @> jsonb_build_array(%s::bigint)'
    else:
        sql = f'EXISTS (SELECT 1 FROM json_each("{BATCHES}"."lesson_ids") WHERE value = %s)'
    return RawSQL(sql, (lesson_id,), output_field=BooleanField())


def batches_holding(account_id: int, lesson_id: int) -> Q:
    """The batch rows of the account that hold the lesson: its span on lessoneventbatch_span, then the ids."""
    return Q(account_id=account_id, first_lesson_id__lte=lesson_id, last_lesson_id__gte=lesson_id) & Q(
        _holding(lesson_id)
    )


def lesson_history(account_id: int, lesson_id: int, *, limit: int) -> list[AuditEntry]:
    """The lesson's `limit` newest audit entries, newest first, from its own events and the batches holding it."""
    fields = ("action", "actor", "run_id", "detail", "at")
    own = LessonEvent.objects.filter(lesson_id=lesson_id).order_by("-at", "-pk").values_list(*fields)[:limit]
    batched = (
        LessonEventBatch.objects.filter(batches_holding(account_id, lesson_id))
        .order_by("-at", "-pk")
        .values_list(*fields)[:limit]
    )
    entries = [AuditEntry(*row) for row in [*own, *batched]]
    return sorted(entries, key=lambda entry: entry.at, reverse=True)[:limit]


def decided_lesson_ids(snapshot: datetime) -> RawSQL:
    """The ids of lessons a restore, an import or an unpin touched after `snapshot`, as one subquery: those logged
    per lesson (LessonEvent) and those logged per batch (LessonEventBatch, its ids unnested), each found through
    its partial `at` index. One subquery, not two ORed: `pk IN (a) OR pk IN (b)` made PostgreSQL read every
    lesson (a run's matched count, 430 ms at 1M), where `pk IN (a UNION ALL b)` joins the few ids found."""
    own, own_params = (
        LessonEvent.objects.filter(action__in=DECISIONS_A_RUN_RESPECTS, at__gt=snapshot)
        .values("lesson_id")
        .query.sql_with_params()
    )
    if connection.vendor == "postgresql":
        unnested = f'SELECT jsonb_array_elements_text("lesson_ids")::bigint FROM "{BATCHES}"'
    else:
        unnested = f'SELECT j.value FROM "{BATCHES}", json_each("{BATCHES}"."lesson_ids") AS j'
    decisions = ", ".join(["%s"] * len(DECISIONS_A_RUN_RESPECTS))
    batched = f'{unnested} WHERE "{BATCHES}"."action" IN ({decisions}) AND "{BATCHES}"."at" > %s'
    batched_params = (*DECISIONS_A_RUN_RESPECTS, connection.ops.adapt_datetimefield_value(snapshot))
    return RawSQL(f"{own} UNION ALL {batched}", (*own_params, *batched_params))


def restored_by_runs(account: Account, start: datetime, end: datetime) -> int:
    """Lessons an undo of a run restored in [start, end): per-lesson events and batches alike."""
    restored = {"account": account, "action": LessonEvent.Action.RESTORED, "run_id__isnull": False}
    window = {"at__gte": start, "at__lt": end}
    own = LessonEvent.objects.filter(**restored, **window).count()
    batched = LessonEventBatch.objects.filter(**restored, **window).aggregate(n=Sum("lessons"))["n"]
    return own + int(batched or 0)


_FORGET_POSTGRESQL = f"""
    WITH meeting AS (
      SELECT id, lesson_ids FROM {BATCHES}
      WHERE account_id = %(account)s AND first_lesson_id <= %(last)s AND last_lesson_id >= %(first)s
    ),
    kept AS (
      SELECT m.id, count(*) FILTER (WHERE e.value::bigint = ANY(%(gone)s::bigint[])) AS gone,
             coalesce(jsonb_agg(e.value ORDER BY e.value::bigint)
                      FILTER (WHERE NOT e.value::bigint = ANY(%(gone)s::bigint[])), '[]'::jsonb) AS ids
      FROM meeting m CROSS JOIN LATERAL jsonb_array_elements(m.lesson_ids) AS e GROUP BY m.id
    ),
    emptied AS (
      DELETE FROM {BATCHES} b USING kept k WHERE b.id = k.id AND k.gone > 0 AND k.ids = '[]'::jsonb RETURNING 1
    )
    UPDATE {BATCHES} b SET lesson_ids = k.ids, first_lesson_id = (k.ids->>0)::bigint,
                           last_lesson_id = (k.ids->>-1)::bigint
    FROM kept k WHERE b.id = k.id AND k.gone > 0 AND k.ids <> '[]'::jsonb
"""
_FORGET_SQLITE = (
    f"""
    UPDATE {BATCHES} SET lesson_ids = (
      SELECT json_group_array(value) FROM (
        SELECT j.value FROM json_each({BATCHES}.lesson_ids) AS j
        WHERE j.value NOT IN (SELECT value FROM json_each(%(gone)s)) ORDER BY j.value
      )
    )
    WHERE account_id = %(account)s AND first_lesson_id <= %(last)s AND last_lesson_id >= %(first)s
      AND EXISTS (SELECT 1 FROM json_each({BATCHES}.lesson_ids) AS j
                  WHERE j.value IN (SELECT value FROM json_each(%(gone)s)))
    """,
    f"DELETE FROM {BATCHES} WHERE account_id = %(account)s AND lesson_ids = '[]'",
    f"""
    UPDATE {BATCHES} SET first_lesson_id = json_extract(lesson_ids, '$[0]'),
                         last_lesson_id = json_extract(lesson_ids, '$[#-1]')
    WHERE account_id = %(account)s AND first_lesson_id <= %(last)s AND last_lesson_id >= %(first)s
      AND (first_lesson_id <> json_extract(lesson_ids, '$[0]') OR last_lesson_id <> json_extract(lesson_ids, '$[#-1]'))
    """,
)


def event_batches_forget(account: Account, lesson_ids: Sequence[int]) -> None:
    """Take purged lessons' ids out of the batches that hold them, in a fixed number of statements; a batch left
    holding none goes. Only the batches whose span meets the purged ids' are read (a few per run that archived
    or restored them)."""
    if not lesson_ids:
        return
    if connection.vendor == "postgresql":
        params: dict[str, Any] = {"gone": list(lesson_ids)}
        statements: tuple[str, ...] = (_FORGET_POSTGRESQL,)
    else:
        params = {"gone": json.dumps(list(lesson_ids))}
        statements = _FORGET_SQLITE
    params |= {"account": account.pk, "first": min(lesson_ids), "last": max(lesson_ids)}
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement, params)
