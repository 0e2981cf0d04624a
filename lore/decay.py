"""The decay score (seed 003, docs/decay.md): one SQL expression, on PostgreSQL and SQLite alike.

    days     = days since the last agent open, or since creation for a lesson never opened (never below 0)
    strength = 1 + ln(1 + Chosen) + ln(Recurrence)
    score    = round(100 × 2^(−days / (half_life × strength)))        protected lessons: 100 (immune)

rounded half up, as floor(x + 0.5), so that both databases round alike.

The registry's `max_decay_score` condition, the `coldest` sort and the score the sheet and the API show are all
this expression, so what a preview counts is what a run archives. The half-life is the setting
LORE_DECAY_HALF_LIFE_DAYS (35 days unless configured).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db.models import (
    BigIntegerField,
    Case,
    DateTimeField,
    ExpressionWrapper,
    F,
    FloatField,
    Func,
    IntegerField,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Floor, Greatest, Ln, Power
from django.db.models.lookups import LessThan, LessThanOrEqual

HALF_LIFE_DEFAULT = 35.0
SCORE_MAX = 100
ANNOTATION = "decay_score"
DECAY_INPUTS = ("last_opened_at", "created_at", "opened_count", "seen_count", "protected")  # columns it reads

M = TypeVar("M")


def half_life_days() -> float:
    """The configured half-life in days (LORE_DECAY_HALF_LIFE_DAYS, a positive number; default 35)."""
    value = float(getattr(settings, "LORE_DECAY_HALF_LIFE_DAYS", HALF_LIFE_DEFAULT) or HALF_LIFE_DEFAULT)
    return value if value > 0 else HALF_LIFE_DEFAULT


class DaysSince(Func):
    """Days from `expression` to `now`, as a float (fractions of a day count)."""

    output_field = FloatField()
    arg_joiner = " - "
    template = "(CAST(EXTRACT(EPOCH FROM (%(expressions)s)) AS double precision) / 86400.0)"

    def __init__(self, expression: Any, now: datetime) -> None:
        super().__init__(Value(now, output_field=DateTimeField()), expression)

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(
            compiler,
            connection,
            template="(julianday(%(expressions)s))",
            arg_joiner=") - julianday(",
            **extra,
        )


def last_agent_open(last_open: Any = None) -> Coalesce:
    """When the decay clock started: the last agent open, or creation (the expression of index
    lesson_last_agent_open). `last_open`: another expression of the last open (lore.reads: pending included)."""
    return Coalesce(last_open if last_open is not None else "last_opened_at", "created_at")


def strength_product() -> ExpressionWrapper:
    """(1 + Chosen) × Recurrence (Recurrence at least 1), in bigint: the one number a lesson's strength depends on
    (strength = 1 + ln of it). Lessons of the same product and the same last open have the same score: the kept
    decay cells (lore.value_counts, "h:decay_cell") count lessons per product and last-open day, and the index
    lesson_decay_cells finds the lessons of one cell."""
    chosen = Cast("opened_count", BigIntegerField())
    return ExpressionWrapper(
        (chosen + Value(1)) * Greatest("seen_count", Value(1)), output_field=BigIntegerField()
    )


def decay_score(now: datetime, *, last_open: Any = None, opened: Any = None) -> Case:
    """The score 0–100 of each lesson as of `now`, as a SQL expression; from the stored last open and Chosen
    unless other expressions of them are given (lore.reads.lessons_with_exact_decay: pending reads included)."""
    days = Greatest(DaysSince(last_agent_open(last_open), now), Value(0.0))
    chosen = Cast(opened if opened is not None else F("opened_count"), FloatField())
    recurrence = Cast(Greatest(F("seen_count"), Value(1)), FloatField())
    strength = Value(1.0) + Ln(Value(1.0) + chosen) + Ln(recurrence)
    fraction = Power(Value(2.0), -days / (Value(half_life_days()) * strength), output_field=FloatField())
    return Case(
        When(protected=True, then=Value(SCORE_MAX)),
        default=Cast(Floor(Value(float(SCORE_MAX)) * fraction + Value(0.5)), IntegerField()),
        output_field=IntegerField(),
    )


def days_to_fall_to(value: int) -> float:
    """Days a lesson of strength 1 takes from its last open to a score of `value` or lower; at strength s, s times
    as many (the score is at most `value` exactly when the days since the last open exceed this × strength)."""
    return half_life_days() * math.log2(SCORE_MAX / (value + 0.5))


def decay_score_at_most(value: int, now: datetime) -> Q:
    """Lessons whose score is at most `value`. The second half is implied by the first (strength is at least
    1, so such a lesson has not been opened for a minimum number of days) and lets the
    lesson_last_agent_open index skip every lesson opened more recently."""
    if value >= SCORE_MAX:
        return Q()
    min_days = days_to_fall_to(value)
    # A little looser than the exact bound: rounding must never make the shortcut drop a lesson.
    cutoff = now - timedelta(days=min_days * (1 - 1e-9)) + timedelta(seconds=1)
    return Q(LessThanOrEqual(decay_score(now), value)) & Q(LessThan(last_agent_open(), cutoff))


def lessons_with_decay(qs: QuerySet[M], now: datetime) -> QuerySet[M]:  # type: ignore[type-var]
    """`qs` with each lesson's `decay_score` as of `now`."""
    return qs.annotate(**{ANNOTATION: decay_score(now)})


def lesson_decay_score(lesson: Any, now: datetime) -> int:
    """One lesson's score as of `now`, computed by the database like every other score."""
    return decay_score_of(type(lesson).objects.filter(pk=lesson.pk), now)[lesson.pk]


def decay_score_of(qs: QuerySet[Any], now: datetime) -> dict[int, int]:
    """{lesson id: score} for the lessons of `qs`, as of `now` (one query)."""
    return dict(lessons_with_decay(qs, now).values_list("pk", ANNOTATION))
